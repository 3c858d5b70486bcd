"""The GraphQL types of `stackReview`: what past cases involving a stack's components teach."""

from __future__ import annotations

import datetime as dt

import strawberry

from incident_graph.api.types import Case, Component, Entity, Evidence


@strawberry.type(description="A name from the list and the component it was matched to (by name, alias or meaning).")
class StackComponent:
    asked: str
    component: Component
    method: str = strawberry.field(
        description="`name` or `alias` (the same words, any case), or `meaning`: no component has the words, and "
        "this one is the nearest by the cosine of the word-vector embeddings (see `similarity`)."
    )
    similarity: float = strawberry.field(description="1 for a name or alias; else the cosine of the two embeddings.")


@strawberry.type(description="A past case behind a finding, and the evidence for the finding in it.")
class StackCase:
    case: Case
    via: list[str] = strawberry.field(description="The components of the stack that led to this case.")
    evidence: Evidence


@strawberry.type(description="A root cause or contributing factor of the stack's past cases.")
class StackFinding:
    entity: Entity
    case_count: int = strawberry.field(description="How many of the stack's cases have it.")
    latest: dt.date | None = strawberry.field(description="The date of its most recent case.")
    cases: list[StackCase] = strawberry.field(description="Its cases, newest first (the first 20).")


@strawberry.type(description="The lessons a past case of the stack wrote down.")
class StackLesson:
    case: Case
    via: list[str] = strawberry.field(description="The components of the stack that led to this case.")
    lessons: str


@strawberry.type(
    description="What past cases involving these components (or their broader or narrower concepts) "
    "teach: root causes and contributing factors ranked by how many cases and how recently, and lessons."
)
class StackReview:
    components: list[StackComponent] = strawberry.field(
        description="The names matched to a component, in the order asked.")
    unknown: list[str] = strawberry.field(
        description="The names no component has, as name or alias, and none is near in meaning.")
    case_count: int = strawberry.field(description="How many past cases involve the stack.")
    root_cause_count: int
    root_causes: list[StackFinding]
    contributing_factor_count: int
    contributing_factors: list[StackFinding]
    lesson_count: int
    lessons: list[StackLesson] = strawberry.field(description="Newest first.")
