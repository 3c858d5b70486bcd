"""Each entity's `case_count`: how many cases link to it or to a concept narrower than it.

Reads that rank or weigh entities by how many cases show them (diagnosis's symptom vocabulary and
root-cause priors) would otherwise count over most of the graph on every request. The count is kept
exact by the writes, in the transaction that changes the links:

- before a case's links go (an update, a delete), every concept the case reached loses one;
- after its new links and placements are in, every concept it reaches gains one;
- a placement that puts an entity with cases outside the batch under a concept, or a taxonomy change
  that adds a broader link, changes what those other cases reach: the concepts above are recounted.

`recount_case_counts` recomputes all of them (after a snapshot load, the synthetic loader, or on a
graph written before the count existed); `case_count_drift` says which stored counts are wrong.
"""

from __future__ import annotations

from neo4j import Driver, ManagedTransaction

from incident_graph.graph.connection import causal_session
from incident_graph.schema.entity_types import BROADER, ENTITY_TYPES, LABELS, RELATIONSHIPS, EntityType

# The distinct concepts each case reaches (linked entities and everything broader), one row per
# pair; the sign makes the same statement add the cases or take them away. Rows are sorted by node
# so concurrent writers lock popular concepts in one order (no deadlock between two batches).
SHIFT = f"""
UNWIND $case_ids AS case_id
MATCH (c:Case {{case_id: case_id}})-[link]->(linked) WHERE type(link) IN $relationship_types
MATCH (linked)-[:{BROADER}*0..]->(reached)
WITH DISTINCT c, reached
WITH reached, count(*) AS cases
ORDER BY elementId(reached)
SET reached.case_count = coalesce(reached.case_count, 0) + $sign * cases
"""


def _counted(entity_type: EntityType) -> str:
    """A subquery: `cases`, the distinct cases linking to `concept` or to a concept narrower than it."""
    return f"""CALL (concept) {{
  MATCH (narrower:{entity_type.label})-[:{BROADER}*0..]->(concept)
  OPTIONAL MATCH (narrower)<-[:{entity_type.relationship}]-(c:Case)
  RETURN count(DISTINCT c) AS cases
}}"""


# Per entity type: the exact count of the given nodes (all of the type's when $element_ids is null).
RECOUNT: dict[str, str] = {
    entity_type.label: f"""
MATCH (concept:{entity_type.label})
WHERE $element_ids IS NULL OR elementId(concept) IN $element_ids
{_counted(entity_type)}
SET concept.case_count = cases
"""
    for entity_type in ENTITY_TYPES
}

# The concepts above the given nodes (themselves included): what a new broader link can change.
ABOVE = f"""
UNWIND $element_ids AS element_id
MATCH (n) WHERE elementId(n) = element_id
MATCH (n)-[:{BROADER}*0..]->(above)
RETURN collect(DISTINCT elementId(above)) AS element_ids
"""

DRIFT: dict[str, str] = {
    entity_type.label: f"""
MATCH (concept:{entity_type.label})
{_counted(entity_type)}
WITH concept, cases WHERE coalesce(concept.case_count, -1) <> cases
RETURN concept.name AS name, concept.case_count AS stored, cases AS counted
ORDER BY name LIMIT $limit
"""
    for entity_type in ENTITY_TYPES
}

# Entities written before the count existed have none: one of them means the graph needs a recount.
UNCOUNTED = (
    "MATCH (e) WHERE any(label IN labels(e) WHERE label IN $labels) AND e.case_count IS NULL "
    "RETURN count(e) > 0 AS uncounted LIMIT 1"
)


def shift_case_counts(tx: ManagedTransaction, case_ids: list[str], sign: int) -> None:
    """Add (sign 1) or take away (sign -1) the given cases from every concept they reach now."""
    if case_ids:
        tx.run(SHIFT, case_ids=case_ids, relationship_types=list(RELATIONSHIPS), sign=sign).consume()


def recount(tx: ManagedTransaction, element_ids: list[str] | None = None) -> None:
    """Recount the given nodes, or every entity when None."""
    for statement in RECOUNT.values():
        tx.run(statement, element_ids=element_ids).consume()


def recount_above(tx: ManagedTransaction, element_ids: list[str]) -> None:
    """Recount the given nodes and every concept above them."""
    if element_ids:
        recount(tx, tx.run(ABOVE, element_ids=element_ids).single()["element_ids"])


def recount_case_counts(driver: Driver) -> None:
    """Recompute every entity's count in one transaction."""
    with causal_session(driver) as session:
        session.execute_write(recount)


def recount_if_uncounted(driver: Driver) -> bool:
    """Recount a graph that has entities without a count (written before it existed); True if it did."""
    uncounted = driver.execute_query(UNCOUNTED, labels=list(LABELS)).records
    if uncounted and uncounted[0]["uncounted"]:
        recount_case_counts(driver)
        return True
    return False


def case_count_drift(driver: Driver, limit: int = 20) -> list[dict[str, object]]:
    """Entities whose stored count differs from a count made now (empty when all are exact)."""
    drift: list[dict[str, object]] = []
    for label, statement in DRIFT.items():
        records = driver.execute_query(statement, limit=limit).records
        drift += [{"label": label, **record.data()} for record in records]
    return drift[:limit]
