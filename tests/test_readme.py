"""The README's table of commands is the one their --help makes (cog writes it: `make docs`), and its
GraphQL examples are valid against the schema."""

from __future__ import annotations

import re
from pathlib import Path

from cogapp import Cog

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_command_table_is_current():
    assert Cog().main(["cog", "--check", str(README)]) == 0, "README.md is stale: run `make docs`"


def test_the_check_notices_a_stale_table(tmp_path):
    stale = tmp_path / "README.md"
    stale.write_text(README.read_text(encoding="utf-8").replace("| `incident-graph db reset` |", "| `db reset` |"),
                     encoding="utf-8")
    assert Cog().main(["cog", "--check", str(stale)]) != 0


def test_every_graphql_example_in_the_readme_is_valid_against_the_schema():
    from graphql import parse, validate

    from incident_graph.api.graphql_schema import build_schema

    blocks = re.findall(r"```graphql\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 3
    schema = build_schema()._schema
    problems = {block.split("\n")[0]: [error.message for error in validate(schema, parse(block))] for block in blocks}
    assert {first: errors for first, errors in problems.items() if errors} == {}
