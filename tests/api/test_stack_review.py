"""`stackReview` over the example graph (tests/api/example.py) in the real Neo4j: names and aliases
matched, other names matched by meaning (the trained pipeline's word vectors) or listed as unknown, findings ranked by cases then recency with their evidence, lessons,
broader and narrower components, pages and refusals."""

from __future__ import annotations

import pytest

from incident_graph.graph.writes import sync_taxonomy, write_case
from incident_graph.schema.records import ExtractedCase, Mention
from incident_graph.schema.taxonomy import Concept

pytestmark = pytest.mark.anyio

REVIEW = """
query Review($components: [String!]!, $first: Int, $after: String) {
  stackReview(components: $components, first: $first, after: $after) {
    components { asked component { name } method similarity }
    unknown caseCount rootCauseCount contributingFactorCount lessonCount
    rootCauses { entity { __typename name } caseCount latest
                 cases { case { id } via evidence { sentence confidence } } }
    contributingFactors { entity { __typename name } caseCount latest cases { case { id } } }
    lessons { case { id } via lessons }
  }
}
"""


def findings(items: list[dict]) -> list[tuple[str, int, str | None]]:
    return [(item["entity"]["name"], item["caseCount"], item["latest"]) for item in items]


async def test_a_stack_review_ranks_by_cases_then_recency(api):
    review = (await api.data(REVIEW, {"components": ["gpu", " Database ", "etcd", "gpu"]}))["stackReview"]
    assert review["components"] == [
        {"asked": "gpu", "component": {"name": "GPU"}, "method": "name", "similarity": 1.0},
        {"asked": "Database", "component": {"name": "database"}, "method": "name", "similarity": 1.0}]
    assert review["unknown"] == ["etcd"]
    assert review["caseCount"] == 5 and review["rootCauseCount"] == 5
    assert findings(review["rootCauses"]) == [
        ("silent data corruption", 3, "2024-07-01"), ("software bug", 1, "2024-07-01"),
        ("hardware fault", 1, "2023-11-01"), ("power failure", 1, "2023-11-01"),
        ("configuration error", 1, "2017-01-31")]
    corruption = review["rootCauses"][0]
    assert corruption["entity"]["__typename"] == "RootCause"
    assert [item["case"]["id"] for item in corruption["cases"]] == [
        "llama-training-interrupts", "gpu-sdc-bytedance", "meta-sdc-fleet"]
    assert corruption["cases"][0]["via"] == ["GPU"]
    assert corruption["cases"][0]["evidence"] == {
        "sentence": "The write-up names silent data corruption here.", "confidence": 0.6}
    assert findings(review["contributingFactors"]) == [
        ("no hardware error signal", 2, "2024-05-01"), ("missing alerting", 1, "2017-01-31")]
    assert review["lessonCount"] == 2
    assert [(item["case"]["id"], item["lessons"]) for item in review["lessons"]] == [
        ("gpu-sdc-bytedance", "Check the hardware."), ("meta-sdc-fleet", "Check the hardware.")]


async def test_a_stack_review_pages_each_list(api):
    first = (await api.data(REVIEW, {"components": ["GPU", "database"], "first": 2}))["stackReview"]
    assert [f["entity"]["name"] for f in first["rootCauses"]] == ["silent data corruption", "software bug"]
    from incident_graph.api.pagination import encode_cursor

    rest = (await api.data(REVIEW, {"components": ["GPU", "database"], "first": 2,
                                    "after": encode_cursor(1)}))["stackReview"]
    assert [f["entity"]["name"] for f in rest["rootCauses"]] == ["hardware fault", "power failure"]
    assert rest["rootCauseCount"] == 5


async def test_a_name_no_component_has_is_matched_by_meaning(api):
    review = (await api.data(REVIEW, {"components": ["GPU servers", "gpu", "Kafka", "etcd", "login service"]}))["stackReview"]
    # No component is called "GPU servers"; its word vectors are nearest to GPU's (and close enough).
    [by_meaning, by_name] = review["components"]
    assert by_meaning["asked"] == "GPU servers" and by_meaning["component"] == {"name": "GPU"}
    assert by_meaning["method"] == "meaning" and 0.75 <= by_meaning["similarity"] < 1
    assert by_name == {"asked": "gpu", "component": {"name": "GPU"}, "method": "name", "similarity": 1.0}
    # Kafka is far from every component in meaning, and etcd has no word vector: both unknown. So is
    # "login service", whose pruned vectors are DNS's but which shares no word with it.
    assert review["unknown"] == ["Kafka", "etcd", "login service"]
    # What the stack's GPU cases teach, as if GPU had been named.
    named = (await api.data(REVIEW, {"components": ["GPU"]}))["stackReview"]
    assert findings(review["rootCauses"]) == findings(named["rootCauses"]) and review["caseCount"] == named["caseCount"] > 0
    alone = (await api.data(REVIEW, {"components": ["GPU servers"]}))["stackReview"]
    assert [item["component"]["name"] for item in alone["components"]] == ["GPU"] and alone["unknown"] == []
    assert [item["case"]["id"] for item in alone["rootCauses"][0]["cases"]] == [
        item["case"]["id"] for item in named["rootCauses"][0]["cases"]]


async def test_only_unknown_names_give_an_empty_review(api):
    review = (await api.data(REVIEW, {"components": ["etcd", "Kafka"]}))["stackReview"]
    assert review["unknown"] == ["etcd", "Kafka"] and review["components"] == []
    assert review["caseCount"] == 0 and review["rootCauses"] == [] and review["lessons"] == []


@pytest.mark.parametrize(("variables", "message"), [
    ({"components": []}, "`components` must name at least one component"),
    ({"components": ["  "]}, "`components` must name at least one component"),
    ({"components": [f"c{i}" for i in range(51)]}, "`components` may name at most 50 values"),
    ({"components": ["GPU"], "first": 101}, "`first` must be between 1 and 100"),
])
async def test_bad_arguments_are_refused(api, variables, message):
    body = await api.post(REVIEW, variables)
    [error] = body["errors"]
    assert message in error["message"] and error["extensions"]["code"] == "BAD_USER_INPUT"


async def test_broader_and_narrower_components_and_aliases(fresh_example_graph, neo4j_settings):
    from .conftest import GraphQLClient, client_for

    sync_taxonomy(fresh_example_graph, [Concept("PostgreSQL", "Component", synonyms=("Postgres",),
                                                broader="database")])
    text = "Postgres ran out of connections. The write-up names PostgreSQL here."
    start = text.index("PostgreSQL")
    write_case(fresh_example_graph, ExtractedCase(
        case_id="postgres-connections", title="Postgres ran out of connections", source="tests/pg.md", text=text,
        published="2025-03", mentions=(
            Mention(type="Component", name="PostgreSQL", mention="PostgreSQL", sentence=text[start - 19:],
                    start=start, end=start + 10, confidence=0.9, method="taxonomy"),
            Mention(type="RootCause", name="configuration error", mention="connections", sentence=text[:33],
                    start=20, end=31, confidence=0.7, method="cue"),
        )))
    async with await client_for(fresh_example_graph, neo4j_settings) as http:
        api = GraphQLClient(http)
        # An alias names the component; its broader concept (database) brings that one's cases.
        review = (await api.data(REVIEW, {"components": ["postgres"]}))["stackReview"]
        assert review["components"] == [
            {"asked": "postgres", "component": {"name": "PostgreSQL"}, "method": "alias", "similarity": 1.0}]
        assert review["caseCount"] == 3
        assert findings(review["rootCauses"])[0] == ("configuration error", 2, "2025-03-01")
        assert [item["case"]["id"] for item in review["rootCauses"][0]["cases"]] == [
            "postgres-connections", "gitlab-db-deletion"]
        # And the broader one brings the cases of its narrower concepts.
        broader = (await api.data(REVIEW, {"components": ["database"]}))["stackReview"]
        assert broader["caseCount"] == 3
