"""The Python embedding API: `from incident_graph import Graph`, no HTTP server involved."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from incident_graph import Graph, GraphQueryError
from incident_graph.graph.errors import GraphUnavailable

from .api.example import load_example


@pytest.fixture(scope="module")
def graph(driver, neo4j_settings) -> Iterator[Graph]:
    load_example(driver)
    connected = Graph.connect(uri=neo4j_settings.uri, user=neo4j_settings.user, password=neo4j_settings.password)
    yield connected
    connected.close()


def test_cases_with_filters_and_pages(graph):
    page = graph.cases(symptoms=["availability loss"], components=["database", "GPU"], first=3)
    assert page["totalCount"] == 4
    assert [edge["node"]["id"] for edge in page["edges"]] == [
        "llama-training-interrupts", "gpu-sdc-bytedance", "datacenter-power"]
    assert page["pageInfo"]["hasNextPage"] is True
    rest = graph.cases(symptoms=["availability loss"], components=["database", "GPU"], first=3,
                       after=page["pageInfo"]["endCursor"])
    assert [edge["node"]["id"] for edge in rest["edges"]] == ["gitlab-db-deletion"]
    node = page["edges"][1]["node"]
    assert node["title"] == "Defective GPUs silently corrupt LLM training"
    assert [link["entity"]["name"] for link in node["rootCauses"]] == ["silent data corruption"]


def test_cases_with_text_and_dates(graph):
    page = graph.cases(text="training", organisations=["Meta"])
    assert [edge["node"]["id"] for edge in page["edges"]] == ["llama-training-interrupts"]
    page = graph.cases(published_from="2021-01-01", published_to="2023-12-31")
    assert [edge["node"]["id"] for edge in page["edges"]] == ["datacenter-power", "meta-sdc-fleet"]


def test_case(graph):
    case = graph.case("gpu-sdc-bytedance")
    assert case["publishedOn"] == "2024-05-01"
    symptom = case["symptoms"][0]
    assert symptom["entity"]["name"] == "loss spike"
    assert case["text"][symptom["evidence"]["start"]:symptom["evidence"]["end"]] == "loss spike"
    assert graph.case("no-such-case") is None


def test_case_node_walks_the_same_graph_as_neomodel_objects(graph):
    case = graph.case_node("gpu-sdc-bytedance")
    assert case.title == "Defective GPUs silently corrupt LLM training"
    [cause] = case.root_causes.all()
    assert cause.name == "silent data corruption"
    evidence = case.root_causes.relationship(cause)
    assert case.text[evidence.start:evidence.end] == evidence.mention
    assert graph.case_node("no-such-case") is None


def test_diagnose(graph):
    diagnoses = graph.diagnose(["loss spike", "crash loop"])
    assert [(d["rootCause"]["name"], d["group"] and d["group"]["name"], round(d["score"], 4)) for d in diagnoses] == [
        ("silent data corruption", "hardware fault", 0.6337), ("software bug", None, 0.3851),
        ("power failure", "hardware fault", 0.0334)]  # the arithmetic: tests/api/test_diagnosis.py
    assert [c["id"] for c in diagnoses[0]["supportingCases"]] == ["gpu-sdc-bytedance", "llama-training-interrupts"]
    assert len(graph.diagnose(["availability loss"], first=2)) == 2


def test_cases_sharing_root_cause(graph):
    rows = graph.cases_sharing_root_cause("loss spike")
    assert [row["case"]["id"] for row in rows] == [
        "gpu-sdc-bytedance", "llama-training-interrupts", "meta-sdc-fleet", "undated-note"]
    assert [s["rootCause"]["name"] for s in rows[1]["sharedRootCauses"]] == ["silent data corruption", "software bug"]


def test_related_cases_via_any_spelling_of_a_type(graph):
    rows = graph.related_cases("gpu-sdc-bytedance", via=["root_causes", "ContributingFactor"])
    assert [(row["case"]["id"], row["sharedCount"]) for row in rows] == [
        ("meta-sdc-fleet", 2), ("llama-training-interrupts", 1)]
    assert [row["case"]["id"] for row in graph.related_cases("gpu-sdc-bytedance", first=1)] == [
        "llama-training-interrupts"]
    with pytest.raises(ValueError, match="unknown entity type 'vibes'"):
        graph.related_cases("gpu-sdc-bytedance", via=["vibes"])


def test_query_runs_any_document_with_the_same_limits(graph):
    data = graph.query("query($n: String) { symptoms(search: $n) { totalCount } }", {"n": "loss"})
    assert data == {"symptoms": {"totalCount": 3}}
    with pytest.raises(GraphQueryError) as refused:
        graph.query("{ cases(first: 1000) { totalCount } }")
    assert refused.value.messages == ["`first` must be between 1 and 100 (got 1000); page through larger results."]
    with pytest.raises(GraphQueryError, match="not supported by the schema"):
        graph.query('mutation { deleteCase(id: "undated-note") }')


def test_works_inside_a_running_event_loop(graph):
    async def notebook_cell() -> int:
        return graph.cases()["totalCount"]

    assert asyncio.run(notebook_cell()) == 7


def test_connect_fails_clearly_when_neo4j_is_not_there():
    with pytest.raises(GraphUnavailable, match="No Neo4j answers at bolt://127.0.0.1:1"):
        Graph.connect(uri="bolt://127.0.0.1:1", password="irrelevant-password")


def test_context_manager_closes(driver, neo4j_settings):
    with Graph.connect(uri=neo4j_settings.uri, user=neo4j_settings.user, password=neo4j_settings.password) as graph:
        assert graph.cases(first=1)["totalCount"] == 7
    with pytest.raises(RuntimeError, match="this Graph is closed"):
        graph.cases()
    graph.close()  # closing twice is harmless
