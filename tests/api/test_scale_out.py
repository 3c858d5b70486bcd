"""Several stateless API processes on one Neo4j, as behind a load balancer, each reaching it through
the routing driver (`neo4j://`, as for a cluster or Aura): each app opens its own driver, answers
the same, and reads what another one wrote. Served by uvicorn on real ports, over HTTP."""

from __future__ import annotations

from typing import Any

import httpx
from neo4j import Driver

from incident_graph.api.app import create_app
from incident_graph.config import Settings

from ..network import served
from .conftest import TOKEN
from .test_mutations import DOCUMENT, INGEST

CASES = "{ cases(first: 100) { totalCount edges { node { id title } } } }"
CASE = "query($id: ID!) { case(id: $id) { id title symptoms { entity { name } evidence { sentence } } } }"
DELETE = "mutation($id: ID!) { deleteCase(id: $id) }"


def data(base: str, query: str, variables: dict[str, Any] | None = None, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = httpx.post(f"{base}/graphql", json={"query": query, "variables": variables or {}}, headers=headers,
                          timeout=120.0)
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body["errors"]
    return body["data"]


def case_count(driver: Driver) -> int:
    return driver.execute_query("MATCH (c:Case) RETURN count(c) AS n").records[0]["n"]


def test_an_api_on_a_routing_uri_answers_reads_and_ingests_through_it(fresh_example_graph: Driver,
                                                                      routing_settings: Settings):
    app = create_app(routing_settings, TOKEN)  # its own driver, on neo4j://
    assert type(app.state.driver).__name__ == "Neo4jDriver"
    with served(app) as base:
        assert httpx.get(f"{base}/healthz").json()["neo4j"] == "reachable"
        listed = data(base, CASES)["cases"]
        assert listed["totalCount"] == case_count(fresh_example_graph) > 0
        result = data(base, INGEST, {"documents": [DOCUMENT]}, TOKEN)["ingestDocuments"]
        assert result == {"added": [DOCUMENT["id"]], "updated": [], "skipped": [], "failed": []}
        case = data(base, CASE, {"id": DOCUMENT["id"]})["case"]
        assert case["title"] == DOCUMENT["title"] and case["symptoms"]
        assert data(base, CASES)["cases"]["totalCount"] == listed["totalCount"] + 1
    assert case_count(fresh_example_graph) == listed["totalCount"] + 1


def test_two_api_processes_serve_one_graph_and_each_reads_what_the_other_wrote(fresh_example_graph: Driver,
                                                                               routing_settings: Settings):
    first, second = create_app(routing_settings, TOKEN), create_app(routing_settings, TOKEN)
    assert first.state.driver is not second.state.driver
    with served(first) as one, served(second) as other:
        assert data(one, CASES) == data(other, CASES)
        data(one, INGEST, {"documents": [DOCUMENT]}, TOKEN)
        assert data(other, CASE, {"id": DOCUMENT["id"]})["case"] == data(one, CASE, {"id": DOCUMENT["id"]})["case"]
        assert data(other, CASE, {"id": DOCUMENT["id"]})["case"]["title"] == DOCUMENT["title"]
        assert data(one, CASES) == data(other, CASES)
        assert data(other, DELETE, {"id": DOCUMENT["id"]}, TOKEN) == {"deleteCase": True}
        assert data(one, CASE, {"id": DOCUMENT["id"]}) == {"case": None}
