"""The pattern files (ingest/patterns/*.toml), read from the installed package."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any


def patterns_file(name: str) -> dict[str, Any]:
    text = resources.files("incident_graph.ingest").joinpath("patterns", name).read_text(encoding="utf-8")
    return tomllib.loads(text)


@lru_cache(maxsize=1)
def section_headings() -> frozenset[str]:
    """Every heading sections.toml knows, lower-cased: "summary of impact", "next steps"."""
    return frozenset(heading.lower() for headings in patterns_file("sections.toml")["sections"].values()
                     for heading in headings)
