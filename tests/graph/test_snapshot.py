"""Snapshots against the real Neo4j: export, reset, import gives the same graph back; the JSONL
pages, GraphML, `GET /export.jsonl` and refusals of bad snapshots."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import Driver
from typer.testing import CliRunner

from incident_graph.api.app import create_app
from incident_graph.cli import app
from incident_graph.config import Settings
from incident_graph.graph.admin import reset_data
from incident_graph.graph.snapshot import driver_reader, iter_snapshot, read_snapshot_page

runner = CliRunner()
GRAPHML = "{http://graphml.graphdrawing.org/xmlns}"


def graph_state(driver: Driver) -> dict[str, Any]:
    """Every node (labels, properties) and relationship (ends, type, properties), comparable."""
    nodes = driver.execute_query(
        "MATCH (n) RETURN labels(n) AS labels, properties(n) AS properties").records
    relationships = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN coalesce(a.case_id, a.name) AS source, type(r) AS type, "
        "coalesce(b.case_id, b.name) AS target, labels(b) AS target_labels, properties(r) AS properties").records
    return {
        "nodes": sorted((sorted(r["labels"]), sorted(r["properties"].items())) for r in nodes),
        "relationships": sorted(
            (r["source"], r["type"], r["target"], r["target_labels"], sorted(r["properties"].items()))
            for r in relationships),
    }


@pytest.fixture
def env(neo4j_settings: Settings) -> dict[str, str]:
    return {"NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user,
            "NEO4J_PASSWORD": neo4j_settings.password}


def export(env: dict[str, str], path: Path, *options: str) -> None:
    result = runner.invoke(app, ["export", str(path), *options], env=env)
    assert result.exit_code == 0, result.output


def test_export_reset_import_gives_the_same_graph(corpus_graph: Driver, env: dict[str, str], tmp_path: Path):
    before = graph_state(corpus_graph)
    hashes = {r["id"]: r["hash"] for r in corpus_graph.execute_query(
        "MATCH (c:Case) RETURN c.case_id AS id, c.content_hash AS hash").records}
    assert len(hashes) > 40 and before["relationships"]
    snapshot = tmp_path / "graph.jsonl"
    export(env, snapshot)
    lines = snapshot.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["kind"] == "snapshot"
    assert sum(json.loads(line)["kind"] == "case" for line in lines) == len(hashes)

    reset_data(corpus_graph)
    assert graph_state(corpus_graph)["nodes"] == []
    result = runner.invoke(app, ["import", str(snapshot)], env=env)
    assert result.exit_code == 0, result.output
    assert f"{len(hashes)} cases" in result.stdout
    assert graph_state(corpus_graph) == before
    assert {r["id"]: r["hash"] for r in corpus_graph.execute_query(
        "MATCH (c:Case) RETURN c.case_id AS id, c.content_hash AS hash").records} == hashes

    # Idempotent: loading the same snapshot into the graph it came from changes nothing.
    again = runner.invoke(app, ["import", str(snapshot)], env=env)
    assert again.exit_code == 0, again.output
    assert graph_state(corpus_graph) == before


def test_pages_follow_one_another_without_gaps_or_repeats(corpus_graph: Driver):
    read = driver_reader(corpus_graph)
    whole = list(iter_snapshot(read, page_size=10_000))
    paged, cursor, pages = [], None, 0
    while True:
        page = read_snapshot_page(read, cursor, 7)
        assert len(page.records) <= 7
        paged += page.records
        pages += 1
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert paged == whole and pages > 10
    assert [r for r in whole if r["kind"] == "snapshot"] == [whole[0]]


def test_graphml_holds_every_case_entity_and_link(corpus_graph: Driver, env: dict[str, str], tmp_path: Path):
    path = tmp_path / "graph.graphml"
    export(env, path, "--format", "graphml")
    root = ElementTree.parse(path).getroot()
    nodes = root.findall(f"{GRAPHML}graph/{GRAPHML}node")
    edges = root.findall(f"{GRAPHML}graph/{GRAPHML}edge")
    counts = corpus_graph.execute_query(
        "MATCH (n) WITH count(n) AS nodes MATCH ()-[r]->() RETURN nodes, count(r) AS relationships").records[0]
    assert len(nodes) == counts["nodes"] and len(edges) == counts["relationships"]
    ids = {node.get("id") for node in nodes}
    assert "Case:gitlab-2017-database-deletion" in ids
    assert all(edge.get("source") in ids and edge.get("target") in ids for edge in edges)


@pytest.mark.parametrize(("content", "message"), [
    ("", "empty"),
    ('{"kind": "case", "properties": {"case_id": "x"}}\n', "line 1: a snapshot starts with its header"),
    ('{"kind": "snapshot", "format": "incident-graph-snapshot", "version": 1}\nnot json\n', "line 2: not JSON"),
    ('{"kind": "snapshot", "format": "incident-graph-snapshot", "version": 1}\n'
     '{"kind": "entity", "label": "Planet", "properties": {"name": "Mars"}}\n', "line 2: unknown entity label 'Planet'"),
    ('{"kind": "snapshot", "format": "incident-graph-snapshot", "version": 1}\n'
     '{"kind": "case", "properties": {"title": "no id"}}\n', "line 2: a case needs a `case_id`"),
    ('{"kind": "snapshot", "format": "other", "version": 1}\n', "not an Incident Graph snapshot"),
])
def test_a_bad_snapshot_is_refused_with_its_line(empty_graph: Driver, env: dict[str, str], tmp_path: Path,
                                                 content: str, message: str):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["import", str(path)], env=env)
    assert result.exit_code == 1
    assert message in " ".join(result.stderr.split())
    assert graph_state(empty_graph)["nodes"] == []


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_http_export_pages_by_cursor_to_the_whole_snapshot(corpus_graph: Driver, neo4j_settings: Settings):
    whole = list(iter_snapshot(driver_reader(corpus_graph)))
    application = create_app(neo4j_settings, driver=corpus_graph)
    records: list[dict[str, Any]] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=application), base_url="http://t") as http:
        url: str | None = "/export.jsonl?limit=25"
        while url is not None:
            response = await http.get(url)
            assert response.status_code == 200 and response.headers["content-type"].startswith("application/jsonl")
            page = [json.loads(line) for line in response.text.splitlines()]
            assert 0 < len(page) <= 25
            records += page
            link = response.headers.get("link")
            url = link[1:link.index(">")] if link else None
        assert records == whole

        for query, wanted in (("limit=0", "`limit` must be between 1 and 1000"),
                              ("limit=5000", "`limit` must be between 1 and 1000"),
                              ("limit=ten", "`limit` must be a whole number"),
                              ("after=bm90LWEtY3Vyc29y", "`after` is not a cursor")):
            refused = await http.get(f"/export.jsonl?{query}")
            assert refused.status_code == 400
            assert refused.json()["code"] == "BAD_USER_INPUT" and wanted in refused.json()["error"]
        assert (await http.post("/export.jsonl")).status_code == 405
