"""The trends chart and the "Check your stack" view of the page in the real Chromium (see
test_page.py for the set-up), over the bundled corpus. What the chart draws and what the stack view
lists are checked against what /graphql answers for the same arguments; screenshots go to
artifacts/screenshots/."""

from __future__ import annotations

from datetime import date
from typing import Any

from playwright.sync_api import Page, TimeoutError as PlaywrightTimeout, expect

from .test_page import (  # noqa: F401  (fixtures, used by name)
    ask_in_view,
    base_url,
    browser,
    chips,
    expect_count,
    facet_button,
    graphql,
    open_library,
    page,
    page_graph,
    screenshot,
    total,
)

TRENDS = """
query($filter: CaseFilter, $groupBy: EntityType!, $interval: TrendInterval!) {
  trends(filter: $filter, groupBy: $groupBy, interval: $interval, first: 6) {
    periods totals edges { node { entity { name } counts } }
  }
}
"""

# What the chart on screen draws: its periods, and per dataset its name, values and points.
DRAWN = """() => {
  const chart = window.incidentLibrary.trendsChart;
  if (!chart) return null;
  return {
    labels: chart.data.labels,
    datasets: chart.data.datasets.map((dataset, index) => ({
      label: dataset.label, data: dataset.data, points: chart.getDatasetMeta(index).data.length })),
  };
}"""


def expected_chart(base_url: str, case_filter: dict[str, Any] | None, group_by: str = "ROOT_CAUSE",
                   interval: str = "YEAR") -> dict[str, Any]:
    """The chart the page should draw: each series of `trends`, then the totals, a point per period."""
    trends = graphql(base_url, TRENDS, {"filter": case_filter, "groupBy": group_by, "interval": interval})["trends"]
    periods = len(trends["periods"])
    series = [(edge["node"]["entity"]["name"], edge["node"]["counts"]) for edge in trends["edges"]]
    return {
        "labels": trends["periods"],
        "datasets": [{"label": name, "data": counts, "points": periods}
                     for name, counts in [*series, ("All cases", trends["totals"])]],
    }


def expect_chart(page: Page, expected: dict[str, Any]) -> None:
    """Wait until the chart draws `expected` (a recount is asynchronous), then compare."""
    try:
        page.wait_for_function(f"expected => JSON.stringify(({DRAWN})()) === JSON.stringify(expected)", arg=expected)
    except PlaywrightTimeout:
        pass  # the assertion below says what differs
    expect(page.locator("#trend-chart")).to_have_attribute("data-state", "ready")
    assert page.evaluate(DRAWN) == expected


def show_trends(page: Page) -> None:
    page.locator("#trends-card").scroll_into_view_if_needed()


def test_the_trends_chart_recounts_with_the_filters(page: Page, base_url: str) -> None:
    open_library(page)
    everything = expected_chart(base_url, None)
    assert len(everything["datasets"]) > 2 and len(everything["labels"]) > 5
    assert sum(everything["datasets"][-1]["data"]) > 40  # the totals: most of the corpus is dated
    expect_chart(page, everything)
    assert page.locator("#trend-group").input_value() == "ROOT_CAUSE"
    show_trends(page)
    screenshot(page, "12-trends-chart.png", full_page=False)

    # A component facet: the chart recounts the cases of that component only.
    component = graphql(base_url, "{ cases { facets { components { name count } } } }")["cases"]["facets"]["components"][0]
    facet_button(page, "components", component["name"]).click()
    expect_count(page, total(base_url, {"components": [component["name"]]}))
    filtered = expected_chart(base_url, {"components": [component["name"]]})
    assert filtered != everything
    assert sum(filtered["datasets"][-1]["data"]) < sum(everything["datasets"][-1]["data"])
    expect_chart(page, filtered)
    show_trends(page)
    screenshot(page, "13-trends-filtered.png", full_page=False)

    # The selectors: symptoms per month (in the last twenty years), still for the component.
    page.select_option("#trend-group", "SYMPTOM")
    page.select_option("#trend-interval", "MONTH")
    since = f"{date.today().year - 19}-01-01"
    expect(page.locator("#trend-chart")).to_have_attribute("data-published-from", since)
    monthly = {"components": [component["name"]], "publishedFrom": since}
    by_month = expected_chart(base_url, monthly, "SYMPTOM", "MONTH")
    assert len(by_month["labels"]) > len(filtered["labels"]) and by_month["labels"][0] >= since[:7]
    expect_chart(page, by_month)

    # Clicking a series' highest point filters by that symptom as well.
    point = page.evaluate("""() => {
        const chart = window.incidentLibrary.trendsChart;
        const values = chart.data.datasets[0].data;
        const element = chart.getDatasetMeta(0).data[values.indexOf(Math.max(...values))];
        return { name: chart.data.datasets[0].label, x: element.x, y: element.y };
    }""")
    box = page.locator("#trend-canvas").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])
    both = {"components": [component["name"]], "symptoms": [point["name"]]}
    expect_count(page, total(base_url, both))
    assert sorted(chips(page)) == sorted([f"Component: {component['name']}", f"Symptom: {point['name']}"])
    expect_chart(page, expected_chart(base_url, {**both, "publishedFrom": since}, "SYMPTOM", "MONTH"))


STACK = """
query($components: [String!]!) {
  stackReview(components: $components, first: 10) {
    components { asked method component { name } }
    unknown caseCount lessonCount
    rootCauses { entity { name } caseCount cases { case { id } evidence { sentence } } }
    contributingFactors { entity { name } caseCount }
  }
}
"""
UNKNOWN_NAME = "zorblax-9000"  # no component's name, and no word vector to match by meaning
BY_MEANING = "our payments databases"  # no component's name or alias, but near one (database) in meaning
LISTED = "items => items.map(item => [item.dataset.name, Number(item.dataset.count)])"


def test_the_stack_view_lists_what_past_cases_of_a_stack_teach(page: Page, base_url: str) -> None:
    counts = graphql(base_url, "{ counts(by: COMPONENT, first: 1) { edges { node { entity { name } } } } }")
    component = counts["counts"]["edges"][0]["node"]["entity"]["name"]
    typed = f"{component}, {BY_MEANING}, {UNKNOWN_NAME}"
    review = graphql(base_url, STACK, {"components": [component, BY_MEANING, UNKNOWN_NAME]})["stackReview"]
    assert review["unknown"] == [UNKNOWN_NAME] and review["rootCauses"] and review["caseCount"] > 0
    assert [item["method"] for item in review["components"]] == ["name", "meaning"]

    result = ask_in_view(page, "stack", typed)
    assert page.evaluate("window.incidentLibrary.state.stack") == typed

    # Which component each name was matched to, and the name the graph does not know.
    matched = page.locator("#stack-matched .matched-name").evaluate_all(
        "items => items.map(item => [item.dataset.asked, item.dataset.component, item.dataset.method])")
    assert matched == [[item["asked"], item["component"]["name"], item["method"]] for item in review["components"]]
    assert matched[0] == [component, component, "name"]
    meaning = review["components"][1]["component"]["name"]
    expect(page.locator("#stack-matched .matched-name").nth(1)).to_contain_text(f"{BY_MEANING} → {meaning} (by meaning, ")
    assert page.locator("#stack-unknown .unknown-name").all_inner_texts() == [UNKNOWN_NAME]
    expect(page.locator("#stack-summary")).to_have_attribute("data-count", str(review["caseCount"]))

    # Root causes and contributing factors with their counts, in the API's order.
    causes = page.locator("#stack-root-causes .stack-finding")
    assert causes.evaluate_all(LISTED) == [[f["entity"]["name"], f["caseCount"]] for f in review["rootCauses"]]
    assert page.locator("#stack-factors .stack-finding").evaluate_all(LISTED) == [
        [f["entity"]["name"], f["caseCount"]] for f in review["contributingFactors"]]
    expect(page.locator("#stack-lessons h3 .count")).to_have_text(str(review["lessonCount"]))
    # Each finding's newest cases with the evidence sentence.
    first = review["rootCauses"][0]
    shown_cases = causes.first.locator(".stack-cases > li")
    assert shown_cases.evaluate_all("items => items.map(item => item.dataset.caseId)") == [
        item["case"]["id"] for item in first["cases"][:3]]
    evidence = [item["evidence"]["sentence"] for item in first["cases"][:3] if item["evidence"]["sentence"]]
    assert causes.first.locator(".evidence").all_inner_texts() == evidence
    screenshot(page, "14-stack-review.png", full_page=False)

    # A case opens from the view, and its back link returns to the view.
    causes.first.locator(".stack-case-title").first.click()
    expect(page.locator("#case-view")).to_have_attribute("data-case-id", first["cases"][0]["case"]["id"])
    expect(page.locator("#case-view")).to_have_attribute("data-state", "ready")
    expect(page.locator("#stack-view")).to_be_hidden()
    page.locator("#case-view .back").click()
    expect(page.locator("#stack-view")).to_be_visible()
    expect(result).to_have_attribute("data-state", "ready")

    # A root cause filters the library by it.
    page.locator("#stack-root-causes .stack-finding").first.locator(".entity-link").click()
    expect_count(page, total(base_url, {"rootCauses": [first["entity"]["name"]]}))
    expect(page.locator("#stack-view")).to_be_hidden()
    assert chips(page) == [f"Root cause: {first['entity']['name']}"]
