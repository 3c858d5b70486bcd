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


@pytest.fixture(scope="module")
def corpus_graph(driver: Driver) -> Driver:
    """The bundled corpus, ingested as `incident-graph ingest` would (once per test module)."""
    from incident_graph.ingest.corpus import bundled_corpus_dir
    from incident_graph.ingest.ingestion import ingest_paths

    reset_data(driver)
    summary = ingest_paths(driver, [bundled_corpus_dir()])
    assert summary.failed == []
    return driver
