"""Running read queries (the Cypher of graph/queries.py): one read transaction per query."""

from __future__ import annotations

from typing import Any

from neo4j import READ_ACCESS, Driver, ManagedTransaction, unit_of_work

# A request should fail within seconds when Neo4j is gone, not after the driver's default 30 s of
# retries; a short budget still rides out a brief blip.
READ_RETRY_S = 2.0


def run_read(driver: Driver, query: str, parameters: dict[str, Any], timeout_s: float) -> list[dict[str, Any]]:
    """The records as dicts. Neo4j stops the query after `timeout_s` (TransactionTimedOut)."""

    @unit_of_work(timeout=timeout_s)
    def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
        return [dict(record) for record in tx.run(query, parameters)]

    with driver.session(default_access_mode=READ_ACCESS, max_transaction_retry_time=READ_RETRY_S) as session:
        return session.execute_read(work)
