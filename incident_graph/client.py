"""Use the incident graph from Python without running the HTTP server.

    from incident_graph import Graph

    with Graph.connect() as graph:               # NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, or arguments
        page = graph.cases(symptoms=["loss spike"], first=5)
        for edge in page["edges"]:
            print(edge["node"]["id"], edge["node"]["title"])
        for diagnosis in graph.diagnose(["loss spike", "crash loop"]):
            print(diagnosis["rootCause"]["name"], diagnosis["score"])

Every method runs a GraphQL document against the same read-only schema the server exposes (same
limits, same answers) and returns the `data` of the answer as plain dicts with the API's field
names. `query()` runs any document. Errors raise GraphQueryError.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from datetime import date
from types import TracebackType
from typing import Any, TypeVar

from neo4j import Driver

from incident_graph.config import Settings

T = TypeVar("T")

CASE_SUMMARY = """
fragment CaseSummary on Case {
  id title source published publishedOn
  symptoms { entity { name } }
  rootCauses { entity { name } }
  components { entity { name } }
  contributingFactors { entity { name } }
  organisations { entity { name } }
}
"""

EVIDENCE = "evidence { sentence mention start end method confidence section }"

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
    symptoms {{ entity {{ name }} {EVIDENCE} }}
    rootCauses {{ entity {{ name }} {EVIDENCE} }}
    components {{ entity {{ name }} {EVIDENCE} }}
    contributingFactors {{ entity {{ name }} {EVIDENCE} }}
    organisations {{ entity {{ name }} {EVIDENCE} }}
  }}
}}
"""

DIAGNOSE_QUERY = """
query Diagnose($symptoms: [String!]!, $first: Int) {
  diagnose(symptoms: $symptoms, first: $first) {
    rootCause { name }
    score
    supportingCaseCount
    supportingCases { id title }
    matchedSymptoms
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

ENTITY_TYPE_NAMES = {
    "SYMPTOM": "SYMPTOM", "SYMPTOMS": "SYMPTOM",
    "ROOT_CAUSE": "ROOT_CAUSE", "ROOTCAUSE": "ROOT_CAUSE", "ROOT_CAUSES": "ROOT_CAUSE",
    "COMPONENT": "COMPONENT", "COMPONENTS": "COMPONENT",
    "CONTRIBUTING_FACTOR": "CONTRIBUTING_FACTOR", "CONTRIBUTINGFACTOR": "CONTRIBUTING_FACTOR",
    "CONTRIBUTING_FACTORS": "CONTRIBUTING_FACTOR",
    "ORGANISATION": "ORGANISATION", "ORGANISATIONS": "ORGANISATION",
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


def verified_driver(settings: Settings) -> Driver:
    """A driver that has proven it can talk to Neo4j. Unlike graph.connection.connect it leaves
    neomodel's global connection alone: an embedding tool may have its own."""
    from neo4j.exceptions import AuthError

    from incident_graph.graph.connection import GraphUnavailable, open_driver

    driver = open_driver(settings)
    try:
        driver.verify_connectivity()
    except AuthError as error:
        driver.close()
        raise GraphUnavailable(f"Neo4j at {settings.uri} refused user {settings.user!r}.") from error
    except Exception as error:
        driver.close()
        raise GraphUnavailable(f"No Neo4j answers at {settings.uri}.") from error
    return driver


class _LoopThread:
    """A private event loop on a daemon thread: the schema is async (DataLoaders), and this works
    the same from plain scripts and from notebooks that already run a loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="incident-graph-client", daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class Graph:
    """A connection to the incident graph; use `Graph.connect(...)`, then `close()` (or `with`)."""

    def __init__(self, driver: Driver, owns_driver: bool = True) -> None:
        from incident_graph.api.graphql_schema import build_schema

        self._driver = driver
        self._owns_driver = owns_driver
        self._schema = build_schema(writable=False)
        self._loop = _LoopThread()
        self._closed = False

    @classmethod
    def connect(cls, uri: str | None = None, user: str | None = None, password: str | None = None) -> Graph:
        """Connect to Neo4j (arguments, else NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, else defaults).

        Raises incident_graph.graph.connection.GraphUnavailable when Neo4j does not answer.
        """
        return cls(verified_driver(Settings.from_env(uri=uri, user=user, password=password)))

    # ---------------------------------------------------------------- any query

    def query(self, graphql: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run a GraphQL document (queries only) and return its `data`."""
        from incident_graph.api.context import request_context

        if self._closed:
            raise RuntimeError("this Graph is closed; connect again with Graph.connect()")

        async def execute() -> Any:
            return await self._schema.execute(
                graphql, variable_values=variables or {}, context_value=request_context(self._driver)
            )

        result = self._loop.run(execute())
        if result.errors:
            raise GraphQueryError([error.message for error in result.errors])
        return result.data or {}

    # ---------------------------------------------------------------- shortcuts

    def cases(
        self,
        symptoms: Sequence[str] | None = None,
        root_causes: Sequence[str] | None = None,
        components: Sequence[str] | None = None,
        contributing_factors: Sequence[str] | None = None,
        organisations: Sequence[str] | None = None,
        text: str | None = None,
        published_from: date | str | None = None,
        published_to: date | str | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> dict[str, Any]:
        """A page of matching cases: {totalCount, pageInfo, edges: [{cursor, node}]}."""
        case_filter = {
            name: value
            for name, value in {
                "symptoms": list(symptoms) if symptoms is not None else None,
                "rootCauses": list(root_causes) if root_causes is not None else None,
                "components": list(components) if components is not None else None,
                "contributingFactors": list(contributing_factors) if contributing_factors is not None else None,
                "organisations": list(organisations) if organisations is not None else None,
                "text": text,
                "publishedFrom": str(published_from) if published_from is not None else None,
                "publishedTo": str(published_to) if published_to is not None else None,
            }.items()
            if value is not None
        }
        variables = {"filter": case_filter, "first": first, "after": after}
        return self.query(CASES_QUERY, variables)["cases"]

    def case(self, id: str) -> dict[str, Any] | None:
        """One case with its text and every link's evidence, or None."""
        return self.query(CASE_QUERY, {"id": id})["case"]

    def diagnose(self, symptoms: Sequence[str], first: int = 10) -> list[dict[str, Any]]:
        """Root causes ranked by how strongly the graph links them to these symptoms."""
        return self.query(DIAGNOSE_QUERY, {"symptoms": list(symptoms), "first": first})["diagnose"]

    def cases_sharing_root_cause(self, symptom: str) -> list[dict[str, Any]]:
        return self.query(SHARING_QUERY, {"symptom": symptom})["casesSharingRootCause"]

    def related_cases(self, id: str, via: Sequence[str] | None = None, first: int = 20) -> list[dict[str, Any]]:
        variables = {"id": id, "via": [entity_type_name(v) for v in via] if via else None, "first": first}
        return self.query(RELATED_QUERY, variables)["relatedCases"]

    # ---------------------------------------------------------------- lifetime

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.close()
        if self._owns_driver:
            self._driver.close()

    def __enter__(self) -> Graph:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
