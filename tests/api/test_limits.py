"""Limits refuse with clear messages; unexpected failures are masked and never leak a traceback."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
from neo4j.exceptions import ServiceUnavailable

from incident_graph.api import limits
from incident_graph.api.app import create_app
from incident_graph.api.errors import MASKED_MESSAGE, MAX_MESSAGE_CHARS

pytestmark = pytest.mark.anyio


def nested_cases(levels: int) -> str:
    """case -> symptoms -> entity -> cases -> edges -> node -> ... `levels` times."""
    inner = "id"
    for _ in range(levels):
        inner = f"symptoms {{ entity {{ cases {{ edges {{ node {{ {inner} }} }} }} }} }}"
    return f'{{ case(id: "gpu-sdc-bytedance") {{ {inner} }} }}'


async def test_depth_limit(api):
    assert "errors" not in await api.post(nested_cases(2))  # depth 11
    message = await api.error(nested_cases(3))
    assert message == f"'anonymous' exceeds maximum operation depth of {limits.MAX_DEPTH}"


async def test_alias_limit(api):
    aliases = " ".join(f'a{i}: case(id: "undated-note") {{ id }}' for i in range(limits.MAX_ALIASES + 1))
    message = await api.error(f"{{ {aliases} }}")
    assert message == f"{limits.MAX_ALIASES + 1} aliases found. Allowed: {limits.MAX_ALIASES}"


async def test_token_limit(api):
    message = await api.error("{ " + "__typename " * limits.MAX_TOKENS + "}")
    assert message == f"Syntax Error: Document contains more than {limits.MAX_TOKENS} tokens. Parsing aborted."


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("{ cases(first: 101) { totalCount } }",
         "`first` must be between 1 and 100 (got 101); page through larger results."),
        ("{ cases(first: 0) { totalCount } }",
         "`first` must be between 1 and 100 (got 0); page through larger results."),
        ('{ symptoms(first: 1000) { totalCount } }',
         "`first` must be between 1 and 100 (got 1000); page through larger results."),
        ('{ case(id: "gpu-sdc-bytedance") { symptoms { entity { cases(first: 500) { totalCount } } } } }',
         "`first` must be between 1 and 100 (got 500); page through larger results."),
        ('{ relatedCases(id: "x", first: 101) { sharedCount } }',
         "`first` must be between 1 and 100 (got 101); page through larger results."),
        ('{ diagnose(symptoms: ["loss spike"], first: -1) { score } }',
         "`first` must be between 1 and 100 (got -1); page through larger results."),
        ('{ path(from: {type: CASE, name: "a"}, to: {type: CASE, name: "b"}, maxHops: 7) { length } }',
         "`maxHops` must be between 1 and 6 (got 7)."),
        ('{ path(from: {type: CASE, name: "a"}, to: {type: CASE, name: "b"}, maxHops: 0) { length } }',
         "`maxHops` must be between 1 and 6 (got 0)."),
        ("{ subgraph(limit: 201) { nodes { id } } }",
         "`limit` must be between 1 and 200 (got 201); page through larger results."),
        ('{ cases(after: "not-a-cursor") { totalCount } }',
         "`after` is not a cursor this API returned: 'not-a-cursor'."),
        ('{ cases(filter: {publishedFrom: "2024-01-01", publishedTo: "2023-01-01"}) { totalCount } }',
         "`filter.publishedFrom` is after `filter.publishedTo`."),
        ("{ diagnose(symptoms: [\" \"]) { score } }", "`symptoms` must name at least one symptom."),
    ],
)
async def test_argument_limits(api, query, message):
    assert await api.error(query) == message


async def test_list_and_text_length_limits(api):
    too_many = [f"s{i}" for i in range(limits.MAX_FILTER_VALUES + 1)]
    message = await api.error("query($f: CaseFilter) { cases(filter: $f) { totalCount } }",
                              {"f": {"rootCauses": too_many}})
    assert message == f"`filter.rootCauses` may name at most {limits.MAX_FILTER_VALUES} values (got 51)."
    message = await api.error("query($f: CaseFilter) { cases(filter: $f) { totalCount } }",
                              {"f": {"text": "x" * (limits.MAX_TEXT_LENGTH + 1)}})
    assert message == f"`filter.text` may be at most {limits.MAX_TEXT_LENGTH} characters (got 501)."


async def test_validation_errors_stay_readable(api):
    assert await api.error("{ cases { nope } }") == "Cannot query field 'nope' on type 'CaseConnection'."
    message = await api.error("query($f: CaseFilter) { cases(filter: $f) { totalCount } }",
                              {"f": {"publishedFrom": "yesterday"}})
    assert "publishedFrom" in message and "Traceback" not in message


async def test_a_huge_bad_argument_is_not_echoed_whole(api, caplog):
    huge = "y" * 100_000
    message = await api.error('{ cases(first: "%s") { totalCount } }' % huge)
    assert message.startswith("Int cannot represent non-integer value")
    assert len(message) <= MAX_MESSAGE_CHARS and "characters left out" in message
    assert huge not in caplog.text


async def test_a_variable_of_the_wrong_type_is_a_refusal_not_a_server_error(api, caplog):
    caplog.set_level("INFO")
    message = await api.error("query($n: Int) { cases(first: $n) { totalCount } }", {"n": "ten"})
    assert "Variable '$n'" in message and "Int cannot represent non-integer value: 'ten'" in message
    refusals = [r for r in caplog.records if "non-integer value" in r.getMessage()]
    assert refusals and all(r.levelname == "INFO" and r.exc_info is None for r in refusals)


class FailingDriver:
    """A driver whose queries fail the way a bug or an outage would."""

    def __init__(self, driver: Any, error: Exception) -> None:
        self._driver = driver
        self._error = error

    def execute_query(self, *args: Any, **kwargs: Any) -> Any:
        raise self._error

    def session(self, **config: Any) -> Any:
        raise self._error

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)


async def post_with(driver: Any, neo4j_settings, query: str) -> httpx.Response:
    app = create_app(neo4j_settings, None, driver=driver)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        return await http.post("/graphql", json={"query": query})


async def test_unexpected_errors_are_masked_without_traceback(example_graph, neo4j_settings, caplog):
    driver = FailingDriver(example_graph, RuntimeError("secret detail from deep inside"))
    response = await post_with(driver, neo4j_settings, '{ case(id: "undated-note") { title } }')
    assert response.status_code == 200
    body = response.json()
    assert body["errors"][0]["message"] == MASKED_MESSAGE
    assert "secret detail" not in response.text and "Traceback" not in response.text
    assert "secret detail from deep inside" in caplog.text  # the server log keeps the details


async def test_neo4j_down_is_said_plainly(example_graph, neo4j_settings):
    driver = FailingDriver(example_graph, ServiceUnavailable("connection refused"))
    response = await post_with(driver, neo4j_settings, "{ cases { totalCount } }")
    assert response.json()["errors"][0]["message"] == (
        "The graph database is not reachable right now; try again shortly.")


async def test_a_query_running_too_long_is_stopped_by_neo4j(driver, monkeypatch):
    from incident_graph.api import query_slots
    from incident_graph.api.errors import ClientError

    monkeypatch.setattr(query_slots, "READ_TIMEOUT_S", 0.5)
    with pytest.raises(ClientError, match=r"ran longer than 0.5 s and was stopped"):
        await query_slots.GraphReader(driver).rows("UNWIND range(1, 1000000000) AS x RETURN count(x) AS n")


async def test_requests_beyond_the_slots_wait_their_turn(example_graph, neo4j_settings, monkeypatch):
    from incident_graph.api.query_slots import GraphReader

    reading: dict[int, int] = {}  # request's reader -> its queries running now
    most_at_once = 0
    real_rows = GraphReader.rows

    async def tracked_rows(self: GraphReader, query: str, **parameters: Any) -> Any:
        nonlocal most_at_once
        await self.take_slot()  # the real one; rows takes it again, a no-op while held
        reading[id(self)] = reading.get(id(self), 0) + 1
        most_at_once = max(most_at_once, len(reading))
        try:
            return await real_rows(self, query, **parameters)
        finally:
            reading[id(self)] -= 1
            if not reading[id(self)]:
                del reading[id(self)]

    monkeypatch.setattr(GraphReader, "rows", tracked_rows)
    app = create_app(neo4j_settings, None, driver=example_graph, max_concurrent_reads=2)
    # Several queries per request (cases, then the symptoms of each through a DataLoader).
    query = "{ cases(first: 5) { totalCount edges { node { id symptoms { entity { name } } } } } }"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        alone = (await http.post("/graphql", json={"query": query})).json()
        results: list[dict[str, Any]] = []

        async def ask() -> None:
            results.append((await http.post("/graphql", json={"query": query})).json())

        with anyio.fail_after(60):  # a slot never given back would hang here
            async with anyio.create_task_group() as group:
                for _ in range(12):
                    group.start_soon(ask)
            for _ in range(3):
                await ask()
    assert "errors" not in alone and results == [alone] * 15
    assert 1 <= most_at_once <= 2


async def test_a_query_that_waits_too_long_for_its_turn_is_told_the_server_is_busy(driver):
    from incident_graph.api.errors import ClientError
    from incident_graph.api.query_slots import GraphReader, QuerySlots

    slots = QuerySlots(size=1, queue_timeout_s=0.2)
    reader = GraphReader(driver, slots)
    await slots.limiter.acquire()  # a long query holds the only slot
    try:
        with pytest.raises(ClientError, match=r"The server is busy: the query waited 0.2 s for its turn"):
            await reader.rows("RETURN 1 AS one")
    finally:
        slots.limiter.release()
    assert await reader.rows("RETURN 1 AS one") == [{"one": 1}]
    assert slots.limiter.borrowed_tokens == 1  # kept for the request's further queries
    reader.release_slot()  # at the end of the operation (ReleaseQuerySlot)
    assert slots.limiter.borrowed_tokens == 0
