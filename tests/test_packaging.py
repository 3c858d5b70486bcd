"""The built wheel holds everything the code loads at run time: installed without the source tree,
the pipeline builds (its pattern files), the taxonomy and corpus load, the page and SDL are there."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from incident_graph.ingest.readers import WriteUp, read_paths
from incident_graph.schema.taxonomy import load_taxonomy

REPO = Path(__file__).resolve().parent.parent

# Runs in a fresh interpreter with only the unpacked wheel (then the environment's dependencies) on
# the path; prints where the package came from and what it could load.
CHECK = """
import json, sys
sys.path.insert(0, sys.argv[1])
import incident_graph
from incident_graph.api.page import STATIC_DIR
from incident_graph.api.graphql_schema import SDL_PATH
from incident_graph.ingest.corpus import bundled_corpus_dir, gold_dir
from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.pipeline import build_pipeline
from incident_graph.ingest.readers import WriteUp, read_paths
from incident_graph.schema.taxonomy import load_taxonomy

writeups = [w for w in read_paths([bundled_corpus_dir()]) if isinstance(w, WriteUp)]
case = Extractor(build_pipeline(use_trained=False)).extract(writeups[0])
print(json.dumps({
    "package": incident_graph.__file__,
    "concepts": len(load_taxonomy().concepts),
    "writeups": len(writeups),
    "gold": len(list(gold_dir().glob("*.json"))),
    "mentions": len(case.mentions),
    "page": (STATIC_DIR / "index.html").is_file(),
    "sdl": SDL_PATH.is_file(),
}))
"""


def test_the_wheel_runs_without_the_source_tree(tmp_path):
    # Built from a copy: setuptools reuses a build/ folder left in the tree, which would hide a
    # file missing from the package data.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".incident-graph", "node_modules", "build", "*.egg-info", "__pycache__", ".hypothesis",
        "artifacts", ".pytest_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
                   check=True, capture_output=True, timeout=600)
    [wheel] = tmp_path.glob("incident_graph-*.whl")
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
        names = set(archive.namelist())
    assert "incident_graph/graph/neo4j-server.pom.xml" in names
    assert not any(name.split("/")[0] in {"graph", "schema", "api", "ingest"} for name in names)

    result = subprocess.run([sys.executable, "-c", CHECK, str(unpacked)], capture_output=True, text=True,
                            timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert loaded["package"].startswith(str(unpacked)), "imported from the source tree, not the wheel"
    corpus = REPO / "ingest" / "corpus"
    in_source = [w for w in read_paths([corpus / "cases"]) if isinstance(w, WriteUp)]
    assert loaded["writeups"] == len(in_source)
    assert loaded["gold"] == len(list((corpus / "gold").glob("*.json")))
    assert loaded["concepts"] == len(load_taxonomy(REPO / "schema" / "taxonomy").concepts)
    assert loaded["mentions"] > 0 and loaded["page"] and loaded["sdl"]
