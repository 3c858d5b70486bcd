"""The long version of the ingest fault tests: many kills, Neo4j stops and connection resets.

    python -m benchmarks.kill_ingest [--documents 1000] [--kills 20] [--stops 3] [--resets 20] [--seed 7]

Generates write-ups from the bundled corpus, ingests them once cleanly into an empty graph (the
reference), then, each phase from an empty graph:

  kills   SIGKILL the `incident-graph ingest` process at random points (during start-up, between
          cases, in the middle of a case's transaction), checking after each kill that the graph
          is a consistent part of the reference (no half-written case), then rerun to completion;
  stops   stop Neo4j under the ingest, check the --report names every write-up missing from the
          graph, start Neo4j again, rerun; (only with the managed server, not with NEO4J_URI)
  resets  reset every Bolt connection (RST) at random points; the ingest must finish untouched.

After each phase the graph must be identical to the reference (nodes, relationships, properties,
the write timestamp aside). Prints what it injected and what was lost. Uses its own managed Neo4j
on port 17680 (or NEO4J_URI), emptied before use; it refuses a port where a server is already
listening, since it stops and starts that server.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from benchmarks.common import benchmark_graph
from incident_graph.graph import server
from incident_graph.graph.admin import reset_data
from tests.reliability.harness import (ResettingProxy, differences, generate_corpus, open_write_transaction,
                                       partial_problems, snapshot, start_ingest, wait_for_cases)


def finish(settings, folder, logs, name) -> tuple[int, str]:
    run = start_ingest(settings, folder, logs, name)
    code = run.wait()
    return code, run.output()[0].strip().splitlines()[0] if run.output()[0].strip() else ""


def compare(driver, reference, phase: str) -> bool:
    diff = differences(snapshot(driver), reference)
    print(f"  {phase}: graph {'identical to' if not diff else 'DIFFERS from'} the clean run")
    for line in diff:
        print("    " + line)
    return not diff


def kills_phase(settings, driver, folder, logs, reference, order, count, rng) -> bool:
    reset_data(driver)
    kinds = {"startup": 0, "between": 0, "mid-transaction": 0}
    bad = 0
    documents = len(order)
    targets = sorted(rng.sample(range(1, documents - 1), count))
    started = time.monotonic()
    for number, target in enumerate(targets):
        kind = "startup" if number % 5 == 0 else rng.choice(["between", "mid-transaction"])
        run = start_ingest(settings, folder, logs, f"kill-{number}")
        if kind == "startup":
            time.sleep(rng.uniform(0.3, 4.0))
        else:
            wait_for_cases(driver, run, target)
            if kind == "between":
                time.sleep(rng.uniform(0.0, 0.3))
            elif not open_write_transaction(driver, timeout=5):
                kind = "between"
        if not run.running:
            print(f"  kill {number}: the ingest had already finished")
            continue
        run.kill()
        kinds[kind] += 1
        problems = partial_problems(snapshot(driver), reference, order)
        bad += bool(problems)
        for problem in problems[:5]:
            print(f"  kill {number} ({kind}): {problem}")
    code, line = finish(settings, folder, logs, "kills-rerun")
    print(f"  {sum(kinds.values())} kills {kinds} in {time.monotonic() - started:.0f} s; "
          f"{bad} left an inconsistent graph; rerun exit {code}: {line}")
    return compare(driver, reference, "kills") and not bad and code == 0


def stops_phase(settings, driver, folder, logs, reference, order, count, rng) -> bool:
    """The driver stays open across the restarts: its pool reconnects by itself."""
    reset_data(driver)
    ok = True
    for number in range(count):
        report = logs / f"stop-{number}.json"
        run = start_ingest(settings, folder, logs, f"stop-{number}", report=report)
        before = len(snapshot(driver).cases())
        wait_for_cases(driver, run, before + rng.randint(5, max(6, (len(order) - before) // 2)))
        stopped = time.monotonic()
        server.stop(settings)
        code = run.wait()
        took = time.monotonic() - stopped
        server.start(settings)
        stored = snapshot(driver).cases()
        reported = {f["case_id"] for f in json.loads(report.read_text())["failed"]}
        unreported = set(order) - stored - reported
        ok &= code == 1 and not unreported
        print(f"  stop {number}: exit {code} {took:.1f} s after the stop; {len(stored)} cases in the graph, "
              f"{len(reported)} reported not written, {len(unreported)} missing and unreported, "
              f"{len(reported & stored)} reported but landed (commit in flight)")
    code, line = finish(settings, folder, logs, "stops-rerun")
    print(f"  rerun exit {code}: {line}")
    ok &= compare(driver, reference, "stops") and code == 0
    return ok


def resets_phase(settings, driver, folder, logs, reference, order, count, rng) -> bool:
    reset_data(driver)
    proxy = ResettingProxy(settings.host, settings.bolt_port)
    try:
        run = start_ingest(replace(settings, uri=f"bolt://127.0.0.1:{proxy.port}"), folder, logs, "resets")
        for target in sorted(rng.sample(range(1, len(order) - 1), count)):
            wait_for_cases(driver, run, target)
            if not run.running:
                break
            if rng.random() < 0.5:
                open_write_transaction(driver, timeout=2)
            proxy.reset_all()
        code = run.wait()
    finally:
        proxy.close()
    print(f"  {proxy.resets} resets ({proxy.connections_reset} connections); exit {code}: "
          f"{run.output()[0].strip().splitlines()[0]}")
    return compare(driver, reference, "resets") and code == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--stops", type=int, default=3)
    parser.add_argument("--resets", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--port", type=int, default=17680, help="Bolt port of its own Neo4j (17680)")
    args = parser.parse_args()
    if not os.environ.get("NEO4J_URI") and (args.port in (7687, 17687) or server.port_open("127.0.0.1", args.port)):
        parser.error(f"port {args.port} is taken (or is the dev or test server): choose a free one with --port")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as temp, benchmark_graph(port=args.port) as (settings, driver):
        folder, logs = Path(temp) / "corpus", Path(temp) / "logs"
        order = [path.stem for path in generate_corpus(folder, args.documents, seed=args.seed)]
        started = time.monotonic()
        code, line = finish(settings, folder, logs, "clean")
        reference = snapshot(driver)
        print(f"clean run: {args.documents} write-ups in {time.monotonic() - started:.0f} s, exit {code}: {line}; "
              f"{len(reference.nodes)} nodes, {len(reference.relationships)} relationships")
        results = {}
        print(f"kills ({args.kills}):")
        results["kills"] = kills_phase(settings, driver, folder, logs, reference, order, args.kills, rng)
        print(f"resets ({args.resets}):")
        results["resets"] = resets_phase(settings, driver, folder, logs, reference, order, args.resets, rng)
        if args.stops and not os.environ.get("NEO4J_URI"):  # only a server we manage is ours to stop
            print(f"Neo4j stops ({args.stops}):")
            results["stops"] = stops_phase(settings, driver, folder, logs, reference, order, args.stops, rng)
        print("lost or corrupted: " + ("nothing" if all(results.values()) else
                                       ", ".join(k for k, ok in results.items() if not ok)))
        sys.exit(0 if all(results.values()) else 1)


if __name__ == "__main__":
    main()
