"""The HTTP surface: /healthz, GraphiQL at /graphql, and the app served by a real uvicorn."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest
import uvicorn

from incident_graph.api.app import create_app
from incident_graph.config import Settings

from .conftest import client_for

pytestmark = pytest.mark.anyio


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_healthz_when_neo4j_answers(driver, neo4j_settings):
    async with await client_for(driver, neo4j_settings) as http:
        response = await http.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "neo4j": "reachable", "mutations": False, "version": "0.1.0"}


async def test_healthz_when_neo4j_is_down(neo4j_settings):
    nobody = Settings(uri=f"bolt://127.0.0.1:{free_port()}", user="neo4j", password="whatever-password")
    app = create_app(nobody, "a-token")  # the app opens (and owns) its own driver
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
            response = await http.get("/healthz")
            assert response.status_code == 503
            assert response.json() == {
                "status": "unavailable", "neo4j": "unreachable", "mutations": True, "version": "0.1.0",
            }
            body = (await http.post("/graphql", json={"query": "{ cases { totalCount } }"})).json()
            assert body["errors"][0]["message"] == "The graph database is not reachable right now; try again shortly."
    finally:
        app.state.driver.close()


async def test_graphiql_is_served_at_graphql(driver, neo4j_settings):
    async with await client_for(driver, neo4j_settings) as http:
        response = await http.get("/graphql", headers={"Accept": "text/html"})
        assert response.status_code == 200
        assert "graphiql" in response.text.lower()


def test_real_uvicorn_serves_queries_and_stops(example_graph, neo4j_settings):
    port = free_port()
    app = create_app(neo4j_settings, None)  # its own driver, closed by the lifespan on shutdown
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/healthz").json()["neo4j"] == "reachable"
        response = httpx.post(f"{base}/graphql", json={"query": '{ case(id: "undated-note") { title } }'})
        assert response.json() == {"data": {"case": {"title": "A note about a loss spike"}}}
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    assert not thread.is_alive()
    with pytest.raises(Exception):  # the lifespan closed the app's driver
        app.state.driver.verify_connectivity()


async def test_oversized_bodies_are_refused_before_reading_them(driver, neo4j_settings):
    from incident_graph.api.limits import MAX_REQUEST_BYTES

    padding = "x" * (MAX_REQUEST_BYTES + 1)
    async with await client_for(driver, neo4j_settings) as http:
        response = await http.post("/graphql", json={"query": "{ cases { totalCount } }", "variables": {"p": padding}})
        assert response.status_code == 413
        assert response.json() == {"errors": [{"message": "The request body is larger than 8,000,000 bytes."}]}

        async def chunks():  # no Content-Length: counted as it streams
            yield b'{"query": "{ cases { totalCount } }", "variables": {"p": "'
            for _ in range(9):
                yield b"x" * 1_000_000
            yield b'"}}'

        response = await http.post("/graphql", content=chunks(), headers={"Content-Type": "application/json"})
        assert response.status_code == 413
