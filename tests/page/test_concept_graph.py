"""The concept view of the page in the real Chromium (see test_page.py for the set-up): the
entities most cases link to, sized by cases, coloured by type, laid out by fcose; hover shows
counts, a click filters. Checked on the bundled corpus and on a synthetic graph of 320 cases;
screenshots go to artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

from neo4j import Driver
from playwright.sync_api import Page, expect

from incident_graph.graph.admin import reset_data
from incident_graph.graph.synthetic import SyntheticShape, write_synthetic_graph

from .test_page import (  # noqa: F401  (fixtures, used by name)
    base_url,
    browser,
    chips,
    expect_count,
    graphql,
    open_library,
    page,
    page_graph,
    screenshot,
    total,
)

CONCEPTS = """
query($filter: CaseFilter) {
  conceptGraph(filter: $filter, limit: 60) { caseCount concepts { id count } links { source } }
}
"""
SYNTHETIC_CASES = 320

# Pairs of node labels whose boxes overlap, as cytoscape placed them (zoomed to fit).
LABEL_OVERLAPS = """() => {
  const cy = window.incidentLibrary.conceptGraph;
  const boxes = cy.nodes().map(n => n.boundingBox({ includeNodes: false, includeLabels: true }));
  let overlaps = 0;
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) overlaps++;
  }
  return { overlaps, labels: boxes.length };
}"""


def show_concepts(page: Page) -> Any:
    page.click("#view-concepts")
    concepts = page.locator("#concept-graph")
    expect(concepts).to_have_attribute("data-state", "ready")
    expect(page.locator("#graph")).to_be_hidden()
    return concepts


def check_drawing(page: Page, base_url: str, case_filter: dict[str, Any] | None = None) -> dict[str, Any]:
    expected = graphql(base_url, CONCEPTS, {"filter": case_filter})["conceptGraph"]
    concepts = page.locator("#concept-graph")
    assert int(concepts.get_attribute("data-node-count") or 0) == len(expected["concepts"]) > 0
    assert int(concepts.get_attribute("data-edge-count") or 0) == len(expected["links"]) > 0
    drawn = page.evaluate("""() => window.incidentLibrary.conceptGraph.nodes().map(n => ({
        id: n.id(), size: n.width(), colour: n.style('background-color'), label: n.style('label') }))""")
    by_id = {node["id"]: node for node in drawn}
    counts = {concept["id"]: concept["count"] for concept in expected["concepts"]}
    assert set(by_id) == set(counts) and all(node["label"] for node in drawn)
    # Sized by cases: more cases never means a smaller node.
    ordered = sorted(counts, key=counts.get)
    assert all(by_id[a]["size"] <= by_id[b]["size"] for a, b in zip(ordered, ordered[1:]))
    assert by_id[ordered[-1]]["size"] > by_id[ordered[0]]["size"]
    # Coloured by type: one colour per type.
    colours: dict[str, set[str]] = {}
    for node in drawn:
        colours.setdefault(node["id"].split(":")[0], set()).add(node["colour"])
    assert all(len(values) == 1 for values in colours.values()) and len(colours) >= 4
    overlaps = page.evaluate(LABEL_OVERLAPS)
    assert overlaps["overlaps"] <= overlaps["labels"] // 10, overlaps  # labels readable, at most a few touch
    return expected


def hover_the_largest(page: Page) -> dict[str, Any]:
    """Point at the entity with the most cases; the note says how many. Returns it and where it is."""
    target = page.evaluate("""() => {
        const cy = window.incidentLibrary.conceptGraph;
        const node = cy.nodes().sort((a, b) => b.data('count') - a.data('count'))[0];
        const p = node.renderedPosition();
        return { name: node.data('name'), type: node.data('type'), count: node.data('count'), x: p.x, y: p.y };
    }""")
    box = page.locator("#concept-graph").bounding_box()
    assert box is not None
    target["x"], target["y"] = box["x"] + target["x"], box["y"] + target["y"]
    page.mouse.move(target["x"], target["y"])
    expect(page.locator("#graph-note")).to_contain_text(f"{target['name']}, {target['count']} cases")
    return target


def test_the_concept_view_of_the_corpus(page: Page, base_url: str) -> None:
    open_library(page)
    show_concepts(page)
    check_drawing(page, base_url)
    target = hover_the_largest(page)
    screenshot(page, "09-concept-view.png", full_page=False)
    page.mouse.click(target["x"], target["y"])
    key = {"SYMPTOM": "symptoms", "ROOT_CAUSE": "rootCauses", "COMPONENT": "components",
           "CONTRIBUTING_FACTOR": "contributingFactors", "ORGANISATION": "organisations"}[target["type"]]
    expect_count(page, total(base_url, {key: [target["name"]]}))
    assert len(chips(page)) == 1 and chips(page)[0].endswith(f": {target['name']}")
    # The view stays on concepts and recounts with the filter.
    expect(page.locator("#concept-graph")).to_have_attribute("data-state", "ready")
    check_drawing(page, base_url, {key: [target["name"]]})
    screenshot(page, "10-concept-view-filtered.png", full_page=False)
    # Back to the case view.
    page.click("#view-cases")
    expect(page.locator("#graph")).to_have_attribute("data-state", "ready")
    expect(page.locator("#concept-graph")).to_be_hidden()


def test_the_concept_view_of_a_graph_of_320_cases(page: Page, base_url: str, page_graph: Driver) -> None:
    reset_data(page_graph)
    assert write_synthetic_graph(page_graph, SyntheticShape(cases=SYNTHETIC_CASES)) == SYNTHETIC_CASES
    open_library(page)
    expect_count(page, SYNTHETIC_CASES)
    show_concepts(page)
    expected = check_drawing(page, base_url)
    assert expected["caseCount"] == SYNTHETIC_CASES and len(expected["concepts"]) == 60
    hover_the_largest(page)  # still answers the pointer at this size
    screenshot(page, "11-concept-view-320-cases.png", full_page=False)
