"""Running read queries (the Cypher of graph/queries.py): one read transaction per query.

`trace`, when given, sees every query and its parameters before it runs: what the round-trip test
counts and what the latency benchmark replays against the driver.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neo4j import READ_ACCESS, Driver, ManagedTransaction, unit_of_work

from incident_graph.graph.connection import causal_session
from incident_graph.graph.errors import graph_errors

# A request should fail within seconds when Neo4j is gone, not after the driver's default 30 s of
# retries; a short budget still rides out a brief blip.
READ_RETRY_S = 2.0

QueryTrace = Callable[[str, dict[str, Any]], None]


def run_read(driver: Driver, query: str, parameters: dict[str, Any], timeout_s: float,
             trace: QueryTrace | None = None) -> list[dict[str, Any]]:
    """The records as dicts. Neo4j stops the query after `timeout_s` (QueryTimedOut); an unreachable
    Neo4j is GraphUnavailable (graph/errors.py). A read transaction: through a `neo4j://` URI it
    goes to a follower or read replica, and Neo4j refuses any write in it."""

    @unit_of_work(timeout=timeout_s)
    def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
        return [dict(record) for record in tx.run(query, parameters)]

    if trace is not None:
        trace(query, parameters)
    with graph_errors():
        with causal_session(driver, READ_ACCESS, max_transaction_retry_time=READ_RETRY_S) as reading:
            return reading.execute_read(work)
