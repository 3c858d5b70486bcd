"""A bounded load test of the GraphQL API on loopback, optionally restarting Neo4j mid-run.

    python -m benchmarks.api_load [--clients 50] [--seconds 60] [--cases N] [--neo4j-port 17689]
                                  [--restart-neo4j-at SECONDS [--down-seconds 10]] [--keep-server]

1. Starts a throwaway managed Neo4j on --neo4j-port (127.0.0.1 only; never 7687 or 17687, the dev
   and test servers) unless one of ours already runs there, and loads it: the bundled corpus
   (ingested with the real pipeline), or with --cases N the synthetic graph of N cases
   (graph/synthetic.py). --no-load keeps whatever the server holds.
2. Serves the API with a real uvicorn in a child process on 127.0.0.1 (a free port; read-only,
   access log off), the way `incident-graph serve` runs it, so that the load clients do not share a
   Python interpreter (and its GIL) with the server.
3. Warms up (each kind of request once: plans Cypher, loads the spaCy pipeline), then runs
   --clients asyncio clients, each with its own keep-alive connection, for --seconds. Each client
   loops: pick a kind of request at random (cases with filters and facets, case by id,
   casesSharingRootCause, diagnose, suggestFilters, subgraph) with varied arguments drawn from the
   graph, POST it, record the latency and whether it failed (an HTTP status other than 200, a
   GraphQL `errors` entry, or a transport error / timeout). A monitor polls /healthz twice a second.
4. With --restart-neo4j-at S: at S seconds it stops the managed Neo4j (graph/server.py stop, by the
   pid it wrote), keeps it down for --down-seconds, and starts it again; the API process is left
   alone. It reports the errors inside and outside the outage, what /healthz said, how long after
   Neo4j answered again the API served its first successful request, and whether the graph holds
   the same cases, nodes and relationships (and case ids and content hashes) as before.
5. Stops the API, and the Neo4j if it started it (unless --keep-server).

Prints requests, requests per second, errors, p50/p99 overall and per kind of request, and the CPU
the API process, Neo4j and the load clients used during the load (where the time goes).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import subprocess
import sys
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from neo4j import Driver

# The same queries the latency benchmark times.
from benchmarks.api_latency import CASES_WITH_FACETS as CASES
from benchmarks.api_latency import DIAGNOSE, SHARING
from benchmarks.common import percentile
from incident_graph.config import DEFAULT_CONCURRENT_READS, Settings
from incident_graph.graph import server
from incident_graph.graph.admin import install_constraints_and_indexes, reset_data
from incident_graph.graph.connection import connect
from incident_graph.schema.entity_types import COMPONENT, ORGANISATION, ROOT_CAUSE, SYMPTOM, EntityType
from tests.network import free_port

REPO = Path(__file__).resolve().parent.parent
SHARED_PORTS = {7687, 17687}  # the dev server and the test server: never stopped by this script
PASSWORD = "incident-graph-bench"

# ------------------------------------------------------------------ the workload

CASE = """
query($id: ID!) {
  case(id: $id) {
    id title published detection
    symptoms { entity { name } evidence { sentence confidence } }
    rootCauses { entity { name broader { name } } evidence { confidence } }
    components { entity { name } }
  }
}"""

SUGGEST = """
query($text: String!) { suggestFilters(text: $text) { type name mention confidence } }"""

SUBGRAPH = """
query($filter: CaseFilter, $limit: Int) {
  subgraph(filter: $filter, limit: $limit) { nodes { id type title } edges { source target type } }
}"""


@dataclass
class Names:
    """Values drawn from the loaded graph, most linked first."""

    case_ids: list[str]
    symptoms: list[str]
    root_causes: list[str]
    components: list[str]
    organisations: list[str]


def names_in(driver: Driver) -> Names:
    def top(entity_type: EntityType, limit: int = 40) -> list[str]:
        # Label and relationship type from the closed set; the limit is a parameter.
        records = driver.execute_query(
            f"MATCH (e:{entity_type.label})<-[:{entity_type.relationship}]-(:Case) WITH e, count(*) AS n "
            "RETURN e.name AS name ORDER BY n DESC, name LIMIT $limit", limit=limit).records
        return [record["name"] for record in records]

    case_ids = [record["id"] for record in driver.execute_query(
        "MATCH (c:Case) RETURN c.case_id AS id ORDER BY id LIMIT 500").records]
    return Names(case_ids=case_ids, symptoms=top(SYMPTOM), root_causes=top(ROOT_CAUSE), components=top(COMPONENT),
                 organisations=top(ORGANISATION))


def make_request(kind: str, names: Names, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """The query and variables of one request of `kind`, with arguments drawn from the graph."""
    def some(values: list[str], spread: int = 15) -> str:
        """One of the `spread` most linked values, the most linked most often (Pareto ranks)."""
        return values[min(int(rng.paretovariate(1.2)) - 1, spread - 1, len(values) - 1)]

    if kind == "cases":
        case_filter: dict[str, Any] = {}
        roll = rng.random()
        if roll < 0.4 and names.symptoms:
            case_filter["symptoms"] = [some(names.symptoms)]
        if 0.2 < roll < 0.6 and names.components:
            case_filter["components"] = [some(names.components)]
        if 0.5 < roll < 0.8 and names.root_causes:
            case_filter["rootCauses"] = [some(names.root_causes)]
        if roll > 0.8:
            case_filter["text"] = rng.choice(["outage", "GPU", "certificate expired", "database", "DNS", "latency"])
        if rng.random() < 0.3:
            case_filter["publishedFrom"] = rng.choice(["2015-01-01", "2020-01-01", "2023-06-01"])
        return CASES, {"filter": case_filter, "first": rng.choice([10, 20, 50])}
    if kind == "case":
        return CASE, {"id": rng.choice(names.case_ids)}
    if kind == "casesSharingRootCause":
        return SHARING, {"symptom": some(names.symptoms, 30)}
    if kind == "diagnose":
        count = rng.randint(1, 3)
        return DIAGNOSE, {"symptoms": sorted({some(names.symptoms, 30) for _ in range(count)})}
    if kind == "suggestFilters":
        phrase = f"{some(names.symptoms)} caused by {some(names.root_causes)} on the {some(names.components)}"
        return SUGGEST, {"text": phrase}
    if kind == "subgraph":
        return SUBGRAPH, {"filter": {"symptoms": [some(names.symptoms)]}, "limit": rng.choice([25, 50])}
    raise ValueError(kind)


KINDS = ("cases", "case", "casesSharingRootCause", "diagnose", "suggestFilters", "subgraph")


# ------------------------------------------------------------------ measuring


@dataclass
class Sample:
    kind: str
    started: float  # seconds since the load began
    seconds: float
    error: str | None


@dataclass
class Run:
    samples: list[Sample] = field(default_factory=list)
    health: list[tuple[float, int]] = field(default_factory=list)  # (time, status code or 0)
    outage: tuple[float, float] | None = None  # stop began, Neo4j answering again
    stop_done: float | None = None
    start_called: float = 0.0


def error_of(response: httpx.Response) -> str | None:
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:120]}"
    try:
        body = response.json()
    except ValueError:
        return "a response that is not JSON"
    if body.get("errors"):
        return body["errors"][0].get("message", "?")[:160]
    return None


async def client_loop(number: int, base_url: str, names: Names, run: Run, t0: float, deadline: float,
                      seed: int) -> None:
    rng = random.Random(seed * 1000 + number)
    async with httpx.AsyncClient(base_url=base_url, timeout=60.0,
                                 limits=httpx.Limits(max_connections=1, max_keepalive_connections=1)) as http:
        while time.monotonic() < deadline:
            kind = rng.choice(KINDS)
            query, variables = make_request(kind, names, rng)
            started = time.monotonic()
            try:
                response = await http.post("/graphql", json={"query": query, "variables": variables})
                error = error_of(response)
            except httpx.HTTPError as failure:
                error = f"{type(failure).__name__}: {failure}"[:160]
            run.samples.append(Sample(kind, started - t0, time.monotonic() - started, error))
            if error and "not reachable" in error:
                await asyncio.sleep(0.05)  # a client backing off a little, as a real one would


async def health_monitor(base_url: str, run: Run, t0: float, deadline: float) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=10.0) as http:
        while time.monotonic() < deadline:
            try:
                status = (await http.get("/healthz")).status_code
            except httpx.HTTPError:
                status = 0
            run.health.append((time.monotonic() - t0, status))
            await asyncio.sleep(0.5)


async def neo4j_restart(settings: Settings, run: Run, t0: float, at: float, down: float) -> None:
    await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
    began = time.monotonic() - t0
    print(f"  [{began:5.1f} s] stopping Neo4j on {settings.uri}", file=sys.stderr, flush=True)
    await asyncio.to_thread(server.stop, settings)
    run.stop_done = time.monotonic() - t0
    await asyncio.sleep(down)
    run.start_called = time.monotonic() - t0
    print(f"  [{run.start_called:5.1f} s] starting Neo4j again", file=sys.stderr, flush=True)
    await asyncio.to_thread(server.start, settings)
    run.outage = (began, time.monotonic() - t0)
    print(f"  [{run.outage[1]:5.1f} s] Neo4j answers again", file=sys.stderr, flush=True)


async def load(base_url: str, names: Names, clients: int, seconds: float, seed: int,
               restart: tuple[Settings, float, float] | None) -> Run:
    run = Run()
    t0 = time.monotonic()
    deadline = t0 + seconds
    tasks = [client_loop(number, base_url, names, run, t0, deadline, seed) for number in range(clients)]
    tasks.append(health_monitor(base_url, run, t0, deadline))
    if restart is not None:
        settings, at, down = restart
        tasks.append(neo4j_restart(settings, run, t0, at, down))
    await asyncio.gather(*tasks)
    return run


# ------------------------------------------------------------------ the API process and the data


API_PROGRAM = textwrap.dedent("""
    import sys, uvicorn
    from incident_graph.api.app import create_app
    from incident_graph.config import Settings
    app = create_app(Settings.from_env(), None, max_concurrent_reads=int(sys.argv[2]))
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
""")


def start_api(settings: Settings, log_path: Path, max_concurrent_reads: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ, NEO4J_URI=settings.uri, NEO4J_USER=settings.user, NEO4J_PASSWORD=settings.password)
    log = log_path.open("wb")
    process = subprocess.Popen([sys.executable, "-c", API_PROGRAM, str(port), str(max_concurrent_reads)], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the API exited; see {log_path}")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=5).status_code == 200:
                return process, base_url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.terminate()
    raise RuntimeError(f"the API did not answer within 60 s; see {log_path}")


def stop_api(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass(frozen=True)
class Fingerprint:
    cases: int
    nodes: int
    relationships: int
    digest: str  # of every case id with its content hash

    def describe(self) -> str:
        return (f"{self.cases:,} cases, {self.nodes:,} nodes, {self.relationships:,} relationships, "
                f"case digest {self.digest[:12]}")


def fingerprint(driver: Driver) -> Fingerprint:
    count = lambda query: driver.execute_query(query).records[0]["n"]  # noqa: E731
    digest = hashlib.sha256()
    with driver.session() as session:
        for record in session.run("MATCH (c:Case) RETURN c.case_id AS id, c.content_hash AS hash ORDER BY id"):
            digest.update(f"{record['id']}\0{record['hash']}\n".encode())
    return Fingerprint(count("MATCH (c:Case) RETURN count(c) AS n"), count("MATCH (n) RETURN count(n) AS n"),
                       count("MATCH ()-[r]->() RETURN count(r) AS n"), digest.hexdigest())


def load_graph(driver: Driver, cases: int | None) -> str:
    started = time.monotonic()
    if cases:
        from incident_graph.graph.synthetic import SyntheticShape, write_synthetic_graph

        reset_data(driver)
        write_synthetic_graph(driver, SyntheticShape(cases=cases), progress=lambda done, total: print(
            f"\r  loading {done:,}/{total:,} synthetic cases", end="", file=sys.stderr, flush=True))
        print(file=sys.stderr)
        what = f"synthetic graph of {cases:,} cases (graph/synthetic.py)"
    else:
        from incident_graph.ingest.corpus import bundled_corpus_dir
        from incident_graph.ingest.ingestion import ingest_paths

        reset_data(driver)
        summary = ingest_paths(driver, [bundled_corpus_dir()])
        if summary.failed:
            raise RuntimeError(f"ingest failed for {len(summary.failed)} write-ups")
        what = "bundled corpus (ingested with the pipeline)"
    return f"{what}, loaded in {time.monotonic() - started:.0f} s"


# ------------------------------------------------------------------ reporting


def report(run: Run, clients: int, seconds: float) -> tuple[list[str], dict[str, Any]]:
    samples = run.samples
    ok = [sample.seconds for sample in samples if sample.error is None]
    errors = [sample for sample in samples if sample.error is not None]
    lines = [
        f"{clients} clients for {seconds:g} s: {len(samples):,} requests ({len(samples) / seconds:.1f}/s), "
        f"{len(errors):,} errors; successful requests p50 {percentile(ok, 0.5) * 1000:.0f} ms, "
        f"p99 {percentile(ok, 0.99) * 1000:.0f} ms",
        "",
        "| request | requests | errors | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind in KINDS:
        of_kind = [sample for sample in samples if sample.kind == kind]
        times = [sample.seconds for sample in of_kind if sample.error is None]
        lines.append(f"| {kind} | {len(of_kind):,} | {sum(1 for s in of_kind if s.error):,} | "
                     f"{percentile(times, 0.5) * 1000:.0f} | {percentile(times, 0.99) * 1000:.0f} |")
    figures: dict[str, Any] = {"requests": len(samples), "errors": len(errors),
                               "p50_ms": percentile(ok, 0.5) * 1000, "p99_ms": percentile(ok, 0.99) * 1000}
    if run.outage is None:
        if errors:
            lines += ["", "Errors:"] + [f"  {n:5d} x {message}" for message, n in
                                        Counter(e.error for e in errors).most_common(8)]
        return lines, figures
    began, answered = run.outage
    # A request counts as "during the outage" if it was in flight at any time while Neo4j was down.
    inside = [s for s in samples if s.started <= answered and s.started + s.seconds >= began]
    outside = [s for s in samples if not (s.started <= answered and s.started + s.seconds >= began)]
    inside_errors = [s for s in inside if s.error]
    outside_errors = [s for s in outside if s.error]
    first_ok_after = min((s.started + s.seconds for s in samples if s.error is None and s.started >= answered),
                         default=float("nan"))
    last_error = max((s.started + s.seconds for s in errors), default=float("nan"))
    stopped = run.stop_done if run.stop_done is not None else began
    down_health = Counter(status for t, status in run.health if stopped <= t <= answered - 0.5)
    health_before = Counter(status for t, status in run.health if t < began)
    health_after = Counter(status for t, status in run.health if t > answered + 1.0)
    lines += [
        "",
        f"Neo4j told to stop at {began:.1f} s (its process gone at {stopped:.1f} s), started again "
        f"{run.start_called - stopped:.1f} s later, answering again at {answered:.1f} s "
        f"({answered - began:.1f} s without a usable Neo4j):",
        f"  requests in flight during the outage: {len(inside):,}, of which errors: {len(inside_errors):,}",
        f"  errors outside the outage: {len(outside_errors):,}",
        f"  /healthz before: {dict(health_before)}; while down: {dict(down_health)}; after: {dict(health_after)}",
        f"  first successful request {first_ok_after - answered:.2f} s after Neo4j answered again; "
        f"last error at {last_error:.1f} s",
        "  errors while down, by message:",
    ] + [f"    {n:5d} x {message}" for message, n in Counter(e.error for e in inside_errors).most_common(5)]
    if outside_errors:
        lines += ["  errors outside the outage, by message:"] + [
            f"    {n:5d} x {message}" for message, n in Counter(e.error for e in outside_errors).most_common(5)]
    figures.update({"outage_s": answered - began, "outage_requests": len(inside),
                    "outage_errors": len(inside_errors), "errors_outside_outage": len(outside_errors),
                    "healthz_while_down": dict(down_health), "recovery_s": first_ok_after - answered})
    return lines, figures


# ------------------------------------------------------------------ main


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to load (default 60)")
    parser.add_argument("--cases", type=int, help="load a synthetic graph of this many cases instead of the corpus")
    parser.add_argument("--no-load", action="store_true", help="use the data the server already holds")
    parser.add_argument("--neo4j-port", type=int, default=17689, help="Bolt port of the throwaway Neo4j (17689)")
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="1g")
    parser.add_argument("--restart-neo4j-at", type=float, metavar="SECONDS",
                        help="stop the managed Neo4j this many seconds into the load, then start it again")
    parser.add_argument("--down-seconds", type=float, default=10.0, help="how long Neo4j stays down (10)")
    parser.add_argument("--keep-server", action="store_true", help="leave the Neo4j running with its data")
    parser.add_argument("--max-concurrent-reads", type=int, default=DEFAULT_CONCURRENT_READS,
                        help=f"requests the API lets read at once (serve --max-concurrent-reads; {DEFAULT_CONCURRENT_READS})")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", help="also write the figures to this file")
    return parser.parse_args()


def cpu_seconds(pid: int | None) -> float:
    """User and system CPU a process has used so far (Linux /proc; NaN when it cannot be read)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError, TypeError):
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def main() -> int:
    arguments = parse_arguments()
    if arguments.neo4j_port in SHARED_PORTS:
        print(f"port {arguments.neo4j_port} is a shared server; pick another --neo4j-port", file=sys.stderr)
        return 2
    settings = Settings.from_env(uri=f"bolt://127.0.0.1:{arguments.neo4j_port}", user="neo4j", password=PASSWORD,
                                 state_dir=REPO / ".incident-graph", heap=arguments.heap,
                                 pagecache=arguments.pagecache)
    layout = server.layout_for(settings)
    started_here = server.read_pid(layout) is None
    if started_here and server.port_open(settings.host, settings.bolt_port):
        print(f"port {settings.bolt_port} is taken by a server this script does not manage", file=sys.stderr)
        return 2
    server.start(settings, progress=lambda message: print(f"  {message}", file=sys.stderr, flush=True))
    api = None
    try:
        driver = connect(settings)
        try:
            install_constraints_and_indexes(driver)
            loaded = "data already in the server" if arguments.no_load else load_graph(driver, arguments.cases)
            before = fingerprint(driver)
            names = names_in(driver)
        finally:
            driver.close()
        print(f"Graph: {loaded}; {before.describe()}", flush=True)
        api, base_url = start_api(settings, REPO / ".incident-graph" / f"api-load-{arguments.neo4j_port}.log",
                                     arguments.max_concurrent_reads)
        rng = random.Random(arguments.seed)
        for kind in KINDS:  # warm-up: plans, caches, the spaCy pipeline
            query, variables = make_request(kind, names, rng)
            response = httpx.post(f"{base_url}/graphql", json={"query": query, "variables": variables}, timeout=120)
            if error_of(response):
                raise RuntimeError(f"warm-up {kind} failed: {error_of(response)}")
        restart = None
        if arguments.restart_neo4j_at is not None:
            restart = (settings, arguments.restart_neo4j_at, arguments.down_seconds)
        print(f"Loading {base_url} (--max-concurrent-reads {arguments.max_concurrent_reads}) with "
              f"{arguments.clients} clients for {arguments.seconds:g} s"
              + (f", Neo4j stopped at {arguments.restart_neo4j_at:g} s for {arguments.down_seconds:g} s"
                 if restart else ""), flush=True)
        processes = {"API process": api.pid, "Neo4j": server.read_pid(layout), "load clients": os.getpid()}
        cpu_before = {name: cpu_seconds(pid) for name, pid in processes.items()}
        run = asyncio.run(load(base_url, names, arguments.clients, arguments.seconds, arguments.seed, restart))
        cpu_used = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in processes.items()}
        lines, figures = report(run, arguments.clients, arguments.seconds)
        lines += ["", f"CPU during the load ({os.cpu_count()} cores, {arguments.seconds:g} s): " + ", ".join(
            f"{name} {used:.0f} s ({used / arguments.seconds:.2f} cores)" for name, used in cpu_used.items())]
        figures["cpu_seconds"] = cpu_used
        api_alive = api.poll() is None
        driver = connect(settings)
        try:
            after = fingerprint(driver)
        finally:
            driver.close()
        lines += ["", f"API process restarted: {'no' if api_alive else 'it DIED'} (pid {api.pid}).",
                  f"Graph before: {before.describe()}", f"Graph after:  {after.describe()}",
                  "Nothing lost." if after == before else "DIFFERENT AFTER THE RUN."]
        figures.update({"graph_before": before.__dict__, "graph_after": after.__dict__, "unchanged": after == before,
                        "api_survived": api_alive, "clients": arguments.clients, "seconds": arguments.seconds})
        print("\n".join(lines), flush=True)
        if arguments.json:
            Path(arguments.json).write_text(json.dumps(figures, indent=2, default=str) + "\n", encoding="utf-8")
        return 0 if after == before and api_alive else 1
    finally:
        if api is not None:
            stop_api(api)
        if started_here and not arguments.keep_server:
            server.stop(settings)


if __name__ == "__main__":
    sys.exit(main())
