"""`conceptGraph` over the example graph (tests/api/example.py) in the real Neo4j: the entities most
cases link to, their counts, the links of shared cases, the filter and the bounds."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.anyio

CONCEPTS = """
query($filter: CaseFilter, $limit: Int) {
  conceptGraph(filter: $filter, limit: $limit) {
    caseCount
    concepts { id count entity { __typename name } }
    links { source target sharedCases }
  }
}
"""


async def test_the_most_linked_entities_and_the_cases_they_share(api):
    graph = (await api.data(CONCEPTS, {"limit": 3}))["conceptGraph"]
    assert graph["caseCount"] == 7
    assert [(c["id"], c["count"]) for c in graph["concepts"]] == [
        ("Component:GPU", 3), ("Symptom:loss spike", 3), ("Symptom:service outage", 3)]
    assert graph["concepts"][0]["entity"] == {"__typename": "Component", "name": "GPU"}
    assert [({link["source"], link["target"]}, link["sharedCases"]) for link in graph["links"]] == [
        ({"Component:GPU", "Symptom:loss spike"}, 2)]


async def test_the_concepts_follow_the_filter(api):
    graph = (await api.data(CONCEPTS, {"filter": {"rootCauses": ["configuration error"]}}))["conceptGraph"]
    assert graph["caseCount"] == 2
    counts = {c["id"]: c["count"] for c in graph["concepts"]}
    assert counts["RootCause:configuration error"] == 2 and counts["Symptom:service outage"] == 2
    assert counts["Component:DNS"] == 1 and "Component:GPU" not in counts
    ids = set(counts)
    assert all(link["source"] in ids and link["target"] in ids for link in graph["links"])
    shared = {frozenset((link["source"], link["target"])): link["sharedCases"] for link in graph["links"]}
    assert shared[frozenset(("RootCause:configuration error", "Symptom:service outage"))] == 2


@pytest.mark.parametrize("limit", [0, 151])
async def test_the_limit_is_bounded(api, limit):
    body = await api.post(CONCEPTS, {"limit": limit})
    [error] = body["errors"]
    assert "`limit` must be between 1 and 150" in error["message"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
