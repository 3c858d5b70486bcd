"""Ingest write-ups into the graph: read, extract, write one transaction per case.

A bad write-up becomes a FailedWriteUp naming its origin; the batch goes on. A case is written in a
single managed transaction, so a failed write leaves nothing half-written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from neo4j import Driver

from incident_graph.graph.errors import GraphError, GraphUnavailable
from incident_graph.graph.writes import existing_extracted_names, stored_input_hashes, sync_taxonomy, write_case
from incident_graph.ingest.extract import EntityResolver, Extractor
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.ingest.readers import (DEFAULT_INCLUDE, MAX_BYTES, ReadFailure, WriteUp, read_paths,
                                           writeup_from_record)
from incident_graph.schema.entity_types import ENTITY_TYPES
from incident_graph.schema.taxonomy import Taxonomy, load_taxonomy

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class FailedWriteUp:
    """A write-up that did not make it into the graph: where it came from and why (read, extraction or write)."""

    origin: str
    message: str
    case_id: str | None = None

    def as_json(self) -> dict[str, object]:
        return {"origin": self.origin, "case_id": self.case_id, "message": self.message}


@dataclass
class IngestSummary:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[FailedWriteUp] = field(default_factory=list)
    entities: dict[str, int] = field(default_factory=dict)  # distinct entities the written cases link, by type

    @property
    def ok(self) -> bool:
        return not self.failed

    def as_json(self) -> dict[str, object]:
        return {"added": self.added, "updated": self.updated, "skipped": self.skipped,
                "failed": [f.as_json() for f in self.failed], "entities": self.entities}


def new_extractor(driver: Driver, taxonomy: Taxonomy | None = None) -> Extractor:
    taxonomy = taxonomy or load_taxonomy()
    resolver = EntityResolver(taxonomy, existing_extracted_names(driver))
    return Extractor(default_pipeline(), taxonomy, resolver)


def ingest_writeups(driver: Driver, items: Sequence[WriteUp | ReadFailure], extractor: Extractor | None = None,
                    progress: Progress | None = None) -> IngestSummary:
    extractor = extractor or new_extractor(driver)
    sync_taxonomy(driver, extractor.taxonomy.concepts)
    summary = IngestSummary()
    unchanged = stored_input_hashes(driver, [item.case_id for item in items if isinstance(item, WriteUp)])
    origins: dict[str, str] = {}
    entities: dict[str, set[str]] = {t.label: set() for t in ENTITY_TYPES}
    graph_down: str | None = None
    for done, item in enumerate(items, start=1):
        if isinstance(item, ReadFailure):
            summary.failed.append(FailedWriteUp(item.origin, item.message))
        elif item.case_id in origins:
            summary.failed.append(FailedWriteUp(item.origin, f"duplicate case id {item.case_id!r}, already read from "
                                                       f"{origins[item.case_id]}", item.case_id))
        elif graph_down:
            summary.failed.append(FailedWriteUp(item.origin, f"not written: {graph_down}", item.case_id))
        elif unchanged.get(item.case_id) == extractor.input_hash(item):
            origins[item.case_id] = item.origin
            summary.skipped.append(item.case_id)  # the same write-up read by the same pipeline
        else:
            origins[item.case_id] = item.origin
            graph_down = ingest_one(driver, extractor, item, summary, entities)
        if progress:
            progress(done, len(items), item.origin)
    summary.entities = {label: len(names) for label, names in entities.items()}
    return summary


def ingest_one(driver: Driver, extractor: Extractor, writeup: WriteUp, summary: IngestSummary,
               entities: dict[str, set[str]]) -> str | None:
    """Returns a reason when Neo4j is unreachable, so the rest of the batch is not attempted."""
    try:
        case = extractor.extract(writeup)
    except Exception as error:  # one broken write-up never stops the rest
        summary.failed.append(FailedWriteUp(writeup.origin, f"extraction failed: {type(error).__name__}: {error}",
                                      writeup.case_id))
        return None
    try:
        outcome = write_case(driver, case)
    except GraphUnavailable as error:
        message = f"not written: {error}"
        if error.maybe_committed:
            message += "; the connection dropped during the commit, so it may have landed: a rerun settles it"
        summary.failed.append(FailedWriteUp(writeup.origin, message, writeup.case_id))
        return str(error)
    except GraphError as error:
        summary.failed.append(FailedWriteUp(writeup.origin, f"not written: {error}", writeup.case_id))
        return None
    except Exception as error:  # a value the graph cannot take fails this write-up, not the batch
        summary.failed.append(FailedWriteUp(writeup.origin, f"not written: {type(error).__name__}: {error}",
                                      writeup.case_id))
        return None
    {"added": summary.added, "updated": summary.updated, "skipped": summary.skipped}[outcome.action].append(
        case.case_id)
    for mention in case.mentions:
        entities[mention.type].add(mention.name)
    return None


def ingest_paths(driver: Driver, paths: Iterable[Path], include: tuple[str, ...] = DEFAULT_INCLUDE,
                 max_bytes: int = MAX_BYTES, progress: Progress | None = None) -> IngestSummary:
    items = list(read_paths(paths, include, max_bytes))
    return ingest_writeups(driver, items, progress=progress)


def ingest_records(driver: Driver, records: list[dict[str, object]], origin: str = "request") -> IngestSummary:
    items: list[WriteUp | ReadFailure] = []
    for number, record in enumerate(records, start=1):
        where = f"{origin}#{number}"
        try:
            items.append(writeup_from_record(record, where))
        except ValueError as error:
            items.append(ReadFailure(where, str(error)))
    return ingest_writeups(driver, items)


def write_report(summary: IngestSummary, path: Path) -> None:
    path.write_text(json.dumps({"failed": [f.as_json() for f in summary.failed],
                                "counts": {"added": len(summary.added), "updated": len(summary.updated),
                                           "skipped": len(summary.skipped), "failed": len(summary.failed)}},
                               indent=2) + "\n")
