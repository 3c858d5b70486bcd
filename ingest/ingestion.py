"""Ingest write-ups into the graph: read, parse (in worker processes), name, write in batches.

A bad write-up becomes a FailedWriteUp naming its origin; the rest go on. Cases are written many
to a transaction (graph/writes.py write_cases) while the workers parse the next ones; a batch the
graph refuses is written again case by case, so one bad case fails alone and a failed write leaves
nothing half-written. Batches commit in input order, so the stored cases are always a prefix of the
input.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from neo4j import Driver

from incident_graph.graph.errors import GraphError, GraphUnavailable
from incident_graph.graph.writes import (existing_extracted_names, stored_input_hashes, sync_taxonomy, write_case,
                                         write_cases)
from incident_graph.ingest.extract import EntityResolver, Extractor, input_hash
from incident_graph.ingest.parallel import InProcessParser, ParseFailure, Parsed, Parser, WorkerParser
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.ingest.readers import (DEFAULT_INCLUDE, MAX_BYTES, ReadFailure, WriteUp, read_paths,
                                           writeup_from_record)
from incident_graph.schema.entity_types import ENTITY_TYPES
from incident_graph.schema.records import ExtractedCase
from incident_graph.schema.taxonomy import Taxonomy, load_taxonomy

Progress = Callable[[int, int, str], None]

BATCH_SIZE = 100  # cases per write transaction at most
BATCH_SECONDS = 3.0  # a batch is written once its first case has waited this long, full or not: each
# commit costs a dozen statements and Neo4j CPU the workers need, so a few seconds of cases per commit


def default_workers() -> int:
    """Worker processes for parsing: one per core."""
    return os.cpu_count() or 1


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


def new_resolver(driver: Driver, taxonomy: Taxonomy | None = None) -> EntityResolver:
    """A resolver that knows the entities earlier write-ups added to the graph."""
    return EntityResolver(taxonomy or load_taxonomy(), existing_extracted_names(driver))


def new_extractor(driver: Driver, taxonomy: Taxonomy | None = None) -> Extractor:
    resolver = new_resolver(driver, taxonomy)
    return Extractor(default_pipeline(), resolver.taxonomy, resolver)


class BatchWriter:
    """Writes named cases in batches and keeps the summary; after Neo4j becomes unreachable, it
    reports every further case as not written instead of trying."""

    def __init__(self, driver: Driver, summary: IngestSummary, progress: Callable[[str], None],
                 batch_size: int = BATCH_SIZE, batch_seconds: float = BATCH_SECONDS) -> None:
        self.driver, self.summary, self.progress = driver, summary, progress
        self.batch_size, self.batch_seconds = batch_size, batch_seconds
        self.batch: list[ExtractedCase] = []
        self.batch_started = 0.0
        self.graph_down: str | None = None
        self.entities: dict[str, set[str]] = {t.label: set() for t in ENTITY_TYPES}

    def fail(self, origin: str, message: str, case_id: str | None = None) -> None:
        self.summary.failed.append(FailedWriteUp(origin, message, case_id))
        self.progress(origin)

    def add(self, case: ExtractedCase) -> None:
        if self.graph_down:
            self.fail(case.origin, f"not written: {self.graph_down}", case.case_id)
            return
        if not self.batch:
            self.batch_started = time.monotonic()
        self.batch.append(case)
        if len(self.batch) >= self.batch_size or time.monotonic() - self.batch_started >= self.batch_seconds:
            self.flush()

    def flush(self) -> None:
        batch, self.batch = self.batch, []
        if not batch:
            return
        seen: list[dict[str, str | None]] = []  # what each attempt found stored, kept for the retries
        try:
            outcomes = write_cases(self.driver, batch, seen)
        except GraphUnavailable as error:
            message = self.unavailable(error)
            for case in batch:
                self.fail(case.origin, message, case.case_id)
            return
        except Exception:  # noqa: BLE001  (a case the graph refuses: found by writing them one by one)
            for case in batch:
                self.write_alone(case, seen)
            return
        for case, outcome in zip(batch, outcomes):
            self.record(case, outcome.action)

    def write_alone(self, case: ExtractedCase, seen: list[dict[str, str | None]]) -> None:
        """After its batch failed; `seen` makes a batch that landed before failing count as written."""
        if self.graph_down:
            self.fail(case.origin, f"not written: {self.graph_down}", case.case_id)
            return
        try:
            outcome = write_case(self.driver, case, seen)
        except GraphUnavailable as error:
            self.fail(case.origin, self.unavailable(error), case.case_id)
        except GraphError as error:
            self.fail(case.origin, f"not written: {error}", case.case_id)
        except Exception as error:  # a value the graph cannot take fails this write-up, not the batch
            self.fail(case.origin, f"not written: {type(error).__name__}: {error}", case.case_id)
        else:
            self.record(case, outcome.action)

    def unavailable(self, error: GraphUnavailable) -> str:
        """Neo4j is unreachable: nothing more is tried. The message for the cases of this write."""
        self.graph_down = str(error)
        message = f"not written: {error}"
        if error.maybe_committed:
            message += "; the connection dropped during the commit, so it may have landed: a rerun settles it"
        return message

    def record(self, case: ExtractedCase, action: str) -> None:
        {"added": self.summary.added, "updated": self.summary.updated, "skipped": self.summary.skipped}[action].append(
            case.case_id)
        for mention in case.mentions:
            self.entities[mention.type].add(mention.name)
        self.progress(case.origin)


def accepted_writeups(items: Sequence[WriteUp | ReadFailure], summary: IngestSummary,
                      refused: Callable[[str], None]) -> list[WriteUp]:
    """The write-ups to parse, in order; read failures and repeated case ids go to the summary."""
    origins: dict[str, str] = {}
    accepted = []
    for item in items:
        if isinstance(item, ReadFailure):
            summary.failed.append(FailedWriteUp(item.origin, item.message))
            refused(item.origin)
        elif item.case_id in origins:
            summary.failed.append(FailedWriteUp(item.origin, f"duplicate case id {item.case_id!r}, already read from "
                                                             f"{origins[item.case_id]}", item.case_id))
            refused(item.origin)
        else:
            origins[item.case_id] = item.origin
            accepted.append(item)
    return accepted


def ingest_writeups(driver: Driver, items: Sequence[WriteUp | ReadFailure], extractor: Extractor | None = None,
                    progress: Progress | None = None, workers: int = 0, batch_size: int = BATCH_SIZE,
                    batch_seconds: float = BATCH_SECONDS) -> IngestSummary:
    """Ingest in input order. workers=0 parses in this process with `extractor` (made when not
    given); workers > 0 parses in that many processes, each with the default pipeline, and names
    the entities here."""
    summary = IngestSummary()
    done = 0

    def one_done(origin: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, len(items), origin)

    resolver = extractor.resolver if extractor else new_resolver(driver)
    sync_taxonomy(driver, resolver.taxonomy.concepts)
    writeups = accepted_writeups(items, summary, one_done)
    writer = BatchWriter(driver, summary, one_done, batch_size, batch_seconds)
    parser: Parser = WorkerParser(workers) if workers > 0 else InProcessParser(
        extractor or Extractor(default_pipeline(), resolver.taxonomy, resolver))
    with parser:
        changed = without_unchanged(driver, writeups, parser, summary, one_done)
        for case_or_failure in named(resolver, parser.parse(changed)):
            if isinstance(case_or_failure, ParseFailure):
                writeup = case_or_failure.writeup
                writer.fail(writeup.origin, case_or_failure.message, writeup.case_id)
            else:
                writer.add(case_or_failure)
        writer.flush()
    summary.entities = {label: len(names) for label, names in writer.entities.items()}
    return summary


def without_unchanged(driver: Driver, writeups: list[WriteUp], parser: Parser, summary: IngestSummary,
                      skipped: Callable[[str], None]) -> list[WriteUp]:
    """The write-ups to parse: one the graph holds with the same input hash (the same write-up read
    by the same pipeline) is skipped without being parsed again. The parser's fingerprint is asked
    only when the graph holds some of them (a worker has to load the pipeline to tell it)."""
    stored = stored_input_hashes(driver, [writeup.case_id for writeup in writeups])
    if not stored:
        return writeups
    fingerprint = parser.fingerprint()
    changed = []
    for writeup in writeups:
        if stored.get(writeup.case_id) == input_hash(fingerprint, writeup):
            summary.skipped.append(writeup.case_id)
            skipped(writeup.origin)
        else:
            changed.append(writeup)
    return changed


def named(resolver: EntityResolver, parsed_stream: Iterable[Parsed]) -> Iterator[ExtractedCase | ParseFailure]:
    """Each parsed write-up as a case with canonical names (in order), or its failure."""
    for parsed in parsed_stream:
        if isinstance(parsed, ParseFailure):
            yield parsed
            continue
        try:
            yield resolver.name_case(parsed)
        except Exception as error:  # one broken write-up never stops the rest
            yield ParseFailure(parsed.writeup, f"extraction failed: {type(error).__name__}: {error}")


def ingest_paths(driver: Driver, paths: Iterable[Path], include: tuple[str, ...] = DEFAULT_INCLUDE,
                 max_bytes: int = MAX_BYTES, progress: Progress | None = None, workers: int = 0) -> IngestSummary:
    items = list(read_paths(paths, include, max_bytes))
    return ingest_writeups(driver, items, progress=progress, workers=workers)


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
