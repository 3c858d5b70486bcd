"""The Starlette application: GraphQL (and GraphiQL) at /graphql, Neo4j reachability at /healthz,
the MCP server's streamable HTTP transport at /mcp, the snapshot at /export.jsonl.

`create_app` opens one driver for the app's lifetime (no connection is made until the first
request, so the app starts even while Neo4j is down and /healthz can say so).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.to_thread
import uvicorn
from neo4j import Driver
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http.base import HTTPException  # the class strawberry answers 4xx with

from incident_graph import __version__
from incident_graph.api.body_limit import BodySizeLimit
from incident_graph.api.export_endpoint import export_endpoint
from incident_graph.api.context import READ_ONLY, RequestContext, request_context, write_access
from incident_graph.api.limits import DEFAULT_CONCURRENT_READS, MAX_REQUEST_BYTES
from incident_graph.api.mcp_server import mcp_http_endpoint
from incident_graph.api.query_slots import QuerySlots
from incident_graph.api.graphql_schema import build_schema
from incident_graph.config import Settings
from incident_graph.graph.connection import open_driver
from incident_graph.graph.read_transaction import QueryTrace

log = logging.getLogger(__name__)
HEALTH_TIMEOUT_S = 5.0


class IncidentGraphQL(GraphQL):
    """The strawberry ASGI view with a per-request context (fresh DataLoaders, write access)."""

    def __init__(self, driver: Driver, token: str | None, introspection: bool = True,
                 slots: QuerySlots | None = None, trace: QueryTrace | None = None) -> None:
        # GraphiQL needs introspection, so it is served only when introspection is allowed.
        super().__init__(build_schema(writable=token is not None, introspection=introspection),
                         graphql_ide="graphiql" if introspection else None)
        self.driver = driver
        self.token = token
        self.slots = slots or QuerySlots()
        self.trace = trace

    async def render_graphql_ide(self, request: Request) -> Response:
        # Our GraphiQL page over vendored files: strawberry's loads React and GraphiQL from unpkg.com,
        # which never renders without internet. Only called when graphql_ide is set (introspection on).
        from incident_graph.api.page import graphiql_page  # beside the page, which shares its headers

        return graphiql_page()

    def parse_json(self, data: str | bytes) -> Any:
        # strawberry expects an object (or a list, refused as a batch); a JSON string or number
        # would otherwise reach `.get`, and JSON nested thousands deep would exhaust the recursion
        # limit of the decoder: both answered 500.
        try:
            parsed = super().parse_json(data)
        except RecursionError:
            raise HTTPException(400, "The request body is JSON nested too deeply.") from None
        if not isinstance(parsed, (dict, list)):
            raise HTTPException(400, "The request body must be a JSON object with a `query`.")
        return parsed

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> RequestContext:
        writes = READ_ONLY if self.token is None else write_access(request.headers.get("authorization"), self.token)
        return request_context(self.driver, writes, self.slots, self.trace)


async def neo4j_reachable(driver: Driver, limiter: anyio.CapacityLimiter | None = None) -> bool:
    try:
        with anyio.fail_after(HEALTH_TIMEOUT_S):
            await anyio.to_thread.run_sync(driver.verify_connectivity, abandon_on_cancel=True, limiter=limiter)
        return True
    except Exception:  # any failure means "not usable"; the reason goes to the log, not the client
        log.warning("health check: Neo4j is not reachable", exc_info=True)
        return False


def health_endpoint(driver: Driver, writable: bool) -> Any:
    # Threads of its own: under load every default worker thread can be busy with a query, and the
    # check would then time out in the queue and report a healthy Neo4j as unreachable.
    limiters: list[anyio.CapacityLimiter] = []

    async def healthz(request: Request) -> JSONResponse:
        if not limiters:
            limiters.append(anyio.CapacityLimiter(4))
        reachable = await neo4j_reachable(driver, limiters[0])
        body = {
            "status": "ok" if reachable else "unavailable",
            "neo4j": "reachable" if reachable else "unreachable",
            "mutations": writable,
            "version": __version__,
        }
        return JSONResponse(body, status_code=200 if reachable else 503)

    return healthz


def create_app(settings: Settings, token: str | None = None, *, driver: Driver | None = None,
               introspection: bool = True, max_concurrent_reads: int = DEFAULT_CONCURRENT_READS,
               trace: QueryTrace | None = None) -> Starlette:
    """The API for the Neo4j in `settings`; mutations exist only when `token` is given.

    Pass `driver` to reuse one the caller owns (tests, embedding); otherwise the app opens its own
    and closes it on shutdown. `introspection=False` refuses `__schema`/`__type` queries (and
    drops GraphiQL, which needs them). At most `max_concurrent_reads` requests read from Neo4j
    at once; further ones wait their turn in the app (api/query_slots.py). `trace` sees every read
    query the app runs, with its parameters (graph/read_transaction.py).
    """
    if token is not None and not token.strip():
        raise ValueError("an empty token would let anyone write; pass None for a read-only server")
    owns_driver = driver is None
    app_driver = driver if driver is not None else open_driver(settings, acquisition_timeout=10.0)

    slots = QuerySlots(max_concurrent_reads)  # shared by every read: GraphQL, MCP, the export
    mcp_endpoint, mcp_sessions = mcp_http_endpoint(app_driver, slots)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            async with mcp_sessions.run():
                yield
        finally:
            if owns_driver:
                app_driver.close()

    graphql = IncidentGraphQL(app_driver, token, introspection, slots, trace)
    from incident_graph.api.page import page_routes  # the Incident Library page at / and /static

    app = Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/healthz", health_endpoint(app_driver, writable=token is not None), methods=["GET"]),
            Route("/export.jsonl", export_endpoint(app_driver, slots), methods=["GET"]),
            Route("/mcp", mcp_endpoint, methods=["GET", "POST", "DELETE"]),
            *page_routes(),
        ],
        middleware=[Middleware(BodySizeLimit, max_bytes=MAX_REQUEST_BYTES)],
        lifespan=lifespan,
    )
    app.state.driver = app_driver
    app.state.owns_driver = owns_driver
    return app


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8000, token: str | None = None,
          introspection: bool = True, max_concurrent_reads: int = DEFAULT_CONCURRENT_READS) -> None:
    """Run the API with uvicorn until interrupted."""
    app = create_app(settings, token, introspection=introspection, max_concurrent_reads=max_concurrent_reads)
    uvicorn.run(app, host=host, port=port, log_level="info", proxy_headers=False)
