"""similarCases and casesLike against the real vector index, on a few write-ups of the corpus."""

from __future__ import annotations

import math
import shutil

import pytest
from neo4j import Driver

from incident_graph.api.types import EntityLabel
from incident_graph.graph.admin import reset_data
from incident_graph.ingest.corpus import bundled_corpus_dir
from incident_graph.ingest.ingestion import ingest_paths

from .conftest import GraphQLClient, client_for

pytestmark = pytest.mark.anyio

CASES = (
    "azure-2012-leap-day", "microsoft-2008-zune-leap-year", "sony-2010-ps3-leap-year",
    "aws-2012-us-east-1-derecho-generators", "github-power-outage-2016", "cloudflare-pdx04-power-2023",
    "spotify-2020-expired-certificate", "oculus-2018-expired-certificate", "microsoft-2020-teams-certificate-expiry",
    "gemalto-2010-german-bank-cards", "twilio-billing-redis-2013",
)
DATE_CASES = set(CASES[:3])

SIMILAR = """
query($id: ID!, $first: Int, $after: String) {
  similarCases(id: $id, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { case { id } score meaning sharedEntityScore shared { name type } } }
  }
}
"""

LIKE = """
query($text: String!, $first: Int) {
  casesLike(text: $text, first: $first) {
    totalCount edges { node { case { id } score meaning sharedEntityScore shared { name } } }
  }
}
"""


@pytest.fixture(scope="module")
def some_cases(driver: Driver, tmp_path_factory) -> Driver:
    folder = tmp_path_factory.mktemp("similar")
    for case_id in CASES:
        shutil.copy(bundled_corpus_dir() / f"{case_id}.md", folder)
    reset_data(driver)
    assert ingest_paths(driver, [folder]).failed == []
    return driver


@pytest.fixture
async def similar_api(some_cases, neo4j_settings):
    async with await client_for(some_cases, neo4j_settings) as http:
        yield GraphQLClient(http)


def entities_of(driver: Driver, case_id: str) -> set[tuple[str, str]]:
    """(label, name) of each entity the case links to."""
    rows = driver.execute_query("MATCH (:Case {case_id: $id})-[]->(e) RETURN labels(e)[0] AS label, e.name AS name",
                                id=case_id).records
    return {(row["label"], row["name"]) for row in rows}


def nodes(data, field):
    return [edge["node"] for edge in data[field]["edges"]]


async def test_similar_cases_say_why_and_rank_by_the_blend(similar_api, some_cases):
    data = await similar_api.data(SIMILAR, {"id": "azure-2012-leap-day", "first": 10})
    found = nodes(data, "similarCases")
    assert data["similarCases"]["totalCount"] == len(CASES) - 1 and len(found) == 10
    assert "azure-2012-leap-day" not in {n["case"]["id"] for n in found}
    own = entities_of(some_cases, "azure-2012-leap-day")
    for node in found:
        assert -1.0 <= node["meaning"] <= 1.0
        shared = {(EntityLabel[e["type"]].value, e["name"]) for e in node["shared"]}
        assert shared == own & entities_of(some_cases, node["case"]["id"])
        other = len(entities_of(some_cases, node["case"]["id"]))
        assert node["sharedEntityScore"] == pytest.approx(len(shared) / math.sqrt(len(own) * other) if shared else 0)
        assert node["score"] == pytest.approx(0.5 * node["meaning"] + 0.5 * node["sharedEntityScore"])
    assert [n["score"] for n in found] == sorted((n["score"] for n in found), reverse=True)


async def test_similar_cases_page_with_cursors(similar_api):
    whole = nodes(await similar_api.data(SIMILAR, {"id": "gemalto-2010-german-bank-cards", "first": 10}), "similarCases")
    first = await similar_api.data(SIMILAR, {"id": "gemalto-2010-german-bank-cards", "first": 4})
    assert first["similarCases"]["pageInfo"]["hasNextPage"] is True
    after = first["similarCases"]["pageInfo"]["endCursor"]
    second = await similar_api.data(SIMILAR, {"id": "gemalto-2010-german-bank-cards", "first": 100, "after": after})
    assert second["similarCases"]["pageInfo"]["hasNextPage"] is False
    assert [n["case"]["id"] for n in nodes(first, "similarCases") + nodes(second, "similarCases")] == \
        [n["case"]["id"] for n in whole]


async def test_cases_like_a_phrase_without_a_taxonomy_word(similar_api):
    text = "devices froze on the extra day at the end of february"
    suggestions = await similar_api.data("query($t: String!) { suggestFilters(text: $t) { name } }", {"t": text})
    assert suggestions == {"suggestFilters": []}
    found = nodes(await similar_api.data(LIKE, {"text": text, "first": 3}), "casesLike")
    assert all(n["shared"] == [] and n["sharedEntityScore"] == 0 for n in found)
    assert found[0]["case"]["id"] in DATE_CASES and len(DATE_CASES & {n["case"]["id"] for n in found}) >= 2


async def test_cases_like_credits_the_entities_a_phrase_names(similar_api):
    found = nodes(await similar_api.data(LIKE, {"text": "an expired certificate broke sign-in", "first": 3}), "casesLike")
    sharing = [n for n in found if "expired certificate" in {e["name"] for e in n["shared"]}]
    assert len(sharing) >= 2  # most certificate cases name the concept; extraction words some otherwise
    assert all(n["sharedEntityScore"] > 0 for n in sharing)
    assert all(n["sharedEntityScore"] == 0 for n in found if not n["shared"])


@pytest.mark.parametrize("query, variables, message", [
    (SIMILAR, {"id": "no-such-case"}, "`id`: there is no case with id 'no-such-case'."),
    (SIMILAR, {"id": "azure-2012-leap-day", "first": 0}, "`first` must be between 1 and 100"),
    (SIMILAR, {"id": "azure-2012-leap-day", "after": "bogus"}, "`after` is not a cursor"),
    (LIKE, {"text": "   "}, "`text` must say something"),
    (LIKE, {"text": "x" * 501}, "`text` may be at most 500 characters"),
    (LIKE, {"text": "the of and"}, "`text`: nothing to compare by"),
])
async def test_bad_arguments_are_refused_as_bad_user_input(similar_api, query, variables, message):
    body = await similar_api.post(query, variables)
    [error] = body["errors"]
    assert error["message"].startswith(message) and error["extensions"]["code"] == "BAD_USER_INPUT"


async def test_a_case_without_an_embedding_is_ranked_by_shared_entities_alone(similar_api, some_cases):
    some_cases.execute_query("MATCH (c:Case {case_id: 'spotify-2020-expired-certificate'}) REMOVE c.embedding")
    try:
        found = nodes(await similar_api.data(SIMILAR, {"id": "spotify-2020-expired-certificate"}), "similarCases")
        assert found and all(n["meaning"] is None for n in found)
        assert all(n["score"] == pytest.approx(0.5 * n["sharedEntityScore"]) and n["shared"] for n in found)
    finally:
        some_cases.execute_query("MATCH (c:Case {case_id: 'spotify-2020-expired-certificate'}) SET c.content_hash = ''")
        ingest_paths(some_cases, [bundled_corpus_dir() / "spotify-2020-expired-certificate.md"])
