"""Entity lookups (search, pagination) and entity fields: aliases, broader/narrower, their cases."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.anyio


async def test_lookup_by_name_then_prefix_then_substring(api):
    data = await api.data('{ symptoms(search: "LOSS") { totalCount edges { node { name } } } }')
    assert data["symptoms"]["totalCount"] == 3
    assert [e["node"]["name"] for e in data["symptoms"]["edges"]] == ["loss spike", "availability loss", "data loss"]


async def test_lookup_matches_aliases(api):
    data = await api.data('{ symptoms(search: "downtime") { edges { node { name aliases } } } }')
    assert data["symptoms"]["edges"] == [{"node": {"name": "service outage", "aliases": ["downtime", "went down"]}}]
    data = await api.data('{ rootCauses(search: "sdc") { edges { node { name } } } }')
    assert [e["node"]["name"] for e in data["rootCauses"]["edges"]] == ["silent data corruption"]


@pytest.mark.parametrize(
    ("field", "names"),
    [
        ("symptoms", ["availability loss", "crash loop", "data loss", "loss spike", "service outage"]),
        ("rootCauses", ["configuration error", "hardware fault", "power failure", "silent data corruption",
                        "software bug"]),
        ("components", ["database", "DNS", "GPU", "training cluster"]),
        ("contributingFactors", ["missing alerting", "no hardware error signal"]),
        ("organisations", ["ByteDance", "Cloudflare", "GitLab", "Meta"]),
    ],
)
async def test_every_lookup_lists_its_type_alphabetically(api, field, names):
    data = await api.data(f"{{ {field}(first: 100) {{ totalCount edges {{ node {{ name type }} }} }} }}")
    assert data[field]["totalCount"] == len(names)
    assert [e["node"]["name"] for e in data[field]["edges"]] == names


async def test_lookup_pages(api):
    query = ('query($after: String) { rootCauses(first: 2, after: $after) { '
             'totalCount pageInfo { hasNextPage endCursor } edges { node { name } } } }')
    names, after = [], None
    while True:
        page = (await api.data(query, {"after": after}))["rootCauses"]
        names += [e["node"]["name"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert names == ["configuration error", "hardware fault", "power failure", "silent data corruption",
                     "software bug"]


async def test_broader_narrower_and_known(api):
    data = await api.data("""{
      symptoms(search: "availability loss") { edges { node {
        name known description broader { name } narrower { name type ... on Symptom { broader { name } } }
      } } }
    }""")
    node = data["symptoms"]["edges"][0]["node"]
    assert node == {
        "name": "availability loss", "known": True, "description": "Group: the service cannot be used.",
        "broader": [],
        "narrower": [{"name": "crash loop", "type": "SYMPTOM", "broader": [{"name": "availability loss"}]},
                     {"name": "service outage", "type": "SYMPTOM", "broader": [{"name": "availability loss"}]}],
    }


async def test_entity_cases_include_narrower_concepts_and_page(api):
    data = await api.data("""{
      rootCauses(search: "hardware fault") { edges { node {
        cases(first: 3) { totalCount pageInfo { hasNextPage endCursor } edges { node { id } } }
      } } }
    }""")
    cases = data["rootCauses"]["edges"][0]["node"]["cases"]
    assert cases["totalCount"] == 4
    assert [e["node"]["id"] for e in cases["edges"]] == [
        "llama-training-interrupts", "gpu-sdc-bytedance", "datacenter-power"]
    assert cases["pageInfo"]["hasNextPage"] is True
    data = await api.data(
        'query($after: String) { rootCauses(search: "hardware fault") { edges { node { '
        'cases(first: 3, after: $after) { pageInfo { hasNextPage } edges { node { id } } } } } } }',
        {"after": cases["pageInfo"]["endCursor"]},
    )
    rest = data["rootCauses"]["edges"][0]["node"]["cases"]
    assert [e["node"]["id"] for e in rest["edges"]] == ["meta-sdc-fleet"]
    assert rest["pageInfo"]["hasNextPage"] is False


async def test_suggest_filters_uses_the_ingest_pipeline(api):
    phrase = "my loss spiked after a GPU fault"
    query = "query($t: String!) { suggestFilters(text: $t) { type name mention start end } }"
    data = await api.data(query, {"t": phrase})
    suggestions = {(s["type"], s["name"]) for s in data["suggestFilters"]}
    assert ("SYMPTOM", "loss spike") in suggestions
    assert ("COMPONENT", "GPU") in suggestions
    for suggestion in data["suggestFilters"]:
        assert phrase[suggestion["start"]:suggestion["end"]] == suggestion["mention"]


async def test_suggest_filters_matches_unnamed_symptoms_by_meaning(api):
    # No taxonomy name or synonym occurs in the words; the graph's "availability loss" is nearest and
    # shares a word with them. Words near a symptom only by the cosine of pruned vectors get nothing.
    phrase = "kernel was patched; the availability was lost in europe"
    query = "query($t: String!) { suggestFilters(text: $t) { type name mention start end confidence } }"
    suggestions = (await api.data(query, {"t": phrase}))["suggestFilters"]
    [by_meaning] = [s for s in suggestions if s["name"] == "availability loss"]
    assert by_meaning["type"] == "SYMPTOM" and 0.75 <= by_meaning["confidence"] < 1.0
    assert phrase[by_meaning["start"]:by_meaning["end"]] == by_meaning["mention"] == "the availability was lost in europe"
    unrelated = (await api.data(query, {"t": "the service was not available"}))["suggestFilters"]
    assert "availability loss" not in {s["name"] for s in unrelated}
