"""The Incident Library page in a real browser: Debian's /usr/bin/chromium driven by Playwright,
against a real uvicorn serving create_app on a free loopback port, over the bundled corpus in a
real Neo4j (plus one hostile write-up for the stored-XSS check).

Every count the page shows is checked against what /graphql answers for the same filter, so the
tests follow the corpus and the extractor rather than hard-coded numbers. Screenshots of the main
views go to artifacts/screenshots/. GraphiQL at /graphql is checked here too: it must render and run a
query without any request beyond this server.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import uvicorn
from neo4j import Driver
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

from incident_graph.api.app import create_app
from incident_graph.config import Settings

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}
TIMEOUT_MS = 60_000  # the first queries against a cold Neo4j on a busy machine can take many seconds
expect.set_options(timeout=TIMEOUT_MS)

# A write-up whose every field carries markup: if any of it ran, window.__xss would be set, an
# <img> would exist, or the Content-Security-Policy would report a blocked inline script.
XSS_CASE_ID = "xss-probe"
XSS_TITLE = "<img src=x onerror=\"window.__xss='title'\"> Markup <script>window.__xss='title-script'</script> in a title"
XSS_WRITEUP = f"""---
title: {XSS_TITLE}
source: javascript:window.__xss='source'
date: 2001-01-01
organisation: <b onmouseover="window.__xss='org'">Evil Corp</b>
---

## Symptoms

The status page showed <img src=x onerror="window.__xss='body'"> while the service outage lasted an hour.
<script>window.__xss='body-script'</script>

## Root cause

- bad configuration change in <script>window.__xss='rc'</script>

## Detection

An engineer saw <iframe src="javascript:window.__xss='iframe'"></iframe> on the dashboard.

## Remediation

- Rolled back <img src=x onerror="window.__xss='remediation'">

## Lessons

Escape <b>everything</b> <svg onload="window.__xss='svg'"></svg>.
"""


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def page_graph(corpus_graph: Driver) -> Driver:
    """The bundled corpus, as `incident-graph ingest` would load it, plus the hostile write-up."""
    from incident_graph.ingest.ingestion import ingest_writeups
    from incident_graph.ingest.readers import writeup_from_text

    driver = corpus_graph
    hostile = ingest_writeups(driver, [writeup_from_text(XSS_WRITEUP, "xss-probe.md", XSS_CASE_ID)])
    assert hostile.failed == [] and hostile.added == [XSS_CASE_ID]
    return driver


@pytest.fixture(scope="module")
def base_url(page_graph: Driver, neo4j_settings: Settings) -> Iterator[str]:
    """A real uvicorn on 127.0.0.1 and a free port, in a background thread."""
    app = create_app(neo4j_settings, driver=page_graph)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="page-test-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped while starting"
        assert time.monotonic() < deadline, "uvicorn did not start within 30 s"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not stop"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is missing: run `make browser` (apt-get install chromium chromium-driver)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Problems:
    """What the page reported on its own: uncaught errors, console errors, CSP violations."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        page.on("console", lambda message: self.errors.append(f"console: {message.text}")
                if message.type == "error" else None)


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    context = browser.new_context(viewport=VIEWPORT, base_url=base_url)
    context.set_default_timeout(TIMEOUT_MS)
    # Runs before the page's own scripts (and outside its CSP): records blocked inline code.
    context.add_init_script(
        "window.__csp = [];"
        "document.addEventListener('securitypolicyviolation', e => window.__csp.push("
        "e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));"
    )
    page = context.new_page()
    problems = Problems(page)
    try:
        yield page
        assert page.evaluate("window.__csp") == [], "the page broke its own Content-Security-Policy"
        assert problems.errors == [], problems.errors
    finally:
        context.close()


# ------------------------------------------------------------------ helpers


def graphql(base_url: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    response = httpx.post(f"{base_url}/graphql", json={"query": query, "variables": variables or {}}, timeout=60)
    body = response.json()
    assert response.status_code == 200 and "errors" not in body, body
    return body["data"]


def total(base_url: str, case_filter: dict[str, Any] | None) -> int:
    data = graphql(base_url, "query($f: CaseFilter) { cases(filter: $f) { totalCount } }", {"f": case_filter})
    return data["cases"]["totalCount"]


def open_library(page: Page, fragment: str = "") -> None:
    page.goto(f"/{fragment}")
    wait_for_list(page)


def ask_in_view(page: Page, view: str, typed: str) -> Locator:
    """Open the view `view` (stack, diagnose) from the header, type into its form and send it: its
    result, once ready."""
    open_library(page)
    page.click(f"#{view}-link")
    expect(page.locator(f"#{view}-view")).to_be_visible()
    expect(page.locator("#library-view")).to_be_hidden()
    page.fill(f"#{view}-input", typed)
    page.click(f"#{view}-form button[type=submit]")
    result = page.locator(f"#{view}-result")
    expect(result).to_have_attribute("data-state", "ready")
    return result


def wait_for_list(page: Page) -> None:
    expect(page.locator("#case-list")).to_have_attribute("data-state", "ready")


def shown_count(page: Page) -> int:
    return int(page.locator("#case-count").get_attribute("data-count") or "-1")


def expect_count(page: Page, count: int) -> None:
    expect(page.locator("#case-count")).to_have_attribute("data-count", str(count))
    wait_for_list(page)


def wait_for_graph(page: Page) -> None:
    expect(page.locator("#graph")).to_have_attribute("data-state", "ready")


def screenshot(page: Page, name: str, full_page: bool = True) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=full_page)


def chips(page: Page) -> list[str]:
    """The applied filters as `Type: value` (their text as stored, not as styled)."""
    return page.locator("#chips .chip").evaluate_all(
        "chips => chips.map(c => c.querySelector('.chip-type').textContent + ': ' + c.querySelector('.chip-name').textContent)"
    )


def facet_button(page: Page, facet: str, name: str):
    return page.locator(f'#facets [data-facet="{facet}"] button.facet-value[data-name="{name}"]')


# ------------------------------------------------------------------ tests


def test_page_is_served_with_a_strict_content_security_policy(base_url: str) -> None:
    page = httpx.get(f"{base_url}/", timeout=30)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "default-src 'none'" in policy
    assert "<script>" not in page.text  # no inline script: every script has a src
    for path, kind in (("/static/app.js", "javascript"), ("/static/app.css", "css"),
                       ("/static/vendor/cytoscape.min.js", "javascript"),
                       ("/static/vendor/chart.umd.min.js", "javascript")):
        response = httpx.get(f"{base_url}{path}", timeout=30)
        assert response.status_code == 200, (path, "run `make vendor`")
        assert kind in response.headers["content-type"]
        assert response.headers["x-content-type-options"] == "nosniff"
    # The API is still where it was.
    assert httpx.get(f"{base_url}/healthz", timeout=30).json()["status"] == "ok"
    assert graphql(base_url, "{ cases { totalCount } }")["cases"]["totalCount"] > 40


def test_facets_chips_clear_all_and_paging(page: Page, base_url: str) -> None:
    everything = total(base_url, None)
    open_library(page)
    expect_count(page, everything)
    expect(page.locator("#case-list > li")).to_have_count(20)
    expect(page.locator("#page-range")).to_have_text(f"1 to 20 of {everything}")
    wait_for_graph(page)
    screenshot(page, "01-library.png")

    # Newest first, as the API orders them.
    newest = graphql(base_url, "{ cases(first: 3) { edges { node { title } } } }")["cases"]["edges"]
    assert page.locator("#case-list .case-title").all_inner_texts()[:3] == [e["node"]["title"] for e in newest]

    # Paging with cursors.
    page.click("#next-page")
    expect(page.locator("#page-range")).to_have_text(f"21 to 40 of {everything}")
    page.click("#prev-page")
    expect(page.locator("#page-range")).to_have_text(f"1 to 20 of {everything}")

    # A symptom facet: the count becomes the facet's count and what the API says.
    facets = graphql(base_url, "{ cases { facets { symptoms { name count } organisations { name count } } } }")
    symptom = facets["cases"]["facets"]["symptoms"][0]
    facet_button(page, "symptoms", symptom["name"]).click()
    expect_count(page, symptom["count"])
    assert symptom["count"] == total(base_url, {"symptoms": [symptom["name"]]}) < everything
    assert chips(page) == [f"Symptom: {symptom['name']}"]
    expect(facet_button(page, "symptoms", symptom["name"])).to_have_attribute("aria-pressed", "true")

    # An organisation among those cases: across types, filters combine with AND.
    inner = graphql(base_url, "query($f: CaseFilter) { cases(filter: $f) { facets { organisations { name count } } } }",
                    {"f": {"symptoms": [symptom["name"]]}})["cases"]["facets"]["organisations"]
    organisation = inner[0]
    facet_button(page, "organisations", organisation["name"]).click()
    both = {"symptoms": [symptom["name"]], "organisations": [organisation["name"]]}
    expect_count(page, total(base_url, both))
    assert len(chips(page)) == 2
    wait_for_graph(page)
    screenshot(page, "02-filtered-by-facets.png")

    # Remove the symptom chip: only the organisation filter is left.
    page.locator("#chips .chip.type-SYMPTOM .chip-remove").click()
    expect_count(page, total(base_url, {"organisations": [organisation["name"]]}))
    assert chips(page) == [f"Organisation: {organisation['name']}"]

    # Clear all.
    page.click("#clear-all")
    expect_count(page, everything)
    expect(page.locator("#chips .chip")).to_have_count(0)
    expect(page.locator("#clear-all")).to_be_hidden()

    # The filters live in the URL: a reload shows the same view.
    facet_button(page, "symptoms", symptom["name"]).click()
    expect_count(page, symptom["count"])
    page.reload()
    expect_count(page, symptom["count"])
    assert len(chips(page)) == 1


def test_search_suggests_filters_and_finds_text(page: Page, base_url: str) -> None:
    phrase = "loss spike on GPUs"
    expected = graphql(base_url, "query($t: String!) { suggestFilters(text: $t) { type name } }", {"t": phrase})
    suggested = [(s["type"], s["name"]) for s in expected["suggestFilters"]]
    assert ("SYMPTOM", "loss spike") in suggested

    open_library(page)
    page.locator("#search").press_sequentially(phrase, delay=10)
    suggestions = page.locator("#suggestion-list button.suggestion")
    expect(suggestions).to_have_count(len(suggested))
    assert [(b.get_attribute("data-type"), b.get_attribute("data-name")) for b in suggestions.all()] == suggested
    expect(page.locator("#text-matches")).to_be_visible()
    matches = total(base_url, {"text": phrase})
    expect(page.locator("#text-match-count")).to_have_text(str(matches))
    assert matches > 0
    expect(page.locator("#text-match-list a")).to_have_count(min(matches, 5))
    screenshot(page, "03-search-suggestions.png", full_page=False)

    # Click a suggestion: it becomes a filter.
    page.locator('#suggestion-list button.suggestion[data-name="loss spike"]').click()
    expect_count(page, total(base_url, {"symptoms": ["loss spike"]}))
    assert chips(page) == ["Symptom: loss spike"]

    # Enter runs a full-text search: a Text chip, the API's count, best match first.
    page.click("#clear-all")
    page.fill("#search", "leap second")
    page.press("#search", "Enter")
    expect_count(page, total(base_url, {"text": "leap second"}))
    assert shown_count(page) > 0
    expect(page.locator("#chips .chip.type-TEXT")).to_contain_text("leap second")
    expect(page.locator("#order-note")).to_have_text("best match first")
    first_hit = graphql(base_url, '{ cases(filter: {text: "leap second"}, first: 1) { edges { node { title } } } }')
    expect(page.locator("#case-list .case-title").first).to_have_text(first_hit["cases"]["edges"][0]["node"]["title"])

    # Words that name no taxonomy concept still find cases, by meaning (casesLike), in the API's order.
    plain = "devices froze on the extra day at the end of february"
    assert graphql(base_url, "query($t: String!) { suggestFilters(text: $t) { name } }", {"t": plain}) == {
        "suggestFilters": []}
    like = graphql(base_url, "query($t: String!) { casesLike(text: $t, first: 5) { edges { node { case { id } } } } }",
                   {"t": plain})["casesLike"]["edges"]
    assert like
    page.fill("#search", "")
    page.locator("#search").press_sequentially(plain, delay=5)
    # (the box may still show the answer for the phrase before: wait for this one's first case)
    expect(page.locator("#like-match-list li").first).to_have_attribute("data-case-id", like[0]["node"]["case"]["id"])
    expect(page.locator("#like-match-list li")).to_have_count(len(like))
    assert [li.get_attribute("data-case-id") for li in page.locator("#like-match-list li").all()] == [
        edge["node"]["case"]["id"] for edge in like]


CASE_DETAIL = """
query($id: ID!) { case(id: $id) {
  title detection lessons remediation
  symptoms { entity { name } evidence { mention } }
  rootCauses { entity { name } evidence { mention } }
  components { entity { name } evidence { mention } }
  contributingFactors { entity { name } evidence { mention } }
  organisations { entity { name } evidence { mention } }
} }
"""


def test_case_page_sections_entities_and_evidence(page: Page, base_url: str) -> None:
    newest = graphql(base_url, "{ cases(first: 1) { edges { node { id title } } } }")["cases"]["edges"][0]["node"]
    detail = graphql(base_url, CASE_DETAIL, {"id": newest["id"]})["case"]

    open_library(page)
    page.locator("#case-list .case-title").first.click()
    view = page.locator("#case-view")
    expect(view).to_have_attribute("data-state", "ready")
    expect(view.locator("h2.case-heading")).to_have_text(newest["title"])
    headings = view.locator(".case-section > h3").all_inner_texts()
    for wanted in ("Symptoms", "Root cause", "Component", "Contributing factor", "Detection", "Remediation", "Lessons"):
        assert any(heading.startswith(wanted) for heading in headings), (wanted, headings)
    expect(view.locator(".case-section.remediation li")).to_have_count(len(detail["remediation"]))
    expect(view.locator(".case-section.lessons")).to_contain_text(detail["lessons"].split()[0])

    # Every entity is a link, with its evidence sentence and the mention marked in it.
    for key, css in (("symptoms", "symptoms"), ("rootCauses", "root-causes"), ("components", "components"),
                     ("contributingFactors", "contributing-factors")):
        items = view.locator(f".case-section.{css} .entity-item")
        expect(items).to_have_count(len(detail[key]))
        for link in detail[key]:
            item = view.locator(f'.case-section.{css} .entity-item[data-name="{link["entity"]["name"]}"]')
            expect(item.locator("button.entity-link")).to_have_text(link["entity"]["name"])
            marked = item.locator("blockquote.evidence mark")
            expect(marked).to_have_count(1)
            assert " ".join(marked.inner_text().split()) == " ".join(link["evidence"]["mention"].split())
    screenshot(page, "04-case-page.png")

    # Similar cases, as similarCases ranks them, each saying how close in meaning.
    similar = graphql(base_url, "query($id: ID!) { similarCases(id: $id, first: 5) { edges { node { case { id } } } } }",
                      {"id": newest["id"]})["similarCases"]["edges"]
    assert similar
    items = view.locator(".case-section.similar li")
    assert [li.get_attribute("data-case-id") for li in items.all()] == [edge["node"]["case"]["id"] for edge in similar]
    expect(items.first).to_contain_text("meaning")

    # An entity link filters the library by that entity.
    cause = detail["rootCauses"][0]["entity"]["name"]
    view.locator(f'.case-section.root-causes button.entity-link[data-name="{cause}"]').click()
    expect(view).to_be_hidden()
    expect_count(page, total(base_url, {"rootCauses": [cause]}))
    assert chips(page) == [f"Root cause: {cause}"]

    # The back button returns to the case, and "All cases" leaves it.
    page.go_back()
    expect(view.locator("h2.case-heading")).to_have_text(newest["title"])
    view.locator("button.back").click()
    expect(view).to_be_hidden()
    expect(page.locator("#library-view")).to_be_visible()


def test_graph_renders_and_a_node_click_filters(page: Page, base_url: str) -> None:
    open_library(page)
    wait_for_graph(page)
    graph = page.locator("#graph")
    expect(graph.locator("canvas").first).to_be_attached()
    expected = graphql(base_url, "{ subgraph(limit: 30) { nodes { id type } edges { source } } }")["subgraph"]
    assert int(graph.get_attribute("data-node-count") or 0) == len(expected["nodes"]) > 0
    assert int(graph.get_attribute("data-edge-count") or 0) == len(expected["edges"]) > 0
    assert page.evaluate("window.incidentLibrary.graph.nodes().length") == len(expected["nodes"])
    expect(page.locator("#legend .legend-item")).to_have_text(
        ["Symptom", "Root cause", "Component", "Contributing factor", "Organisation", "Case"])
    # Nodes are coloured by type, as in the legend.
    colours = page.evaluate("""() => {
        const cy = window.incidentLibrary.graph, seen = {};
        cy.nodes().forEach(n => { seen[n.data('type')] = n.style('background-color'); });
        return seen;
    }""")
    assert len(set(colours.values())) == len(colours) >= 5

    # Bring the most connected root cause that no other node covers to the middle (as a user would
    # zoom in to one they can point at), then click it.
    target = page.evaluate("""() => {
        const cy = window.incidentLibrary.graph;
        const covered = (node, p) => cy.nodes().not(node).some(other => {
            const box = other.renderedBoundingBox({ includeLabels: false });
            return p.x >= box.x1 && p.x <= box.x2 && p.y >= box.y1 && p.y <= box.y2;
        });
        cy.zoom(1.6);
        for (const node of cy.nodes('[type = "ROOT_CAUSE"]').sort((a, b) => b.degree() - a.degree())) {
            cy.center(node);
            const p = node.renderedPosition();
            if (!covered(node, p)) return { name: node.data('name'), x: p.x, y: p.y };
        }
        return null;
    }""")
    assert target is not None, "every root cause is covered by another node"
    box = graph.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + target["x"], box["y"] + target["y"])
    expect(page.locator("#graph-note")).to_contain_text(target["name"])
    screenshot(page, "05-graph-hover.png", full_page=False)
    page.mouse.click(box["x"] + target["x"], box["y"] + target["y"])
    expect_count(page, total(base_url, {"rootCauses": [target["name"]]}))
    assert chips(page) == [f"Root cause: {target['name']}"]
    wait_for_graph(page)
    filtered = graphql(base_url, "query($f: CaseFilter) { subgraph(filter: $f, limit: 30) { nodes { id } } }",
                       {"f": {"rootCauses": [target["name"]]}})["subgraph"]["nodes"]
    expect(graph).to_have_attribute("data-node-count", str(len(filtered)))
    screenshot(page, "06-graph-filtered-by-node.png")


def test_stored_markup_is_shown_as_text_and_never_runs(page: Page, base_url: str) -> None:
    case = graphql(base_url, "query($id: ID!) { case(id: $id) { title source } }", {"id": XSS_CASE_ID})["case"]
    assert case["title"] == XSS_TITLE  # stored as written

    # In the list (a text search finds it) ...
    open_library(page, "#text=Markup")
    title_link = page.locator(f'#case-list .case-item[data-case-id="{XSS_CASE_ID}"] .case-title')
    expect(title_link).to_have_text(XSS_TITLE)
    # ... in the facets and the graph ...
    wait_for_graph(page)
    # ... and on its case page.
    title_link.click()
    view = page.locator("#case-view")
    expect(view).to_have_attribute("data-state", "ready")
    expect(view.locator("h2.case-heading")).to_have_text(XSS_TITLE)
    expect(view.locator(".case-section.symptoms .prose")).to_contain_text("<img src=x onerror=")
    expect(view.locator(".case-section.symptoms .prose")).to_contain_text("<script>window.__xss='body-script'</script>")
    expect(view.locator(".case-section.remediation")).to_contain_text("<img src=x onerror=")
    expect(view.locator(".case-section.lessons")).to_contain_text("<b>everything</b>")
    view.locator("details.full-text summary").click()
    expect(view.locator("pre.write-up")).to_contain_text("<svg onload=")
    # The javascript: source is not a link.
    expect(view.locator(".source")).to_have_text(case["source"])
    assert view.locator(".source").evaluate("node => node.tagName") == "SPAN"
    page.mouse.move(10, 10)
    screenshot(page, "07-stored-markup-shown-as-text.png")

    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.evaluate("document.querySelectorAll('img, iframe, svg, b, #case-view script').length") == 0
    assert page.evaluate("document.querySelectorAll('a[href^=\"javascript:\"]').length") == 0
    body_html = page.evaluate("document.getElementById('case-view').innerHTML")
    assert "<img" not in body_html and "&lt;img src=x onerror=" in body_html
    assert re.search(r"<script", body_html) is None


# ------------------------------------------------------------------ GraphiQL at /graphql


def record_other_hosts(page: Page, base_url: str) -> list[str]:
    """Aborts, and lists, every request the page makes to anything but this server (GraphiQL must
    work offline, so nothing may come from a CDN)."""
    outside: list[str] = []

    def route(route: Any) -> None:
        url = route.request.url
        if url.startswith(f"{base_url}/") or url.startswith("data:"):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    page.route("**/*", route)
    page.on("websocket", lambda socket: outside.append(socket.url))
    return outside


def wait_for_graphiql(page: Page) -> None:
    expect(page.locator("#graphiql")).to_have_attribute("data-state", "ready")
    expect(page.locator(".graphiql-query-editor .CodeMirror")).to_be_visible()


def test_graphiql_works_offline(page: Page, base_url: str) -> None:
    outside = record_other_hosts(page, base_url)
    page.goto("/graphql")
    wait_for_graphiql(page)
    expect(page.locator(".graphiql-query-editor")).to_contain_text("cases(first: 5)")

    # The default query, run from the play button, answers from this server's graph.
    page.locator("button.graphiql-execute-button").click()
    everything = total(base_url, None)
    response = page.locator(".graphiql-response")
    expect(response).to_contain_text("totalCount")
    expect(response).to_contain_text(f'"totalCount": {everything}')
    screenshot(page, "08-graphiql-offline.png", full_page=False)

    # ?q= opens GraphiQL on that query (?query= would be a GraphQL GET request, answered with JSON).
    page.goto("/graphql?q=" + quote("{ cases(first: 1) { totalCount } }"))
    wait_for_graphiql(page)
    expect(page.locator(".graphiql-query-editor")).to_contain_text("cases(first: 1)")
    page.locator(".graphiql-query-editor .CodeMirror").click()
    page.keyboard.press("Control+Enter")  # the keyboard shortcut this time
    expect(response).not_to_contain_text("edges")  # this query's answer, not the previous one
    expect(response).to_contain_text(f'"totalCount": {everything}')

    assert outside == [], f"GraphiQL reached beyond this server: {outside}"
