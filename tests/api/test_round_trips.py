"""Each request runs a bounded number of Cypher queries, whatever the size of its answer (no N+1)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from incident_graph.api.app import create_app

pytestmark = pytest.mark.anyio

# Five levels of nesting through cases, their links, the linked entities, their broader concepts
# and *their* cases, and those cases' links again.
DEEP = """
query($first: Int) {
  cases(first: $first) {
    totalCount
    pageInfo { hasNextPage }
    edges { node {
      id title publishedOn
      symptoms { evidence { confidence } entity {
        name
        broader { name }
        narrower { name }
        cases(first: 5) { totalCount edges { node { title rootCauses { entity { name } } } } }
      } }
      rootCauses { entity { name } }
      components { entity { name } }
    } }
    facets { symptoms { name count } }
  }
}
"""

# One query for each: count, page, facets, case records, case links, broader+narrower, the
# entities' cases, and then, for cases the first level did not already load, records and links.
MAX_ROUND_TRIPS = 9


class QueryLog:
    """An app's query trace (create_app(trace=...)): every Cypher query the app runs is kept."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def __call__(self, query: str, parameters: dict[str, Any]) -> None:
        self.queries.append(query)


async def round_trips(driver: Any, settings: Any, query: str, variables: dict[str, Any]) -> tuple[int, dict]:
    log = QueryLog()
    app = create_app(settings, None, driver=driver, trace=log)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        response = await http.post("/graphql", json={"query": query, "variables": variables})
    body = response.json()
    assert "errors" not in body, body
    return len(log.queries), body["data"]


def nodes_in(data: Any) -> int:
    if isinstance(data, dict):
        return 1 + sum(nodes_in(value) for value in data.values())
    if isinstance(data, list):
        return sum(nodes_in(value) for value in data)
    return 0


async def test_deep_query_runs_a_bounded_number_of_queries_for_2_or_7_cases(example_graph, neo4j_settings):
    small, small_data = await round_trips(example_graph, neo4j_settings, DEEP, {"first": 2})
    large, large_data = await round_trips(example_graph, neo4j_settings, DEEP, {"first": 7})
    assert len(small_data["cases"]["edges"]) == 2 and len(large_data["cases"]["edges"]) == 7
    assert nodes_in(large_data) > 2 * nodes_in(small_data)  # much more answer...
    # ...for no more queries: with 2 cases the entities' cases include new ones (9 queries); with all
    # 7 they are already loaded, so the DataLoader cache saves two queries.
    assert small == MAX_ROUND_TRIPS
    assert large <= MAX_ROUND_TRIPS


async def test_every_root_field_costs_one_query_before_its_nested_fields(example_graph, neo4j_settings):
    single_queries = [
        '{ case(id: "undated-note") { id } }',
        '{ casesSharingRootCause(symptom: "loss spike") { case { id } sharedRootCauses { rootCause { name } } } }',
        '{ relatedCases(id: "gpu-sdc-bytedance") { case { id } shared { name } } }',
        '{ path(from: {type: CASE, name: "undated-note"}, to: {type: SYMPTOM, name: "loss spike"}) { length } }',
        "{ subgraph { nodes { id } edges { type } } }",
        '{ symptoms(search: "loss") { totalCount edges { node { name } } } }',
        "{ cases { totalCount } }",
    ]
    for query in single_queries:
        count, _ = await round_trips(example_graph, neo4j_settings, query, {})
        assert count == 1, query
    # diagnose reads in a fixed number of queries (api/diagnosis.py: vocabulary, cases by symptom,
    # the nearest cases by meaning, taxonomy causes, the cases' causes); titles of every case in
    # every diagnosis: one more query, whatever the number of cases.
    count, _ = await round_trips(
        example_graph, neo4j_settings, '{ diagnose(symptoms: ["loss spike"]) { rootCause { name } supportingCases { id } } }', {})
    assert count == 5
    count, _ = await round_trips(
        example_graph, neo4j_settings,
        '{ diagnose(symptoms: ["availability loss"]) { rootCause { name } supportingCases { title } } }', {},
    )
    assert count == 6


async def test_round_trips_stay_bounded_on_a_larger_graph(example_graph, neo4j_settings):
    """60 more cases, each linked to shared entities: a 50-case page costs no more queries."""
    from dataclasses import replace

    from incident_graph.graph.writes import write_case

    from .example import example_case, load_example

    try:
        template = example_case("gpu-sdc-bytedance")
        for number in range(60):
            copy = replace(template, case_id=f"copy-{number:02d}", published=f"2025-01-{number % 28 + 1:02d}")
            write_case(example_graph, copy)
        count, data = await round_trips(example_graph, neo4j_settings, DEEP, {"first": 50})
        assert len(data["cases"]["edges"]) == 50 and data["cases"]["totalCount"] == 67
        assert count <= MAX_ROUND_TRIPS
    finally:
        load_example(example_graph)  # the module's other tests expect the example as it was
