"""Shared by the benchmarks: a throwaway managed Neo4j and timing helpers."""

from __future__ import annotations

import os
import statistics
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from incident_graph.config import Settings
from incident_graph.graph import server
from incident_graph.graph.admin import install_constraints_and_indexes, reset_data
from incident_graph.graph.connection import connect

REPO = Path(__file__).resolve().parent.parent


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
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def summary_ms(values: list[float]) -> str:
    return (f"p50 {percentile(values, 0.5) * 1000:7.2f} ms  p99 {percentile(values, 0.99) * 1000:7.2f} ms  "
            f"mean {statistics.mean(values) * 1000:7.2f} ms  n={len(values)}")
