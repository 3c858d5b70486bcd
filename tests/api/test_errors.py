"""Every error says whose fault it is in extensions.code (api/errors.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from neo4j.exceptions import ServiceUnavailable

from incident_graph.api.app import create_app
from incident_graph.api.context import request_context
from incident_graph.api.errors import MASKED_MESSAGE, ClientError
from incident_graph.api.graphql_schema import build_schema
from incident_graph.api.query_slots import GraphReader, QuerySlots

from .conftest import TOKEN, client_for
from .test_limits import FailingDriver

pytestmark = pytest.mark.anyio


async def codes(http: httpx.AsyncClient, query: str, variables: dict[str, Any] | None = None,
                headers: dict[str, str] | None = None) -> list[str]:
    response = await http.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers or {})
    assert response.status_code == 200, response.text
    return [error["extensions"]["code"] for error in response.json()["errors"]]


@pytest.mark.parametrize("query", [
    "{ cases(first: 0) { totalCount } }",
    '{ cases(after: "") { totalCount } }',
    '{ path(from: {type: CASE, name: "undated-note"}, to: {type: SYMPTOM, name: "loss spike"}, maxHops: 0) { length } }',
    "{ diagnose(symptoms: []) { score } }",
    '{ case(id: "undated-note") { id } cases(filter: {publishedFrom: "2024-01-01", publishedTo: "2020-01-01"}) { totalCount } }',
])
async def test_refused_arguments_are_bad_user_input(api, query):
    assert await api.post(query) and await codes(api.http, query) == ["BAD_USER_INPUT"]


async def test_a_refused_variable_is_bad_user_input(api):
    assert await codes(api.http, "query($n: Int) { cases(first: $n) { totalCount } }", {"n": "ten"}) == [
        "BAD_USER_INPUT"]


@pytest.mark.parametrize("query, code", [
    ("{ cases { nosuchfield } }", "GRAPHQL_VALIDATION_FAILED"),
    ("{ " + "cases { edges { node { symptoms { entity { " * 3 + "name" + " } } } } }" * 3 + " }",
     "GRAPHQL_VALIDATION_FAILED"),  # deeper than MAX_DEPTH
    ("{ cases { totalCount ", "GRAPHQL_PARSE_FAILED"),
    ("{ " + "a: cases { totalCount } " * 1_000 + "}", "GRAPHQL_PARSE_FAILED"),  # more than MAX_TOKENS
])
async def test_refused_documents_say_so(api, query, code):
    assert set(await codes(api.http, query)) == {code}


async def test_writes_without_the_token_are_unauthenticated(example_graph, neo4j_settings):
    mutation = 'mutation { deleteCase(id: "undated-note") }'
    async with await client_for(example_graph, neo4j_settings, token=TOKEN) as http:
        assert await codes(http, mutation) == ["UNAUTHENTICATED"]
        assert await codes(http, mutation, headers={"Authorization": "Bearer not-the-token"}) == ["UNAUTHENTICATED"]


async def test_writes_on_a_read_only_context_are_forbidden(example_graph):
    # An embedding that builds the writable schema but gives no write access.
    result = await build_schema(writable=True).execute('mutation { deleteCase(id: "undated-note") }',
                                                       context_value=request_context(example_graph))
    assert [(error.message, error.extensions["code"]) for error in result.errors] == [
        ("This server is read-only.", "FORBIDDEN")]


async def test_unexpected_failures_are_masked_internal_server_errors(example_graph, neo4j_settings):
    app = create_app(neo4j_settings, None, driver=FailingDriver(example_graph, RuntimeError("secret")))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        body = (await http.post("/graphql", json={"query": "{ cases { totalCount } }"})).json()
    assert [(error["message"], error["extensions"]["code"]) for error in body["errors"]] == [
        (MASKED_MESSAGE, "INTERNAL_SERVER_ERROR")]


async def test_an_unreachable_graph_has_a_code_of_its_own(example_graph, neo4j_settings):
    app = create_app(neo4j_settings, None, driver=FailingDriver(example_graph, ServiceUnavailable("refused")))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        assert await codes(http, "{ cases { totalCount } }") == ["GRAPH_UNAVAILABLE"]


async def test_a_busy_server_has_a_code_of_its_own(driver):
    slots = QuerySlots(size=1, queue_timeout_s=0.1)
    await slots.limiter.acquire()
    try:
        with pytest.raises(ClientError) as refused:
            await GraphReader(driver, slots).rows("RETURN 1 AS one")
    finally:
        slots.limiter.release()
    assert refused.value.code == "SERVER_BUSY"


async def test_a_query_stopped_by_its_timeout_has_a_code_of_its_own(driver, monkeypatch):
    from incident_graph.api import query_slots

    monkeypatch.setattr(query_slots, "READ_TIMEOUT_S", 0.5)
    with pytest.raises(ClientError) as refused:
        await GraphReader(driver).rows("UNWIND range(1, 1000000000) AS x RETURN count(x) AS n")
    assert refused.value.code == "QUERY_TIMED_OUT"
