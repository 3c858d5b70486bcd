"""Fixtures that give every test a real Neo4j.

Which server, in this order: NEO4J_URI set, then that one; a Docker daemon answers, then
testcontainers' Neo4j module; otherwise the managed local server (incident-graph neo4j start)
on its own port and state folder, stopped again when the session ends.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterator

import pytest
from neo4j import Driver

from incident_graph.config import Settings
from incident_graph.graph import server
from incident_graph.graph.admin import install_constraints_and_indexes, reset_data
from incident_graph.graph.connection import bind_neomodel, connect
from incident_graph.schema.records import ExtractedCase
from incident_graph.schema.taxonomy import Concept

REPO = Path(__file__).resolve().parent.parent
TEST_PASSWORD = "incident-graph-tests"
TEST_PORT = int(os.environ.get("INCIDENT_GRAPH_TEST_PORT", "17687"))


def docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def neo4j_settings() -> Iterator[Settings]:
    if os.environ.get("NEO4J_URI"):
        yield Settings.from_env()
        return
    if docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer("neo4j:5.26-community", password=TEST_PASSWORD) as container:
            yield Settings.from_env(
                uri=container.get_connection_url(), user="neo4j", password=TEST_PASSWORD
            )
        return
    settings = Settings.from_env(
        uri=f"bolt://127.0.0.1:{TEST_PORT}",
        user="neo4j",
        password=TEST_PASSWORD,
        state_dir=Path(os.environ.get("INCIDENT_GRAPH_STATE_DIR", REPO / ".incident-graph")),
        heap="768m",
        pagecache="256m",
    )
    started_here = server.read_pid(server.layout_for(settings)) is None
    server.start(settings)
    yield settings
    if started_here:
        server.stop(settings)


@pytest.fixture(scope="session")
def routing_settings(neo4j_settings: Settings) -> Settings:
    """The same server through the routing driver (`neo4j://`), the way a cluster or Aura is
    reached: a single Neo4j 5 answers the routing protocol, naming itself writer and reader."""
    scheme, address = neo4j_settings.uri.split("://", 1)
    return dataclasses.replace(neo4j_settings, uri=f"neo4j{scheme.removeprefix('bolt').removeprefix('neo4j')}://{address}")


@pytest.fixture(scope="session")
def driver(neo4j_settings: Settings) -> Iterator[Driver]:
    driver = connect(neo4j_settings)
    install_constraints_and_indexes(driver)
    yield driver
    driver.close()


@pytest.fixture
def empty_graph(driver: Driver) -> Driver:
    """A graph with the schema and no data, for tests that write; neomodel's classes on this driver
    (an earlier test's Graph client may have bound them to its own, since closed)."""
    reset_data(driver)
    bind_neomodel(driver)
    return driver


@dataclasses.dataclass(frozen=True)
class ParsedCorpus:
    """The bundled corpus read, parsed and named on an empty graph, as `incident-graph ingest` does."""

    concepts: tuple[Concept, ...]
    cases: tuple[ExtractedCase, ...]


@pytest.fixture(scope="session")
def parsed_corpus(driver: Driver) -> ParsedCorpus:
    """Parsed once per session: parsing is most of an ingest's minute, and eight modules need the
    corpus graph. tests/ingest/test_ingestion.py checks that writing it gives what ingest gives."""
    from incident_graph.ingest.corpus import bundled_corpus_dir
    from incident_graph.ingest.ingestion import InProcessParser, ParseFailure, named, new_extractor
    from incident_graph.ingest.readers import ReadFailure, read_paths

    reset_data(driver)
    writeups = list(read_paths([bundled_corpus_dir()]))
    assert [item for item in writeups if isinstance(item, ReadFailure)] == []
    extractor = new_extractor(driver)
    cases = list(named(extractor.resolver, InProcessParser(extractor).parse(writeups)))
    assert [case for case in cases if isinstance(case, ParseFailure)] == []
    return ParsedCorpus(tuple(extractor.resolver.taxonomy.concepts), tuple(cases))


def write_parsed_corpus(driver: Driver, corpus: ParsedCorpus) -> None:
    """Into an empty graph, through the writes ingest makes: the taxonomy, then ingest's BatchWriter."""
    from incident_graph.graph.writes import sync_taxonomy
    from incident_graph.ingest.ingestion import BatchWriter, IngestSummary

    sync_taxonomy(driver, corpus.concepts)
    summary = IngestSummary()
    writer = BatchWriter(driver, summary, progress=lambda origin: None)
    for case in corpus.cases:
        writer.add(case)
    writer.flush()
    assert summary.failed == [] and len(summary.added) == len(corpus.cases)


@pytest.fixture(scope="module")
def corpus_graph(driver: Driver, parsed_corpus: ParsedCorpus) -> Driver:
    """The bundled corpus graph, written afresh for each test module (some modules change it)."""
    reset_data(driver)
    write_parsed_corpus(driver, parsed_corpus)
    bind_neomodel(driver)
    return driver
