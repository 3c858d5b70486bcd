"""The "What caused this?" view of the page in the real Chromium (see test_page.py for the set-up),
over the bundled corpus: what it lists is checked against what /graphql's `diagnose` answers for
the same words; a screenshot goes to artifacts/screenshots/."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .test_page import (  # noqa: F401  (fixtures, used by name)
    base_url,
    browser,
    chips,
    expect_count,
    ask_in_view,
    graphql,
    open_library,
    page,
    page_graph,
    screenshot,
    total,
)

DIAGNOSE = """
query($text: String!) {
  diagnose(text: $text, first: 5) {
    rootCause { name signs } group { name } supportingCaseCount
    supportingCases { id } evidence { case { id } sentence }
    understoodSymptoms { phrase symptom method }
  }
}
"""
# An analyst's words: one names a taxonomy symptom, the other says the same thing differently.
TYPED = "logins fail for everyone; the site answers with 500 errors after the deploy"
LISTED = "items => items.map(item => [item.dataset.name, Number(item.dataset.count)])"


def test_the_diagnose_view_lists_the_causes_the_api_gives_for_the_analysts_words(page: Page, base_url: str) -> None:
    answer = graphql(base_url, DIAGNOSE, {"text": TYPED})["diagnose"]
    assert answer and answer[0]["understoodSymptoms"], answer
    supported = next(item for item in answer if item["supportingCases"])

    open_library(page, "#diagnose=")
    expect(page.locator("#diagnose-result")).to_have_attribute("data-state", "idle")
    result = ask_in_view(page, "diagnose", TYPED)
    assert page.evaluate("window.incidentLibrary.state.diagnose") == TYPED

    # What was understood, then the causes in the API's order, each with its supporting cases.
    understood = page.locator("#diagnose-understood .matched-name").evaluate_all(
        "items => items.map(item => [item.dataset.phrase, item.dataset.symptom, item.dataset.method])")
    assert understood == [[s["phrase"], s["symptom"], s["method"]] for s in answer[0]["understoodSymptoms"]]
    causes = page.locator("#diagnose-causes .diagnosis")
    assert causes.evaluate_all(LISTED) == [[item["rootCause"]["name"], item["supportingCaseCount"]] for item in answer]
    shown = page.locator(f'#diagnose-causes .diagnosis[data-name="{supported["rootCause"]["name"]}"]')
    assert shown.locator(".stack-cases > li").evaluate_all("items => items.map(item => item.dataset.caseId)") == [
        case["id"] for case in supported["supportingCases"][:3]]
    sentences = {item["case"]["id"]: item["sentence"] for item in supported["evidence"]}
    assert shown.locator(".evidence").all_inner_texts() == [
        sentences[case["id"]] for case in supported["supportingCases"][:3] if case["id"] in sentences]
    if supported["group"]:
        expect(shown.locator(".entity-head")).to_contain_text(f"under {supported['group']['name']}")
    # The taxonomy's signs of each cause that has them, folded until asked for.
    with_signs = next(item for item in answer if item["rootCause"]["signs"])
    signs = page.locator(f'#diagnose-causes .diagnosis[data-name="{with_signs["rootCause"]["name"]}"] .signs')
    signs.locator("summary").click()
    assert signs.locator("li").all_inner_texts() == with_signs["rootCause"]["signs"]
    screenshot(page, "16-diagnose.png", full_page=False)

    # A supporting case opens from the view, and its back link returns to the view.
    shown.locator(".stack-case-title").first.click()
    expect(page.locator("#case-view")).to_have_attribute("data-case-id", supported["supportingCases"][0]["id"])
    expect(page.locator("#diagnose-view")).to_be_hidden()
    page.locator("#case-view .back").click()
    expect(page.locator("#diagnose-view")).to_be_visible()
    expect(result).to_have_attribute("data-state", "ready")

    # A cause filters the library by it.
    causes.first.locator(".entity-link").click()
    expect_count(page, total(base_url, {"rootCauses": [answer[0]["rootCause"]["name"]]}))
    expect(page.locator("#diagnose-view")).to_be_hidden()
    assert chips(page) == [f"Root cause: {answer[0]['rootCause']['name']}"]
