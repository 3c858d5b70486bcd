"""The README's table of commands is the one their --help makes (cog writes it: `make docs`)."""

from __future__ import annotations

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
