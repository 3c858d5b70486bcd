"""A first load of a large graph two ways: the batched writer against `neo4j-admin database import`.

    python -m benchmarks.bulk_load [--cases 100000] [--writer-port 17971] [--import-port 17972]
                                   [--heap 2g] [--pagecache 2g]

Both load the same synthetic shape (graph/synthetic.py) into a managed Neo4j of their own (two
ports, each a server folder under .incident-graph/ that is removed afterwards: at 1M cases the
two hold about 20 GB of store and transaction logs), started empty:
1. the batched writer (UNWIND batches of 2,000 cases, one transaction each), then the case counts
   recounted and the full-text index caught up: the path `benchmarks.api_latency` loads with;
2. the CSV files written, the offline importer run into the stopped server's database, the server
   started, the constraints and indexes built (`db init`'s), the counts recounted.
It prints each step's seconds, the cases per second of each path, and the two graphs' shapes (nodes
per label, relationships per type, the sum of the stored counts), which must agree.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from incident_graph.config import Settings
from incident_graph.graph import server
from incident_graph.graph.admin import install_constraints_and_indexes, reset_data
from incident_graph.graph.admin_import import graph_shape, import_into, write_synthetic_csv
from incident_graph.graph.case_counts import recount_case_counts
from incident_graph.graph.connection import connect
from incident_graph.graph.synthetic import SyntheticShape, write_synthetic_graph

from benchmarks.common import REPO

PASSWORD = "incident-graph-bench"
SHARED_PORTS = (7687, 17687)


def settings_for(port: int, heap: str, pagecache: str) -> Settings:
    return Settings.from_env(uri=f"bolt://127.0.0.1:{port}", user="neo4j", password=PASSWORD,
                             state_dir=REPO / ".incident-graph", heap=heap, pagecache=pagecache)


def report(step: str, seconds: float) -> None:
    print(f"  {step:<48} {seconds:8.1f} s", flush=True)


def load_with_writer(settings: Settings, shape: SyntheticShape) -> tuple[float, dict[str, int]]:
    server.start(settings)
    driver = connect(settings)
    try:
        install_constraints_and_indexes(driver)
        reset_data(driver)
        started = time.monotonic()
        write_synthetic_graph(driver, shape)
        seconds = time.monotonic() - started
        report("batched writer, counts and full-text index", seconds)
        return seconds, graph_shape(driver)
    finally:
        driver.close()
        discard(settings)


def discard(settings: Settings) -> None:
    server.stop(settings)
    shutil.rmtree(server.layout_for(settings).instance, ignore_errors=True)


def load_with_importer(settings: Settings, shape: SyntheticShape) -> tuple[float, dict[str, int]]:
    folder = tempfile.mkdtemp(prefix="incident-graph-import-")
    try:
        started = time.monotonic()
        files = write_synthetic_csv(shape, Path(folder))
        report(f"CSV files ({files.cases} cases, {files.links} links)", time.monotonic() - started)
        step = time.monotonic()
        import_into(settings, files)
        report("neo4j-admin database import full", time.monotonic() - step)
        step = time.monotonic()
        server.start(settings)
        report("server start on the imported store", time.monotonic() - step)
        driver = connect(settings)
        try:
            step = time.monotonic()
            install_constraints_and_indexes(driver)
            driver.execute_query("CALL db.awaitIndexes(3600)")
            report("constraints and indexes built", time.monotonic() - step)
            step = time.monotonic()
            recount_case_counts(driver)
            report("case counts", time.monotonic() - step)
            seconds = time.monotonic() - started
            report("importer path in all", seconds)
            return seconds, graph_shape(driver)
        finally:
            driver.close()
    finally:
        discard(settings)
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100_000, help="Synthetic cases to load (100000).")
    parser.add_argument("--writer-port", type=int, default=17971, help="Bolt port of the writer's Neo4j (17971).")
    parser.add_argument("--import-port", type=int, default=17972, help="Bolt port of the importer's Neo4j (17972).")
    parser.add_argument("--heap", default="2g", help="Neo4j heap of both servers (2g).")
    parser.add_argument("--pagecache", default="2g", help="Neo4j page cache of both servers (2g).")
    arguments = parser.parse_args()
    if {arguments.writer_port, arguments.import_port} & set(SHARED_PORTS) or arguments.writer_port == arguments.import_port:
        print("pick two ports of their own (not 7687 or 17687)", file=sys.stderr)
        return 2
    writer, importer = (settings_for(port, arguments.heap, arguments.pagecache)
                        for port in (arguments.writer_port, arguments.import_port))
    for settings in (writer, importer):
        if server.port_open(settings.host, settings.bolt_port):
            print(f"port {settings.bolt_port} is in use: this script starts and removes its own servers",
                  file=sys.stderr)
            return 2
    shape = SyntheticShape(cases=arguments.cases)
    print(f"{arguments.cases} synthetic cases, heap {arguments.heap}, page cache {arguments.pagecache}")
    print("writer:")
    writer_seconds, writer_shape = load_with_writer(writer, shape)
    print("importer:")
    import_seconds, import_shape = load_with_importer(importer, shape)
    print(f"cases/s: writer {arguments.cases / writer_seconds:.0f}, importer {arguments.cases / import_seconds:.0f} "
          f"(importer / writer time: {import_seconds / writer_seconds:.2f})")
    print(f"{'':<22} {'writer':>12} {'importer':>12}")
    for key in writer_shape:
        print(f"{key:<22} {writer_shape[key]:>12} {import_shape.get(key, 0):>12}")
    same = writer_shape == import_shape
    print("the two graphs agree" if same else "THE TWO GRAPHS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
