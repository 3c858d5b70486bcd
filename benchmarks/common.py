"""Shared by the benchmarks: a throwaway managed Neo4j and percentiles. (Free ports and an app
served in a thread come from tests/network.py, as for the tests.)"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from incident_graph.config import Settings
from incident_graph.graph import server
from incident_graph.graph.admin import install_constraints_and_indexes, reset_data
from incident_graph.graph.connection import connect
from incident_graph.schema.entity_types import ENTITY_TYPES

REPO = Path(__file__).resolve().parent.parent

# The facets of a CaseConnection, every entity type, for the GraphQL documents of the benchmarks.
FACETS = "facets { " + " ".join(f"{t.graphql_field} {{ name count }}" for t in ENTITY_TYPES) + " }"


@contextmanager
def benchmark_graph(port: int = 17688) -> Iterator[tuple[Settings, object]]:
    """A Neo4j of its own (NEO4J_URI if set, else a managed one on `port`), emptied before use."""
    if os.environ.get("NEO4J_URI"):
        settings = Settings.from_env()
        started = False
    else:
        settings = Settings.from_env(uri=f"bolt://127.0.0.1:{port}", password="incident-graph-bench",
                                     state_dir=REPO / ".incident-graph", heap="2g", pagecache="1g")
        started = server.read_pid(server.layout_for(settings)) is None
        server.start(settings)
    driver = connect(settings)
    try:
        install_constraints_and_indexes(driver)
        reset_data(driver)
        yield settings, driver
    finally:
        reset_data(driver)
        driver.close()
        if started:
            server.stop(settings)


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (NaN of nothing): a value that was measured, never interpolated."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]
