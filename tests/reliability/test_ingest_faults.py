"""Ingest under faults: the ingest process killed, Neo4j stopped, connections reset.

Each test runs the real `incident-graph ingest` command as its own process on a generated corpus
of a few hundred write-ups, injects the fault, checks that the graph never shows a half-written
case, reruns, and compares the result with a clean single run of the same command into an empty
graph: same nodes and relationships, same properties (the write timestamp aside).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest

from incident_graph.graph import server
from incident_graph.graph.admin import reset_data
from incident_graph.graph.case_counts import case_count_drift
from incident_graph.graph.connection import open_driver
from incident_graph.ingest.ingestion import BATCH_SIZE
from tests.network import free_port
from tests.reliability.harness import (ResettingProxy, Snapshot, case_count, differences, finished_cleanly,
                                       generate_corpus, open_write_transaction, partial_problems, prefix_of, snapshot,
                                       start_ingest, wait_for_cases)

DOCUMENTS = int(os.environ.get("INCIDENT_GRAPH_FAULT_DOCUMENTS", "300"))
# The Neo4j-stop and connection-reset tests run on the first write-ups only, to keep the suite short.
STOP_DOCUMENTS = min(DOCUMENTS, 120)
RESET_DOCUMENTS = min(DOCUMENTS, 150)
SEED = int(os.environ.get("INCIDENT_GRAPH_FAULT_SEED", "20240606"))


class Reference:
    def __init__(self, folder: Path, graph: Snapshot, order: list[str]) -> None:
        self.folder, self.graph, self.order = folder, graph, order

    def first(self, count: int, folder: Path) -> "Reference":
        """The first `count` write-ups, and what a clean run of only those makes (see prefix_of)."""
        folder.mkdir(parents=True)
        for case_id in self.order[:count]:
            shutil.copy(self.folder / f"{case_id}.md", folder)
        return Reference(folder, prefix_of(self.graph, set(self.order[:count])), self.order[:count])


@pytest.fixture(scope="module")
def reference(driver, neo4j_settings, tmp_path_factory) -> Reference:
    """The generated corpus and the graph one clean run of `ingest` makes of it in an empty graph."""
    root = tmp_path_factory.mktemp("faults")
    folder = root / "corpus"
    paths = generate_corpus(folder, DOCUMENTS, seed=SEED)
    reset_data(driver)
    run = start_ingest(neo4j_settings, folder, root / "logs", "clean")
    assert run.wait() == 0, run.output()
    graph = snapshot(driver)
    order = [path.stem for path in paths]
    assert graph.cases() == set(order)
    return Reference(folder, graph, order)


def test_sigkill_at_random_points_loses_nothing_and_never_shows_a_half_written_case(
        empty_graph, neo4j_settings, reference, tmp_path):
    rng = random.Random(SEED)
    targets = sorted(rng.sample(range(10, DOCUMENTS - 10), 4))
    # First into the set-up (schema and taxonomy written in their own transactions, before any case),
    # then between cases and inside a case's transaction, at seeded numbers of cases.
    plan = [("set-up transaction", 0)] + [
        (kind, target) for kind, target in zip(("between", "mid-transaction", "between", "mid-transaction"), targets)]
    log = []
    for number, (kind, point) in enumerate(plan):
        run = start_ingest(neo4j_settings, reference.folder, tmp_path / "logs", f"killed-{number}")
        if kind == "set-up transaction":
            assert open_write_transaction(empty_graph, timeout=120), "no set-up transaction to interrupt"
        else:
            wait_for_cases(empty_graph, run, point)
            if kind == "between":
                time.sleep(rng.uniform(0.0, 0.3))
            else:
                assert open_write_transaction(empty_graph), "no write transaction to interrupt"
        assert run.running, f"the ingest ended before kill {number} ({kind} at {point})"
        run.kill()
        graph = snapshot(empty_graph)
        problems = partial_problems(graph, reference.graph, reference.order)
        assert not problems, f"after kill {number} ({kind}):\n" + "\n".join(problems[:20])
        assert case_count_drift(empty_graph) == [], f"after kill {number} ({kind})"
        log.append((kind, point, len(graph.cases()), len(graph.nodes)))
    counts = finished_cleanly(start_ingest(neo4j_settings, reference.folder, tmp_path / "logs", "rerun"))
    added, updated, skipped, failed = map(int, counts.groups())
    final = snapshot(empty_graph)
    assert not differences(final, reference.graph), differences(final, reference.graph)
    assert final.counts() == reference.graph.counts()
    assert (added + skipped, updated, failed) == (DOCUMENTS, 0, 0)
    print(f"\nSIGKILL: {len(plan)} kills (kind, cases written when aimed, cases and nodes after the kill): {log}; "
          f"rerun added {added}, skipped {skipped}; graph identical to a clean run: "
          f"{len(final.nodes)} nodes, {len(final.relationships)} relationships")


@pytest.mark.slow
def test_neo4j_stopped_mid_ingest_reports_what_was_not_written_and_a_rerun_completes(
        neo4j_settings, reference, tmp_path):
    """A second managed server of our own is stopped under the ingest; the shared one is untouched."""
    reference = reference.first(STOP_DOCUMENTS, tmp_path / "corpus")
    documents = len(reference.order)
    settings = replace(neo4j_settings, uri=f"bolt://127.0.0.1:{free_port()}", password="incident-graph-faults",
                       heap="512m", pagecache="128m",
                       state_dir=Path(os.environ.get("INCIDENT_GRAPH_STATE_DIR",
                                                     Path(__file__).resolve().parents[2] / ".incident-graph")))
    layout = server.layout_for(settings)
    driver = None
    try:
        began = time.monotonic()
        server.start(settings)
        started_in = time.monotonic() - began
        driver = open_driver(settings)  # not connect(): that would rebind neomodel to this server
        report = tmp_path / "report.json"
        run = start_ingest(settings, reference.folder, tmp_path / "logs", "stopped", report=report)
        written_before_stop = wait_for_cases(driver, run, documents // 3)
        assert run.running
        driver.close()
        driver = None
        stopped_at = time.monotonic()
        server.stop(settings)
        code = run.wait(timeout=300)
        exited_after = time.monotonic() - stopped_at
        _, stderr = run.output()
        assert code == 1, run.output()
        assert "Traceback" not in stderr, stderr
        failed = json.loads(report.read_text())["failed"]
        assert failed and all(f["message"].startswith("not written: Neo4j unavailable") for f in failed), failed
        reported = {f["case_id"] for f in failed}
        for failure in failed:
            assert f"failed {failure['origin']}: not written" in stderr

        began = time.monotonic()
        server.start(settings)
        restarted_in = time.monotonic() - began
        driver = open_driver(settings)
        graph = snapshot(driver)
        stored = graph.cases()
        problems = partial_problems(graph, reference.graph, reference.order)
        assert not problems, "\n".join(problems[:20])
        assert case_count_drift(driver) == []
        # Every write-up missing from the graph is reported. The one whose commit was in flight when
        # the server went may have landed although the driver could not hear so (IncompleteCommit).
        assert set(reference.order) - stored <= reported
        # Cases are written in batches: the ones in flight are one batch, each marked as maybe landed.
        maybe_landed = {f["case_id"] for f in failed if "it may have landed" in f["message"]}
        assert reported & stored <= maybe_landed, reported & stored
        assert len(reported & stored) <= BATCH_SIZE, reported & stored

        counts = finished_cleanly(start_ingest(settings, reference.folder, tmp_path / "logs", "rerun"))
        added, updated, skipped, failed_again = map(int, counts.groups())
        final = snapshot(driver)
        assert not differences(final, reference.graph), differences(final, reference.graph)
        assert (added, skipped) == (documents - len(stored), len(stored))
        print(f"\nNeo4j (started in {started_in:.0f} s) stopped after {written_before_stop} of {documents} cases: "
              f"ingest exited {code} {exited_after:.1f} s later, "
              f"{len(reported)} reported not written ({len(set(reference.order) - stored)} missing from the graph, "
              f"{len(reported & stored)} landed in flight); Neo4j restarted in {restarted_in:.0f} s; "
              f"rerun added {added}, skipped {skipped}; "
              f"graph identical to a clean run")
    finally:
        if driver is not None:
            driver.close()
        server.stop(settings)
        shutil.rmtree(layout.instance, ignore_errors=True)


def test_connection_resets_are_retried_and_nothing_is_lost(empty_graph, neo4j_settings, reference, tmp_path):
    """Every open Bolt connection reset (RST) at random moments: the driver's retries absorb them."""
    rng = random.Random(SEED + 1)
    reference = reference.first(RESET_DOCUMENTS, tmp_path / "corpus")
    documents = len(reference.order)
    proxy = ResettingProxy(neo4j_settings.host, neo4j_settings.bolt_port)
    try:
        settings = replace(neo4j_settings, uri=f"bolt://127.0.0.1:{proxy.port}")
        run = start_ingest(settings, reference.folder, tmp_path / "logs", "resets")
        for target in sorted(rng.sample(range(5, documents - 5), 8)):
            wait_for_cases(empty_graph, run, target)
            if not run.running:
                break
            if rng.random() < 0.5:
                open_write_transaction(empty_graph, timeout=2.0)
            proxy.reset_all()
        counts = finished_cleanly(run)
    finally:
        proxy.close()
    added, updated, skipped, failed = map(int, counts.groups())
    assert (added, updated, skipped, failed) == (documents, 0, 0, 0)
    final = snapshot(empty_graph)
    assert not differences(final, reference.graph), differences(final, reference.graph)
    print(f"\nconnection resets: {proxy.resets} resets, {proxy.connections_reset} connections reset; "
          f"{added} added, {failed} failed; graph identical to a clean run")


def test_a_commit_that_landed_unacknowledged_is_retried_and_counted_once(empty_graph, tmp_path, monkeypatch):
    """IncompleteCommit (the connection dropped during COMMIT) is not retried by the driver; the
    writer tries again, which is safe because writing a case is idempotent."""
    from neo4j import Session
    from neo4j.exceptions import IncompleteCommit

    from incident_graph.ingest.ingestion import ingest_paths

    real = Session.execute_write
    dropped = []

    def execute_write(self, work, *args, **kwargs):
        result = real(self, work, *args, **kwargs)
        if work.__name__ == "replace_cases" and not dropped:
            dropped.append(args[0][0].case_id)
            raise IncompleteCommit("the connection dropped during COMMIT")  # it landed; nobody heard
        return result

    monkeypatch.setattr(Session, "execute_write", execute_write)
    folder = tmp_path / "corpus"
    generate_corpus(folder, 3, seed=1)
    summary = ingest_paths(empty_graph, [folder])
    assert dropped == ["gen-0000"]
    assert summary.failed == [] and summary.added == ["gen-0000", "gen-0001", "gen-0002"]
    assert case_count(empty_graph) == 3


def test_a_batch_that_landed_before_an_unexpected_error_still_counts_as_added(empty_graph, tmp_path, monkeypatch):
    """An error that is not the driver's connection error, after the batch committed: the cases are
    written one by one, find themselves stored, and are reported against what the batch found first
    (added), not as unchanged. The driver re-raises whatever broke a connection when it is not a
    socket error, so a reset can end a landed batch this way."""
    from neo4j import Session

    from incident_graph.ingest.ingestion import ingest_paths

    real = Session.execute_write
    broken = []

    def execute_write(self, work, *args, **kwargs):
        result = real(self, work, *args, **kwargs)
        if work.__name__ == "replace_cases" and len(args[0]) > 1 and not broken:
            broken.append([case.case_id for case in args[0]])
            raise ValueError("a garbled reply after the commit")  # it landed; the batch is tried case by case
        return result

    monkeypatch.setattr(Session, "execute_write", execute_write)
    folder = tmp_path / "corpus"
    generate_corpus(folder, 3, seed=1)
    summary = ingest_paths(empty_graph, [folder])
    assert broken == [["gen-0000", "gen-0001", "gen-0002"]]
    assert summary.failed == [] and summary.skipped == []
    assert summary.added == ["gen-0000", "gen-0001", "gen-0002"]
    assert case_count(empty_graph) == 3
