"""The GraphQL types of counts and trends: how many filtered cases each entity of a type has, in all
and per year or month."""

from __future__ import annotations

from enum import Enum

import strawberry

from incident_graph.api.types import Edge, Entity, EntityLabel, PageInfo


@strawberry.enum(description="The length of one period of a trend.")
class TrendInterval(Enum):
    YEAR = "year"
    MONTH = "month"


@strawberry.type(description="An entity and how many of the filtered cases link to it.")
class GroupCount:
    entity: Entity
    count: int
    share: float = strawberry.field(description="count / totalCases (0 when there are no cases).")


@strawberry.type(description="The filtered cases grouped by the entities of one type, most cases first.")
class GroupCounts:
    by: EntityLabel
    total_cases: int = strawberry.field(description="How many cases match the filter.")
    total_count: int = strawberry.field(description="How many groups (entities) there are, in all pages.")
    page_info: PageInfo
    edges: list[Edge[GroupCount]]


@strawberry.type(description="One entity's cases per period, aligned with Trends.periods.")
class TrendSeries:
    entity: Entity
    total: int = strawberry.field(description="Its dated cases in all periods.")
    counts: list[int] = strawberry.field(description="Its cases in each period of Trends.periods.")
    slope: float = strawberry.field(
        description="Least-squares change in cases per period over Trends.periods: above 0 it is growing.")


@strawberry.type(description="The filtered cases per period, in all and for each entity of one type.")
class Trends:
    group_by: EntityLabel
    interval: TrendInterval
    periods: list[str] = strawberry.field(
        description="Every period from the first dated case to the last: YYYY, or YYYY-MM by month.")
    totals: list[int] = strawberry.field(description="Dated cases in each period, whatever their entities.")
    undated_cases: int = strawberry.field(description="Matching cases without a date (in no period).")
    total_count: int = strawberry.field(description="How many series (entities) there are, in all pages.")
    page_info: PageInfo
    edges: list[Edge[TrendSeries]]
