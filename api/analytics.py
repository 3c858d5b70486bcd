"""The resolvers of `counts` and `trends`: the filtered cases grouped by entity, in all and per period.

Both are bounded like every list of the API: a page of groups (`first`, `after`), and a trend
covers at most MAX_TREND_PERIODS periods (narrow it with publishedFrom/publishedTo, or by year).
"""

from __future__ import annotations

import asyncio
from typing import Any

from incident_graph.api import limits
from incident_graph.api.analytics_types import GroupCount, GroupCounts, TrendInterval, Trends, TrendSeries
from incident_graph.api.errors import ClientError
from incident_graph.api.pagination import window
from incident_graph.api.resolvers import criteria_from
from incident_graph.api.types import CaseFilter, EntityLabel, Info, edges_and_page_info, entity_from_map
from incident_graph.graph import queries
from incident_graph.schema import entity_types

Period = tuple[int, int]  # (year, month); month 1 for a yearly period


async def counts(
    info: Info, by: EntityLabel, filter: CaseFilter | None = None, first: int | None = limits.DEFAULT_PAGE_SIZE,
    after: str | None = None,
) -> GroupCounts:
    criteria, page = criteria_from(filter), window(first, after)
    reader, parameters = info.context.reader, criteria.parameters()
    entity_type = entity_types.entity_type(by.value)
    total_row, groups_row = await asyncio.gather(
        reader.single(queries.cases_count(criteria), **parameters),
        reader.single(queries.group_counts(criteria, entity_type), **parameters, skip=page.skip,
                      limit=page.limit + 1),
    )
    total_cases = total_row["total"] if total_row else 0
    found = groups_row["page"] if groups_row else []
    groups = [
        GroupCount(entity=entity_from_map(group["entity"]), count=group["count"],
                   share=group["count"] / total_cases if total_cases else 0.0)
        for group in found[: page.limit]
    ]
    edges, page_info = edges_and_page_info(groups, page, has_next=len(found) > page.limit)
    return GroupCounts(by=by, total_cases=total_cases, total_count=groups_row["group_count"] if groups_row else 0,
                       page_info=page_info, edges=edges)


def period_range(first: Period, last: Period, interval: TrendInterval) -> list[Period]:
    """Every period from `first` to `last`, both included."""
    if interval is TrendInterval.YEAR:
        return [(year, 1) for year in range(first[0], last[0] + 1)]
    months = range(first[0] * 12 + first[1] - 1, last[0] * 12 + last[1])
    return [(index // 12, index % 12 + 1) for index in months]


def period_name(period: Period, interval: TrendInterval) -> str:
    return f"{period[0]:04d}" if interval is TrendInterval.YEAR else f"{period[0]:04d}-{period[1]:02d}"


def least_squares_slope(values: list[int]) -> float:
    """The slope of the best straight line through (index, value); 0 for fewer than two values."""
    n = len(values)
    if n < 2:
        return 0.0
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    spread = sum((x - mean_x) ** 2 for x in range(n))
    return sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values)) / spread


def aligned(buckets: list[dict[str, Any]], periods: list[Period]) -> list[int]:
    by_period = {tuple(bucket["period"]): bucket["count"] for bucket in buckets}
    return [by_period.get(period, 0) for period in periods]


async def trends(
    info: Info, group_by: EntityLabel, filter: CaseFilter | None = None,
    interval: TrendInterval = TrendInterval.YEAR, first: int | None = limits.DEFAULT_TREND_SERIES,
    after: str | None = None,
) -> Trends:
    criteria = criteria_from(filter)
    page = window(first if first is not None else limits.DEFAULT_TREND_SERIES, after)
    reader, parameters = info.context.reader, {**criteria.parameters(), "monthly": interval is TrendInterval.MONTH}
    entity_type = entity_types.entity_type(group_by.value)
    period_rows, series_row = await asyncio.gather(
        reader.rows(queries.cases_per_period(criteria), **parameters),
        reader.single(queries.trend_series(criteria, entity_type), **parameters, skip=page.skip,
                      limit=page.limit + 1),
    )
    dated = [row for row in period_rows if row["period"] is not None]
    undated = sum(row["count"] for row in period_rows if row["period"] is None)
    periods = period_range(tuple(dated[0]["period"]), tuple(dated[-1]["period"]), interval) if dated else []
    if len(periods) > limits.MAX_TREND_PERIODS:
        raise ClientError(
            f"The trend would have {len(periods)} periods; at most {limits.MAX_TREND_PERIODS} are drawn. Narrow "
            "`filter.publishedFrom`/`filter.publishedTo`, or use `interval: YEAR`."
        )
    found = series_row["page"] if series_row else []
    series = []
    for item in found[: page.limit]:
        values = aligned(item["buckets"], periods)
        series.append(TrendSeries(entity=entity_from_map(item["entity"]), total=item["total"], counts=values,
                                  slope=least_squares_slope(values)))
    edges, page_info = edges_and_page_info(series, page, has_next=len(found) > page.limit)
    return Trends(
        group_by=group_by, interval=interval, periods=[period_name(period, interval) for period in periods],
        totals=aligned(dated, periods), undated_cases=undated,
        total_count=series_row["series_count"] if series_row else 0, page_info=page_info, edges=edges,
    )
