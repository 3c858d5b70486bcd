"""The Incident Library page: `/` serves api/static/index.html, `/static/...` its scripts (ES modules:
app.js and library/*.js) and styles, `/entity-types` the entity types it shows.

The page reads everything through /graphql and /entity-types; nothing here touches the graph. The HTML goes out with a
strict Content-Security-Policy: scripts only from this origin (no inline script, no eval), so a
stored write-up that contains markup can never run as code even if it reached the DOM as HTML.
The browser libraries (api/static/vendor/: cytoscape and cytoscape-fcose for the graphs, Chart.js for
the trends chart) are copied from their npm packages at build time (`make vendor`), so the page needs
no internet.

GraphiQL (what a browser gets at /graphql, see `graphiql_page`) is served the same way: our own
api/static/graphiql.html and graphiql.js over React and GraphiQL from api/static/vendor/, never a CDN.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from incident_graph.api.types import EntityLabel
from incident_graph.schema import entity_types

STATIC_DIR = Path(__file__).resolve().parent / "static"
INDEX_HTML = STATIC_DIR / "index.html"
GRAPHIQL_HTML = STATIC_DIR / "graphiql.html"

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

# GraphiQL's policy differs from the page's in two sources only: its dialogs add <style> elements
# (react-remove-scroll), and its stylesheet embeds its fonts as data: URLs. Scripts are still only
# this origin's files (no inline script, no eval), and it connects to this origin only.
GRAPHIQL_CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self' data:",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

GRAPHIQL_HEADERS = {**SECURITY_HEADERS, "Content-Security-Policy": GRAPHIQL_CONTENT_SECURITY_POLICY}


async def index(request: Request) -> Response:
    if not INDEX_HTML.is_file():
        return Response("The Incident Library page is not installed.", status_code=404, media_type="text/plain")
    headers = dict(SECURITY_HEADERS)
    headers["Cache-Control"] = "no-cache"
    return FileResponse(INDEX_HTML, media_type="text/html; charset=utf-8", headers=headers)


def page_entity_types() -> list[dict[str, str]]:
    """The entity types as the page names them, in the order of the GraphQL enum EntityType: the
    CaseFilter field, the enum value, the URL parameter, and the words people read."""
    listed = [entity_types.entity_type(member.value) for member in EntityLabel]
    return [
        {"key": t.graphql_field, "type": t.graphql_enum, "param": t.label[0].lower() + t.label[1:],
         "label": t.title, "plural": t.plural}
        for t in listed
    ]


async def entity_types_list(request: Request) -> Response:
    return JSONResponse(page_entity_types(), headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"})


def graphiql_page() -> Response:
    """GraphiQL for /graphql from this server's own files (strawberry's template loads it from unpkg.com)."""
    if not GRAPHIQL_HTML.is_file():
        return Response("GraphiQL is not installed.", status_code=404, media_type="text/plain")
    headers = {**GRAPHIQL_HEADERS, "Cache-Control": "no-cache"}
    return HTMLResponse(GRAPHIQL_HTML.read_text(encoding="utf-8"), headers=headers)


class HardenedStaticFiles(StaticFiles):
    """StaticFiles that also sends nosniff, so a script is only ever run as the type it was served as."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: dict) -> None:  # type: ignore[type-arg]
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-content-type-options", b"nosniff"))
                message = {**message, "headers": headers}
            await send(message)

        await super().__call__(scope, receive, send_with_headers)


def page_routes() -> list[BaseRoute]:
    """The routes to add to the app: the page at `/` and its files under `/static`."""
    return [
        Route("/", index, methods=["GET", "HEAD"], name="page"),
        Route("/entity-types", entity_types_list, methods=["GET"], name="entity-types"),
        Mount("/static", app=HardenedStaticFiles(directory=STATIC_DIR, check_dir=False), name="static"),
    ]
