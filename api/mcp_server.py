"""The MCP server (the official `mcp` SDK): the incident graph as tools and resources for assistants.

Every tool is a thin call into the GraphQL schema the API serves (the same resolvers, limits and
query slots, through a read-only request context), so there is no second copy of any query; a
tool returns the `data` of its GraphQL answer. Refused arguments and GraphQL errors come back as
tool errors (`is_error`, the API's message), never as a traceback. Cases are resources too:
`incident://case/{id}`.

`incident-graph mcp` serves it over stdio; the Starlette app mounts its streamable HTTP transport
at /mcp (api/app.py).
"""

from __future__ import annotations

import json
from datetime import date
from typing import Annotated, Any

import strawberry
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import ToolAnnotations
from neo4j import Driver
from pydantic import Field

from incident_graph import __version__
from incident_graph.api import limits
from incident_graph.api.context import READ_ONLY, request_context
from incident_graph.api.graphql_schema import build_schema
from incident_graph.api.query_slots import QuerySlots
from incident_graph.client import CASE_QUERY, CASES_QUERY, DIAGNOSE_QUERY, RELATED_QUERY, SHARING_QUERY, entity_type_name

SERVER_NAME = "incident-graph"
INSTRUCTIONS = (
    "The Incident Graph: production incident write-ups (post-mortems) with their symptoms, root causes, "
    "components, contributing factors, organisations and lessons, each link with the sentence that "
    "supports it. Names are canonical entity names: use suggest_filters to find them in a phrase. "
    "Search with search_cases, read one with get_case (or the resource incident://case/{id}), ask "
    "diagnose or root_causes_for_symptom for what lies behind symptoms."
)
READ_ONLY_TOOL = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                 open_world_hint=False)

SUGGEST_QUERY = """
query Suggest($text: String!) {
  suggestFilters(text: $text) { type name mention confidence }
}
"""

ROOT_CAUSE_COUNTS_QUERY = """
query RootCauses($symptom: String!, $first: Int) {
  counts(by: ROOT_CAUSE, filter: {symptoms: [$symptom]}, first: $first) {
    totalCases
    totalCount
    edges { node { entity { name description } count share } }
  }
}
"""

STACK_FINDING = "entity { name description } caseCount latest " \
                "cases { case { id title publishedOn } via evidence { sentence confidence } }"
STACK_REVIEW_QUERY = f"""
query StackReview($components: [String!]!, $first: Int) {{
  stackReview(components: $components, first: $first) {{
    components {{ asked component {{ name }} method similarity }}
    unknown caseCount rootCauseCount contributingFactorCount lessonCount
    rootCauses {{ {STACK_FINDING} }}
    contributingFactors {{ {STACK_FINDING} }}
    lessons {{ case {{ id title publishedOn }} via lessons }}
  }}
}}
"""

Names = Annotated[list[str] | None, Field(description="Canonical names; any of them matches (broader matches narrower).")]
First = Annotated[int, Field(ge=1, le=limits.MAX_PAGE_SIZE, description="How many results (a page).")]


class GraphQLTools:
    """Runs the API's GraphQL documents for the tools: one read-only request context per call."""

    def __init__(self, driver: Driver, slots: QuerySlots | None = None) -> None:
        self.driver = driver
        self.slots = slots or QuerySlots()
        self.schema: strawberry.Schema = build_schema(writable=False)

    async def data(self, document: str, variables: dict[str, Any]) -> dict[str, Any]:
        result = await self.schema.execute(
            document, variable_values=variables, context_value=request_context(self.driver, READ_ONLY, self.slots)
        )
        if result.errors:
            raise ToolError("; ".join(error.message for error in result.errors))
        return result.data or {}

    async def case(self, case_id: str) -> dict[str, Any]:
        found = (await self.data(CASE_QUERY, {"id": case_id}))["case"]
        if found is None:
            raise ToolError(f"No case with id {case_id!r}; search_cases lists the ids.")
        return found


def case_filter(text: str | None, symptoms: list[str] | None, root_causes: list[str] | None,
                components: list[str] | None, contributing_factors: list[str] | None,
                organisations: list[str] | None, published_from: date | None,
                published_to: date | None) -> dict[str, Any]:
    """A GraphQL CaseFilter from the tool's arguments, without the ones not given."""
    values = {
        "text": text, "symptoms": symptoms, "rootCauses": root_causes, "components": components,
        "contributingFactors": contributing_factors, "organisations": organisations,
        "publishedFrom": published_from.isoformat() if published_from else None,
        "publishedTo": published_to.isoformat() if published_to else None,
    }
    return {name: value for name, value in values.items() if value is not None}


def build_mcp_server(driver: Driver, slots: QuerySlots | None = None) -> MCPServer:
    """The MCP server over this driver; `slots` are the API's query slots when mounted on the app."""
    graph = GraphQLTools(driver, slots)
    # WARNING: the SDK would otherwise set the root logger to INFO when embedded in the API.
    server: MCPServer = MCPServer(name=SERVER_NAME, version=__version__, instructions=INSTRUCTIONS,
                                  log_level="WARNING")

    @server.tool(annotations=READ_ONLY_TOOL)
    async def search_cases(
        text: Annotated[str | None, Field(description="Words that must all occur in the case (full text).")] = None,
        symptoms: Names = None,
        root_causes: Names = None,
        components: Names = None,
        contributing_factors: Names = None,
        organisations: Names = None,
        published_from: Annotated[date | None, Field(description="Inclusive, YYYY-MM-DD.")] = None,
        published_to: Annotated[date | None, Field(description="Inclusive, YYYY-MM-DD.")] = None,
        first: First = limits.DEFAULT_PAGE_SIZE,
        after: Annotated[str | None, Field(description="pageInfo.endCursor of the previous page.")] = None,
    ) -> dict[str, Any]:
        """Cases matching filters and text, best match (text) or newest first: a page of them with their
        entities, how many match in all, and the cursor of the next page."""
        variables = {"filter": case_filter(text, symptoms, root_causes, components, contributing_factors,
                                           organisations, published_from, published_to),
                     "first": first, "after": after}
        return (await graph.data(CASES_QUERY, variables))["cases"]

    @server.tool(annotations=READ_ONLY_TOOL)
    async def get_case(id: Annotated[str, Field(description="The case id, as search_cases returns it.")]) -> dict[str, Any]:
        """One case: its text, detection, remediation and lessons, and every symptom, root cause,
        component, contributing factor and organisation with the evidence sentence behind the link."""
        return await graph.case(id)

    @server.tool(annotations=READ_ONLY_TOOL)
    async def diagnose(
        symptoms: Annotated[list[str] | None, Field(description="Canonical symptom names.")] = None,
        text: Annotated[str | None, Field(description="Or a description of what is happening, in words; "
                                          "the symptoms named in it are used.")] = None,
        first: First = limits.DEFAULT_DIAGNOSES,
    ) -> dict[str, Any]:
        """Root causes ranked by how strongly past cases link them to these symptoms (names, or
        your own words in `text`), each with its broader group, score, supporting cases, evidence
        sentences and how the cause usually shows (its signs, to check against what you see), and the
        symptoms it understood."""
        if (symptoms is None) == (text is None):
            raise ToolError("Give exactly one of `symptoms` (canonical symptom names) and `text` (what is "
                            "happening, in words).")
        answer = await graph.data(DIAGNOSE_QUERY, {"symptoms": symptoms, "text": text, "first": first})
        return {"diagnoses": answer["diagnose"]}

    @server.tool(annotations=READ_ONLY_TOOL)
    async def cases_sharing_root_cause(
        symptom: Annotated[str, Field(description="A canonical symptom name.")],
    ) -> dict[str, Any]:
        """Cases that share a root cause with a case showing this symptom (or a narrower one), most
        shared root causes first, with the root causes and the cases that connect them."""
        return {"cases": (await graph.data(SHARING_QUERY, {"symptom": symptom}))["casesSharingRootCause"]}

    @server.tool(annotations=READ_ONLY_TOOL)
    async def related_cases(
        id: Annotated[str, Field(description="The case id.")],
        via: Annotated[list[str] | None, Field(
            description="Entity types to compare by: symptoms, root_causes, components, contributing_factors, "
                        "organisations [default: all].")] = None,
        first: First = limits.DEFAULT_PAGE_SIZE,
    ) -> dict[str, Any]:
        """Cases ranked by how many entities they share with this one, with the shared entities."""
        try:
            types = [entity_type_name(value) for value in via] if via else None
        except ValueError as error:
            raise ToolError(str(error)) from None
        await graph.case(id)  # an unknown id is an error, not an empty list
        answer = await graph.data(RELATED_QUERY, {"id": id, "via": types, "first": first})
        return {"cases": answer["relatedCases"]}

    @server.tool(annotations=READ_ONLY_TOOL)
    async def suggest_filters(
        text: Annotated[str, Field(description="A search phrase or a description of an incident.")],
    ) -> dict[str, Any]:
        """The canonical entity names (filter values) recognised in a phrase, with their types."""
        return {"suggestions": (await graph.data(SUGGEST_QUERY, {"text": text}))["suggestFilters"]}

    @server.tool(annotations=READ_ONLY_TOOL)
    async def root_causes_for_symptom(
        symptom: Annotated[str, Field(description="A canonical symptom name (a broader one covers its narrower).")],
        first: First = limits.DEFAULT_PAGE_SIZE,
    ) -> dict[str, Any]:
        """The root causes of the cases showing this symptom, with how many of those cases have each,
        most cases first."""
        counts = (await graph.data(ROOT_CAUSE_COUNTS_QUERY, {"symptom": symptom, "first": first}))["counts"]
        return {"symptom": symptom, "cases": counts["totalCases"], "root_cause_count": counts["totalCount"],
                "root_causes": [edge["node"] for edge in counts["edges"]]}

    @server.tool(annotations=READ_ONLY_TOOL)
    async def stack_review(
        components: Annotated[list[str], Field(description="The components you run: names or aliases, "
                                              "e.g. etcd, PostgreSQL, GPU.")],
        first: First = 10,
    ) -> dict[str, Any]:
        """Check your stack against past incidents: the root causes, contributing factors and lessons of
        cases involving these components (or their broader or narrower concepts), most cases and most
        recent first, each with its cases and evidence. A name that is no component's name or alias is
        matched to the nearest component in meaning (word vectors) when one is close; the rest are unknown."""
        return (await graph.data(STACK_REVIEW_QUERY, {"components": components, "first": first}))["stackReview"]

    @server.resource("incident://case/{id}", name="case", mime_type="application/json",
                     description="One incident case as JSON: text, sections, entities and evidence.")
    async def case_resource(id: str) -> str:
        try:
            return json.dumps(await graph.case(id), ensure_ascii=False)
        except ToolError as error:
            raise ResourceError(str(error)) from None

    return server


def mcp_http_endpoint(driver: Driver, slots: QuerySlots) -> tuple[StreamableHTTPASGIApp, StreamableHTTPSessionManager]:
    """The ASGI endpoint of the streamable HTTP transport (stateless: every request stands alone, JSON
    answers), and its session manager, which the app's lifespan runs. The SDK's protection against
    DNS rebinding stays on: Host and Origin must be a loopback address."""
    server = build_mcp_server(driver, slots)
    server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True,
                               max_request_body_size=limits.MAX_MCP_REQUEST_BYTES)
    return StreamableHTTPASGIApp(server.session_manager), server.session_manager
