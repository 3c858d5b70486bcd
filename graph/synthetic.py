"""A synthetic incident graph of any size, for benchmarks: same labels, properties and links as
ingest writes, with skewed (Zipf-like) entity popularity and broader concept groups, written with
batched UNWIND statements (one transaction per batch of cases).

Deterministic for a given shape and seed. Names look like "symptom 007" and "symptom group 02".
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from neo4j import Driver

from incident_graph.graph.case_counts import recount_case_counts
from incident_graph.graph.writes import sync_taxonomy
from incident_graph.schema import entity_types
from incident_graph.schema.entity_types import ENTITY_TYPES, EntityType
from incident_graph.schema.models import Case, Evidence, property_defaults, property_names
from incident_graph.schema.taxonomy import Concept

FILLER_WORDS = (
    "deploy rollback latency cluster region network storage replica queue cache timeout failover "
    "kernel firmware driver certificate config traffic capacity throttle quorum leader migration"
).split()
FIRST_DAY = date(2000, 1, 1)
DAYS = (date(2025, 12, 31) - FIRST_DAY).days


@dataclass(frozen=True)
class EntityShape:
    """How many concepts of one type, how many groups above them, and links per case (inclusive)."""

    concepts: int
    groups: int
    links: tuple[int, int]


# Per entity type: how many concepts, groups and links per case (several types are skewed alike).
DEFAULT_ENTITY_SHAPES: dict[str, EntityShape] = {
    entity_types.SYMPTOM.key: EntityShape(150, 12, (1, 3)),
    entity_types.ROOT_CAUSE.key: EntityShape(120, 10, (1, 2)),
    entity_types.COMPONENT.key: EntityShape(250, 15, (1, 4)),
    entity_types.CONTRIBUTING_FACTOR.key: EntityShape(60, 6, (0, 2)),
    entity_types.ORGANISATION.key: EntityShape(500, 0, (1, 1)),
}


@dataclass(frozen=True)
class SyntheticShape:
    cases: int
    seed: int = 7
    undated_share: float = 0.05
    entities: dict[str, EntityShape] = field(default_factory=lambda: dict(DEFAULT_ENTITY_SHAPES))

    def of(self, entity_type: EntityType) -> EntityShape:
        return self.entities[entity_type.key]


def concept_name(entity_type: EntityType, number: int) -> str:
    return f"{entity_type.title.lower()} {number:03d}"


def group_name(entity_type: EntityType, number: int) -> str:
    return f"{entity_type.title.lower()} group {number:02d}"


def synthetic_concepts(shape: SyntheticShape) -> list[Concept]:
    """Every concept, each leaf under one group (round robin), groups without a broader concept."""
    concepts = []
    for entity_type in ENTITY_TYPES:
        entity_shape = shape.of(entity_type)
        concepts += [Concept(group_name(entity_type, g), entity_type.label, description="Synthetic group.")
                     for g in range(entity_shape.groups)]
        concepts += [
            Concept(
                concept_name(entity_type, n), entity_type.label,
                broader=group_name(entity_type, n % entity_shape.groups) if entity_shape.groups else None,
                description="Synthetic concept.",
            )
            for n in range(entity_shape.concepts)
        ]
    return concepts


def zipf_weights(count: int, exponent: float = 0.9) -> list[float]:
    return [1.0 / (rank + 1) ** exponent for rank in range(count)]


def case_rows(shape: SyntheticShape, batch_size: int) -> Iterator[list[dict[str, object]]]:
    """Batches of case parameter maps: properties, and links by entity type key."""
    rng = random.Random(shape.seed)
    weights = {entity_type.key: zipf_weights(shape.of(entity_type).concepts) for entity_type in ENTITY_TYPES}
    now = datetime.now(timezone.utc)
    batch: list[dict[str, object]] = []
    for number in range(shape.cases):
        case_id = f"synthetic-{number:06d}"
        links: dict[str, list[dict[str, object]]] = {}
        sentences: list[str] = []
        for entity_type in ENTITY_TYPES:
            low, high = shape.of(entity_type).links
            count = rng.randint(low, high)
            picks = rng.choices(range(shape.of(entity_type).concepts), weights[entity_type.key], k=count)
            names = sorted({concept_name(entity_type, pick) for pick in picks})
            links[entity_type.key] = [evidence(name, rng) for name in names]
            sentences += [f"The write-up names {name}." for name in names]
        words = " ".join(rng.choices(FILLER_WORDS, k=12))
        text = f"Synthetic incident {number}. {words}. " + " ".join(sentences)
        day = None if rng.random() < shape.undated_share else FIRST_DAY + timedelta(days=rng.randrange(DAYS))
        batch.append({
            "properties": {
                **property_defaults(Case),  # a free-form write-up: no detection, remediation or lessons
                "case_id": case_id, "title": f"Synthetic incident {number}: {words.split()[0]} {words.split()[1]}",
                "source": "synthetic", "published": day.isoformat() if day else None, "published_on": day,
                "text": text, "content_hash": hashlib.sha256(text.encode()).hexdigest(), "ingested_at": now,
            },
            "links": links,
        })
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch:
        yield batch


def evidence(name: str, rng: random.Random) -> dict[str, object]:
    return {
        "name": name,
        "evidence": {"sentence": f"The write-up names {name}.", "mention": name, "start": 0, "end": len(name),
                     "method": "synthetic", "confidence": round(rng.uniform(0.5, 1.0), 2), "section": ""},
    }


CASE_PROPERTIES = property_names(Case)
EVIDENCE_PROPERTIES = property_names(Evidence)

# One statement per batch; per-type link subqueries are built from the closed set of entity types.
# Properties are spelled out: `SET x = map` could write any key, which forces an Eager barrier
# (the whole batch materialised between operators) and makes the write several times slower.
WRITE_CASES = (
    "UNWIND $cases AS row\n"
    "CREATE (c:Case {" + ", ".join(f"{key}: row.properties.{key}" for key in CASE_PROPERTIES) + "})\n"
    "WITH c, row\n"
    + "\n".join(
        f"CALL (c, row) {{ UNWIND row.links.{entity_type.key} AS link "
        f"MATCH (e:{entity_type.label} {{name: link.name}}) "
        f"CREATE (c)-[:{entity_type.relationship} {{"
        + ", ".join(f"{key}: link.evidence.{key}" for key in EVIDENCE_PROPERTIES)
        + "}]->(e) }"
        for entity_type in ENTITY_TYPES
    )
)


def write_synthetic_graph(driver: Driver, shape: SyntheticShape, batch_size: int = 2_000,
                          progress: Callable[[int, int], None] | None = None) -> int:
    """Write the shape's concepts and cases into an (empty) graph; returns the number of cases."""
    sync_taxonomy(driver, synthetic_concepts(shape))
    written = 0
    for batch in case_rows(shape, batch_size):
        driver.execute_query(WRITE_CASES, cases=batch)
        written += len(batch)
        if progress:
            progress(written, shape.cases)
    recount_case_counts(driver)  # the batches CREATE links without keeping the counts
    driver.execute_query("CALL db.awaitIndexes(600)")  # the full-text index catches up
    return written

