"""The reads that change plan with the graph's size, on a synthetic graph large enough for both
plans, against answers recomputed in Python from the graph's links.

- casesSharingRootCause walks all cases in id order for a cause of many cases and sorts a rare
  cause's own cases; both must give the answer the ranking rule defines.
- a case filter naming several types walks from the type with the fewest cases, whichever it is.
- diagnose's symptom vocabulary reads the stored case counts, minus the excluded cases.
"""

from collections import defaultdict

import pytest

from incident_graph.graph import queries
from incident_graph.graph.diagnosis_queries import SYMPTOM_VOCABULARY
from incident_graph.graph.synthetic import SyntheticShape, concept_name, group_name, write_synthetic_graph
from incident_graph.schema.entity_types import COMPONENT, ROOT_CAUSE, SYMPTOM

CASES = 1500
LIMIT = 20


@pytest.fixture(scope="module")
def synthetic_graph(driver):
    from incident_graph.graph.admin import reset_data

    reset_data(driver)
    write_synthetic_graph(driver, SyntheticShape(cases=CASES, seed=11))
    yield driver
    reset_data(driver)


@pytest.fixture(scope="module")
def links(synthetic_graph) -> dict[str, set[tuple[str, str]]]:
    """case id -> (label, name) of every entity it reaches (its links and everything broader)."""
    rows = synthetic_graph.execute_query(
        "MATCH (c:Case)-[]->(e)-[:BROADER*0..]->(a) "
        "RETURN c.case_id AS case, labels(a)[0] AS label, a.name AS name, e = a AS direct"
    ).records
    reached: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for row in rows:
        reached[row["case"]].add((row["label"], row["name"]))
        if row["direct"]:
            reached[row["case"]].add(("direct " + row["label"], row["name"]))
    return reached


def sharing_oracle(links, symptom: str) -> list[tuple[str, dict[str, int]]]:
    showing = [case for case, reached in links.items() if ("Symptom", symptom) in reached]
    def causes(case):
        return {name for label, name in links[case] if label == "direct RootCause"}
    strength: dict[str, int] = defaultdict(int)
    for case in showing:
        for cause in causes(case):
            strength[cause] += 1
    answer: dict[str, dict[str, int]] = {}
    for case in links:
        shared = {cause: strength[cause] - (case in showing) for cause in causes(case) if strength[cause] - (case in showing) > 0}
        if shared:
            answer[case] = shared
    rank = {cause: n for n, cause in enumerate(sorted(strength, key=lambda cause: (-strength[cause], cause)))}
    order = sorted(answer, key=lambda case: (min(rank[cause] for cause in answer[case]), case))
    return [(case, answer[case]) for case in order[:LIMIT]]


@pytest.mark.parametrize("symptom", [concept_name(SYMPTOM, 0), concept_name(SYMPTOM, 7),
                                     concept_name(SYMPTOM, 149), group_name(SYMPTOM, 0)])
def test_sharing_matches_the_ranking_rule_for_common_and_rare_causes(synthetic_graph, links, symptom):
    rows = synthetic_graph.execute_query(queries.CASES_SHARING_ROOT_CAUSE, symptom=symptom, limit=LIMIT,
                                         connecting_limit=5).records
    got = [(row["case_id"], {item["cause"]["name"]: item["connecting_count"] for item in row["shared"]})
           for row in rows]
    assert got == sharing_oracle(links, symptom)


def test_the_graph_has_causes_for_both_plans(synthetic_graph):
    degrees = [row["degree"] for row in synthetic_graph.execute_query(
        "MATCH (r:RootCause) RETURN COUNT { (r)<-[:HAS_ROOT_CAUSE]-() } AS degree").records]
    threshold = LIMIT * CASES  # a cause walks cases in id order when degree^2 exceeds it
    assert any(d * d > threshold for d in degrees) and any(0 < d * d <= threshold for d in degrees)


@pytest.mark.parametrize("names", [
    {SYMPTOM: [group_name(SYMPTOM, 0)], COMPONENT: [concept_name(COMPONENT, 40)]},  # the component is rarer
    {SYMPTOM: [concept_name(SYMPTOM, 60)], COMPONENT: [group_name(COMPONENT, 0)]},  # the symptom is rarer
    {SYMPTOM: [concept_name(SYMPTOM, 1)], ROOT_CAUSE: [concept_name(ROOT_CAUSE, 2), concept_name(ROOT_CAUSE, 90)],
     COMPONENT: [group_name(COMPONENT, 3)]},
])
def test_a_filter_on_several_types_finds_the_same_cases_whichever_it_walks_from(synthetic_graph, links, names):
    criteria = queries.CaseCriteria(names=tuple((t.label, tuple(n)) for t, n in names.items()))
    total = synthetic_graph.execute_query(queries.cases_count(criteria), criteria.parameters()).records[0]["total"]
    expected = [case for case, reached in links.items()
                if all(any((t.label, name) in reached for name in n) for t, n in names.items())]
    assert total == len(expected) > 0


def test_the_symptom_vocabulary_counts_cases_without_the_excluded(synthetic_graph, links):
    excluded = ["synthetic-000000", "synthetic-000001"]
    rows = synthetic_graph.execute_query(SYMPTOM_VOCABULARY, exclude=excluded, limit=1000).records
    shown = {row["name"]: row["shown"] for row in rows}
    expected: dict[str, int] = defaultdict(int)
    for case, reached in links.items():
        if case not in excluded:
            for label, name in reached:
                if label == "Symptom":
                    expected[name] += 1
    assert shown == dict(expected)
    assert {row["case_count"] for row in rows} == {CASES - len(excluded)}
