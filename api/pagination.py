"""Opaque cursors and page windows for the Relay-style connections.

A cursor encodes the position of an item in its (totally ordered) result list. Position cursors
keep every connection in the API simple and uniform; a page may shift if cases are added between
two requests, which is acceptable for an analyst's browsing.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from incident_graph.api.errors import ClientError
from incident_graph.api.limits import page_size

CURSOR_PREFIX = "position:"
# No result list is this long; a forged cursor beyond it would overflow Neo4j's SKIP (32-bit here).
MAX_POSITION = 1_000_000_000


def encode_cursor(position: int) -> str:
    return base64.urlsafe_b64encode(f"{CURSOR_PREFIX}{position}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        if not text.startswith(CURSOR_PREFIX):
            raise ValueError(text)
        position = int(text.removeprefix(CURSOR_PREFIX))
        if not 0 <= position <= MAX_POSITION:
            raise ValueError(text)
        return position
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise ClientError(f"`after` is not a cursor this API returned: {cursor!r}.") from None


@dataclass(frozen=True)
class Window:
    skip: int
    limit: int

    def cursor(self, index_in_page: int) -> str:
        return encode_cursor(self.skip + index_in_page)


def window(first: int | None, after: str | None) -> Window:
    return Window(skip=0 if after is None else decode_cursor(after) + 1, limit=page_size(first))
