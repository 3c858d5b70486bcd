"""Writing cases and the taxonomy: many cases per transaction (UNWIND), MERGE semantics, parameters only.

A batch of cases costs a fixed number of statements, whatever its size (see replace_cases): one
UNWIND per kind of node and relationship over the whole batch, never one per case or entity.

Errors come out as graph/errors.py classes (GraphUnavailable, ConstraintViolated, GraphError).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable

from neo4j import Driver, ManagedTransaction, RoutingControl
from neo4j.exceptions import IncompleteCommit

from incident_graph.graph.case_counts import recount, recount_above, shift_case_counts
from incident_graph.graph.connection import causal_session
from incident_graph.graph.errors import GraphUnavailable, graph_errors
from incident_graph.schema.entity_types import ENTITY_TYPES, LABELS, RELATIONSHIPS
from incident_graph.schema.models import Case, Evidence, property_names
from incident_graph.schema.records import ExtractedCase, Mention
from incident_graph.schema.taxonomy import Concept

# Labels and relationship types cannot be parameters in Cypher; these statements are built once
# from the closed set in schema.entity_types, never from input. Each runs once per batch over all
# of the batch's rows (UNWIND), and every MATCH and MERGE of a node is on a uniquely constrained
# property (Case.case_id, each entity label's name), so each is one index seek.
LINK_STATEMENTS: dict[str, str] = {
    entity_type.label: (
        "UNWIND $cases AS row "
        "MATCH (c:Case {case_id: row.case_id}) "
        "UNWIND row.links AS link "
        f"MERGE (e:{entity_type.label} {{name: link.name}}) "
        "ON CREATE SET e.aliases = link.aliases, e.description = link.description, e.known = link.known, "
        "e.case_count = 0 "
        f"MERGE (c)-[r:{entity_type.relationship}]->(e) "
        "SET r = link.evidence"
    )
    for entity_type in ENTITY_TYPES
}

# A new entity goes under the taxonomy concept the extractor placed it nearest, once: the first
# placement stays, so a re-run changes nothing. `placement.broader` lists the batch's placements
# in input order; the first whose concept exists wins, as when the cases were written one by one.
# It returns the placed entities that cases outside the batch ($changed) link to: the concepts
# above them now count those cases too (graph/case_counts.py recounts them).
PLACEMENT_STATEMENTS: dict[str, str] = {
    entity_type.label: (
        "UNWIND $placements AS placement "
        f"MATCH (e:{entity_type.label} {{name: placement.name}}) "
        "WHERE e.known = 'extracted' AND NOT (e)-[:BROADER]->() "
        "WITH e, [name IN placement.broader WHERE name <> e.name] AS names "
        f"OPTIONAL MATCH (b:{entity_type.label}) WHERE b.name IN names "
        "WITH e, names, collect(b.name) AS found "
        "WITH e, [name IN names WHERE name IN found][0] AS chosen WHERE chosen IS NOT NULL "
        f"MATCH (b:{entity_type.label} {{name: chosen}}) "
        "MERGE (e)-[:BROADER]->(b) "
        f"WITH e WHERE EXISTS {{ MATCH (e)<-[:{entity_type.relationship}]-(other:Case) "
        "WHERE NOT other.case_id IN $changed } "
        "RETURN elementId(e) AS placed"
    )
    for entity_type in ENTITY_TYPES
}

CONCEPT_STATEMENTS: dict[str, str] = {
    entity_type.label: (
        "UNWIND $concepts AS concept "
        f"MERGE (e:{entity_type.label} {{name: concept.name}}) "
        "SET e.aliases = concept.aliases, e.description = concept.description, e.known = 'taxonomy', "
        "e.signs = CASE WHEN size(concept.signs) > 0 THEN concept.signs END, "
        "e.case_count = coalesce(e.case_count, 0) "
        "WITH e, concept WHERE concept.broader IS NOT NULL "
        f"MERGE (b:{entity_type.label} {{name: concept.broader}}) "
        "ON CREATE SET b.case_count = 0 "
        "MERGE (e)-[:BROADER]->(b)"
    )
    for entity_type in ENTITY_TYPES
}


@dataclass(frozen=True)
class WriteOutcome:
    case_id: str
    action: str  # added, updated, skipped


def stored_hashes(tx: ManagedTransaction, case_ids: list[str]) -> dict[str, str | None]:
    """The content hash stored for each case id (None: no such case), read under the case's write lock.

    Two writers of one case at once (ingest on two machines) would otherwise both read the hash
    from before either committed, and the later one would keep the other's links beside its own.
    With the lock the later one waits, then finds the other's hash and replaces the case whole. A
    new case is created bare here (under the lock of its unique id) and set by this transaction.
    Locks are taken in id order, so two batches sharing cases do not deadlock on them.
    """
    records = tx.run(
        "UNWIND $case_ids AS case_id MERGE (c:Case {case_id: case_id}) SET c._lock = true REMOVE c._lock "
        "RETURN case_id, c.content_hash AS hash", case_ids=sorted(case_ids))
    return {record["case_id"]: record["hash"] for record in records}


CASE_PROPERTIES = property_names(Case)
EVIDENCE_PROPERTIES = property_names(Evidence)


def case_properties(case: ExtractedCase, content_hash: str | None = None) -> dict[str, object]:
    """The Case node's properties (schema/models.py), from the fields of the same names; ingested now.
    `content_hash`, when given, is the case's (computed once by the caller)."""
    derived = {"content_hash": content_hash or case.content_hash, "ingested_at": datetime.now(timezone.utc)}
    return {name: derived[name] if name in derived else getattr(case, name) for name in CASE_PROPERTIES}


def link_parameters(mention: Mention, entity: Mention) -> dict[str, object]:
    """A link's row: its entity's name and the properties the entity is created with (those of
    `entity`, the batch's first mention of that name, as writing case by case would give), and
    the link's evidence."""
    return {"name": mention.name, "aliases": list(entity.aliases), "description": entity.description,
            "known": "taxonomy" if entity.known else "extracted",
            "evidence": {name: getattr(mention, name) for name in EVIDENCE_PROPERTIES}}


@dataclass(frozen=True)
class BatchRows:
    """A batch's rows for each statement, by entity label: per case its links, and the placements
    of new entities (every proposed broader name, in input order)."""

    links: dict[str, list[dict[str, object]]]
    placements: dict[str, list[dict[str, object]]]


def batch_rows(cases: list[ExtractedCase]) -> BatchRows:
    first: dict[str, dict[str, Mention]] = {t.label: {} for t in ENTITY_TYPES}
    links: dict[str, list[dict[str, object]]] = {t.label: [] for t in ENTITY_TYPES}
    placements: dict[str, dict[str, list[str]]] = {t.label: {} for t in ENTITY_TYPES}
    for case in cases:
        for entity_type in ENTITY_TYPES:
            label = entity_type.label
            mentions = case.strongest_mentions_of(label)
            if mentions:
                links[label].append({"case_id": case.case_id, "links": [
                    link_parameters(mention, first[label].setdefault(mention.name, mention)) for mention in mentions]})
            for mention in mentions:
                # Only a new entity is placed (a taxonomy concept keeps the taxonomy's links).
                if not mention.known and mention.broader is not None \
                        and mention.broader not in placements[label].setdefault(mention.name, []):
                    placements[label][mention.name].append(mention.broader)
    return BatchRows(
        links=links,
        placements={label: [{"name": name, "broader": broader} for name, broader in rows.items() if broader]
                    for label, rows in placements.items()},
    )


def write_action(stored: str | None, content_hash: str) -> str:
    """What writing a case with this hash does, given the hash stored before (None: no such case)."""
    if stored == content_hash:
        return "skipped"
    return "updated" if stored is not None else "added"


def replace_cases(tx: ManagedTransaction, cases: list[ExtractedCase], hashes: dict[str, str],
                  seen: list[dict[str, str | None]] | None = None, finished: list[bool] | None = None) -> None:
    """Write the cases whose hash changed and their links; an existing case loses its old links first.

    `hashes` holds each case's content hash (computed once: it serialises the whole case). `seen`,
    when given, collects the stored hashes each attempt found (the first is what was there before
    this write began, whatever later attempts find). A fixed number of statements per batch,
    whatever its size (at most 16): lock the cases and read their stored hashes, take the updated
    cases out of the case counts and drop their old links, set the cases, then per entity type one statement for the
    entities and their links (rows grouped by case, so each case is found once) and one for the
    placements of new entities, add the cases to the counts, and remove the extracted entities the
    batch left without a case. (A placement under cases from outside the batch adds a recount.)
    """
    previous = stored_hashes(tx, list(hashes))
    if seen is not None:
        seen.append(previous)
    changed = [case for case in cases if write_action(previous[case.case_id], hashes[case.case_id]) != "skipped"]
    if not changed:
        return
    updated = [case.case_id for case in changed if previous[case.case_id] is not None]
    shift_case_counts(tx, updated, -1)  # what the old links reached, before they go
    unlinked = tx.run(
        "UNWIND $case_ids AS case_id MATCH (:Case {case_id: case_id})-[r]->(e) WHERE type(r) IN $relationship_types "
        "WITH r, e, e.known = 'extracted' AS extracted DELETE r "
        "WITH DISTINCT e, extracted WHERE extracted RETURN collect(elementId(e)) AS ids",
        case_ids=updated, relationship_types=list(RELATIONSHIPS),
    ).single() if updated else None
    tx.run("UNWIND $cases AS case MERGE (c:Case {case_id: case.case_id}) SET c = case.properties",
           cases=[{"case_id": case.case_id, "properties": case_properties(case, hashes[case.case_id])}
                  for case in changed]).consume()
    rows = batch_rows(changed)
    changed_ids = [case.case_id for case in changed]
    for label, label_rows in rows.links.items():
        if label_rows:
            tx.run(LINK_STATEMENTS[label], cases=label_rows).consume()
    placed_under_others: list[str] = []
    for label, label_rows in rows.placements.items():
        if label_rows:
            placed_under_others += [record["placed"] for record in
                                    tx.run(PLACEMENT_STATEMENTS[label], placements=label_rows, changed=changed_ids)]
    shift_case_counts(tx, changed_ids, 1)
    recount_above(tx, placed_under_others)
    if unlinked and unlinked["ids"]:
        remove_orphaned_extracted_entities(tx, unlinked["ids"])
    if finished is not None:
        finished.append(True)  # every statement ran: what fails from here on is the commit


def remove_orphaned_extracted_entities(tx: ManagedTransaction, element_ids: list[str] | None = None) -> None:
    """Entities that came from a write-up (not the taxonomy) go when no case mentions them; only
    those of `element_ids` when given (the ones a write just unlinked), else every one."""
    orphaned = "e.known = 'extracted' AND NOT (e)<--(:Case) AND NOT (e)<-[:BROADER]-()"
    if element_ids is None:
        tx.run(f"MATCH (e) WHERE {orphaned} DETACH DELETE e").consume()
    else:
        tx.run(f"UNWIND $ids AS id MATCH (e) WHERE elementId(e) = id AND {orphaned} DETACH DELETE e",
               ids=element_ids).consume()


COMMIT_ATTEMPTS = 3


def write_cases(driver: Driver, cases: list[ExtractedCase],
                seen: list[dict[str, str | None]] | None = None) -> list[WriteOutcome]:
    """One managed transaction for the batch: all of it lands or none of it does; transient errors retry.

    When the connection drops during the commit the driver cannot know whether it landed and does
    not retry (IncompleteCommit). Writing cases is idempotent (MERGE, and an unchanged content
    hash makes a case a no-op), so it is tried again here; the action reported for each case is
    the one the first attempt found, so a landed-but-unacknowledged commit still counts as added
    or updated. A caller that tries the same cases again after this raised passes the same `seen`
    list (the stored hashes each attempt found), so those actions too are the first attempt's: a
    batch that landed before an error still reports its cases as added, not as unchanged. The
    case ids must be distinct.
    """
    hashes = {case.case_id: case.content_hash for case in cases}
    seen = [] if seen is None else seen
    finished: list[bool] = []
    try:
        with graph_errors():
            for attempt in range(1, COMMIT_ATTEMPTS + 1):
                try:
                    with causal_session(driver) as session:
                        session.execute_write(replace_cases, cases, hashes, seen, finished)
                    break
                except IncompleteCommit:
                    if attempt == COMMIT_ATTEMPTS:
                        raise
    except GraphUnavailable as error:
        # Neo4j went away after some attempt had run every statement, so during or after a commit:
        # that commit may have landed, which the caller must say. The driver does not always say
        # IncompleteCommit then (it can retry the function and end on ServiceUnavailable); the stop
        # test found a whole landed batch reported as plainly not written.
        if finished and not error.maybe_committed:
            raise GraphUnavailable(str(error), maybe_committed=True) from error
        raise
    before = first_found(seen)
    return [WriteOutcome(case.case_id, write_action(before[case.case_id], hashes[case.case_id])) for case in cases]


def first_found(seen: list[dict[str, str | None]]) -> dict[str, str | None]:
    """case id -> the stored hash the first attempt that read the case found."""
    before: dict[str, str | None] = {}
    for found in seen:
        for case_id, stored in found.items():
            before.setdefault(case_id, stored)
    return before


def write_case(driver: Driver, case: ExtractedCase,
               seen: list[dict[str, str | None]] | None = None) -> WriteOutcome:
    """One case in a transaction of its own (see write_cases, also for `seen`)."""
    [outcome] = write_cases(driver, [case], seen)
    return outcome


def delete_case(driver: Driver, case_id: str) -> bool:
    def delete(tx: ManagedTransaction) -> bool:
        shift_case_counts(tx, [case_id], -1)
        record = tx.run(
            "MATCH (c:Case {case_id: $case_id}) DETACH DELETE c RETURN count(*) AS deleted", case_id=case_id
        ).single()
        remove_orphaned_extracted_entities(tx)
        return bool(record and record["deleted"])

    with graph_errors(), causal_session(driver) as session:
        return session.execute_write(delete)


def sync_taxonomy(driver: Driver, concepts: Iterable[Concept]) -> None:
    """Write every taxonomy concept and its broader link; MERGE makes reruns change nothing.

    A broader link that is new changes what the cases below it reach: then every count is redone.
    """
    by_label: dict[str, list[dict[str, object]]] = {}
    for concept in concepts:
        by_label.setdefault(concept.type, []).append(
            {"name": concept.name, "aliases": list(concept.synonyms), "description": concept.description,
             "signs": list(concept.signs), "broader": concept.broader}
        )

    def write(tx: ManagedTransaction) -> None:
        new_links = 0
        for label, rows in by_label.items():
            new_links += tx.run(CONCEPT_STATEMENTS[label], concepts=rows).consume().counters.relationships_created
        if new_links:
            recount(tx)

    with graph_errors(), causal_session(driver) as session:
        session.execute_write(write)


def stored_input_hashes(driver: Driver, case_ids: list[str]) -> dict[str, str]:
    """case id -> the input hash stored with it, for the cases the graph already holds.

    A read (a follower may answer): one a little behind only means a write-up is parsed again, and
    writing it is then a no-op, since the write transaction compares content hashes on the leader."""
    with graph_errors():
        records = driver.execute_query(
            "MATCH (c:Case) WHERE c.case_id IN $case_ids RETURN c.case_id AS id, c.input_hash AS hash",
            case_ids=case_ids, routing_=RoutingControl.READ,
        ).records
    return {record["id"]: record["hash"] for record in records if record["hash"]}


def existing_extracted_names(driver: Driver) -> list[tuple[str, str]]:
    """(label, name) of entities earlier write-ups added, so new mentions merge into them (a read,
    like stored_input_hashes)."""
    with graph_errors():
        records = driver.execute_query(
            "MATCH (e) WHERE e.known = 'extracted' AND any(label IN labels(e) WHERE label IN $labels) "
            "RETURN [label IN labels(e) WHERE label IN $labels][0] AS label, e.name AS name",
            labels=list(LABELS), routing_=RoutingControl.READ,
        ).records
    return [(record["label"], record["name"]) for record in records]
