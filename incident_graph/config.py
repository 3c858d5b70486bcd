"""Settings read from the environment, with documented defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

DEFAULT_URI = "bolt://127.0.0.1:7687"
DEFAULT_USER = "neo4j"
# Neo4j 5 requires at least 8 characters; change it with NEO4J_PASSWORD.
DEFAULT_PASSWORD = "incident-graph"
DEFAULT_STATE_DIR = ".incident-graph"

# Requests the API lets read from Neo4j at once per process; the others queue (api/query_slots.py).
DEFAULT_CONCURRENT_READS = 4


@dataclass(frozen=True)
class Settings:
    """Where Neo4j is and how to reach it.

    NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD: the server to talk to.
    INCIDENT_GRAPH_STATE_DIR: where the managed Neo4j keeps its jars, data and logs.
    INCIDENT_GRAPH_NEO4J_HEAP, INCIDENT_GRAPH_NEO4J_PAGECACHE: memory of the managed server.
    """

    uri: str = DEFAULT_URI
    user: str = DEFAULT_USER
    password: str = DEFAULT_PASSWORD
    state_dir: Path = field(default_factory=lambda: Path(DEFAULT_STATE_DIR))
    heap: str = "1g"
    pagecache: str = "512m"

    @classmethod
    def from_env(cls, **overrides: object) -> "Settings":
        values: dict[str, object] = {
            "uri": os.environ.get("NEO4J_URI", DEFAULT_URI),
            "user": os.environ.get("NEO4J_USER", DEFAULT_USER),
            "password": os.environ.get("NEO4J_PASSWORD", DEFAULT_PASSWORD),
            "state_dir": Path(os.environ.get("INCIDENT_GRAPH_STATE_DIR", DEFAULT_STATE_DIR)),
            "heap": os.environ.get("INCIDENT_GRAPH_NEO4J_HEAP", "1g"),
            "pagecache": os.environ.get("INCIDENT_GRAPH_NEO4J_PAGECACHE", "512m"),
        }
        values.update({key: value for key, value in overrides.items() if value is not None})
        return cls(**values)  # type: ignore[arg-type]

    @property
    def host(self) -> str:
        return urlparse(self.uri).hostname or "127.0.0.1"

    @property
    def bolt_port(self) -> int:
        return urlparse(self.uri).port or 7687
