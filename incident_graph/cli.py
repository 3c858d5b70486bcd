"""The `incident-graph` command: one CLI for the whole job."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import typer
from rich.console import Console
from rich.table import Table

from incident_graph.config import Settings

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

UriOption = typer.Option(None, "--uri", help="Bolt URI [env NEO4J_URI, default bolt://127.0.0.1:7687].")
UserOption = typer.Option(None, "--user", help="Neo4j user [env NEO4J_USER, default neo4j].")
PasswordOption = typer.Option(None, "--password", help="Neo4j password [env NEO4J_PASSWORD].")


def settings_from(uri: str | None, user: str | None, password: str | None) -> Settings:
    return Settings.from_env(uri=uri, user=user, password=password)


def fail(message: str, code: int = 1) -> typer.Exit:
    errors.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


@contextmanager
def connected(settings: Settings) -> Iterator["object"]:
    from incident_graph.graph.connection import GraphUnavailable, connect

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


# ------------------------------------------------------------------ db


@db_app.command("init")
def db_init(
    uri: Optional[str] = UriOption, user: Optional[str] = UserOption, password: Optional[str] = PasswordOption
) -> None:
    """Install constraints and indexes (safe to run again)."""
    from incident_graph.graph.admin import install_schema

    with connected(settings_from(uri, user, password)) as driver:
        install_schema(driver)
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


def main() -> None:  # pragma: no cover - console script entry
    app()
