"""Runs the API's read queries without blocking the event loop, a few requests at a time.

The driver is synchronous and thread-safe; each query runs in a worker thread. One call is one
read transaction with one Cypher query (graph/read_transaction.py): the single place where the API
reads from Neo4j. QuerySlots bound how many requests read at once. The graph's errors (graph/errors.py)
become answers for the client here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import anyio.to_thread
from neo4j import Driver
from strawberry.extensions import SchemaExtension

from incident_graph.api.errors import (
    GRAPH_UNAVAILABLE,
    GRAPH_UNAVAILABLE_MESSAGE,
    QUERY_TIMED_OUT,
    SERVER_BUSY,
    ClientError,
)
from incident_graph.api.limits import DEFAULT_CONCURRENT_READS, QUERY_QUEUE_TIMEOUT_S, READ_TIMEOUT_S
from incident_graph.graph.errors import GraphUnavailable, QueryTimedOut
from incident_graph.graph.read_transaction import QueryTrace, run_read


class QuerySlots:
    """How many requests read from Neo4j at once; the others wait their turn, first come first served.

    Fifty heavy requests at once on a small machine thrash Neo4j's CPU and memory, and queries run
    past their 30 s budget; a few at a time finish quickly while the rest queue in the API, where
    waiting costs nothing and does not count against Neo4j's transaction timeout. A request takes
    its slot with its first query and keeps it to the end of the operation (ReleaseQuerySlot), so
    a request of many small queries waits once, not once per query.
    """

    def __init__(self, size: int = DEFAULT_CONCURRENT_READS, queue_timeout_s: float = QUERY_QUEUE_TIMEOUT_S) -> None:
        if size < 1:
            raise ValueError("at least one slot is needed")
        self.size = size
        self.queue_timeout_s = queue_timeout_s
        self._limiter: anyio.CapacityLimiter | None = None  # made in the event loop, on first use

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.size)
        return self._limiter


class GraphReader:
    """One request's reads; holds one of the shared QuerySlots from its first query until released."""

    def __init__(self, driver: Driver, slots: QuerySlots | None = None, trace: QueryTrace | None = None) -> None:
        self.driver = driver
        self.slots = slots or QuerySlots()
        self.trace = trace
        self._holding = False
        self._taking: anyio.Lock | None = None

    async def take_slot(self) -> None:
        if self._taking is None:
            self._taking = anyio.Lock()
        async with self._taking:  # resolvers of one request may ask at the same time
            if self._holding:
                return
            try:
                with anyio.fail_after(self.slots.queue_timeout_s):
                    await self.slots.limiter.acquire_on_behalf_of(self)
            except TimeoutError:
                raise ClientError(f"The server is busy: the query waited {self.slots.queue_timeout_s:g} s for its "
                                  "turn. Try again shortly.", SERVER_BUSY) from None
            self._holding = True

    def release_slot(self) -> None:
        if self._holding:
            self._holding = False
            self.slots.limiter.release_on_behalf_of(self)

    async def rows(self, query: str, **parameters: Any) -> list[dict[str, Any]]:
        await self.take_slot()
        try:
            return await anyio.to_thread.run_sync(run_read, self.driver, query, parameters, READ_TIMEOUT_S, self.trace)
        except GraphUnavailable as error:
            raise ClientError(GRAPH_UNAVAILABLE_MESSAGE, GRAPH_UNAVAILABLE) from error
        except QueryTimedOut as error:
            raise ClientError(f"The query ran longer than {READ_TIMEOUT_S:g} s and was stopped; narrow it down "
                              "(a filter, a smaller `first`, fewer hops).", QUERY_TIMED_OUT) from error

    async def single(self, query: str, **parameters: Any) -> dict[str, Any] | None:
        found = await self.rows(query, **parameters)
        return found[0] if found else None


class ReleaseQuerySlot(SchemaExtension):
    """Gives the request's query slot back when its operation ends, however it ends."""

    def on_operation(self) -> Iterator[None]:
        try:
            yield
        finally:
            reader = getattr(self.execution_context.context, "reader", None)
            if isinstance(reader, GraphReader):
                reader.release_slot()
