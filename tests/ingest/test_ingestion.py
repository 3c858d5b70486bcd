"""Ingest into the real Neo4j: the corpus, idempotency, changed write-ups, bad input."""

import json
from pathlib import Path

import pytest

from incident_graph.graph.admin import graph_status, reset_data
from incident_graph.ingest.corpus import bundled_corpus_dir
from incident_graph.ingest.ingestion import ingest_paths, write_report
from tests.conftest import write_parsed_corpus


def snapshot(driver):
    """Every node and relationship with its properties, minus the write timestamp."""
    nodes = driver.execute_query(
        "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props ORDER BY coalesce(n.case_id, n.name)"
    ).records
    rels = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN coalesce(a.case_id, a.name) AS a, type(r) AS type, b.name AS b, "
        "properties(r) AS props ORDER BY a, type, b"
    ).records
    strip = lambda props: {k: v for k, v in props.items() if k != "ingested_at"}
    # sorted whole: a name can be two nodes (Kubernetes the component and the organisation)
    return (sorted(([r["labels"], strip(r["props"])] for r in nodes), key=repr),
            sorted(([r["a"], r["type"], r["b"], r["props"]] for r in rels), key=repr))


def test_corpus_ingests_cleanly_and_a_second_run_changes_nothing(empty_graph, parsed_corpus):
    first = ingest_paths(empty_graph, [bundled_corpus_dir()])
    assert first.failed == []
    assert len(first.added) >= 40 and first.updated == [] and first.skipped == []
    before = snapshot(empty_graph)
    timestamps = empty_graph.execute_query("MATCH (c:Case) RETURN collect(c.ingested_at) AS t").records[0]["t"]
    second = ingest_paths(empty_graph, [bundled_corpus_dir()])
    assert second.added == [] and second.updated == [] and len(second.skipped) == len(first.added)
    assert snapshot(empty_graph) == before
    assert empty_graph.execute_query("MATCH (c:Case) RETURN collect(c.ingested_at) AS t").records[0]["t"] == timestamps
    counts = graph_status(empty_graph, "test")
    assert counts.nodes["Case"] == len(first.added)
    assert counts.relationships["HAS_ROOT_CAUSE"] >= len(first.added)
    # the corpus_graph fixture writes the corpus parsed once per session: it must be this graph
    reset_data(empty_graph)
    write_parsed_corpus(empty_graph, parsed_corpus)
    assert snapshot(empty_graph) == before


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


CASE = """---
title: Cert expiry takes down the API
organisation: Example Labs
---

## Symptoms

Clients saw TLS handshake failures.

## Root cause

- expired certificate

## Component

- load balancer
"""


def links(driver, case_id):
    return sorted((r["type"], r["name"]) for r in driver.execute_query(
        "MATCH (:Case {case_id: $id})-[r]->(e) RETURN type(r) AS type, e.name AS name", id=case_id).records)


def test_a_changed_write_up_replaces_its_links(empty_graph, tmp_path):
    path = write(tmp_path, "cert-case.md", CASE)
    assert ingest_paths(empty_graph, [path]).added == ["cert-case"]
    assert ("HAS_ROOT_CAUSE", "expired certificate") in links(empty_graph, "cert-case")
    write(tmp_path, "cert-case.md", CASE.replace("expired certificate", "DDoS attack"))
    summary = ingest_paths(empty_graph, [path])
    assert summary.updated == ["cert-case"]
    after = links(empty_graph, "cert-case")
    assert ("HAS_ROOT_CAUSE", "DDoS attack") in after
    assert ("HAS_ROOT_CAUSE", "expired certificate") not in after
    assert empty_graph.execute_query("MATCH (c:Case) RETURN count(c) AS n").records[0]["n"] == 1


def test_an_unknown_entity_goes_when_no_case_mentions_it(empty_graph, tmp_path):
    path = write(tmp_path, "odd.md", CASE.replace("- expired certificate", "- a mislabelled rack cable"))
    ingest_paths(empty_graph, [path])
    query = "MATCH (e:RootCause {name: 'mislabelled rack cable'}) RETURN e.known AS known"
    assert [r["known"] for r in empty_graph.execute_query(query).records] == ["extracted"]
    write(tmp_path, "odd.md", CASE)
    ingest_paths(empty_graph, [path])
    assert empty_graph.execute_query(query).records == []


def test_bad_inputs_fail_alone_and_leave_nothing_half_written(empty_graph, tmp_path):
    write(tmp_path, "good.md", CASE)
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "binary.md").write_bytes(b"\x00\xff\x00")
    (tmp_path / "latin1.txt").write_bytes("caf\u00e9".encode("latin-1"))
    write(tmp_path, "broken.json", '{"title": ')
    write(tmp_path, "records.jsonl", '{"title": "no body"}\n{"id": "ok-record", "title": "Fine", "body": "A DDoS attack."}\n')
    (tmp_path / "big.md").write_text("x" * 2_000)
    summary = ingest_paths(empty_graph, [tmp_path], max_bytes=1_000)
    assert sorted(summary.added) == ["good", "ok-record"]
    failed = {Path(f.origin).name: f.message for f in summary.failed}
    assert set(failed) == {"empty.md", "binary.md", "latin1.txt", "broken.json", "records.jsonl#1", "big.md"}
    ids = {r["id"] for r in empty_graph.execute_query("MATCH (c:Case) RETURN c.case_id AS id").records}
    assert ids == {"good", "ok-record"}
    report = tmp_path / "report.json"
    write_report(summary, report)
    data = json.loads(report.read_text())
    assert data["counts"] == {"added": 2, "updated": 0, "skipped": 0, "failed": 6}
    assert {Path(f["origin"]).name for f in data["failed"]} == set(failed)


def test_a_failed_write_leaves_no_half_written_case(empty_graph, tmp_path, monkeypatch):
    from incident_graph.graph import writes

    original = writes.LINK_STATEMENTS["Component"]
    # A statement that fails after the case node and its first links were written in the transaction.
    monkeypatch.setitem(writes.LINK_STATEMENTS, "Component", original + " WITH r RETURN 1 / 0 AS boom")
    summary = ingest_paths(empty_graph, [write(tmp_path, "half.md", CASE)])
    assert [f.case_id for f in summary.failed] == ["half"]
    assert "not written" in summary.failed[0].message
    assert empty_graph.execute_query("MATCH (c:Case) RETURN count(c) AS n").records[0]["n"] == 0
    assert empty_graph.execute_query("MATCH ()-[r:HAS_SYMPTOM]->() RETURN count(r) AS n").records[0]["n"] == 0


def test_duplicate_case_ids_in_one_batch_are_refused(empty_graph, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write(tmp_path / "a", "same.md", CASE)
    write(tmp_path / "b", "same.md", CASE.replace("expired certificate", "DDoS attack"))
    summary = ingest_paths(empty_graph, [tmp_path])
    assert summary.added == ["same"]
    [failure] = summary.failed
    assert "duplicate case id 'same'" in failure.message


def test_every_evidence_method_of_the_corpus_is_described(parsed_corpus):
    """The API describes Evidence.method from EVIDENCE_METHODS: the extractor writes no other."""
    from incident_graph.schema.records import EVIDENCE_METHODS

    used = {mention.method for case in parsed_corpus.cases for mention in case.mentions}
    assert used <= set(EVIDENCE_METHODS), used - set(EVIDENCE_METHODS)
    assert {"section", "taxonomy", "cue", "new-entity", "metadata", "absence"} <= used
