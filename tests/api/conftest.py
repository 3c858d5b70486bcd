"""Fixtures for the API tests: the constructed example graph (example.py), the bundled corpus, and
helpers that post GraphQL to the Starlette app through httpx's ASGI transport."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from neo4j import Driver

from incident_graph.api.app import create_app
from incident_graph.config import Settings

from .example import load_example

TOKEN = "test-token-1234"


@pytest.fixture(scope="module")
def example_graph(driver: Driver) -> Driver:
    """The example (example.py), loaded once per test module (for tests that only read)."""
    load_example(driver)
    return driver


@pytest.fixture
def fresh_example_graph(driver: Driver) -> Driver:
    """The example, reloaded for a test that writes."""
    load_example(driver)
    return driver


class GraphQLClient:
    """Posts GraphQL to an app in-process; `data()` fails the test on any error."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def post(self, query: str, variables: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> dict[str, Any]:
        response = await self.http.post("/graphql", json={"query": query, "variables": variables or {}},
                                        headers=headers or {})
        assert response.status_code == 200, response.text
        return response.json()

    async def data(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        body = await self.post(query, variables)
        assert "errors" not in body, json.dumps(body["errors"], indent=2)
        return body["data"]

    async def error(self, query: str, variables: dict[str, Any] | None = None,
                    headers: dict[str, str] | None = None) -> str:
        """The single error message of a query that must fail."""
        body = await self.post(query, variables, headers)
        assert body.get("errors"), body
        return body["errors"][0]["message"]


async def client_for(driver: Driver, neo4j_settings: Settings, token: str | None = None) -> httpx.AsyncClient:
    app = create_app(neo4j_settings, token, driver=driver)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


@pytest.fixture
async def api(example_graph: Driver, neo4j_settings: Settings) -> AsyncIterator[GraphQLClient]:
    async with await client_for(example_graph, neo4j_settings) as http:
        yield GraphQLClient(http)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
