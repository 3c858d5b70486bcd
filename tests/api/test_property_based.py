"""Property-based: thousands of queries generated from the SDL (schema/schema.graphql) never make
the API fail on its side: no HTTP 5xx, no masked "internal error", whatever the shape and values.

Hypothesis builds each query by walking the SDL from `Query`: random root fields with random
arguments (well-typed values drawn from the example graph's names and from edge cases, and now and
then values of the wrong type, unknown fields or enum values), random sub-selections down to a few
levels, inline fragments on the Entity interface, aliases, and arguments passed inline or as
variables. A good share is invalid on purpose; every one must get a clean GraphQL answer.

IG_PROPERTY_EXAMPLES sets the number of queries (default 2,000); the count is printed at the end.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import graphql
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from incident_graph.api.app import create_app
from incident_graph.api.errors import MASKED_MESSAGE
from incident_graph.api.graphql_schema import SDL_PATH

EXAMPLES = int(os.environ.get("IG_PROPERTY_EXAMPLES", "2000"))
MAX_DEPTH = 3  # object levels below a root field
SCHEMA = graphql.build_schema(SDL_PATH.read_text(encoding="utf-8"))

CASE_IDS = ["gpu-sdc-bytedance", "meta-sdc-fleet", "llama-training-interrupts", "cloudflare-dns-outage",
            "gitlab-db-deletion", "datacenter-power", "undated-note", "no-such-case"]
NAMES = ["loss spike", "crash loop", "service outage", "availability loss", "data loss", "silent data corruption",
         "hardware fault", "power failure", "configuration error", "software bug", "GPU", "DNS", "database",
         "training cluster", "no hardware error signal", "missing alerting", "ByteDance", "Meta", "Cloudflare",
         "GitLab", "nothing by this name", "SDC", "Loss Spike"]
ODD_STRINGS = ["", " ", "' OR 1=1 //", '"}) MATCH (n) DETACH DELETE n //', "*", "title:*", "[a TO z]", "\\",
               "\u0000", "🔥", "\u202e", "x" * 600]
DATES = ["2024-05-01", "2021-02-01", "2000-01-01", "9999-12-31", "0001-01-01", "2024-02-30", "yesterday", "2024"]

stats = {"queries": 0, "answered": 0, "with_errors": 0, "http_4xx": 0}


class Unrepresentable(Exception):
    pass


def one_in(draw: Any, n: int) -> bool:
    """True about once in `n` draws. (Hypothesis favours boundary integers, so `integers(0, n) == 0`
    would come up far more often than 1/n; a True in the middle of a sampled list does not.)"""
    options = [False] * n
    options[n // 2] = True
    return draw(st.sampled_from(options))


# ------------------------------------------------------------------ values

@st.composite
def scalar_value(draw: Any, type_name: str) -> Any:
    if type_name == "Int":
        return draw(st.one_of(st.sampled_from([0, 1, 2, 3, 5, 6, 7, 10, 20, 99, 100, 101, 200, 201, -1]),
                              st.integers(-2**31, 2**31 - 1)))
    if type_name == "Float":
        return draw(st.floats(allow_nan=False, allow_infinity=False, width=32))
    if type_name == "Boolean":
        return draw(st.booleans())
    if type_name == "ID":
        return draw(st.one_of(st.sampled_from(CASE_IDS), st.text(max_size=20)))
    if type_name == "Date":
        return draw(st.sampled_from(DATES))
    if type_name == "DateTime":
        return draw(st.sampled_from(["2024-05-01T00:00:00+00:00", "nope"]))
    # String
    return draw(st.one_of(st.sampled_from(NAMES), st.sampled_from(ODD_STRINGS),
                          st.text(st.characters(exclude_categories=("Cs",)), max_size=30)))


@st.composite
def wrong_value(draw: Any) -> Any:
    return draw(st.sampled_from([None, 3.5, "a string", -7, True, [1, 2], {"x": 1}, 2**40, "NOT_A_VALUE"]))


@st.composite
def value_for(draw: Any, type_: graphql.GraphQLInputType, depth: int = 0) -> Any:
    """A Python value (as it would be in JSON variables) for an input type; sometimes a wrong one."""
    if one_in(draw, 20):
        return draw(wrong_value())
    nullable = not isinstance(type_, graphql.GraphQLNonNull)
    inner = graphql.get_nullable_type(type_)
    if nullable and one_in(draw, 10):
        return None
    if isinstance(inner, graphql.GraphQLList):
        return draw(st.lists(value_for(inner.of_type, depth + 1), max_size=4))
    if isinstance(inner, graphql.GraphQLEnumType):
        return draw(st.sampled_from(list(inner.values)))
    if isinstance(inner, graphql.GraphQLInputObjectType):
        chosen = draw(st.lists(st.sampled_from(sorted(inner.fields)), unique=True, max_size=4))
        required = [name for name, field in inner.fields.items() if graphql.is_non_null_type(field.type)]
        if not one_in(draw, 10):  # usually complete; now and then missing a required field
            chosen = sorted(set(chosen) | set(required))
        return {name: draw(value_for(inner.fields[name].type, depth + 1)) for name in chosen}
    return draw(scalar_value(inner.name))


def literal(value: Any, type_: graphql.GraphQLInputType) -> str:
    """A GraphQL literal for a Python value (enum values unquoted, object keys bare)."""
    inner = graphql.get_nullable_type(type_)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        if isinstance(inner, graphql.GraphQLEnumType) and value.isidentifier():
            return value
        return json.dumps(value)
    if isinstance(value, list):
        item_type = inner.of_type if isinstance(inner, graphql.GraphQLList) else inner
        return "[" + ", ".join(literal(item, item_type) for item in value) + "]"
    if isinstance(value, dict):
        fields = inner.fields if isinstance(inner, graphql.GraphQLInputObjectType) else {}
        return "{" + ", ".join(
            f"{key}: {literal(item, fields[key].type if key in fields else graphql.GraphQLString)}"
            for key, item in value.items()) + "}"
    raise Unrepresentable(repr(value))


# ------------------------------------------------------------------ documents


class Document:
    def __init__(self) -> None:
        self.variables: dict[str, Any] = {}
        self.declarations: list[str] = []

    def argument(self, draw: Any, name: str, type_: graphql.GraphQLInputType) -> str:
        value = draw(value_for(type_))
        if one_in(draw, 3):  # a third of arguments go as variables
            variable = f"v{len(self.variables)}"
            self.variables[variable] = value
            self.declarations.append(f"${variable}: {type_}")
            return f"{name}: ${variable}"
        return f"{name}: {literal(value, type_)}"


@st.composite
def selection_set(draw: Any, document: Document, type_: graphql.GraphQLNamedType, depth: int) -> str:
    fields = type_.fields  # type: ignore[attr-defined]
    leaves = [name for name, field in fields.items()
              if graphql.is_leaf_type(graphql.get_named_type(field.type))]
    candidates = sorted(fields) if depth < MAX_DEPTH else leaves
    if not candidates:  # e.g. SymptomLink: only object fields, and no depth left
        return "__typename"
    most = 2 if depth == 0 else 3  # root fields run Cypher: at most two per query
    chosen = draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=most, unique=True))
    parts = [draw(field_selection(document, name, fields[name], depth)) for name in chosen]
    if one_in(draw, 40):
        parts.append("noSuchField")
    if one_in(draw, 10):
        parts.append("__typename")
    if isinstance(type_, graphql.GraphQLInterfaceType) and depth < MAX_DEPTH and draw(st.booleans()):
        implementation = draw(st.sampled_from(sorted(t.name for t in SCHEMA.get_possible_types(type_))))
        parts.append(f"... on {implementation} {{ {draw(selection_set(document, SCHEMA.get_type(implementation), depth + 1))} }}")
    return " ".join(parts)


@st.composite
def field_selection(draw: Any, document: Document, name: str, field: graphql.GraphQLField, depth: int) -> str:
    text = name
    if one_in(draw, 8):
        text = f"{draw(st.sampled_from(['a', 'b', 'c']))}{depth}_{name}: {name}"
    arguments = []
    for argument_name, argument in field.args.items():
        required = graphql.is_non_null_type(argument.type) and argument.default_value is graphql.Undefined
        if required or draw(st.booleans()):
            if not required or not one_in(draw, 30):  # a required argument is sometimes left out
                arguments.append(document.argument(draw, argument_name, argument.type))
    if one_in(draw, 60):
        arguments.append('bogus: 1')
    if arguments:
        text += "(" + ", ".join(arguments) + ")"
    named = graphql.get_named_type(field.type)
    if not graphql.is_leaf_type(named) and not one_in(draw, 40):  # sometimes no sub-selection
        text += " { " + draw(selection_set(document, named, depth + 1)) + " }"
    return text


@st.composite
def operations(draw: Any) -> dict[str, Any]:
    document = Document()
    root = SCHEMA.mutation_type if one_in(draw, 25) else SCHEMA.query_type
    body = draw(selection_set(document, root, 0))
    keyword = "mutation" if root is SCHEMA.mutation_type else "query"
    header = f"{keyword}({', '.join(document.declarations)})" if document.declarations else keyword
    return {"query": f"{header} {{ {body} }}", "variables": document.variables}


# ------------------------------------------------------------------ the test


@pytest.fixture(scope="module")
def poster(example_graph, neo4j_settings, request):
    loop = asyncio.new_event_loop()
    app = create_app(neo4j_settings, None, driver=example_graph)
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver", timeout=60)

    def post(payload: dict[str, Any]) -> httpx.Response:
        return loop.run_until_complete(http.post("/graphql", json=payload))

    yield post
    loop.run_until_complete(http.aclose())
    loop.close()
    line = (f"\nproperty-based API test: {stats['queries']:,} generated queries, {stats['answered']:,} answered "
            f"without errors, {stats['with_errors']:,} with clean GraphQL errors, {stats['http_4xx']:,} HTTP 4xx; "
            "no server errors")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if capture is not None:
        with capture.global_and_fixture_disabled():  # shown even under -q, past pytest's capture
            print(line)
    else:
        print(line)


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=False,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(payload=operations())
def test_generated_queries_never_cause_a_server_error(poster, payload):
    response = poster(payload)
    stats["queries"] += 1
    assert response.status_code < 500, (payload, response.text[:1000])
    if response.status_code != 200:
        stats["http_4xx"] += 1
        return
    body = response.json()
    for error in body.get("errors") or []:
        assert error["message"] != MASKED_MESSAGE, (payload, body)
        assert "Traceback" not in error["message"]
    if body.get("errors"):
        stats["with_errors"] += 1
    else:
        stats["answered"] += 1


def test_the_generator_reaches_every_root_field():
    """A sanity check of the generator itself: every Query field comes up in 1,000 drafts (a fixed seed)."""
    seen: set[str] = set()

    @settings(max_examples=1_000, database=None, deadline=None, derandomize=True)
    @given(payload=operations())
    def draft(payload):
        document = graphql.parse(payload["query"], no_location=True)
        for definition in document.definitions:
            for selection in definition.selection_set.selections:  # type: ignore[attr-defined]
                seen.add(selection.name.value)

    draft()
    assert set(SCHEMA.query_type.fields) <= seen
