"""`GET /export.jsonl`: the graph's snapshot (graph/snapshot.py) for tools that sync, a page per request.

`?limit=N` records (at most MAX_EXPORT_RECORDS) after `?after=<cursor>`; the response streams the
page's JSON Lines and names the next page in a `Link: <...>; rel="next"` header (and
`X-Next-Cursor`); the last page has neither. Read-only, and it reads in one of the API's query
slots like any GraphQL request.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import anyio.to_thread
from neo4j import Driver
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from incident_graph.api import limits
from incident_graph.api.errors import BAD_USER_INPUT, GRAPH_UNAVAILABLE, GRAPH_UNAVAILABLE_MESSAGE, QUERY_TIMED_OUT, ClientError
from incident_graph.api.query_slots import GraphReader, QuerySlots
from incident_graph.graph.errors import GraphUnavailable, QueryTimedOut
from incident_graph.graph.snapshot import SnapshotCursor, SnapshotError, SnapshotPage, driver_reader, read_snapshot_page, record_line

JSON_LINES = "application/jsonl; charset=utf-8"


def refusal(message: str, code: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message, "code": code}, status_code=status)


def export_limit(text: str | None) -> int:
    if text is None:
        return limits.DEFAULT_EXPORT_RECORDS
    try:
        value = int(text)
    except ValueError:
        raise ClientError(f"`limit` must be a whole number (got {text[:40]!r}).") from None
    return limits.page_size(value, argument="limit", maximum=limits.MAX_EXPORT_RECORDS)


def export_endpoint(driver: Driver, slots: QuerySlots):  # type: ignore[no-untyped-def]
    async def export_jsonl(request: Request) -> Response:
        try:
            limit = export_limit(request.query_params.get("limit"))
            after_text = request.query_params.get("after")
            after = SnapshotCursor.decode(after_text) if after_text else None
        except ClientError as error:
            return refusal(str(error), error.code, 400)
        except SnapshotError as error:
            return refusal(str(error), BAD_USER_INPUT, 400)
        reader = GraphReader(driver, slots)
        try:
            await reader.take_slot()
            read = driver_reader(driver, limits.READ_TIMEOUT_S)
            page: SnapshotPage = await anyio.to_thread.run_sync(read_snapshot_page, read, after, limit)
        except ClientError as error:  # the server is busy
            return refusal(str(error), error.code, 503)
        except GraphUnavailable:
            return refusal(GRAPH_UNAVAILABLE_MESSAGE, GRAPH_UNAVAILABLE, 503)
        except QueryTimedOut:
            return refusal(f"A page took longer than {limits.READ_TIMEOUT_S:g} s; ask for a smaller `limit`.",
                           QUERY_TIMED_OUT, 504)
        finally:
            reader.release_slot()
        headers = {}
        if page.next_cursor is not None:
            cursor = page.next_cursor.encode()
            query = urlencode({"after": cursor, "limit": limit})
            headers = {"Link": f'</export.jsonl?{query}>; rel="next"', "X-Next-Cursor": cursor}

        def lines() -> Iterator[str]:
            for record in page.records:
                yield record_line(record)

        return StreamingResponse(lines(), media_type=JSON_LINES, headers=headers)

    return export_jsonl
