"""The bundled corpus of incident write-ups and its gold annotations (data, see README.md)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def bundled_corpus_dir() -> Path:
    return Path(str(resources.files("incident_graph.ingest.corpus").joinpath("cases")))


def gold_dir() -> Path:
    return Path(str(resources.files("incident_graph.ingest.corpus").joinpath("gold")))
