"""The driver for one server (`bolt://`) and for a cluster or Aura (`neo4j://`): which URIs are
taken, that reads are read transactions and that every session shares the process's bookmarks."""

from __future__ import annotations

import pytest
from neo4j import Driver

from incident_graph.config import Settings
from incident_graph.graph.connection import connect, open_driver
from incident_graph.graph.errors import GraphError
from incident_graph.graph.read_transaction import run_read
from incident_graph.graph.writes import write_case

from .test_writes import sample_case

# Every scheme of the driver: whether it routes, and whether it speaks TLS.
SCHEMES = {
    "bolt": (False, False), "bolt+s": (False, True), "bolt+ssc": (False, True),
    "neo4j": (True, False), "neo4j+s": (True, True), "neo4j+ssc": (True, True),
}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_scheme_of_the_driver_is_taken_from_the_environment(scheme, monkeypatch):
    monkeypatch.setenv("NEO4J_URI", f"{scheme}://abcd1234.databases.neo4j.io")
    settings = Settings.from_env()
    assert settings.uri == f"{scheme}://abcd1234.databases.neo4j.io"
    assert (settings.host, settings.bolt_port) == ("abcd1234.databases.neo4j.io", 7687)
    driver = open_driver(settings)  # no connection is made until the driver is used
    try:
        routes, encrypted = SCHEMES[scheme]
        assert (type(driver).__name__ == "Neo4jDriver") is routes
        assert driver.encrypted is encrypted
    finally:
        driver.close()


@pytest.fixture(scope="module")
def routing_driver(routing_settings: Settings, driver: Driver):
    """The test server through `neo4j://` (the `driver` fixture has installed the schema)."""
    routed = connect(routing_settings)
    yield routed
    routed.close()


def test_a_routing_uri_reaches_the_server_for_reads_and_writes(routing_driver, empty_graph):
    assert type(routing_driver).__name__ == "Neo4jDriver"
    assert write_case(routing_driver, sample_case()).action == "added"
    rows = run_read(routing_driver, "MATCH (c:Case {case_id: $id}) RETURN c.title AS title", {"id": "sample-sdc"}, 10.0)
    assert rows == [{"title": "A GPU corrupts training"}]


@pytest.mark.parametrize("through", ["bolt", "neo4j"])
def test_a_read_is_a_read_transaction_which_neo4j_keeps_from_writing(through, driver, routing_driver, empty_graph):
    # What a cluster sends to a follower must not write: Neo4j enforces the access mode on one
    # server too, so a write slipped into the API's read path fails here.
    reader = routing_driver if through == "neo4j" else driver
    with pytest.raises(GraphError, match="AccessMode"):
        run_read(reader, "CREATE (:Case {case_id: $id})", {"id": "written-by-a-read"}, 10.0)
    assert driver.execute_query("MATCH (c:Case) RETURN count(c) AS n").records[0]["n"] == 0


def test_a_write_leaves_its_bookmark_for_the_reads_after_it(routing_driver, empty_graph):
    # On a cluster a read waits for the bookmarks it is given; a write whose bookmark never reached
    # the shared manager would let this process read a follower that has not seen it yet.
    bookmarks = routing_driver.execute_query_bookmark_manager
    before = bookmarks.get_bookmarks()
    write_case(routing_driver, sample_case())
    after_write = bookmarks.get_bookmarks()
    assert after_write and after_write != before
