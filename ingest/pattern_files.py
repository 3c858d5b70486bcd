"""The pattern files (ingest/patterns/*.toml), read from the installed package."""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any


def patterns_file(name: str) -> dict[str, Any]:
    text = resources.files("incident_graph.ingest").joinpath("patterns", name).read_text(encoding="utf-8")
    return tomllib.loads(text)


def normalise_heading(text: str) -> str:
    """A heading as sections.toml spells it: no Markdown marks or colon, single spaces, lower case."""
    return re.sub(r"\s+", " ", text.strip().strip("*_:#").strip()).lower()


@lru_cache(maxsize=1)
def section_headings() -> frozenset[str]:
    """Every heading sections.toml knows, normalised: "summary of impact", "next steps"."""
    return frozenset(normalise_heading(heading) for headings in patterns_file("sections.toml")["sections"].values()
                     for heading in headings)
