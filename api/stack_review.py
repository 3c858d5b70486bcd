"""The resolver of `stackReview`: from a list of component names to what their past cases teach.

Names are matched to components by canonical name or alias, case-insensitively; the others are
reported as unknown. Each list is a page (`first`, `after` apply to root causes, contributing
factors and lessons alike), with its total.
"""

from __future__ import annotations

import asyncio
from typing import Any

import strawberry

from incident_graph.api import limits
from incident_graph.api.errors import ClientError
from incident_graph.api.pagination import window
from incident_graph.api.stack_review_types import StackCase, StackComponent, StackFinding, StackLesson, StackReview
from incident_graph.api.types import Case, Evidence, Info, entity_from_map
from incident_graph.graph import queries
from incident_graph.schema import entity_types

DEFAULT_STACK_FINDINGS = 10


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
    matched = await reader.rows(queries.STACK_COMPONENTS, names=list(names))
    known = [StackComponent(asked=row["asked"], component=entity_from_map(row["component"]))
             for row in matched if row["component"] is not None]
    unknown = [row["asked"] for row in matched if row["component"] is None]
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
