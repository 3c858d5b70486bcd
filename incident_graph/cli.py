"""The `incident-graph` command: one CLI for the whole job."""

from __future__ import annotations

import json
import logging
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any, Iterator, Optional

import typer
from rich.console import Console
from rich.progress import ProgressColumn, Task
from rich.table import Table
from rich.text import Text

from incident_graph.config import DEFAULT_CONCURRENT_READS, Settings
from incident_graph.ingest.corpus import DIAGNOSIS_SETS, SPLITS
from incident_graph.ingest.readers import DEFAULT_INCLUDE as DEFAULT_INCLUDE_GLOBS

app = typer.Typer(
    help="Incident Graph: turn incident write-ups into a Neo4j knowledge graph with a GraphQL API.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
neo4j_app = typer.Typer(help="Run a local Neo4j Community server (for machines without Docker).", no_args_is_help=True)
db_app = typer.Typer(help="Set up, inspect and empty the graph database.", no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")

console = Console()
errors = Console(stderr=True)


@app.callback()
def log_to_stderr() -> None:
    # One format for every log line on stderr, the driver's notifications included (without a
    # handler Python prints a bare WARNING message).
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

UriOption = typer.Option(
    None, "--uri", help="Neo4j URI: bolt:// for one server, neo4j:// for a cluster or Aura (routing), +s for TLS "
                        "[env NEO4J_URI, default bolt://127.0.0.1:7687].")
UserOption = typer.Option(None, "--user", help="Neo4j user [env NEO4J_USER, default neo4j].")
PasswordOption = typer.Option(None, "--password", help="Neo4j password [env NEO4J_PASSWORD].")

# The API's options, for `serve` and `up` alike.
HostOption = typer.Option("127.0.0.1", "--host", help="Interface to listen on.")
PortOption = typer.Option(8000, "--port", help="Port to listen on.")
TokenOption = typer.Option(
    None, "--token", envvar="INCIDENT_GRAPH_API_TOKEN", show_envvar=False,
    help="Enable the mutations, for clients sending `Authorization: Bearer <token>` "
         "[env INCIDENT_GRAPH_API_TOKEN; default: read-only].",
)
NoIntrospectionOption = typer.Option(
    False, "--no-introspection", help="Refuse __schema/__type queries (and serve no GraphiQL).")
MaxConcurrentReadsOption = typer.Option(
    DEFAULT_CONCURRENT_READS, "--max-concurrent-reads", min=1, metavar="N",
    help="Requests reading from Neo4j at once; the others wait their turn (up to 60 s).")


class OutputFormat(str, Enum):
    json = "json"  # the stable contract
    table = "table"


def settings_from(uri: str | None, user: str | None, password: str | None) -> Settings:
    return Settings.from_env(uri=uri, user=user, password=password)


def fail(message: str, code: int = 1) -> typer.Exit:
    errors.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


@contextmanager
def connected(settings: Settings) -> Iterator["object"]:
    from incident_graph.graph.connection import connect
    from incident_graph.graph.errors import GraphUnavailable

    try:
        driver = connect(settings)
    except GraphUnavailable as error:
        raise fail(str(error)) from None
    try:
        yield driver
    finally:
        driver.close()


# ------------------------------------------------------------------ neo4j


@neo4j_app.command("start")
def neo4j_start(uri: Optional[str] = UriOption, password: Optional[str] = PasswordOption) -> None:
    """Start Neo4j (resolved from Maven Central on first use) and wait until Bolt answers."""
    from incident_graph.graph import server

    settings = settings_from(uri, None, password)
    try:
        state = server.start(settings, progress=lambda message: errors.print(message, highlight=False))
    except server.ServerError as error:
        raise fail(str(error)) from None
    pid = f" (pid {state.pid})" if state.pid else " (not started by us)"
    console.print(f"Neo4j is up at {state.uri}{pid}", highlight=False)


@neo4j_app.command("stop")
def neo4j_stop(uri: Optional[str] = UriOption) -> None:
    """Stop the Neo4j server that `neo4j start` started."""
    from incident_graph.graph import server

    settings = settings_from(uri, None, None)
    if server.stop(settings):
        console.print(f"Stopped Neo4j on {settings.uri}", highlight=False)
    else:
        console.print(f"No managed Neo4j was running for {settings.uri}", highlight=False)


@neo4j_app.command("status")
def neo4j_status(uri: Optional[str] = UriOption, password: Optional[str] = PasswordOption) -> None:
    """Say whether Neo4j answers, and whether this project started it. Exit code 1 when down."""
    from incident_graph.graph import server

    state = server.status(settings_from(uri, None, password))
    running = "running" if state.running else "not running"
    managed = f", managed, pid {state.pid}" if state.managed else ""
    console.print(f"Neo4j at {state.uri}: {running}{managed}", highlight=False)
    if not state.running:
        raise typer.Exit(1)


# ------------------------------------------------------------------ ingest, extract, eval


PathsArgument = typer.Argument(..., metavar="PATH", help="Files or folders of write-ups (.md, .txt, .json, .jsonl); - for stdin.")
IncludeOption = typer.Option(list(DEFAULT_INCLUDE_GLOBS), "--include", "-i", metavar="GLOB",
                             help="Glob of file names to read inside folders; repeat for several.")
MaxBytesOption = typer.Option(1_000_000, "--max-bytes", metavar="BYTES", help="Refuse write-ups larger than this.")


def read_inputs(paths: list[str], include: list[str], max_bytes: int) -> list["object"]:
    from incident_graph.ingest.readers import read_paths, read_stream

    items: list[object] = []
    files = [Path(p) for p in paths if p != "-"]
    items += list(read_paths(files, tuple(include), max_bytes))
    if "-" in paths:
        items += list(read_stream(max_bytes=max_bytes))
    return items


# Parsing processes of an ingest, for `ingest` and `up` alike (None: ingest/ingestion.py default_workers).
WorkersOption = typer.Option(
    None, "--workers", metavar="N", min=0,
    help="Worker processes that parse write-ups (default: one per core; 0: parse in this process).")


def worker_count(workers: int | None) -> int:
    from incident_graph.ingest.ingestion import default_workers

    return default_workers() if workers is None else workers


class CasesPerSecondColumn(ProgressColumn):
    """The progress bar's rate: cases done per second (rich's estimate over the last 30 s)."""

    def render(self, task: Task) -> Text:
        return Text(f"{task.speed or 0:.1f} cases/s")


@app.command("ingest")
def ingest(
    paths: list[str] = PathsArgument,
    include: list[str] = IncludeOption,
    max_bytes: int = MaxBytesOption,
    workers: Optional[int] = WorkersOption,
    batch_size: int = typer.Option(100, "--batch-size", metavar="CASES", min=1,
                                   help="Cases written per transaction at most."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the failures as JSON to this file."),
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
) -> None:
    """Extract entities from write-ups and write them to the graph, many cases per transaction.

    Re-running on the same write-ups changes nothing; a changed write-up replaces its case's links.
    Exit code 1 when any write-up failed (each failure is printed with its file).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from incident_graph.graph.admin import install_constraints_and_indexes
    from incident_graph.ingest.ingestion import ingest_writeups, write_report

    items = read_inputs(paths, include, max_bytes)
    errors.print(f"extracting with {extraction_model_now()}", highlight=False)
    with connected(settings_from(uri, user, password)) as driver:
        install_constraints_and_indexes(driver)
        columns = (TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), CasesPerSecondColumn(),
                   TimeRemainingColumn(), TextColumn("{task.description}"))
        with Progress(*columns, console=errors, transient=True) as bar:
            task = bar.add_task("", total=len(items))
            summary = ingest_writeups(
                driver, items, workers=worker_count(workers), batch_size=batch_size,
                progress=lambda done, total, origin: bar.update(task, completed=done, description=Path(origin).name),
            )
    for failure in summary.failed:
        errors.print(f"[red]failed[/] {failure.origin}: {failure.message}", highlight=False, soft_wrap=True)
    console.print(
        f"cases: {len(summary.added)} added, {len(summary.updated)} updated, "
        f"{len(summary.skipped)} skipped (unchanged), {len(summary.failed)} failed", highlight=False)
    console.print("entities linked by the cases written: " + ", ".join(f"{label} {count}" for label, count in summary.entities.items()),
                  highlight=False)
    if report:
        write_report(summary, report)
        console.print(f"report written to {report}", highlight=False)
    if not summary.ok:
        raise typer.Exit(1)


@app.command("extract")
def extract(
    paths: list[str] = PathsArgument,
    output_format: OutputFormat = typer.Option(OutputFormat.json, "--format", help="json (the stable contract) or table."),
    include: list[str] = IncludeOption,
    max_bytes: int = MaxBytesOption,
) -> None:
    """Extract entities without a database and print them (a JSON array, one object per write-up)."""
    from incident_graph.ingest.extract import Extractor, as_json
    from incident_graph.ingest.pipeline import default_pipeline, model_of
    from incident_graph.ingest.readers import ReadFailure
    from incident_graph.schema.entity_types import BY_KEY

    extractor = Extractor(default_pipeline())
    errors.print(f"extracting with {model_of(extractor.nlp)}", highlight=False)
    results: list[dict[str, object]] = []
    failed = 0
    for item in read_inputs(paths, include, max_bytes):
        if isinstance(item, ReadFailure):
            failed += 1
            errors.print(f"[red]failed[/] {item.origin}: {item.message}", highlight=False, soft_wrap=True)
            continue
        results.append(as_json(extractor.extract(item)))  # type: ignore[arg-type]
    if output_format is OutputFormat.json:
        typer.echo(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        for result in results:
            rows = [{"type": key, "name": m["name"], "mention": m["mention"], "confidence": m["confidence"]}
                    for key in BY_KEY for m in result[key]]  # type: ignore[union-attr]
            print_table(f"{result['id']}: {result['title']}", ["type", "name", "mention", "confidence"], rows)
    if failed:
        raise typer.Exit(1)


@app.command("eval")
def evaluate_extraction(
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    show_errors: bool = typer.Option(False, "--errors", help="List missed and extra entities (some per split)."),
    models: Optional[list[str]] = typer.Option(
        None, "--model", metavar="MODEL",
        help="Pipeline to score: blank, a spaCy package or a model folder; repeat for several "
             "[default: blank and the trained pipeline the extractor would choose]."),
    splits: Optional[list[str]] = typer.Option(None, "--split", help=f"Only this split ({', '.join(SPLITS)}); repeat for several."),
    cases: Optional[Path] = typer.Option(None, "--cases", help="Write-ups folder [default: the bundled corpus]."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="Gold annotations folder [default: bundled]."),
) -> None:
    """Precision, recall and F1 of extraction on the gold set, per entity type and split, scored the
    relaxed way (a gold concept is found when an extracted name or mention matches one of its forms)."""
    from incident_graph.ingest.corpus import bundled_corpus_dir, gold_dir
    from incident_graph.ingest.evaluate import evaluate
    from incident_graph.ingest.extract import Extractor
    from incident_graph.ingest.pipeline import build_pipeline, model_of
    from incident_graph.ingest.trained_model import BLANK, ModelNotFound, choose_model

    for split in splits or []:
        if split not in SPLITS:
            raise fail(f"--split must be one of {', '.join(SPLITS)}, not {split!r}", code=2)
    try:
        chosen = models or [BLANK, choose_model().location or BLANK]
        pipelines = [build_pipeline(model=model) for model in dict.fromkeys(chosen)]
    except ModelNotFound as error:
        raise fail(str(error), code=2) from None
    results = {}
    for nlp in pipelines:
        results[model_of(nlp)] = evaluate(Extractor(nlp), cases or bundled_corpus_dir(), gold or gold_dir(),
                                          tuple(splits or SPLITS))
    if as_json:
        typer.echo(json.dumps({model: {split: report.as_json() for split, report in reports.items()}
                               for model, reports in results.items()}, indent=2))
        return
    names = list(results)
    first = results[names[0]]
    for split in first:
        rows = []
        for key in [*first[split].by_type, "overall"]:
            row: dict[str, object] = {"type": key}
            for name in names:
                report = results[name][split]
                score = report.overall if key == "overall" else report.by_type[key]
                row[name] = f"P {score.precision:.2f}  R {score.recall:.2f}  F1 {score.f1:.2f}"
            rows.append(row)
        print_table(f"{split}: {first[split].documents} write-ups", ["type", *names], rows)
        if show_errors:
            for error in results[names[-1]][split].errors:
                console.print(f"  {error['id']} {error['type']}: missed {error['missed']} extra {error['extra']}",
                              highlight=False, soft_wrap=True)


@app.command("eval-diagnosis")
def evaluate_diagnosis(
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    sets: Optional[list[str]] = typer.Option(
        None, "--split", help=f"Only this set ({', '.join(DIAGNOSIS_SETS)}); repeat for several."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="Gold annotations folder [default: bundled]."),
    via_names: bool = typer.Option(False, "--via-names", help="Diagnose the symptom names suggestFilters "
                                   "reads in the analyst's words, not the words themselves."),
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
) -> None:
    """Leave-one-out hit@1 and hit@3 of `diagnose` on a graph holding the corpus: each gold case is
    left out and its analyst symptoms diagnosed, beside the constant baseline (the most common causes)."""
    import anyio

    from incident_graph.api.evaluate_diagnosis import evaluate, gold_cases
    from incident_graph.api.query_slots import GraphReader
    from incident_graph.ingest.corpus import gold_dir

    for name in sets or []:
        if name not in DIAGNOSIS_SETS:
            raise fail(f"--split must be one of {', '.join(DIAGNOSIS_SETS)}, not {name!r}", code=2)
    cases = gold_cases(gold or gold_dir(), tuple(sets or DIAGNOSIS_SETS))

    def progress(done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            errors.print(f"diagnosed {done} of {total} cases", highlight=False)

    with connected(settings_from(uri, user, password)) as driver:
        results = anyio.run(evaluate, GraphReader(driver), cases, progress, via_names)  # type: ignore[arg-type]
    if not results:
        raise fail("none of the gold cases is in the graph: ingest the corpus first (incident-graph ingest)")
    if as_json:
        typer.echo(json.dumps({"model": extraction_model_now(), "sets": results}, indent=2))
        return
    rows = []
    for name, figures in results.items():
        row: dict[str, object] = {"set": name, "cases": figures["cases"]}
        for key in ("hit@1", "hit@3", "group_hit@1", "group_hit@3"):
            row[key] = f"{figures[key]:.2f} / {figures['baseline_' + key]:.2f}"
        rows.append(row)
    print_table("diagnosis, leave-one-out (diagnose / constant baseline)", ["set", "cases", "hit@1", "hit@3", "group_hit@1", "group_hit@3"], rows)


@app.command("train-classifier")
def train_classifier(
    output: Optional[Path] = typer.Option(None, "--output", help="Where to write the weights "
                                          "[default: ingest/models/entity_classifier.npz]."),
    cases: Optional[Path] = typer.Option(None, "--cases", help="Write-ups folder [default: the bundled corpus]."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="Gold annotations folder [default: bundled]."),
    folds: int = typer.Option(5, "--folds", min=2, help="Folds for choosing the thresholds out of fold."),
) -> None:
    """Fit the entity classifier on the train and tune-new splits, choosing its thresholds on
    out-of-fold probabilities (each fold scored by weights fitted without it)."""
    from incident_graph.ingest.corpus import bundled_corpus_dir, gold_dir
    from incident_graph.ingest.pipeline import build_pipeline, model_of
    from incident_graph.ingest.train_classifier import train
    from rich.progress import Progress, SpinnerColumn, TextColumn

    nlp = build_pipeline(use_classifier=False)
    if model_of(nlp) == "blank":
        raise fail("the entity classifier needs a trained spaCy pipeline (its parse and vectors); "
                   "install one with `make install` or set INCIDENT_GRAPH_SPACY_MODEL", code=2)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=errors, transient=True) as bar:
        task = bar.add_task("reading the gold write-ups")
        result = train(nlp, cases or bundled_corpus_dir(), gold or gold_dir(), folds=folds, out=output,
                       progress=lambda step: bar.update(task, description=step))
    typer.echo(json.dumps(result, indent=2))


@app.command("up")
def up(
    host: str = HostOption,
    port: int = PortOption,
    external_neo4j: bool = typer.Option(False, "--external-neo4j",
                                        help="Use the Neo4j at --uri (NEO4J_URI) as it is; do not start one."),
    corpus: Optional[list[Path]] = typer.Option(None, "--corpus", metavar="PATH",
                                                help="Write-ups to ingest [default: the bundled corpus]."),
    workers: Optional[int] = WorkersOption,
    token: Optional[str] = TokenOption,
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
    no_introspection: bool = NoIntrospectionOption,
    max_concurrent_reads: int = MaxConcurrentReadsOption,
) -> None:
    """The main job: start Neo4j, install the schema, ingest the corpus, serve the API and page."""
    from incident_graph.api.app import serve
    from incident_graph.graph import server
    from incident_graph.graph.admin import install_constraints_and_indexes
    from incident_graph.ingest.corpus import bundled_corpus_dir
    from incident_graph.ingest.ingestion import ingest_paths

    settings = api_settings(uri, user, password, token)
    if not external_neo4j:
        try:
            server.start(settings, progress=lambda message: errors.print(message, highlight=False))
        except server.ServerError as error:
            raise fail(str(error)) from None
    with connected(settings) as driver:
        install_constraints_and_indexes(driver)
        errors.print("Ingesting the corpus...", highlight=False)
        summary = ingest_paths(driver, corpus or [bundled_corpus_dir()], workers=worker_count(workers))
    for failure in summary.failed:
        errors.print(f"[red]failed[/] {failure.origin}: {failure.message}", highlight=False, soft_wrap=True)
    console.print(f"cases: {len(summary.added)} added, {len(summary.updated)} updated, "
                  f"{len(summary.skipped)} unchanged, {len(summary.failed)} failed", highlight=False)
    console.print(f"Serving the Incident Library on http://{host}:{port}/ (GraphQL at /graphql)", highlight=False)
    serve(settings, host=host, port=port, token=token, introspection=not no_introspection,
          max_concurrent_reads=max_concurrent_reads)


# ------------------------------------------------------------------ db


@db_app.command("init")
def db_init(
    uri: Optional[str] = UriOption, user: Optional[str] = UserOption, password: Optional[str] = PasswordOption
) -> None:
    """Install constraints and indexes (safe to run again)."""
    from incident_graph.graph.admin import install_constraints_and_indexes

    with connected(settings_from(uri, user, password)) as driver:
        install_constraints_and_indexes(driver)
    console.print("Schema installed: constraints and indexes are in place.")


@db_app.command("status")
def db_status(
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
) -> None:
    """Show the server, its constraints and indexes, and node and relationship counts."""
    from incident_graph.graph.admin import graph_status

    settings = settings_from(uri, user, password)
    with connected(settings) as driver:
        status = graph_status(driver, settings.uri)
    if as_json:
        typer.echo(json.dumps(status.as_json(), indent=2))
        return
    console.print(f"Neo4j {status.neo4j_version} ({status.edition}) at {status.uri}", highlight=False)
    print_table("Constraints", ["name", "type", "labels", "properties"], status.constraints)
    print_table("Indexes", ["name", "type", "labels", "properties", "state"], status.indexes)
    print_counts("Nodes", status.nodes)
    print_counts("Relationships", status.relationships)
    print_counts("Cases by extraction model", {name or "(not recorded)": n for name, n in status.extraction_models.items()})
    console.print(f"The extractor would run on: {extraction_model_now()}", highlight=False)


@db_app.command("reset")
def db_reset(
    yes: bool = typer.Option(False, "--yes", help="Confirm: delete every case and entity."),
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
) -> None:
    """Delete all incident data, keep constraints and indexes. Needs --yes."""
    from incident_graph.graph.admin import reset_data

    if not yes:
        raise fail("db reset deletes every case and entity; run it again with --yes to confirm.", code=2)
    with connected(settings_from(uri, user, password)) as driver:
        deleted = reset_data(driver)
    console.print(f"Deleted {deleted} nodes; the schema is kept.")


# ------------------------------------------------------------------ snapshots


class SnapshotFormat(str, Enum):
    jsonl = "jsonl"  # a snapshot `import` loads again
    graphml = "graphml"  # for Gephi, yEd or networkx


@app.command("export")
def export_snapshot(
    path: Path = typer.Argument(..., metavar="PATH", help="The file to write."),
    snapshot_format: SnapshotFormat = typer.Option(SnapshotFormat.jsonl, "--format",
                                                   help="jsonl (a snapshot `import` reads) or graphml."),
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
) -> None:
    """Write every case (text, metadata, links with evidence) and entity to a file, a page at a time.

    JSON Lines is a snapshot that `incident-graph import` loads again; GraphML is for graph tools.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from incident_graph.graph.graphml import graphml_chunks
    from incident_graph.graph.snapshot import HEADER_KIND, count_records, driver_reader, iter_snapshot, record_line

    with connected(settings_from(uri, user, password)) as driver:
        read = driver_reader(driver)
        total = count_records(read)
        columns = (TextColumn("export"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        written = 0
        with Progress(*columns, console=errors, transient=True) as bar, \
                path.open("w", encoding="utf-8") as output:
            task = bar.add_task("", total=total)

            def counted(records: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
                nonlocal written
                for record in records:
                    yield record
                    if record["kind"] != HEADER_KIND:
                        written += 1
                        bar.update(task, completed=written)

            records = counted(iter_snapshot(read))
            chunks = graphml_chunks(records) if snapshot_format is SnapshotFormat.graphml else map(record_line, records)
            for chunk in chunks:
                output.write(chunk)
    console.print(f"exported {written} records ({snapshot_format.value}) to {path}", highlight=False)


@app.command("import")
def import_snapshot(
    path: Path = typer.Argument(..., metavar="PATH", exists=True, dir_okay=False,
                                help="A JSON Lines snapshot written by `incident-graph export`."),
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
) -> None:
    """Load a JSON Lines snapshot into an empty or existing graph, with the same ids and no extraction.

    Loading the same snapshot again changes nothing; a case in both takes the snapshot's version.
    """
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from incident_graph.graph.admin import install_constraints_and_indexes
    from incident_graph.graph.snapshot import SnapshotError
    from incident_graph.graph.snapshot_load import load_snapshot

    columns = (TextColumn("import"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with connected(settings_from(uri, user, password)) as driver, path.open("rb") as source:
        install_constraints_and_indexes(driver)
        with Progress(*columns, console=errors, transient=True) as bar:
            task = bar.add_task("", total=path.stat().st_size)
            lines = (line.decode("utf-8", errors="replace") for line in source)
            try:
                summary = load_snapshot(driver, lines, progress=lambda _: bar.update(task, completed=source.tell()))
            except SnapshotError as error:
                raise fail(f"{path}: {error}") from None
    console.print(f"imported {summary.entities} entities, {summary.cases} cases, {summary.links} links "
                  f"from {path}", highlight=False)


# ------------------------------------------------------------------ api


def api_settings(uri: str | None, user: str | None, password: str | None, token: str | None) -> Settings:
    """The settings of a command that serves the API (serve, up); an empty token is refused, not
    taken for none."""
    if token is not None and not token.strip():
        raise fail("--token is empty; omit it for a read-only server.", code=2)
    return settings_from(uri, user, password)


@app.command("serve")
def serve(
    host: str = HostOption,
    port: int = PortOption,
    token: Optional[str] = TokenOption,
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
    no_introspection: bool = NoIntrospectionOption,
    max_concurrent_reads: int = MaxConcurrentReadsOption,
) -> None:
    """Serve the GraphQL API (GraphiQL at /graphql, health at /healthz)."""
    from incident_graph.api.app import serve as serve_api
    from incident_graph.graph.connection import server_answers

    settings = api_settings(uri, user, password, token)
    if not server_answers(settings):
        # Serve anyway: /healthz reports 503 until Neo4j answers, and queries work once it does.
        errors.print(f"warning: no Neo4j answers at {settings.uri} yet; /healthz will say so.", highlight=False)
    mode = "mutations enabled (bearer token)" if token else "read-only"
    console.print(f"GraphQL API on http://{host}:{port}/graphql ({mode}), Neo4j at {settings.uri}", highlight=False)
    serve_api(settings, host=host, port=port, token=token, introspection=not no_introspection,
              max_concurrent_reads=max_concurrent_reads)


@app.command("mcp")
def mcp(
    uri: Optional[str] = UriOption,
    user: Optional[str] = UserOption,
    password: Optional[str] = PasswordOption,
    max_concurrent_reads: int = MaxConcurrentReadsOption,
) -> None:
    """Serve the graph to an AI assistant as an MCP server over stdio (read-only; `serve` has it at /mcp).

    Stdout carries the protocol only: messages and logs go to stderr.
    """
    import anyio

    from incident_graph.api.mcp_server import build_mcp_server
    from incident_graph.api.query_slots import QuerySlots

    with connected(settings_from(uri, user, password)) as driver:
        server = build_mcp_server(driver, QuerySlots(max_concurrent_reads))
        anyio.run(server.run_stdio_async)


@app.command("export-schema")
def export_schema(
    check: bool = typer.Option(False, "--check", help="Only check: exit 1 when the file is out of date."),
    output: Optional[Path] = typer.Option(None, "--output", help="Where to write [default: schema/schema.graphql]."),
) -> None:
    """Write the GraphQL SDL of the API to schema/schema.graphql."""
    from incident_graph.api.graphql_schema import SDL_PATH, export_sdl, sdl_is_current

    path = output or SDL_PATH
    if check:
        if not sdl_is_current(path):
            raise fail(f"{path} is out of date; run `incident-graph export-schema`.")
        console.print(f"{path} is up to date.", highlight=False)
        return
    console.print(f"Wrote {export_sdl(path)}", highlight=False)


def extraction_model_now() -> str:
    """The spaCy pipeline extraction would use now (the resolution order of ingest/trained_model.py)."""
    from incident_graph.ingest.trained_model import ModelNotFound, choose_model

    try:
        return choose_model().name
    except ModelNotFound as error:
        return f"none: {error}"


def print_table(title: str, columns: list[str], rows: list[dict[str, object]]) -> None:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(", ".join(map(str, v)) if isinstance(v, list) else str(v) for v in (row[c] for c in columns)))
    console.print(table)


def print_counts(title: str, counts: dict[str, int]) -> None:
    table = Table(title=title, title_justify="left")
    table.add_column("name")
    table.add_column("count", justify="right")
    for name, count in counts.items():
        table.add_row(name, str(count))
    console.print(table)


# ------------------------------------------------------------------ docs


def command_table() -> str:
    """The README's table of commands, made from their --help (`make docs` runs cog, which writes it
    into README.md; a test fails when the README's copy is stale)."""

    def rows(command: Any, path: list[str], parent: Any = None) -> Iterator[str]:
        context = command.make_context(path[-1], [], parent=parent, resilient_parsing=True)
        if hasattr(command, "list_commands"):  # a group: its commands, as its --help lists them
            for name in command.list_commands(context):
                yield from rows(command.get_command(context, name), [*path, name], context)
            return
        arguments = [piece for piece in command.collect_usage_pieces(context) if piece != "[OPTIONS]"]
        options = [record[0] for param in command.get_params(context)
                   if param.param_type_name == "option" and param.name != "help"
                   and (record := param.get_help_record(context))]
        what = " ".join((command.help or "").split("\n\n")[0].split())
        cells = [f"`{' '.join([*path, *arguments])}`", "<br>".join(f"`{option}`" for option in options), what]
        yield "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    header = ["| command | options | what it does |", "|---|---|---|"]
    return "\n".join([*header, *rows(typer.main.get_command(app), ["incident-graph"])]) + "\n"
