"""The resolver of `stackReview`: from a list of component names to what their past cases teach.

Names are matched to components by canonical name or alias, case-insensitively; a name that is
neither is matched by meaning to the graph's components sharing half their words with it
(ingest/meaning_match.py, the cosine of the trained pipeline's word-vector embeddings, at least
MEANING_THRESHOLD), and the rest are reported as unknown. Each list is a page (`first`, `after` apply to root causes, contributing
factors and lessons alike), with its total.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import strawberry

from incident_graph.api import limits
from incident_graph.api.errors import ClientError
from incident_graph.api.pagination import window
from incident_graph.api.query_slots import GraphReader
from incident_graph.api.stack_review_types import StackCase, StackComponent, StackFinding, StackLesson, StackReview
from incident_graph.api.types import Case, Evidence, Info, entity_from_map
from incident_graph.graph import queries
from incident_graph.schema import entity_types

if TYPE_CHECKING:  # ingest is imported on first use: the spaCy pipeline is heavy
    from incident_graph.ingest.meaning_match import Match

DEFAULT_STACK_FINDINGS = 10
MEANING_THRESHOLD = 0.75  # cosine at which a name the graph lacks is taken for one of its components
MAX_VOCABULARY = 5_000  # components a name is matched against by meaning (those with most cases first)


def nearest_components(asked: Sequence[str], known: Sequence[tuple[str, Sequence[str]]]) -> dict[str, Match]:
    """Each asked name near enough in meaning to a known component (name, aliases) that shares a
    word with it (ingest/meaning_match.py: the pruned vectors make a component name alone no
    evidence of meaning), to its match."""
    from incident_graph.ingest.meaning_match import name_vectors
    from incident_graph.ingest.pipeline import default_pipeline

    vectors = name_vectors(default_pipeline())
    matches = {name: vectors.nearest(name, known, MEANING_THRESHOLD, shared_word=True) for name in asked}
    return {name: match for name, match in matches.items() if match is not None}


async def matched_components(reader: GraphReader, names: list[str]) -> tuple[list[StackComponent], list[str]]:
    """The components the names are matched to (by name or alias, else by meaning), in the order
    asked, and the names matched to none."""
    rows = await reader.rows(queries.STACK_COMPONENTS, names=names)
    unmatched = [row["asked"] for row in rows if row["component"] is None]
    by_meaning: dict[str, Match] = {}
    entities: dict[str, dict[str, Any]] = {}
    if unmatched:
        vocabulary = await reader.rows(queries.COMPONENT_VOCABULARY, limit=MAX_VOCABULARY)
        entities = {row["name"]: row["component"] for row in vocabulary}
        known = [(row["name"], list(row["aliases"])) for row in vocabulary]
        by_meaning = await anyio.to_thread.run_sync(nearest_components, unmatched, known)
    components, unknown = [], []
    for row in rows:
        asked, match = row["asked"], by_meaning.get(row["asked"])
        if row["component"] is not None:
            components.append(StackComponent(asked=asked, component=entity_from_map(row["component"]),
                                             method=row["method"], similarity=1.0))
        elif match is not None:
            components.append(StackComponent(asked=asked, component=entity_from_map(entities[match.name]),
                                             method="meaning", similarity=match.similarity))
        else:
            unknown.append(asked)
    return components, unknown


def finding_from(row: dict[str, Any]) -> StackFinding:
    latest = row["latest"]
    return StackFinding(
        entity=entity_from_map(row["finding"]),
        case_count=row["case_count"],
        latest=latest.to_native() if latest is not None else None,
        cases=[StackCase(case=Case(id=strawberry.ID(item["case_id"])), via=item["via"],
                         evidence=Evidence(**item["evidence"])) for item in row["cases"]],
    )


async def stack_review(
    info: Info, components: list[str], first: int | None = DEFAULT_STACK_FINDINGS, after: str | None = None,
) -> StackReview:
    names = limits.value_list(components, "components")
    if not names:
        raise ClientError("`components` must name at least one component.")
    page = window(first if first is not None else DEFAULT_STACK_FINDINGS, after)
    reader = info.context.reader
    known, unknown = await matched_components(reader, list(names))
    parameters = {"components": list(dict.fromkeys(item.component.name for item in known)),
                  "skip": page.skip, "limit": page.limit}
    causes, factors, lessons = await asyncio.gather(
        reader.single(queries.stack_findings(entity_types.ROOT_CAUSE), **parameters,
                      case_limit=limits.MAX_LISTED_CASES),
        reader.single(queries.stack_findings(entity_types.CONTRIBUTING_FACTOR), **parameters,
                      case_limit=limits.MAX_LISTED_CASES),
        reader.single(queries.STACK_LESSONS, **parameters),
    )
    return StackReview(
        components=known,
        unknown=unknown,
        case_count=lessons["case_count"] if lessons else 0,
        root_cause_count=causes["total"] if causes else 0,
        root_causes=[finding_from(row) for row in (causes["page"] if causes else [])],
        contributing_factor_count=factors["total"] if factors else 0,
        contributing_factors=[finding_from(row) for row in (factors["page"] if factors else [])],
        lesson_count=lessons["total"] if lessons else 0,
        lessons=[StackLesson(case=Case(id=strawberry.ID(item["case_id"])), via=item["via"], lessons=item["lessons"])
                 for item in (lessons["page"] if lessons else [])],
    )
