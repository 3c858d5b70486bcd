"""The MCP server driven by the SDK's own client, over stdio (`incident-graph mcp` as a subprocess)
and over streamable HTTP (/mcp on the app, served by uvicorn), against the example graph in the
real Neo4j (tests/api/example.py): every tool's answer, the case resources, and clear tool errors."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from neo4j import Driver

from incident_graph.api.app import create_app
from incident_graph.config import Settings
from tests.network import served

pytestmark = pytest.mark.anyio

INCIDENT_GRAPH = Path(sys.executable).with_name("incident-graph")
TOOLS = {"search_cases", "get_case", "diagnose", "cases_sharing_root_cause", "related_cases", "suggest_filters",
         "root_causes_for_symptom", "stack_review"}


@pytest.fixture(scope="module", params=["stdio", "http"])
def transport(request: pytest.FixtureRequest, example_graph: Driver, neo4j_settings: Settings) -> Any:
    """What the client connects to: the command's stdio, or the URL of /mcp on a served app."""
    if request.param == "stdio":
        yield StdioServerParameters(command=str(INCIDENT_GRAPH), args=["mcp"], env={
            "NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user,
            "NEO4J_PASSWORD": neo4j_settings.password})
        return
    with served(create_app(neo4j_settings, driver=example_graph)) as base_url:
        yield f"{base_url}/mcp"


@pytest.fixture
async def client(transport: Any) -> AsyncIterator[Client]:
    async with Client(transport) as connected:
        yield connected


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def refusal(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    return result.content[0].text


async def test_the_tools_are_listed_with_descriptions_and_schemas(client: Client):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint
    assert tools["search_cases"].input_schema["properties"]["first"]["maximum"] == 100
    assert "Canonical" in tools["search_cases"].input_schema["properties"]["symptoms"]["description"]


async def test_search_cases_filters_and_pages(client: Client):
    page = await call(client, "search_cases", symptoms=["availability loss"], first=2)
    assert page["totalCount"] == 5 and len(page["edges"]) == 2 and page["pageInfo"]["hasNextPage"]
    rest = await call(client, "search_cases", symptoms=["availability loss"], first=10,
                      after=page["pageInfo"]["endCursor"])
    ids = [edge["node"]["id"] for edge in page["edges"] + rest["edges"]]
    assert sorted(ids) == sorted(["gpu-sdc-bytedance", "llama-training-interrupts", "cloudflare-dns-outage",
                                  "gitlab-db-deletion", "datacenter-power"])
    dated = await call(client, "search_cases", published_from="2024-01-01")
    assert {edge["node"]["id"] for edge in dated["edges"]} == {"gpu-sdc-bytedance", "llama-training-interrupts"}


async def test_get_case_has_text_entities_and_evidence(client: Client):
    case = await call(client, "get_case", id="gitlab-db-deletion")
    assert case["title"] == "Production database deleted by mistake"
    assert case["remediation"] == ["step one", "step two"]
    [cause] = case["rootCauses"]
    assert cause["entity"]["name"] == "configuration error"
    assert cause["evidence"]["sentence"] == "The write-up names configuration error here."
    assert case["text"][cause["evidence"]["start"]:cause["evidence"]["end"]] == "configuration error"


async def test_diagnose_from_symptoms_and_from_text(client: Client):
    answer = await call(client, "diagnose", symptoms=["loss spike"])
    assert [d["rootCause"]["name"] for d in answer["diagnoses"]] == [
        "silent data corruption", "software bug", "power failure"]
    assert answer["diagnoses"][0]["group"] == {"name": "hardware fault"}
    # How the cause usually shows, as the taxonomy says it, to check against what one sees.
    assert answer["diagnoses"][0]["rootCause"]["signs"] == [
        "wrong results with no error in any log", "the loss jumps on one job and not on the others"]
    from_text = await call(client, "diagnose", text="the training loss spiked overnight")
    assert from_text["diagnoses"][0]["understoodSymptoms"] == [
        {"phrase": "the training loss spiked overnight", "symptom": "loss spike", "similarity": 1.0,
         "method": "taxonomy"}]
    # The causes past cases support come in the same order; the text may add causes the taxonomy's
    # signs suggest, which no case supports.
    supported = [d["rootCause"]["name"] for d in from_text["diagnoses"] if d["supportingCaseCount"] > 0]
    assert supported == [d["rootCause"]["name"] for d in answer["diagnoses"] if d["supportingCaseCount"] > 0]
    assert all(d["supportingCaseCount"] == 0 for d in from_text["diagnoses"]
               if d["rootCause"]["name"] not in supported)


async def test_cases_sharing_a_root_cause_and_related_cases(client: Client):
    sharing = await call(client, "cases_sharing_root_cause", symptom="data loss")
    assert {item["case"]["id"] for item in sharing["cases"]} == {
        "gpu-sdc-bytedance", "llama-training-interrupts", "cloudflare-dns-outage"}
    related = await call(client, "related_cases", id="gpu-sdc-bytedance", via=["root_causes"])
    assert {item["case"]["id"] for item in related["cases"]} == {"meta-sdc-fleet", "llama-training-interrupts"}


async def test_suggest_filters_and_root_causes_for_a_symptom(client: Client):
    suggestions = (await call(client, "suggest_filters", text="a GPU in a crash loop"))["suggestions"]
    assert {"type": "COMPONENT", "name": "GPU"} in [{"type": s["type"], "name": s["name"]} for s in suggestions]
    causes = await call(client, "root_causes_for_symptom", symptom="service outage")
    assert causes["cases"] == 3
    assert [(c["entity"]["name"], c["count"]) for c in causes["root_causes"]] == [
        ("configuration error", 2), ("hardware fault", 1), ("power failure", 1)]


async def test_cases_are_resources(client: Client):
    templates = (await client.list_resource_templates()).resource_templates
    assert [template.uri_template for template in templates] == ["incident://case/{id}"]
    contents = (await client.read_resource("incident://case/meta-sdc-fleet")).contents
    assert json.loads(contents[0].text)["title"] == "Silent data corruption across a server fleet"
    with pytest.raises(MCPError, match="No case with id 'no-such-case'"):
        await client.read_resource("incident://case/no-such-case")


@pytest.mark.parametrize(("tool", "arguments", "message"), [
    ("search_cases", {"first": 500}, "less than or equal to 100"),
    ("search_cases", {"published_from": "yesterday"}, "published_from"),
    ("search_cases", {"text": "x" * 600}, "`filter.text` may be at most 500 characters"),
    ("get_case", {"id": "no-such-case"}, "No case with id 'no-such-case'"),
    ("get_case", {}, "id"),
    ("diagnose", {}, "Give exactly one of `symptoms`"),
    ("related_cases", {"id": "gpu-sdc-bytedance", "via": ["planets"]}, "unknown entity type 'planets'"),
    ("related_cases", {"id": "no-such-case"}, "No case with id"),
])
async def test_bad_arguments_are_clear_tool_errors(client: Client, tool: str, arguments: dict[str, Any],
                                                  message: str):
    text = await refusal(client, tool, **arguments)
    assert message in text and "Traceback" not in text


async def test_stack_review_ranks_what_past_cases_of_the_stack_teach(client: Client):
    review = await call(client, "stack_review", components=["gpu", "etcd"])
    assert review["unknown"] == ["etcd"] and review["components"] == [
        {"asked": "gpu", "component": {"name": "GPU"}, "method": "name", "similarity": 1.0}]
    assert [(f["entity"]["name"], f["caseCount"]) for f in review["rootCauses"]][:1] == [("silent data corruption", 3)]
    assert review["lessons"][0] == {"case": {"id": "gpu-sdc-bytedance", "title": "Defective GPUs silently corrupt "
                                             "LLM training", "publishedOn": "2024-05-01"},
                                    "via": ["GPU"], "lessons": "Check the hardware."}
    assert "`components` must name at least one component" in await refusal(client, "stack_review", components=[])
