"""Loading a JSON Lines snapshot (graph/snapshot.py) into a graph: no extraction, the same ids.

Loading is idempotent: entities are merged by label and name and take the snapshot's properties;
a case is merged by id, loses the links it had and takes the snapshot's properties and links. So
loading into an empty graph gives the exported graph back, and loading twice changes nothing.
Lines are written in batches, one transaction per batch; a bad line stops the load with its line
number before its batch is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from neo4j import Driver, ManagedTransaction

from incident_graph.graph.case_counts import recount_case_counts
from incident_graph.graph.connection import causal_session
from incident_graph.graph.errors import graph_errors
from incident_graph.graph.snapshot import (
    CASE_KIND,
    ENTITY_KIND,
    HEADER_KIND,
    SNAPSHOT_FORMAT,
    SNAPSHOT_VERSION,
    SnapshotError,
    decode_properties,
    entity_label,
)
from incident_graph.schema.entity_types import BROADER, ENTITY_TYPES, LABELS, RELATIONSHIPS

DEFAULT_BATCH_LINES = 200

ENTITY_STATEMENTS: dict[str, str] = {
    label: f"""
UNWIND $entities AS row
MERGE (e:{label} {{name: row.properties.name}})
SET e = row.properties
WITH e, row UNWIND row.broader AS broader_name
MERGE (b:{label} {{name: broader_name}})
MERGE (e)-[:{BROADER}]->(b)
"""
    for label in LABELS
}

CASE_STATEMENT = """
UNWIND $cases AS row
MERGE (c:Case {case_id: row.properties.case_id})
WITH c, row
CALL (c) { MATCH (c)-[old]->() WHERE type(old) IN $relationship_types DELETE old }
SET c = row.properties
"""

LINK_STATEMENTS: dict[str, str] = {
    entity_type.label: f"""
UNWIND $links AS link
MATCH (c:Case {{case_id: link.case_id}})
MERGE (e:{entity_type.label} {{name: link.name}})
MERGE (c)-[r:{entity_type.relationship}]->(e)
SET r = link.evidence
"""
    for entity_type in ENTITY_TYPES
}


@dataclass
class LoadSummary:
    entities: int = 0
    cases: int = 0
    links: int = 0


@dataclass
class Batch:
    entities: dict[str, list[dict[str, Any]]]
    cases: list[dict[str, Any]]
    links: dict[str, list[dict[str, Any]]]

    @classmethod
    def empty(cls) -> Batch:
        return cls(entities={label: [] for label in LABELS}, cases=[], links={label: [] for label in LABELS})

    @property
    def size(self) -> int:
        return len(self.cases) + sum(len(rows) for rows in self.entities.values())


def parse_line(text: str, line_number: int) -> dict[str, Any] | None:
    """The record of one line, or None for a blank line."""
    if not text.strip():
        return None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise SnapshotError(f"line {line_number}: not JSON ({error.msg})") from None
    if not isinstance(record, dict) or record.get("kind") not in (HEADER_KIND, ENTITY_KIND, CASE_KIND):
        raise SnapshotError(f"line {line_number}: not a snapshot record (`kind` must be "
                            f"{HEADER_KIND}, {ENTITY_KIND} or {CASE_KIND})")
    return record


def check_header(record: dict[str, Any], line_number: int) -> None:
    if record.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError(f"line {line_number}: not an Incident Graph snapshot (format {record.get('format')!r})")
    version = record.get("version")
    if not isinstance(version, int) or version > SNAPSHOT_VERSION:
        raise SnapshotError(f"line {line_number}: snapshot version {version!r}; this version reads up to "
                            f"{SNAPSHOT_VERSION}")


def add_entity(batch: Batch, record: dict[str, Any], where: str) -> None:
    label = entity_label(record.get("label"), where)
    properties = decode_properties(record.get("properties"), where)
    if not isinstance(properties.get("name"), str) or not properties["name"]:
        raise SnapshotError(f"{where}: an entity needs a `name`")
    broader = record.get("broader", [])
    if not isinstance(broader, list) or not all(isinstance(name, str) for name in broader):
        raise SnapshotError(f"{where}: `broader` must be a list of names")
    batch.entities[label].append({"properties": properties, "broader": broader})


def add_case(batch: Batch, record: dict[str, Any], where: str) -> None:
    properties = decode_properties(record.get("properties"), where)
    case_id = properties.get("case_id")
    if not isinstance(case_id, str) or not case_id:
        raise SnapshotError(f"{where}: a case needs a `case_id`")
    links = record.get("links", [])
    if not isinstance(links, list):
        raise SnapshotError(f"{where}: `links` must be a list")
    for link in links:
        if not isinstance(link, dict) or not isinstance(link.get("name"), str):
            raise SnapshotError(f"{where}: every link needs a `label`, a `name` and its `evidence`")
        label = entity_label(link.get("label"), where)
        evidence = decode_properties(link.get("evidence", {}), where)
        batch.links[label].append({"case_id": case_id, "name": link["name"], "evidence": evidence})
    batch.cases.append({"properties": properties})


def write_batch(tx: ManagedTransaction, batch: Batch) -> None:
    for label, rows in batch.entities.items():
        if rows:
            tx.run(ENTITY_STATEMENTS[label], entities=rows).consume()
    if batch.cases:
        tx.run(CASE_STATEMENT, cases=batch.cases, relationship_types=list(RELATIONSHIPS)).consume()
    for label, links in batch.links.items():
        if links:
            tx.run(LINK_STATEMENTS[label], links=links).consume()


def write_snapshot_lines(driver: Driver, lines: Iterable[str], batch_lines: int,
                         progress: Callable[[int], None] | None) -> LoadSummary:
    summary = LoadSummary()
    batch = Batch.empty()
    seen_header = False
    line_number = 0

    def flush() -> None:
        nonlocal batch
        if batch.size:
            with graph_errors(), causal_session(driver) as session:
                session.execute_write(write_batch, batch)
            summary.entities += sum(len(rows) for rows in batch.entities.values())
            summary.cases += len(batch.cases)
            summary.links += sum(len(rows) for rows in batch.links.values())
        batch = Batch.empty()
        if progress is not None:
            progress(line_number)

    for line_number, text in enumerate(lines, start=1):
        record = parse_line(text, line_number)
        if record is None:
            continue
        where = f"line {line_number}"
        if not seen_header:
            if record["kind"] != HEADER_KIND:
                raise SnapshotError(f"{where}: a snapshot starts with its header line (kind {HEADER_KIND})")
            check_header(record, line_number)
            seen_header = True
        elif record["kind"] == ENTITY_KIND:
            add_entity(batch, record, where)
        elif record["kind"] == CASE_KIND:
            add_case(batch, record, where)
        else:
            raise SnapshotError(f"{where}: a second header line")
        if batch.size >= batch_lines:
            flush()
    if not seen_header:
        raise SnapshotError("the snapshot is empty (no header line)")
    flush()
    return summary


def load_snapshot(driver: Driver, lines: Iterable[str], batch_lines: int = DEFAULT_BATCH_LINES,
                  progress: Callable[[int], None] | None = None) -> LoadSummary:
    """Load the lines of a snapshot; `progress` hears how many lines have been written so far.

    The batches set links without keeping the case counts, so the counts are redone at the end,
    also when a bad line stops the load after some batches landed.
    """
    try:
        return write_snapshot_lines(driver, lines, batch_lines, progress)
    finally:
        with graph_errors():
            recount_case_counts(driver)

