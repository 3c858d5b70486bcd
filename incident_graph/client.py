"""Use the incident graph from Python without running the HTTP server.

    from incident_graph import Graph

    with Graph.connect() as graph:               # NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, or arguments
        page = graph.cases(symptoms=["loss spike"], first=5)
        for edge in page["edges"]:
            print(edge["node"]["id"], edge["node"]["title"])
        for diagnosis in graph.diagnose(["loss spike", "crash loop"]):
            print(diagnosis["rootCause"]["name"], diagnosis["score"])
        case = graph.case_node("gitlab-2017-database-deletion")   # a neomodel object
        print([cause.name for cause in case.root_causes.all()])

Every method but `case_node` runs a GraphQL document against the same read-only schema the server
exposes (same limits, same answers) and returns the `data` of the answer as plain dicts with the
API's field names. `query()` runs any document. Errors raise GraphQueryError. `case_node` and the
classes of incident_graph.schema.models walk the graph as Python objects (neomodel), and `driver`
runs Cypher: all three over the one connection `Graph.connect` opened.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from datetime import date
from types import TracebackType
from typing import Any

from anyio.from_thread import start_blocking_portal
from neo4j import Driver

from incident_graph.config import Settings
from incident_graph.schema.entity_types import BY_KEY, ENTITY_TYPES

EVIDENCE = "evidence { sentence mention start end method confidence section }"
ENTITY_LINKS = " ".join(f"{t.graphql_field} {{ entity {{ name }} }}" for t in ENTITY_TYPES)
ENTITY_LINKS_WITH_EVIDENCE = " ".join(f"{t.graphql_field} {{ entity {{ name }} {EVIDENCE} }}" for t in ENTITY_TYPES)

CASE_SUMMARY = f"""
fragment CaseSummary on Case {{
  id title source published publishedOn
  {ENTITY_LINKS}
}}
"""

CASES_QUERY = CASE_SUMMARY + """
query Cases($filter: CaseFilter, $first: Int, $after: String) {
  cases(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { cursor node { ...CaseSummary } }
  }
}
"""

CASE_QUERY = f"""
query Case($id: ID!) {{
  case(id: $id) {{
    id title source published publishedOn text detection remediation lessons layout ingestedAt
    {ENTITY_LINKS_WITH_EVIDENCE}
  }}
}}
"""

DIAGNOSE_QUERY = """
query Diagnose($symptoms: [String!], $text: String, $first: Int) {
  diagnose(symptoms: $symptoms, text: $text, first: $first) {
    rootCause { name signs }
    group { name }
    score
    groupScore
    supportingCaseCount
    supportingCases { id title }
    evidence { case { id } sentence }
    matchedSymptoms
    understoodSymptoms { phrase symptom similarity method }
  }
}
"""

SHARING_QUERY = """
query Sharing($symptom: String!) {
  casesSharingRootCause(symptom: $symptom) {
    case { id title }
    sharedRootCauses { rootCause { name } connectingCaseCount connectingCases { id title } }
  }
}
"""

RELATED_QUERY = """
query Related($id: ID!, $via: [EntityType!], $first: Int) {
  relatedCases(id: $id, via: $via, first: $first) {
    case { id title }
    sharedCount
    shared { __typename name }
  }
}
"""

# Every spelling related_cases accepts for a type (ROOT_CAUSE, RootCause, root_causes), to its enum value.
ENTITY_TYPE_NAMES = {
    spelling.upper(): t.graphql_enum for t in ENTITY_TYPES for spelling in (t.graphql_enum, t.label, t.key)
}


class GraphQueryError(RuntimeError):
    """The query was refused or failed; `messages` holds each GraphQL error message."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


def entity_type_name(value: str) -> str:
    """`ROOT_CAUSE`, `RootCause` and `root_causes` all name the EntityType ROOT_CAUSE."""
    try:
        return ENTITY_TYPE_NAMES[value.replace(" ", "_").upper()]
    except KeyError:
        raise ValueError(f"unknown entity type {value!r}; expected one of {sorted(set(ENTITY_TYPE_NAMES.values()))}")


class Graph:
    """A connection to the incident graph; use `Graph.connect(...)`, then `close()` (or `with`)."""

    def __init__(self, driver: Driver, owns_driver: bool = True) -> None:
        from incident_graph.api.graphql_schema import build_schema
        from incident_graph.graph.connection import bind_neomodel

        bind_neomodel(driver)  # neomodel's objects (case_node) over this same driver
        self.driver = driver  # for Cypher of your own, with every value a parameter
        self._owns_driver = owns_driver
        self._schema = build_schema(writable=False)
        # The schema is async (DataLoaders): a portal runs it on an event loop of its own, so this
        # works the same from plain scripts and from notebooks that already run a loop.
        self._resources = ExitStack()
        self._portal = self._resources.enter_context(start_blocking_portal(name="incident-graph-client"))
        self._closed = False

    @classmethod
    def connect(cls, uri: str | None = None, user: str | None = None, password: str | None = None) -> Graph:
        """Connect to Neo4j (arguments, else NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, else defaults),
        with neomodel bound to the same driver.

        Raises incident_graph.graph.errors.GraphUnavailable when Neo4j does not answer.
        """
        from incident_graph.graph.connection import connect

        return cls(connect(Settings.from_env(uri=uri, user=user, password=password)))

    # ---------------------------------------------------------------- any query

    def query(self, graphql: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run a GraphQL document (queries only) and return its `data`."""
        from incident_graph.api.context import request_context

        if self._closed:
            raise RuntimeError("this Graph is closed; connect again with Graph.connect()")

        async def execute() -> Any:
            return await self._schema.execute(
                graphql, variable_values=variables or {}, context_value=request_context(self.driver)
            )

        result = self._portal.call(execute)
        if result.errors:
            raise GraphQueryError([error.message for error in result.errors])
        return result.data or {}

    # ---------------------------------------------------------------- shortcuts

    def cases(
        self,
        text: str | None = None,
        published_from: date | str | None = None,
        published_to: date | str | None = None,
        first: int = 20,
        after: str | None = None,
        **names: Sequence[str],
    ) -> dict[str, Any]:
        """A page of matching cases: {totalCount, pageInfo, edges: [{cursor, node}]}.

        `names`: canonical names by entity type key (symptoms, root_causes, components,
        contributing_factors, organisations), as CaseFilter takes them.
        """
        unknown = sorted(set(names) - set(BY_KEY))
        if unknown:
            raise TypeError(f"cases() got unknown filter {', '.join(unknown)}; expected some of {', '.join(BY_KEY)}")
        case_filter: dict[str, Any] = {BY_KEY[key].graphql_field: list(values) for key, values in names.items()}
        case_filter.update({
            name: value
            for name, value in {
                "text": text,
                "publishedFrom": str(published_from) if published_from is not None else None,
                "publishedTo": str(published_to) if published_to is not None else None,
            }.items()
            if value is not None
        })
        variables = {"filter": case_filter, "first": first, "after": after}
        return self.query(CASES_QUERY, variables)["cases"]

    def case(self, id: str) -> dict[str, Any] | None:
        """One case with its text and every link's evidence, or None."""
        return self.query(CASE_QUERY, {"id": id})["case"]

    def diagnose(self, symptoms: Sequence[str] | None = None, first: int = 10,
                 text: str | None = None) -> list[dict[str, Any]]:
        """Root causes for symptom names, or for symptoms in your own words (`text`), each with its group."""
        variables = {"symptoms": list(symptoms) if symptoms is not None else None, "text": text, "first": first}
        return self.query(DIAGNOSE_QUERY, variables)["diagnose"]

    def cases_sharing_root_cause(self, symptom: str) -> list[dict[str, Any]]:
        return self.query(SHARING_QUERY, {"symptom": symptom})["casesSharingRootCause"]

    def related_cases(self, id: str, via: Sequence[str] | None = None, first: int = 20) -> list[dict[str, Any]]:
        variables = {"id": id, "via": [entity_type_name(v) for v in via] if via else None, "first": first}
        return self.query(RELATED_QUERY, variables)["relatedCases"]

    # ---------------------------------------------------------------- neomodel objects

    def case_node(self, id: str) -> Any:
        """The case as a neomodel object (schema/models.py Case), or None: walk its links with
        `case.root_causes.all()`, the evidence of one with `case.root_causes.relationship(cause)`."""
        from incident_graph.schema.models import Case

        return Case.nodes.get_or_none(case_id=id)

    # ---------------------------------------------------------------- lifetime

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._resources.close()
        if self._owns_driver:
            self.driver.close()

    def __enter__(self) -> Graph:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
