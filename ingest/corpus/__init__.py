"""The bundled corpus of incident write-ups and its gold annotations (data, see README.md)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

# The splits a gold file's `split` names: the classifier is fitted on the first two, the rest are
# held out (ingest/evaluate.py scores each).
SPLITS = ("train", "tune-new", "dev", "dev-new", "holdout")
FIT_SPLITS = ("train", "tune-new")
# The sets of the diagnosis evaluation (api/evaluate_diagnosis.py): "old" holds the gold files
# without an analyst's symptom text (the first corpus, dev among them), the others are the splits
# of the files with one.
DIAGNOSIS_SETS = ("old", "train", "tune-new", "dev-new", "holdout")


def bundled_corpus_dir() -> Path:
    return Path(str(resources.files("incident_graph.ingest.corpus").joinpath("cases")))


def gold_dir() -> Path:
    return Path(str(resources.files("incident_graph.ingest.corpus").joinpath("gold")))
