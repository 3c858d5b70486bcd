"""`counts` and `trends` over the example graph (tests/api/example.py) in the real Neo4j: exact
groups, periods, totals and slopes; paging; filters; refused arguments."""

from __future__ import annotations

from dataclasses import replace

import pytest

from incident_graph.graph.writes import write_case

from .example import example_case

pytestmark = pytest.mark.anyio

COUNTS = """
query Counts($by: EntityType!, $filter: CaseFilter, $first: Int, $after: String) {
  counts(by: $by, filter: $filter, first: $first, after: $after) {
    by totalCases totalCount
    pageInfo { hasNextPage endCursor }
    edges { node { entity { __typename name } count share } }
  }
}
"""

TRENDS = """
query Trends($groupBy: EntityType!, $filter: CaseFilter, $interval: TrendInterval!, $first: Int, $after: String) {
  trends(groupBy: $groupBy, filter: $filter, interval: $interval, first: $first, after: $after) {
    groupBy interval periods totals undatedCases totalCount
    pageInfo { hasNextPage endCursor }
    edges { node { entity { name } total counts slope } }
  }
}
"""


def groups(answer: dict) -> list[tuple[str, int]]:
    return [(edge["node"]["entity"]["name"], edge["node"]["count"]) for edge in answer["edges"]]


async def test_counts_group_every_case_by_root_cause(api):
    answer = (await api.data(COUNTS, {"by": "ROOT_CAUSE"}))["counts"]
    assert answer["by"] == "ROOT_CAUSE" and answer["totalCases"] == 7 and answer["totalCount"] == 5
    assert groups(answer) == [("silent data corruption", 3), ("configuration error", 2), ("software bug", 2),
                              ("hardware fault", 1), ("power failure", 1)]
    assert answer["edges"][0]["node"]["entity"]["__typename"] == "RootCause"
    assert answer["edges"][0]["node"]["share"] == pytest.approx(3 / 7)


async def test_counts_follow_the_filter_and_page(api):
    variables = {"by": "COMPONENT", "filter": {"symptoms": ["availability loss"]}, "first": 2}
    first = (await api.data(COUNTS, variables))["counts"]
    assert first["totalCases"] == 5 and first["totalCount"] == 4
    assert groups(first) == [("GPU", 2), ("database", 2)] and first["pageInfo"]["hasNextPage"]
    rest = (await api.data(COUNTS, {**variables, "after": first["pageInfo"]["endCursor"]}))["counts"]
    assert groups(rest) == [("training cluster", 2), ("DNS", 1)] and not rest["pageInfo"]["hasNextPage"]


async def test_trends_by_year_cover_every_year_from_first_to_last(api):
    answer = (await api.data(TRENDS, {"groupBy": "ROOT_CAUSE", "interval": "YEAR"}))["trends"]
    assert answer["periods"] == [str(year) for year in range(2017, 2025)]
    assert answer["totals"] == [1, 0, 0, 1, 1, 0, 1, 2]
    assert answer["undatedCases"] == 1 and answer["totalCount"] == 5
    series = {edge["node"]["entity"]["name"]: edge["node"] for edge in answer["edges"]}
    assert list(series) == ["silent data corruption", "configuration error", "hardware fault", "power failure",
                            "software bug"]
    assert series["silent data corruption"]["counts"] == [0, 0, 0, 0, 1, 0, 0, 2]
    assert series["silent data corruption"]["slope"] == pytest.approx(7.5 / 42)  # growing
    assert series["configuration error"]["counts"] == [1, 0, 0, 1, 0, 0, 0, 0]
    assert series["configuration error"]["slope"] < 0  # shrinking
    assert series["software bug"]["total"] == 1  # the undated note is in no period


async def test_trends_by_month_within_a_date_range(api):
    variables = {"groupBy": "COMPONENT", "interval": "MONTH", "filter": {"publishedFrom": "2024-01-01"}}
    answer = (await api.data(TRENDS, variables))["trends"]
    assert answer["periods"] == ["2024-05", "2024-06", "2024-07"] and answer["totals"] == [1, 0, 1]
    assert answer["undatedCases"] == 0
    assert [(edge["node"]["entity"]["name"], edge["node"]["counts"]) for edge in answer["edges"]] == [
        ("GPU", [1, 0, 1]), ("training cluster", [1, 0, 1])]


async def test_trends_of_no_cases_are_empty(api):
    answer = (await api.data(TRENDS, {"groupBy": "SYMPTOM", "interval": "YEAR",
                                      "filter": {"text": "nowhere-to-be-found"}}))["trends"]
    assert answer["periods"] == [] and answer["totals"] == [] and answer["edges"] == []


@pytest.mark.parametrize(("query", "variables", "message"), [
    (COUNTS, {"by": "SYMPTOM", "first": 0}, "`first` must be between 1 and 100"),
    (COUNTS, {"by": "SYMPTOM", "after": "nope"}, "`after` is not a cursor"),
    (TRENDS, {"groupBy": "SYMPTOM", "interval": "YEAR", "first": 500}, "`first` must be between 1 and 100"),
    (TRENDS, {"groupBy": "SYMPTOM", "interval": "YEAR",
              "filter": {"publishedFrom": "2024-01-01", "publishedTo": "2020-01-01"}}, "is after"),
])
async def test_bad_arguments_are_bad_user_input(api, query, variables, message):
    body = await api.post(query, variables)
    [error] = body["errors"]
    assert message in error["message"] and error["extensions"]["code"] == "BAD_USER_INPUT"


async def test_a_trend_of_too_many_months_is_refused(fresh_example_graph, neo4j_settings):
    from .conftest import GraphQLClient, client_for

    write_case(fresh_example_graph, replace(example_case("undated-note"), case_id="old-note", published="1960-01"))
    async with await client_for(fresh_example_graph, neo4j_settings) as http:
        api = GraphQLClient(http)
        body = await api.post(TRENDS, {"groupBy": "SYMPTOM", "interval": "MONTH"})
        [error] = body["errors"]
        assert "775 periods; at most 600" in error["message"]
        assert error["extensions"]["code"] == "BAD_USER_INPUT"
        yearly = (await api.data(TRENDS, {"groupBy": "SYMPTOM", "interval": "YEAR"}))["trends"]
        assert yearly["periods"][0] == "1960" and len(yearly["periods"]) == 65
