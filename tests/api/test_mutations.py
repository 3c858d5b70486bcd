"""Mutations exist only on a server started with a token, and need that token as a bearer token."""

from __future__ import annotations

import pytest

from incident_graph.api.app import create_app

from .conftest import TOKEN, client_for

pytestmark = pytest.mark.anyio

DELETE = 'mutation { deleteCase(id: "undated-note") }'
INGEST = """
mutation($documents: [DocumentInput!]!) {
  ingestDocuments(documents: $documents) { added updated skipped failed { origin message } }
}
"""
DOCUMENT = {
    "id": "api-ingested-case",
    "title": "An expired certificate takes the API down",
    "body": "The public API went down for two hours. The outage was caused by an expired certificate on "
            "the load balancer.",
    "source": "https://example.org/postmortem",
    "date": "2024-03-05",
    "organisation": "Example Labs",
}


async def post(http, query, variables=None, headers=None):
    response = await http.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers or {})
    assert response.status_code == 200
    return response.json()


async def case_exists(http, case_id: str) -> bool:
    body = await post(http, "query($id: ID!) { case(id: $id) { id } }", {"id": case_id})
    return body["data"]["case"] is not None


async def test_read_only_server_has_no_mutations(fresh_example_graph, neo4j_settings):
    async with await client_for(fresh_example_graph, neo4j_settings, token=None) as http:
        body = await post(http, DELETE, headers={"Authorization": f"Bearer {TOKEN}"})
        assert body["errors"][0]["message"] == "The mutation operation is not supported by the schema."
        schema = await post(http, "{ __schema { mutationType { name } } }")
        assert schema["data"] == {"__schema": {"mutationType": None}}
        assert await case_exists(http, "undated-note")


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "Mutations need an `Authorization: Bearer <token>` header."),
        ({"Authorization": TOKEN}, "Mutations need an `Authorization: Bearer <token>` header."),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, "Mutations need an `Authorization: Bearer <token>` header."),
        ({"Authorization": "Bearer wrong-token"}, "The bearer token is not the one this server was started with."),
        ({"Authorization": f"Bearer {TOKEN}x"}, "The bearer token is not the one this server was started with."),
    ],
)
async def test_mutations_refused_without_the_right_token(fresh_example_graph, neo4j_settings, headers, message):
    async with await client_for(fresh_example_graph, neo4j_settings, token=TOKEN) as http:
        body = await post(http, DELETE, headers=headers)
        assert body["errors"][0]["message"] == message
        body = await post(http, INGEST, {"documents": [DOCUMENT]}, headers=headers)
        assert body["errors"][0]["message"] == message
        assert await case_exists(http, "undated-note")
        assert not await case_exists(http, DOCUMENT["id"])


async def test_queries_need_no_token_on_a_writable_server(fresh_example_graph, neo4j_settings):
    async with await client_for(fresh_example_graph, neo4j_settings, token=TOKEN) as http:
        body = await post(http, "{ cases { totalCount } }")
        assert body == {"data": {"cases": {"totalCount": 7}}}


async def test_delete_case_with_the_token(fresh_example_graph, neo4j_settings):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with await client_for(fresh_example_graph, neo4j_settings, token=TOKEN) as http:
        assert await post(http, DELETE, headers=auth) == {"data": {"deleteCase": True}}
        assert not await case_exists(http, "undated-note")
        assert await post(http, DELETE, headers=auth) == {"data": {"deleteCase": False}}
        body = await post(http, "{ cases { totalCount } }")
        assert body["data"]["cases"]["totalCount"] == 6


async def test_mutations_are_not_allowed_over_get(fresh_example_graph, neo4j_settings):
    async with await client_for(fresh_example_graph, neo4j_settings, token=TOKEN) as http:
        response = await http.get("/graphql", params={"query": DELETE},
                                  headers={"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"})
        assert response.status_code == 400
        assert response.text == "mutations are not allowed when using GET"
        assert await case_exists(http, "undated-note")


async def test_ingest_documents_with_the_token(fresh_example_graph, neo4j_settings):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with await client_for(fresh_example_graph, neo4j_settings, token=TOKEN) as http:
        body = await post(http, INGEST, {"documents": [DOCUMENT]}, headers=auth)
        assert body["data"]["ingestDocuments"] == {
            "added": ["api-ingested-case"], "updated": [], "skipped": [], "failed": [],
        }
        body = await post(
            http, '{ case(id: "api-ingested-case") { title published organisations { entity { name } } } }')
        assert body["data"]["case"]["title"] == DOCUMENT["title"]
        assert body["data"]["case"]["published"] == "2024-03-05"
        assert [o["entity"]["name"] for o in body["data"]["case"]["organisations"]] == ["Example Labs"]
        # the same document again changes nothing; a bad one fails alone, naming where it came from
        bad = {**DOCUMENT, "id": "bad-date", "date": "someday"}
        body = await post(http, INGEST, {"documents": [DOCUMENT, bad]}, headers=auth)
        result = body["data"]["ingestDocuments"]
        assert (result["added"], result["skipped"]) == ([], ["api-ingested-case"])
        assert [failure["origin"] for failure in result["failed"]] == ["request#2"]


async def test_ingest_refuses_too_many_documents(fresh_example_graph, neo4j_settings):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    documents = [{**DOCUMENT, "id": f"doc-{n}"} for n in range(101)]
    async with await client_for(fresh_example_graph, neo4j_settings, token=TOKEN) as http:
        body = await post(http, INGEST, {"documents": documents}, headers=auth)
        assert body["errors"][0]["message"] == "`documents` may hold at most 100 write-ups per call (got 101)."


def test_an_empty_token_is_refused(neo4j_settings, driver):
    with pytest.raises(ValueError, match="empty token"):
        create_app(neo4j_settings, "  ", driver=driver)
