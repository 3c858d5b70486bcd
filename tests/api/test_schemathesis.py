"""A fuzzer from outside: schemathesis generates queries from the published schema and sends them
over HTTP. Refusals carry extensions.code (api/errors.py), which it trusts, so only a real server
error would fail its not_a_server_error check."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from incident_graph.api.app import create_app

from ..network import served

SCHEMATHESIS = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or "schemathesis"


def test_schemathesis_finds_no_server_error(example_graph, neo4j_settings, tmp_path):
    app = create_app(neo4j_settings, None, driver=example_graph)
    with served(app) as base:
        # A fixed seed: the same queries every run, so a failure can be replayed.
        run = subprocess.run([SCHEMATHESIS, "run", f"{base}/graphql", "--checks", "not_a_server_error", "--seed", "14"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", run.stdout)
    assert counts and int(counts[1]) == int(counts[2]) > 100, run.stdout[-3000:]
