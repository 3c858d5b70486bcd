"""Snapshots of the graph as JSON Lines: the record format, and reading the graph a page at a time.

A snapshot is one header line, then every entity (label, properties, the names of its broader
concepts) and every case (properties, and each link to an entity with its evidence). It holds
everything the graph holds, so loading it (graph/snapshot_load.py) into an empty graph gives the
same graph back, without extracting anything again.

Records come in one total order: entities label by label (schema.entity_types order), by name,
then cases by id. A SnapshotCursor is the position after a record in that order, so a reader can
page through a large graph (`incident-graph export` streams it, `GET /export.jsonl` serves a page
per request) with bounded memory per page. Temporal values are tagged in JSON (`{"$date": ...}`,
`{"$datetime": ...}`) so they come back as the same Neo4j types.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from neo4j import Driver
from neo4j.time import Date, DateTime

from incident_graph.graph.read_transaction import run_read

from incident_graph.schema.entity_types import BROADER, BY_LABEL, LABELS, RELATIONSHIPS

SNAPSHOT_FORMAT = "incident-graph-snapshot"
SNAPSHOT_VERSION = 1
HEADER_KIND, ENTITY_KIND, CASE_KIND = "snapshot", "entity", "case"
CASE_SECTION = "Case"
SECTIONS: tuple[str, ...] = (*LABELS, CASE_SECTION)  # the order of records after the header

# Runs one read query and returns its rows (graph/read_transaction.py run_read, bound to a driver).
ReadRows = Callable[[str, dict[str, Any]], list[dict[str, Any]]]


PAGE_TIMEOUT_S = 60.0  # one page of a snapshot read from the CLI


def driver_reader(driver: Driver, timeout_s: float = PAGE_TIMEOUT_S) -> ReadRows:
    """A ReadRows over a driver: each query its own read transaction."""
    return lambda query, parameters: run_read(driver, query, parameters, timeout_s)


class SnapshotError(ValueError):
    """A snapshot line or cursor that cannot be read; the message says which and why."""


# ------------------------------------------------------------------ values


def encode_value(value: Any) -> Any:
    """A property value as JSON: temporal values tagged, lists element by element."""
    if isinstance(value, (DateTime, datetime)):
        native = value.to_native() if isinstance(value, DateTime) else value
        return {"$datetime": native.isoformat()}
    if isinstance(value, (Date, date)):
        native = value.to_native() if isinstance(value, Date) else value
        return {"$date": native.isoformat()}
    if isinstance(value, list):
        return [encode_value(item) for item in value]
    return value


def decode_value(value: Any) -> Any:
    """The inverse of encode_value: tagged temporal values back to Python's date and datetime."""
    if isinstance(value, dict):
        if set(value) == {"$datetime"}:
            return datetime.fromisoformat(value["$datetime"])
        if set(value) == {"$date"}:
            return date.fromisoformat(value["$date"])
        raise SnapshotError(f"a property value is an object that is not a tagged date: {sorted(value)}")
    if isinstance(value, list):
        return [decode_value(item) for item in value]
    return value


def encode_properties(properties: dict[str, Any]) -> dict[str, Any]:
    return {name: encode_value(value) for name, value in sorted(properties.items())}


def decode_properties(properties: Any, where: str) -> dict[str, Any]:
    if not isinstance(properties, dict):
        raise SnapshotError(f"{where}: `properties` must be an object")
    return {str(name): decode_value(value) for name, value in properties.items()}


def header_record() -> dict[str, Any]:
    return {"kind": HEADER_KIND, "format": SNAPSHOT_FORMAT, "version": SNAPSHOT_VERSION}


def record_line(record: dict[str, Any]) -> str:
    """One JSON Lines line (with its newline)."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


# ------------------------------------------------------------------ cursors


@dataclass(frozen=True)
class SnapshotCursor:
    """The position after one record: its section (an entity label, or Case) and its key in it."""

    section: str
    key: str

    def encode(self) -> str:
        text = json.dumps([self.section, self.key], ensure_ascii=False)
        return base64.urlsafe_b64encode(text.encode()).decode()

    @classmethod
    def decode(cls, cursor: str) -> SnapshotCursor:
        try:
            section, key = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
        except (ValueError, TypeError, UnicodeDecodeError, binascii.Error):
            raise SnapshotError(f"`after` is not a cursor this server returned: {cursor[:80]!r}") from None
        if section not in SECTIONS or not isinstance(key, str):
            raise SnapshotError(f"`after` is not a cursor this server returned: {cursor[:80]!r}")
        return cls(section, key)


# ------------------------------------------------------------------ the queries (labels from the closed set)

ENTITY_PAGE: dict[str, str] = {
    label: f"""
MATCH (e:{label}) WHERE e.name > $after
WITH e ORDER BY e.name LIMIT $limit
RETURN e.name AS key, properties(e) AS properties,
       COLLECT {{ MATCH (e)-[:{BROADER}]->(b:{label}) RETURN b.name ORDER BY b.name }} AS broader
"""
    for label in LABELS
}

ENTITY_LABEL_OF_LINK = "[label IN labels(e) WHERE label IN $labels][0]"

CASE_PAGE = f"""
MATCH (c:Case) WHERE c.case_id > $after
WITH c ORDER BY c.case_id LIMIT $limit
RETURN c.case_id AS key, properties(c) AS properties,
       COLLECT {{
         MATCH (c)-[r:{"|".join(RELATIONSHIPS)}]->(e)
         RETURN {{label: {ENTITY_LABEL_OF_LINK}, name: e.name, evidence: properties(r)}} AS link
         ORDER BY link.label, link.name
       }} AS links
"""

RECORD_COUNT = """
CALL () { MATCH (c:Case) RETURN count(c) AS cases }
CALL () { MATCH (e) WHERE any(label IN labels(e) WHERE label IN $labels) RETURN count(e) AS entities }
RETURN cases + entities AS total
"""


def entity_record(label: str, row: dict[str, Any]) -> dict[str, Any]:
    return {"kind": ENTITY_KIND, "label": label, "properties": encode_properties(row["properties"]),
            "broader": list(row["broader"])}


def case_record(row: dict[str, Any]) -> dict[str, Any]:
    links = [{"label": link["label"], "name": link["name"], "evidence": encode_properties(link["evidence"])}
             for link in row["links"]]
    return {"kind": CASE_KIND, "properties": encode_properties(row["properties"]), "links": links}


@dataclass(frozen=True)
class SnapshotPage:
    records: list[dict[str, Any]]
    next_cursor: SnapshotCursor | None  # None: this page ends the snapshot


def read_snapshot_page(read: ReadRows, after: SnapshotCursor | None, limit: int) -> SnapshotPage:
    """Up to `limit` records after the cursor (the header first when there is none), and where the
    next page starts. One query per section touched, each bounded by what is left of `limit`."""
    if limit < 1:
        raise ValueError("a page holds at least one record")
    records: list[dict[str, Any]] = [] if after is not None else [header_record()]
    start = SECTIONS.index(after.section) if after is not None else 0
    last = after if after is not None else SnapshotCursor(SECTIONS[0], "")  # before the first entity
    for section in SECTIONS[start:]:
        key_after = after.key if after is not None and section == after.section else ""
        wanted = limit - len(records)
        if wanted <= 0:
            return SnapshotPage(records, last)
        if section == CASE_SECTION:
            rows = read(CASE_PAGE, {"after": key_after, "limit": wanted, "labels": list(LABELS)})
            records += [case_record(row) for row in rows]
        else:
            rows = read(ENTITY_PAGE[section], {"after": key_after, "limit": wanted})
            records += [entity_record(section, row) for row in rows]
        if rows:
            last = SnapshotCursor(section, rows[-1]["key"])
        if len(rows) == wanted:
            # The page is full: there may be more in this section or the next ones.
            return SnapshotPage(records, last)
    return SnapshotPage(records, None)


def iter_snapshot(read: ReadRows, page_size: int = 500) -> Iterator[dict[str, Any]]:
    """Every record of the snapshot, a page at a time (each page its own read)."""
    cursor: SnapshotCursor | None = None
    while True:
        page = read_snapshot_page(read, cursor, page_size)
        yield from page.records
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


def count_records(read: ReadRows) -> int:
    """How many entity and case records a snapshot of the graph has now (for a progress bar)."""
    return read(RECORD_COUNT, {"labels": list(LABELS)})[0]["total"]


def entity_label(value: Any, where: str) -> str:
    if value not in BY_LABEL:
        raise SnapshotError(f"{where}: unknown entity label {value!r}; expected one of {', '.join(LABELS)}")
    return str(value)
