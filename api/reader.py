"""Runs the API's read queries without blocking the event loop, and says what went wrong in words.

The driver is synchronous and thread-safe; each query runs in a worker thread. One call is one
read transaction with one Cypher query: the single place where the API reads from Neo4j, which is
what the round-trip test counts.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from neo4j import Driver
from neo4j.exceptions import ClientError as Neo4jClientError
from neo4j.exceptions import DatabaseUnavailable, ServiceUnavailable, SessionExpired

from incident_graph.api.limits import READ_TIMEOUT_S, ClientError, GraphUnavailableError
from incident_graph.graph.reads import run_read

TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOut"


class GraphReader:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver

    async def rows(self, query: str, **parameters: Any) -> list[dict[str, Any]]:
        try:
            return await anyio.to_thread.run_sync(run_read, self.driver, query, parameters, READ_TIMEOUT_S)
        except (ServiceUnavailable, SessionExpired, DatabaseUnavailable) as error:  # the last: starting or stopping
            raise GraphUnavailableError() from error
        except Neo4jClientError as error:
            if (error.code or "").startswith(TIMED_OUT):
                raise ClientError(
                    f"The query ran longer than {READ_TIMEOUT_S:g} s and was stopped; narrow it down "
                    "(a filter, a smaller `first`, fewer hops)."
                ) from error
            raise

    async def single(self, query: str, **parameters: Any) -> dict[str, Any] | None:
        found = await self.rows(query, **parameters)
        return found[0] if found else None
