"""Housekeeping of the database: constraints and indexes (from the model), status and reset."""

from __future__ import annotations

import io
from dataclasses import dataclass

from neo4j import Driver, Record, RoutingControl

from incident_graph.graph.case_counts import recount_if_uncounted
from incident_graph.schema.entity_types import LABELS
from incident_graph.schema.models import (
    CASE_TEXT_PROPERTIES,
    EMBEDDING_DIMENSIONS,
    ENTITY_TEXT_PROPERTIES,
    NODE_CLASSES,
)

CASE_TEXT_INDEX = "case_text"
ENTITY_NAME_INDEX = "entity_names"
CASE_EMBEDDING_INDEX = "case_embedding"

# Constraints and range indexes come from the neomodel classes (unique_index, index); the full-text
# indexes span several properties, which neomodel cannot declare, so they are built here from the
# model's lists and the closed set of labels, as is the vector index on case embeddings.
FULL_TEXT_STATEMENTS = (
    f"CREATE FULLTEXT INDEX {CASE_TEXT_INDEX} IF NOT EXISTS FOR (c:Case) "
    f"ON EACH [{', '.join(f'c.{name}' for name in CASE_TEXT_PROPERTIES)}]",
    f"CREATE FULLTEXT INDEX {ENTITY_NAME_INDEX} IF NOT EXISTS FOR (e:{'|'.join(LABELS)}) "
    f"ON EACH [{', '.join(f'e.{name}' for name in ENTITY_TEXT_PROPERTIES)}]",
)

# Neo4j's own vector index over Case.embedding (schema/models.py), for cases similar by meaning.
VECTOR_STATEMENTS = (
    f"CREATE VECTOR INDEX {CASE_EMBEDDING_INDEX} IF NOT EXISTS FOR (c:Case) ON c.embedding "
    f"OPTIONS {{indexConfig: {{`vector.dimensions`: {EMBEDDING_DIMENSIONS}, "
    "`vector.similarity_function`: 'cosine'}}",
)

INCIDENT_LABELS = tuple(node_class.__label__ for node_class in NODE_CLASSES)


@dataclass(frozen=True)
class GraphStatus:
    uri: str
    neo4j_version: str
    edition: str
    constraints: list[dict[str, object]]
    indexes: list[dict[str, object]]
    nodes: dict[str, int]
    relationships: dict[str, int]
    extraction_models: dict[str, int]  # cases by the spaCy pipeline they were extracted with

    def as_json(self) -> dict[str, object]:
        return {
            "uri": self.uri,
            "neo4j_version": self.neo4j_version,
            "edition": self.edition,
            "constraints": self.constraints,
            "indexes": self.indexes,
            "nodes": self.nodes,
            "relationships": self.relationships,
            "extraction_models": self.extraction_models,
        }


def install_constraints_and_indexes(driver: Driver) -> None:
    """Idempotent: every statement is IF NOT EXISTS. A graph written before entities kept their
    case counts gets them here (graph/case_counts.py)."""
    from neomodel import db

    from incident_graph.graph.connection import bind_neomodel

    bind_neomodel(driver)
    # neomodel reports "already exists" on its stdout argument; a rerun is expected, keep it quiet.
    for node_class in NODE_CLASSES:
        db.install_labels(node_class, stdout=io.StringIO())
    drop_vector_index_of_other_width(driver)
    for statement in (*FULL_TEXT_STATEMENTS, *VECTOR_STATEMENTS):
        driver.execute_query(statement)
    driver.execute_query("CALL db.awaitIndexes(300)")
    recount_if_uncounted(driver)


def drop_vector_index_of_other_width(driver: Driver) -> None:
    """A graph embedded by an earlier encoder (300-d word vectors) loses that index and those
    embeddings: they cannot be compared with the new ones. Re-ingest embeds the cases again (the
    encoder is part of the pipeline's fingerprint)."""
    found = driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = $name "
        "RETURN options.indexConfig['vector.dimensions'] AS width", name=CASE_EMBEDDING_INDEX,
        routing_=RoutingControl.READ).records
    if not found or found[0]["width"] == EMBEDDING_DIMENSIONS:
        return
    driver.execute_query(f"DROP INDEX {CASE_EMBEDDING_INDEX} IF EXISTS")
    with driver.session() as session:
        session.run(
            "MATCH (c:Case) WHERE c.embedding IS NOT NULL AND size(c.embedding) <> $width "
            "CALL (c) { SET c.embedding = null } IN TRANSACTIONS OF 10000 ROWS",
            width=EMBEDDING_DIMENSIONS,
        ).consume()


def graph_status(driver: Driver, uri: str) -> GraphStatus:
    """Read transactions, which a cluster's follower may answer (the leader is for writes)."""

    def read(query: str) -> list[Record]:
        return driver.execute_query(query, routing_=RoutingControl.READ).records

    component = read("CALL dbms.components() YIELD versions, edition RETURN versions[0] AS version, edition")[0]
    constraints = [
        {"name": r["name"], "type": r["type"], "labels": r["labelsOrTypes"], "properties": r["properties"]}
        for r in read(
            "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties RETURN * ORDER BY name"
        )
    ]
    indexes = [
        {"name": r["name"], "type": r["type"], "labels": r["labelsOrTypes"],
         "properties": r["properties"], "state": r["state"]}
        for r in read(
            "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state "
            "WHERE type <> 'LOOKUP' RETURN * ORDER BY name"
        )
    ]
    # One count-store lookup per label (labels are from the closed set, never input).
    nodes = {
        label: read(f"MATCH (n:{label}) RETURN count(n) AS count")[0]["count"]
        for label in INCIDENT_LABELS
    }
    relationships = {
        r["type"]: r["count"]
        for r in read(
            "MATCH ()-[r]->() RETURN type(r) AS type, count(r) AS count ORDER BY type"
        )
    }
    extraction_models = {
        r["model"]: r["count"]
        for r in read(
            "MATCH (c:Case) RETURN coalesce(c.extraction_model, '') AS model, count(*) AS count ORDER BY model"
        )
    }
    return GraphStatus(
        uri=uri,
        neo4j_version=component["version"],
        edition=component["edition"],
        constraints=constraints,
        indexes=indexes,
        nodes=nodes,
        relationships=relationships,
        extraction_models=extraction_models,
    )


def reset_data(driver: Driver, batch_size: int = 2_000) -> int:
    """Delete every incident node and relationship; constraints and indexes stay.

    Cases go first, a few thousand per transaction: on a large graph one entity node holds tens of
    thousands of relationships, too many to detach in one transaction on a small heap.
    """
    deleted = 0
    for statement in (
        "MATCH (c:Case) WITH c LIMIT $batch DETACH DELETE c RETURN count(*) AS deleted",
        "MATCH (n) WHERE any(label IN labels(n) WHERE label IN $labels) "
        "WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted",
    ):
        while True:
            count = driver.execute_query(statement, batch=batch_size, labels=list(INCIDENT_LABELS)).records[0]["deleted"]
            deleted += count
            if count == 0:
                break
    return deleted
