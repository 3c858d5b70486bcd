"""API latency on a synthetic graph: the GraphQL API over HTTP next to the same Cypher run directly.

    python -m benchmarks.api_latency --cases 100000 [--requests 200] [--uri bolt://...] [--markdown FILE]

1. Loads a synthetic graph of N cases (graph/synthetic.py) into the Neo4j given by --uri/--user/
   --password (or NEO4J_* variables). It refuses a database that already holds cases unless
   --force, because it empties the database again at the end.
2. Serves the API with uvicorn on 127.0.0.1 (a free port) in this process.
3. Warms up (every argument set once, so every Cypher text is planned and cached), then for each
   kind of request (cases with filters, the same with facets, casesSharingRootCause, diagnose)
   cycles through varied arguments and, for every request, measures
   - HTTP: POST /graphql through a keep-alive httpx client, end to end;
   - driver: the exact Cypher statements (and parameters) that request ran, recorded by the app's
     query trace (create_app(trace=...)), replayed one after the other with `driver.execute_query`.
   and prints p50 and p99 of both and their ratio (HTTP / driver).
4. Stops the server and resets the database.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from neo4j import Driver, RoutingControl

from benchmarks.common import FACETS, percentile
from incident_graph.api.app import create_app
from incident_graph.config import Settings
from incident_graph.graph.admin import graph_status, install_constraints_and_indexes, reset_data
from incident_graph.graph.connection import connect
from incident_graph.graph.synthetic import (
    SyntheticShape,
    concept_name,
    group_name,
    write_synthetic_graph,
)
from incident_graph.schema.entity_types import COMPONENT, ORGANISATION, ROOT_CAUSE, SYMPTOM
from tests.network import served


# ------------------------------------------------------------------ recording the API's Cypher


class Recorder:
    """The app's query trace (create_app(trace=...)): the Cypher and parameters of each request."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, query: str, parameters: dict[str, Any]) -> None:
        self.statements.append((query, dict(parameters)))


# ------------------------------------------------------------------ the workload


CASES_FILTERED = """
query($filter: CaseFilter) {
  cases(filter: $filter, first: 20) { totalCount edges { node { id title publishedOn } } }
}"""

CASES_WITH_FACETS = f"""
query($filter: CaseFilter, $first: Int = 20) {{
  cases(filter: $filter, first: $first) {{
    totalCount
    edges {{ node {{ id title publishedOn }} }}
    {FACETS}
  }}
}}"""

SHARING = """
query($symptom: String!) {
  casesSharingRootCause(symptom: $symptom, first: 20) {
    case { id title }
    sharedRootCauses { rootCause { name } connectingCaseCount connectingCases { id } }
  }
}"""

DIAGNOSE = """
query($symptoms: [String!]!) {
  diagnose(symptoms: $symptoms, first: 10) {
    rootCause { name } score supportingCaseCount supportingCases { id title }
  }
}"""


@dataclass
class Kind:
    name: str
    query: str
    variants: list[dict[str, Any]]
    http_ms: list[float] = field(default_factory=list)
    driver_ms: list[float] = field(default_factory=list)
    statements: int = 0


def pick(rng: random.Random, entity_type: Any, shape: SyntheticShape, spread: int) -> str:
    """A concept among the `spread` most linked ones (popularity is Zipf-like by number)."""
    return concept_name(entity_type, rng.randrange(min(spread, shape.of(entity_type).concepts)))


def workload(shape: SyntheticShape, variants: int, seed: int) -> list[Kind]:
    rng = random.Random(seed)
    filters = []
    for number in range(variants):
        # Alternate a broader group (expands to its narrower concepts) and a leaf concept.
        symptom = (group_name(SYMPTOM, number % shape.of(SYMPTOM).groups) if number % 2
                   else pick(rng, SYMPTOM, shape, 40))
        case_filter: dict[str, Any] = {"symptoms": [symptom], "components": [pick(rng, COMPONENT, shape, 30)]}
        if number % 3 == 0:
            case_filter["rootCauses"] = [pick(rng, ROOT_CAUSE, shape, 30)]
        if number % 4 == 0:
            case_filter["publishedFrom"] = "2010-01-01"
        if number % 5 == 0:
            case_filter["organisations"] = [pick(rng, ORGANISATION, shape, 50)]
        filters.append({"filter": case_filter})
    sharing = [{"symptom": pick(rng, SYMPTOM, shape, 60)} for _ in range(variants)]
    diagnose = [{"symptoms": sorted({pick(rng, SYMPTOM, shape, 60) for _ in range(rng.randint(1, 3))})}
                for _ in range(variants)]
    return [
        Kind("cases (filters, page of 20, totalCount)", CASES_FILTERED, filters),
        Kind("cases (same, plus facets)", CASES_WITH_FACETS, filters),
        Kind("casesSharingRootCause (first 20)", SHARING, sharing),
        Kind("diagnose (1-3 symptoms, first 10)", DIAGNOSE, diagnose),
    ]


# ------------------------------------------------------------------ measuring


def run_http(http: httpx.Client, recorder: Recorder, query: str,
             variables: dict[str, Any]) -> tuple[float, list[tuple[str, dict[str, Any]]]]:
    recorder.statements.clear()
    started = time.perf_counter()
    response = http.post("/graphql", json={"query": query, "variables": variables})
    elapsed = (time.perf_counter() - started) * 1000
    body = response.json()
    if response.status_code != 200 or body.get("errors"):
        raise RuntimeError(f"API error: {response.status_code} {body.get('errors')}")
    return elapsed, list(recorder.statements)


def run_direct(driver: Driver, statements: list[tuple[str, dict[str, Any]]]) -> float:
    started = time.perf_counter()
    for query, parameters in statements:
        driver.execute_query(query, parameters, routing_=RoutingControl.READ)
    return (time.perf_counter() - started) * 1000


def warm_up(kinds: list[Kind], http: httpx.Client, recorder: Recorder, passes: int) -> None:
    """Run every argument set first: each distinct Cypher text is planned once (100 ms or more) and
    then served from Neo4j's plan cache, for both paths alike, so neither pays planning when measured."""
    for _ in range(passes):
        for kind in kinds:
            for variables in kind.variants:
                run_http(http, recorder, kind.query, variables)


def measure(kinds: list[Kind], http: httpx.Client, recorder: Recorder, driver: Driver, requests: int) -> None:
    for kind in kinds:
        for number in range(requests):
            variables = kind.variants[number % len(kind.variants)]
            http_ms, statements = run_http(http, recorder, kind.query, variables)
            driver_ms = run_direct(driver, statements)
            kind.http_ms.append(http_ms)
            kind.driver_ms.append(driver_ms)
            kind.statements = max(kind.statements, len(statements))
        print(f"  measured {kind.name}", file=sys.stderr, flush=True)


def report(kinds: list[Kind], cases: int, load_s: float | None, nodes: int, relationships: int, requests: int) -> str:
    lines = [
        f"Synthetic graph: {cases:,} cases, {nodes:,} nodes, {relationships:,} relationships "
        f"({'reused' if load_s is None else f'loaded in {load_s:.0f} s'}). {requests} measured requests per kind "
        "after a warm-up pass over "
        "every argument set; sequential, one client.",
        "",
        "| request | Cypher queries | HTTP p50 ms | HTTP p99 ms | driver p50 ms | driver p99 ms "
        "| ratio p50 | ratio p99 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in kinds:
        http50, http99 = percentile(kind.http_ms, 0.50), percentile(kind.http_ms, 0.99)
        driver50, driver99 = percentile(kind.driver_ms, 0.50), percentile(kind.driver_ms, 0.99)
        lines.append(
            f"| {kind.name} | {kind.statements} | {http50:.1f} | {http99:.1f} | {driver50:.1f} | {driver99:.1f} "
            f"| {http50 / driver50:.2f} | {http99 / driver99:.2f} |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------ main


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000, help="synthetic cases to load (default 100000)")
    parser.add_argument("--requests", type=int, default=200, help="measured requests per kind (default 200)")
    parser.add_argument("--warmup-passes", type=int, default=1,
                        help="unmeasured passes over every argument set first (default 1)")
    parser.add_argument("--variants", type=int, default=40, help="distinct argument sets per kind (default 40)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batch-size", type=int, default=2_000, help="cases per write transaction")
    parser.add_argument("--uri", help="Bolt URI [env NEO4J_URI]")
    parser.add_argument("--user", help="Neo4j user [env NEO4J_USER]")
    parser.add_argument("--password", help="Neo4j password [env NEO4J_PASSWORD]")
    parser.add_argument("--force", action="store_true", help="run even if the database holds cases (they are deleted)")
    parser.add_argument("--reuse", action="store_true",
                        help="measure the graph as it is when it holds exactly --cases cases (a --keep run's)")
    parser.add_argument("--keep", action="store_true", help="leave the graph in place at the end (for --reuse)")
    parser.add_argument("--markdown", help="also write the results table to this file")
    return parser.parse_args()


def load(driver: Driver, shape: SyntheticShape, batch_size: int) -> float:
    """Empty the database and write the synthetic graph; the seconds it took."""
    reset_data(driver)
    started = time.monotonic()
    write_synthetic_graph(driver, shape, batch_size=batch_size, progress=lambda done, total: print(
        f"\r  loading {done:,}/{total:,} cases", end="", file=sys.stderr, flush=True))
    print(file=sys.stderr)
    return time.monotonic() - started


def main() -> int:
    arguments = parse_arguments()
    settings = Settings.from_env(uri=arguments.uri, user=arguments.user, password=arguments.password)
    driver = connect(settings)
    try:
        install_constraints_and_indexes(driver)
        existing = graph_status(driver, settings.uri).nodes.get("Case", 0)
        shape = SyntheticShape(cases=arguments.cases, seed=arguments.seed)
        reused = arguments.reuse and existing == arguments.cases
        if existing and not (arguments.force or reused):
            print(f"{settings.uri} holds {existing} cases; the benchmark deletes all data when it ends. "
                  "Use an empty database, --force, or --reuse with --cases {existing}.", file=sys.stderr)
            return 2
        load_s = None if reused else load(driver, shape, arguments.batch_size)
        status = graph_status(driver, settings.uri)
        try:
            kinds = workload(shape, arguments.variants, arguments.seed)
            recorder = Recorder()
            app = create_app(settings, None, driver=driver, trace=recorder)
            with served(app) as base_url, httpx.Client(base_url=base_url, timeout=120) as http:
                warm_up(kinds, http, recorder, arguments.warmup_passes)
                measure(kinds, http, recorder, driver, arguments.requests)
            table = report(kinds, arguments.cases, load_s, sum(status.nodes.values()),
                           sum(status.relationships.values()), arguments.requests)
            print(table)
            if arguments.markdown:
                with open(arguments.markdown, "w", encoding="utf-8") as output:
                    output.write(table + "\n")
        finally:
            if not arguments.keep:
                print("  resetting the database", file=sys.stderr)
                reset_data(driver)
    finally:
        driver.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
