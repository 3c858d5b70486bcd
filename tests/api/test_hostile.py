"""The API under hostile use: query-shape attacks are refused before any Cypher runs, with a clear
error, and the server keeps answering others; Cypher- and Lucene-looking input is only ever data.

The limits themselves (depth 12, 15 aliases, 2,000 tokens, `first` 1..100, `maxHops` 1..6, 500
characters of search text, 50 filter values) and their exact messages are tested in test_limits.py;
here the same limits meet attacks far beyond them, plus what test_limits does not cover:
introspection when disabled, batching, malformed and deeply nested JSON bodies, forged cursors.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx
import pytest
from neo4j import Driver

from incident_graph.api import limits
from incident_graph.api.app import create_app
from incident_graph.api.errors import MASKED_MESSAGE

from .test_round_trips import QueryLog

pytestmark = pytest.mark.anyio

NORMAL = '{ case(id: "gpu-sdc-bytedance") { id title symptoms { entity { name } } } }'
NORMAL_ANSWER = "gpu-sdc-bytedance"
MEGABYTE = "x" * 1_000_000


class Hostile:
    """An app in-process whose query trace keeps every Cypher query it runs."""

    def __init__(self, http: httpx.AsyncClient, counting: QueryLog) -> None:
        self.http = http
        self.counting = counting

    async def send(self, body: Any = None, *, content: bytes | None = None) -> httpx.Response:
        self.counting.queries.clear()
        if content is not None:
            return await self.http.post("/graphql", content=content, headers={"content-type": "application/json"})
        return await self.http.post("/graphql", json=body)

    async def refused(self, body: Any = None, *, content: bytes | None = None, status: int = 200) -> str:
        """The refusal's message; fails unless it came with no Cypher run, then checks a normal query."""
        response = await self.send(body, content=content)
        assert response.status_code == status, response.text[:500]
        if status == 200:
            errors = response.json()["errors"]
            assert errors and (response.json().get("data") is None or all(e.get("path") for e in errors))
            message = errors[0]["message"]
            assert message != MASKED_MESSAGE
        else:
            message = response.text
        assert self.counting.queries == [], f"Cypher ran for a refused request: {self.counting.queries}"
        assert "Traceback" not in response.text
        await self.still_answers()
        return message

    async def still_answers(self) -> None:
        response = await self.http.post("/graphql", json={"query": NORMAL})
        assert response.status_code == 200
        body = response.json()
        assert "errors" not in body, body
        assert body["data"]["case"]["id"] == NORMAL_ANSWER


async def hostile_client(driver: Driver, settings: Any, introspection: bool = True) -> tuple[httpx.AsyncClient, QueryLog]:
    counting = QueryLog()
    app = create_app(settings, None, driver=driver, introspection=introspection, trace=counting)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver"), counting


@pytest.fixture
async def hostile(example_graph, neo4j_settings):
    http, counting = await hostile_client(example_graph, neo4j_settings)
    async with http:
        yield Hostile(http, counting)


# ------------------------------------------------------------------ query shapes


def nested_broader(levels: int) -> str:
    inner = "name"
    for _ in range(levels):
        inner = f"broader {{ {inner} }}"
    return f'{{ case(id: "x") {{ symptoms {{ entity {{ {inner} }} }} }} }}'


async def test_deep_nesting_far_beyond_the_limit(hostile):
    # 100 levels: over the depth limit (test_limits: 15 levels) and under the token limit.
    assert await hostile.refused({"query": nested_broader(100)}) == (
        f"'anonymous' exceeds maximum operation depth of {limits.MAX_DEPTH}")
    # 100,000 levels: the parser gives up on the nesting, long before any recursion error.
    message = await hostile.refused({"query": "{ f " * 100_000 + "}" * 100_000})
    assert message == "Syntax Error: Document is nested too deeply. Parsing aborted."


async def test_depth_hidden_in_fragments(hostile):
    """Each fragment adds a level; the depth limiter follows the spreads."""
    fragments = [f"fragment F{n} on Entity {{ broader {{ ...F{n + 1} }} }}" for n in range(30)]
    fragments.append("fragment F30 on Entity { name }")
    query = '{ case(id: "x") { symptoms { entity { ...F0 } } } }\n' + "\n".join(fragments)
    assert await hostile.refused({"query": query}) == (
        f"'anonymous' exceeds maximum operation depth of {limits.MAX_DEPTH}")


async def test_fragment_cycles_are_refused(hostile):
    query = '{ case(id: "x") { symptoms { entity { ...A } } } } fragment A on Entity { broader { ...B } } ' \
            "fragment B on Entity { narrower { ...A } }"
    assert "Cannot spread fragment 'A' within itself via 'B'" in await hostile.refused({"query": query})


async def test_alias_floods(hostile):
    # 1,000 aliases of an expensive field: the document is over the token limit, refused at parse.
    flood = " ".join(f'a{i}: casesSharingRootCause(symptom: "loss spike") {{ case {{ id }} }}' for i in range(1000))
    message = await hostile.refused({"query": f"{{ {flood} }}"})
    assert message == f"Syntax Error: Document contains more than {limits.MAX_TOKENS} tokens. Parsing aborted."
    # 400 cheap aliases fit in the tokens: the alias limiter refuses them.
    flood = " ".join(f"a{i}: __typename" for i in range(400))
    assert await hostile.refused({"query": f"{{ {flood} }}"}) == (
        f"400 aliases found. Allowed: {limits.MAX_ALIASES}")
    # The same field repeated without aliases merges into one field: answered as one diagnosis (its
    # five queries, test_round_trips.py).
    repeated = " ".join(['diagnose(symptoms: ["loss spike"]) { score }'] * 150)
    response = await hostile.send({"query": f"{{ {repeated} }}"})
    assert "errors" not in response.json() and len(hostile.counting.queries) == 5


@pytest.mark.parametrize(
    ("query", "variables", "message"),
    [
        ("{ cases(first: 2147483647) { totalCount } }", None,
         "`first` must be between 1 and 100 (got 2147483647); page through larger results."),
        ("{ cases(first: -2147483648) { totalCount } }", None,
         "`first` must be between 1 and 100 (got -2147483648); page through larger results."),
        ("{ cases(first: 99999999999999999999) { totalCount } }", None,
         "Int cannot represent non 32-bit signed integer value: 99999999999999999999"),
        ("query($n: Int) { cases(first: $n) { totalCount } }", {"n": 2**31},
         "Variable '$n' has invalid value: Int cannot represent non 32-bit signed integer value: 2147483648"),
        ("query($n: Int) { symptoms(first: $n) { totalCount } }", {"n": 1e300},
         "Variable '$n' has invalid value: Int cannot represent non 32-bit signed integer value: 1e+300"),
        ('{ casesSharingRootCause(symptom: "loss spike", first: 1000000) { case { id } } }', None,
         "`first` must be between 1 and 100 (got 1000000); page through larger results."),
        ("{ subgraph(limit: 2147483647) { nodes { id } } }", None,
         "`limit` must be between 1 and 200 (got 2147483647); page through larger results."),
        ('{ path(from: {type: CASE, name: "a"}, to: {type: CASE, name: "b"}, maxHops: 2147483647) { length } }',
         None, "`maxHops` must be between 1 and 6 (got 2147483647)."),
        ('query($h: Int) { path(from: {type: CASE, name: "a"}, to: {type: CASE, name: "b"}, maxHops: $h) '
         "{ length } }", {"h": -1}, "`maxHops` must be between 1 and 6 (got -1)."),
        ('query($h: Int) { path(from: {type: CASE, name: "a"}, to: {type: CASE, name: "b"}, maxHops: $h) '
         "{ length } }", {"h": 100}, "`maxHops` must be between 1 and 6 (got 100)."),
    ],
)
async def test_huge_first_and_long_max_hops(hostile, query, variables, message):
    assert await hostile.refused({"query": query, "variables": variables or {}}) == message


def cursor(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "after", [cursor("position:" + "9" * 40), cursor("position:" + "9" * 18), cursor("position:-1"), "%%%"]
)
async def test_forged_cursors(hostile, after):
    """A cursor past any real list once overflowed Neo4j's SKIP (an internal error); now refused."""
    for query in ("query($a: String) { cases(after: $a) { totalCount edges { node { id } } } }",
                  "query($a: String) { symptoms(after: $a) { totalCount edges { node { name } } } }"):
        message = await hostile.refused({"query": query, "variables": {"a": after}})
        assert message == f"`after` is not a cursor this API returned: {after!r}."


@pytest.mark.parametrize(
    ("query", "argument"),
    [
        ("query($s: String!) { suggestFilters(text: $s) { name } }", "text"),
        ("query($s: String!) { cases(filter: {text: $s}) { totalCount } }", "filter.text"),
        ("query($s: String!) { subgraph(filter: {text: $s}) { nodes { id } } }", "filter.text"),
        ("query($s: String!) { symptoms(search: $s) { totalCount } }", "search"),
        ("query($s: String!) { organisations(search: $s) { totalCount } }", "search"),
    ],
)
async def test_a_megabyte_of_search_text_is_refused(hostile, query, argument):
    message = await hostile.refused({"query": query, "variables": {"s": MEGABYTE}})
    assert message == f"`{argument}` may be at most {limits.MAX_TEXT_LENGTH} characters (got 1000000)."


async def test_a_megabyte_inline_in_the_document_is_refused_too(hostile):
    message = await hostile.refused({"query": '{ suggestFilters(text: "%s") { name } }' % MEGABYTE})
    assert message == f"`text` may be at most {limits.MAX_TEXT_LENGTH} characters (got 1000000)."


@pytest.mark.parametrize(
    "query",
    [
        "query($s: ID!) { case(id: $s) { id } }",
        "query($s: String!) { diagnose(symptoms: [$s]) { score } }",
        "query($s: String!) { casesSharingRootCause(symptom: $s) { case { id } } }",
        "query($s: String!) { cases(filter: {symptoms: [$s], components: [$s]}) { totalCount } }",
    ],
)
async def test_a_megabyte_name_is_just_a_name_nothing_has(hostile, query):
    """Names and ids have no length limit of their own (the 8 MB body limit bounds them): one index
    lookup that finds nothing, answered normally."""
    response = await hostile.send({"query": query, "variables": {"s": MEGABYTE}})
    body = response.json()
    assert response.status_code == 200 and "errors" not in body
    assert list(body["data"].values())[0] in (None, [], {"totalCount": 0})
    await hostile.still_answers()


async def test_a_body_over_the_size_limit_is_refused_before_it_is_read(hostile):
    big = "y" * (limits.MAX_REQUEST_BYTES + 1)
    message = await hostile.refused({"query": NORMAL, "variables": {"padding": big}}, status=413)
    assert json.loads(message) == {"errors": [{"message": f"The request body is larger than "
                                                          f"{limits.MAX_REQUEST_BYTES:,} bytes."}]}


async def test_introspection_is_refused_when_disabled(example_graph, neo4j_settings):
    http, counting = await hostile_client(example_graph, neo4j_settings, introspection=False)
    async with http:
        hostile = Hostile(http, counting)
        for field in ("__schema", "__type"):
            query = "{ __schema { types { name } } }" if field == "__schema" else '{ __type(name: "Case") { name } }'
            message = await hostile.refused({"query": query})
            assert message == (f"GraphQL introspection has been disabled, but the requested query contained "
                               f"the field '{field}'.")
        # Hidden in a fragment, and under an alias: refused all the same.
        message = await hostile.refused({"query": "{ ...F } fragment F on Query { s: __schema { queryType { name } } }"})
        assert "introspection has been disabled" in message
        # __typename is not introspection of the schema and stays available.
        assert (await hostile.send({"query": "{ __typename }"})).json() == {"data": {"__typename": "Query"}}
        # No GraphiQL either (it needs introspection).
        assert (await http.get("/graphql", headers={"accept": "text/html"})).status_code != 200 or \
            "graphiql" not in (await http.get("/graphql", headers={"accept": "text/html"})).text.lower()


async def test_introspection_stays_on_by_default(hostile):
    response = await hostile.send({"query": '{ __type(name: "Case") { name } }'})
    assert response.json() == {"data": {"__type": {"name": "Case"}}}


async def test_batching_abuse_is_refused_with_one_answer(hostile):
    """Batching is off: a JSON array of 1,000 operations is one 400, and none of them runs."""
    batch = [{"query": NORMAL} for _ in range(1000)]
    assert await hostile.refused(batch, status=400) == "Batching is not enabled"
    assert await hostile.refused([], status=400) == "Batching is not enabled"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'"just a string"', "The request body must be a JSON object with a `query`."),
        (b"42", "The request body must be a JSON object with a `query`."),
        (b"null", "The request body must be a JSON object with a `query`."),
        (b"[" * 100_000 + b"]" * 100_000, "The request body is JSON nested too deeply."),
        (b'{"query": "{ __typename }", "variables": {"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}",
         "The request body is JSON nested too deeply."),
        (b'{"query": "{ __typename }"', "Unable to parse request body as JSON"),
        (b'\xff\xfe{"query"', "Unable to parse request body as JSON"),
        (b'{"query": 5}', "The GraphQL operation's `query` must be a string or null, if provided."),
        (b'{"query": "{ __typename }", "variables": [1]}',
         "The GraphQL operation's `variables` must be an object or null, if provided."),
        (b"{}", "No GraphQL query found in the request"),
    ],
)
async def test_malformed_bodies_are_a_clean_400(hostile, content, message):
    """A JSON string or number, or JSON nested 100,000 deep, once answered 500; now a 400."""
    assert await hostile.refused(content=content, status=400) == message


async def test_others_are_answered_while_attacks_arrive(hostile):
    """Attacks and normal queries interleaved on one app: every normal query gets its answer."""
    attacks = [
        {"query": nested_broader(100)},
        {"query": "{ f " * 100_000 + "}" * 100_000},
        {"query": " ".join(f"a{i}: __typename" for i in range(400)).join("{}")},
        {"query": "{ cases(first: 2147483647) { totalCount } }"},
        {"query": "query($s: String!) { suggestFilters(text: $s) { name } }", "variables": {"s": MEGABYTE}},
        [{"query": NORMAL}] * 1000,
    ] * 5

    async def normal() -> str:
        response = await hostile.http.post("/graphql", json={"query": NORMAL})
        return response.json()["data"]["case"]["id"]

    async def attack(body: Any) -> int:
        return (await hostile.http.post("/graphql", json=body)).status_code

    results = await asyncio.gather(*[attack(body) for body in attacks], *[normal() for _ in range(30)])
    assert set(results[: len(attacks)]) <= {200, 400}
    assert results[len(attacks):] == [NORMAL_ANSWER] * 30


# ------------------------------------------------------------------ injection

INJECTIONS = [
    # Cypher
    "' OR 1=1 //",
    '" OR 1=1 //',
    '"}) MATCH (n) DETACH DELETE n //',
    "'}) MATCH (n) DETACH DELETE n //",
    "x') WITH 1 AS x MATCH (n) DETACH DELETE n RETURN 1 //",
    "loss spike\"}) RETURN 1 UNION MATCH (n) DETACH DELETE n //",
    "$param",
    "$symptoms",
    "{name: 'x'}",
    "`Symptom`",
    "`) MATCH (n) DETACH DELETE n //",
    "\\u0027 OR 1=1 //",
    "\u0027; CALL db.clearQueryCaches() //",
    "CALL apoc.cypher.runWrite('MATCH (n) DETACH DELETE n', {})",
    "/* */ MATCH (n) SET n.pwned = true //",
    "MERGE (x:Case {case_id: 'pwned'})",
    # Lucene
    "*",
    "?",
    "~",
    "gpu~2",
    "AND OR NOT",
    "gpu AND (outage",
    "title:outage",
    "text:* OR title:*",
    "[a TO z]",
    "{a TO z}",
    '"unbalanced',
    "unbalanced)",
    "((((",
    "\\",
    "\\\\",
    "+-&&||!(){}[]^\"~*?:\\/",
    "/.*/",
    "loss^100",
    # and some plain oddities
    "",
    "   ",
    "\x00",
    "\u202e\u0000\ufeff",
    "🔥 service outage",
]

INJECTED_QUERIES = [
    ("query($s: String!) { cases(filter: {symptoms: [$s], rootCauses: [$s], components: [$s], "
     "contributingFactors: [$s], organisations: [$s]}) { totalCount edges { node { id } } facets { symptoms { name } } } }"),
    "query($s: String!) { cases(filter: {text: $s}) { totalCount edges { node { id } } } }",
    "query($s: String!) { subgraph(filter: {text: $s, symptoms: [$s]}) { nodes { id } } }",
    "query($s: String!) { symptoms(search: $s) { totalCount edges { node { name } } } }",
    "query($s: String!) { rootCauses(search: $s) { totalCount } components(search: $s) { totalCount } "
    "contributingFactors(search: $s) { totalCount } organisations(search: $s) { totalCount } }",
    "query($s: ID!) { case(id: $s) { id title } relatedCases(id: $s) { sharedCount } }",
    "query($s: String!) { casesSharingRootCause(symptom: $s) { case { id } } }",
    "query($s: String!) { diagnose(symptoms: [$s, \"loss spike\"]) { rootCause { name } } }",
    "query($s: String!) { suggestFilters(text: $s) { type name } }",
    "query($s: String!) { path(from: {type: CASE, name: $s}, to: {type: SYMPTOM, name: \"loss spike\"}) { length } }",
    "query($s: String!) { path(from: {type: ROOT_CAUSE, name: \"software bug\"}, to: {type: COMPONENT, name: $s}) "
    "{ length } }",
    "query($s: String!) { symptoms(after: $s) { totalCount } }",
]

# Refusals an injected value may meet: it is not a name in the graph, or not a cursor.
CLEAN_REFUSALS = ("`from`: no ", "`to`: no ", "`after` is not a cursor", "`symptoms` must name at least one")


def graph_fingerprint(driver: Driver) -> tuple[Any, ...]:
    records = driver.execute_query(
        "MATCH (n) WITH count(n) AS nodes, collect(DISTINCT labels(n)) AS labels "
        "OPTIONAL MATCH ()-[r]->() RETURN nodes, labels, count(r) AS relationships").records
    properties = driver.execute_query(
        "MATCH (n) RETURN n.name AS name, n.case_id AS id, n.title AS title, keys(n) AS keys ORDER BY id, name").records
    return (records[0]["nodes"], sorted(map(tuple, records[0]["labels"])), records[0]["relationships"],
            [tuple(sorted(r["keys"])) + (r["name"], r["id"], r["title"]) for r in properties])


def assert_clean(body: dict[str, Any], value: str) -> None:
    for error in body.get("errors", []):
        assert error["message"] != MASKED_MESSAGE, (value, body)
        assert error["message"].startswith(CLEAN_REFUSALS), (value, error["message"])


async def test_cypher_and_lucene_looking_values_are_data(hostile, example_graph):
    before = graph_fingerprint(example_graph)
    for value in INJECTIONS:
        for query in INJECTED_QUERIES:
            response = await hostile.send({"query": query, "variables": {"s": value}})
            assert response.status_code == 200, (value, query, response.text)
            assert_clean(response.json(), value)
        # Inline in the document too (as a GraphQL string literal), where the parser sees it.
        literal = json.dumps(value)
        for query in ('{ cases(filter: {text: %s, symptoms: [%s]}) { totalCount } }' % (literal, literal),
                      '{ case(id: %s) { id } }' % literal,
                      '{ symptoms(search: %s) { totalCount } }' % literal):
            response = await hostile.send({"query": query})
            assert response.status_code == 200, (value, query, response.text)
            assert_clean(response.json(), value)
    assert graph_fingerprint(example_graph) == before


async def test_lucene_syntax_matches_nothing_it_should_not(hostile):
    """Full-text input is escaped: `title:*`, `[a TO z]` or `a OR b` do not widen the search. A phrase
    of punctuation only (`*`, `/.*/`) has no words, so it constrains nothing, like an empty one."""
    async def total(text: str) -> int:
        response = await hostile.send({"query": "query($s: String!) { cases(filter: {text: $s}) { totalCount } }",
                                       "variables": {"s": text}})
        return response.json()["data"]["cases"]["totalCount"]

    # Three example cases mention GPUs, one DNS; all seven are matched by no text at all.
    assert (await total("gpu"), await total("dns"), await total("")) == (3, 1, 7)
    # Interpreted as Lucene, each of these would match some or all cases (a range, a field query,
    # wildcards, OR / NOT / - as operators); escaped, they are words no case contains...
    for text in ("[a TO z]", "{a TO z}", "title:*", "text:* OR title:*", "title:gpu", "gp*", "g?u",
                 "gpu OR dns", "NOT gpu", "zzzunknownword OR gpu", "gpu AND (outage"):
        assert await total(text) == 0, text
    # ...or the plain word itself.
    for text in ("-gpu", "+gpu", "gpu~2", "gpu)", '"gpu'):
        assert await total(text) == 3, text
    for text in ("*", "?*", "/.*/", "&&", "\\"):
        assert await total(text) == 7, text


async def test_injection_as_mutation_input_is_stored_verbatim(fresh_example_graph, neo4j_settings):
    """Through the writable API, Cypher-looking ids and text are stored as given and written nowhere else."""
    from .conftest import TOKEN, client_for

    nodes_before = fresh_example_graph.execute_query("MATCH (c:Case) RETURN count(c) AS n").records[0]["n"]
    document = {"id": '"}) MATCH (n) DETACH DELETE n //', "title": "' OR 1=1 //",
                "body": "The service went down. $param `Symptom` [a TO z] \\ ' OR 1=1 //"}
    async with await client_for(fresh_example_graph, neo4j_settings, token=TOKEN) as http:
        response = await http.post("/graphql", headers={"Authorization": f"Bearer {TOKEN}"}, json={
            "query": "mutation($d: [DocumentInput!]!) { ingestDocuments(documents: $d) { added failed { message } } }",
            "variables": {"d": [document]}})
        added = response.json()["data"]["ingestDocuments"]["added"]
        assert len(added) == 1  # the id is normalised (a slug), never spliced into Cypher
        body = (await http.post("/graphql", json={"query": "query($id: ID!) { case(id: $id) { title text } }",
                                                   "variables": {"id": added[0]}})).json()
    assert body["data"]["case"]["title"] == document["title"]
    assert document["body"] in body["data"]["case"]["text"]
    assert fresh_example_graph.execute_query("MATCH (c:Case) RETURN count(c) AS n").records[0]["n"] == nodes_before + 1
