"""The one place that opens connections to Neo4j: the driver, its sessions, and neomodel on top of it.

Any URI the driver takes works: `bolt://` (one server) or `neo4j://` (routing: a cluster or Aura,
writes to the leader and read transactions to followers and read replicas), each with `+s` (TLS,
verified certificate) or `+ssc` (TLS, self-signed certificate) (SCALING.md).
"""

from __future__ import annotations

from neo4j import WRITE_ACCESS, Driver, GraphDatabase, NotificationDisabledClassification, Session
from neo4j.exceptions import AuthError, ServiceUnavailable

from incident_graph.config import Settings
from incident_graph.graph.errors import GraphUnavailable


def open_driver(settings: Settings, acquisition_timeout: float = 60.0) -> Driver:
    """The driver; its notifications go to the `neo4j.notifications` logger (the CLI formats them)."""
    return GraphDatabase.driver(
        settings.uri,
        auth=(settings.user, settings.password),
        connection_timeout=5.0,
        # Bounds the Bolt handshake too: a port that accepts but never speaks Bolt fails fast.
        connection_acquisition_timeout=acquisition_timeout,
        max_transaction_retry_time=15.0,
        # Our Cypher names only the model's labels and properties; until the first write-up is in,
        # Neo4j does not know them yet and would warn on every query ("property key does not exist").
        notifications_disabled_classifications=[NotificationDisabledClassification.UNRECOGNIZED],
    )


def causal_session(driver: Driver, access_mode: str = WRITE_ACCESS, **config: object) -> Session:
    """A session in the process's causal chain: every session, and `driver.execute_query`, shares
    the driver's bookmark manager, so on a cluster a read transaction sent to a follower waits until
    that follower has every write this process has made or seen (read your own writes, and never
    an older graph than an earlier read). On one server bookmarks cost nothing."""
    return driver.session(default_access_mode=access_mode, bookmark_manager=driver.execute_query_bookmark_manager,
                          **config)  # type: ignore[arg-type]


def connect(settings: Settings) -> Driver:
    """A driver that has proven it can talk to the server, and neomodel bound to it."""
    driver = open_driver(settings)
    try:
        driver.verify_connectivity()
    except AuthError as error:
        driver.close()
        raise GraphUnavailable(
            f"Neo4j at {settings.uri} refused user {settings.user!r}: check NEO4J_USER/NEO4J_PASSWORD."
        ) from error
    except (ServiceUnavailable, OSError) as error:
        driver.close()
        raise GraphUnavailable(
            f"No Neo4j answers at {settings.uri}: start one with `incident-graph neo4j start` "
            "or `docker compose up neo4j`, or set NEO4J_URI."
        ) from error
    bind_neomodel(driver)
    return driver


def bind_neomodel(driver: Driver) -> None:
    from neomodel import db

    db.set_connection(driver=driver)


def server_answers(settings: Settings) -> bool:
    driver = open_driver(settings, acquisition_timeout=3.0)
    try:
        driver.verify_connectivity()
        return True
    except Exception:  # any failure means "not usable by us"
        return False
    finally:
        driver.close()
