"""The analyst notebooks (notebooks/*.ipynb) run top to bottom against the real Neo4j with the
bundled corpus loaded, in a fresh kernel each, and are stored without outputs."""

from __future__ import annotations

import os
from pathlib import Path

import nbclient
import nbformat
import pytest
from neo4j import Driver

from incident_graph.config import Settings

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
CELL_TIMEOUT_S = 600


def test_there_are_the_three_notebooks() -> None:
    names = [path.name for path in NOTEBOOKS]
    assert len(names) >= 3, names
    for prefix in ("01-", "02-", "03-"):
        assert any(name.startswith(prefix) for name in names), names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_stored_without_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {index} has outputs: clear them before committing"
            assert cell.get("execution_count") is None, f"{path.name} cell {index} has an execution count"
        assert "attachments" not in cell or not cell["attachments"], f"{path.name} cell {index} has attachments"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_runs_top_to_bottom(path: Path, corpus_graph: Driver, neo4j_settings: Settings) -> None:
    notebook = nbformat.read(path, as_version=4)
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.uri,
        "NEO4J_USER": neo4j_settings.user,
        "NEO4J_PASSWORD": neo4j_settings.password,
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    client = nbclient.NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
    )
    client.execute(env=env)  # raises CellExecutionError, with the cell and traceback, on any error

    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code_cells and all(cell.execution_count for cell in code_cells)
    errors = [output for cell in code_cells for output in cell.outputs if output.output_type == "error"]
    assert errors == []
    if "matplotlib" in "".join(cell.source for cell in code_cells):
        images = [output for cell in code_cells for output in cell.outputs if "image/png" in output.get("data", {})]
        assert images, f"{path.name} draws with matplotlib but produced no figure"
