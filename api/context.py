"""What every resolver can reach during one request: the reader, fresh DataLoaders, write access."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from neo4j import Driver

from incident_graph.api.dataloaders import Loaders, create_loaders
from incident_graph.api.errors import FORBIDDEN, UNAUTHENTICATED
from incident_graph.api.query_slots import GraphReader, QuerySlots
from incident_graph.graph.read_transaction import QueryTrace


@dataclass(frozen=True)
class WriteAccess:
    allowed: bool
    refusal: str = ""  # why not, in words for the client
    code: str = UNAUTHENTICATED  # whose fault (api/errors.py)


READ_ONLY = WriteAccess(False, "This server is read-only.", FORBIDDEN)
NO_BEARER_TOKEN = WriteAccess(False, "Mutations need an `Authorization: Bearer <token>` header.")


def write_access(authorization: str | None, token: str | None) -> WriteAccess:
    """Mutations need `Authorization: Bearer <token>` with the token the server was started with."""
    if token is None:
        return READ_ONLY
    if not authorization:
        return NO_BEARER_TOKEN
    scheme, _, presented = authorization.partition(" ")
    if scheme.lower() != "bearer" or not presented.strip():
        return NO_BEARER_TOKEN
    # Constant-time comparison: the token must not leak through response timing.
    if not hmac.compare_digest(presented.strip().encode(), token.encode()):
        return WriteAccess(False, "The bearer token is not the one this server was started with.")
    return WriteAccess(True)


@dataclass
class RequestContext:
    driver: Driver  # for mutations, which go through graph/writes.py and ingest
    reader: GraphReader
    loaders: Loaders
    writes: WriteAccess


def request_context(driver: Driver, writes: WriteAccess = READ_ONLY, slots: QuerySlots | None = None,
                    trace: QueryTrace | None = None) -> RequestContext:
    reader = GraphReader(driver, slots, trace)
    return RequestContext(driver=driver, reader=reader, loaders=create_loaders(reader), writes=writes)
