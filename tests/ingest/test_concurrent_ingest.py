"""Ingest workers on several machines writing to one Neo4j: `incident-graph ingest` run as two
processes at once, each with its own driver on the routing URI (`neo4j://`), as on two machines.

Disjoint parts of a corpus leave every case once and no node or relationship twice (snapshot()
refuses a duplicate) with every entity's case count exact, and re-running both at once changes
nothing. The same write-ups ingested by both at once make the graph one run makes. Small batches,
so the two write many transactions each while the other writes (both also write the whole
taxonomy at the same moment on start).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from neo4j import Driver

from incident_graph.config import Settings
from incident_graph.graph.admin import reset_data
from incident_graph.graph.case_counts import case_count_drift
from tests.reliability.harness import differences, finished_cleanly, generate_corpus, snapshot, start_ingest

DOCUMENTS = 24
OPTIONS = ("--workers", "1", "--batch-size", "2")  # one parsing process each, a transaction per two cases


def two_parts(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A generated corpus split in two folders (alternate write-ups), and every case id."""
    first, second = tmp_path / "first", tmp_path / "second"
    paths = generate_corpus(first, DOCUMENTS, seed=12)
    second.mkdir()
    for path in paths[1::2]:
        shutil.move(path, second / path.name)
    return first, second, [path.stem for path in paths]


def at_once(settings: Settings, folders: list[Path], logs: Path, name: str) -> list[tuple[int, ...]]:
    """`ingest` of each folder, all started together; what each says it did (added, updated,
    skipped, failed) once all have exited 0."""
    runs = [start_ingest(settings, folder, logs, f"{name}-{number}", options=OPTIONS)
            for number, folder in enumerate(folders)]
    return [tuple(int(count) for count in finished_cleanly(run).groups()) for run in runs]


def test_disjoint_parts_ingested_at_once_leave_every_case_once_and_a_rerun_changes_nothing(
        empty_graph: Driver, routing_settings: Settings, tmp_path: Path):
    first, second, case_ids = two_parts(tmp_path)
    assert at_once(routing_settings, [first, second], tmp_path / "logs", "disjoint") == [(DOCUMENTS // 2, 0, 0, 0)] * 2
    graph = snapshot(empty_graph)  # fails on two nodes of one key or two relationships of one kind between two nodes
    assert graph.cases() == set(case_ids)
    assert case_count_drift(empty_graph) == []  # both kept the entities' case counts exact

    assert at_once(routing_settings, [first, second], tmp_path / "logs", "rerun") == [(0, 0, DOCUMENTS // 2, 0)] * 2
    assert not differences(snapshot(empty_graph), graph)


def test_the_same_writeups_ingested_twice_at_once_make_the_graph_of_one_run(
        empty_graph: Driver, routing_settings: Settings, tmp_path: Path):
    folder = tmp_path / "corpus"
    generate_corpus(folder, DOCUMENTS, seed=12)
    finished_cleanly(start_ingest(routing_settings, folder, tmp_path / "logs", "alone", options=OPTIONS))
    one_run = snapshot(empty_graph)
    reset_data(empty_graph)

    counts = at_once(routing_settings, [folder, folder], tmp_path / "logs", "twice")
    # Each case is added by one of them and found unchanged by the other (which waited for the
    # first one's lock on the case, or skipped it before parsing).
    assert [(updated, failed) for _, updated, _, failed in counts] == [(0, 0), (0, 0)]
    assert [added + skipped for added, _, skipped, _ in counts] == [DOCUMENTS, DOCUMENTS]
    assert sum(added for added, *_ in counts) == DOCUMENTS
    graph = snapshot(empty_graph)
    assert not differences(graph, one_run), differences(graph, one_run)
    assert case_count_drift(empty_graph) == []
    assert graph.counts() == one_run.counts()
