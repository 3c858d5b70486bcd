"""Precision, recall and F1 of extraction against the hand-made gold annotations.

Gold files (ingest/corpus/gold/<id>.json) are kept apart from the taxonomy; each has a split:
`train` (the taxonomy may be tuned on its wording) or `dev` (held out), reported separately.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from incident_graph.ingest.extract import Extractor, fold
from incident_graph.ingest.readers import WriteUp, read_paths
from incident_graph.schema.entity_types import ENTITY_TYPES

STOP_WORDS = {"a", "an", "the", "of", "in", "on", "for", "to", "and", "or", "by", "with", "at", "from"}


@dataclass
class Score:
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0

    def add(self, predicted: set[str], gold: set[str]) -> None:
        self.true_positives += len(predicted & gold)
        self.false_positives += len(predicted - gold)
        self.false_negatives += len(gold - predicted)

    @property
    def precision(self) -> float:
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else 0.0

    @property
    def recall(self) -> float:
        expected = self.true_positives + self.false_negatives
        return self.true_positives / expected if expected else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_json(self) -> dict[str, float | int]:
        return {"precision": round(self.precision, 3), "recall": round(self.recall, 3), "f1": round(self.f1, 3),
                "tp": self.true_positives, "fp": self.false_positives, "fn": self.false_negatives}


@dataclass
class SplitReport:
    split: str
    documents: int = 0
    by_type: dict[str, Score] = field(default_factory=lambda: {t.key: Score() for t in ENTITY_TYPES})
    # Relaxed: a new entity (not in the taxonomy) also counts when it shares most content words
    # with a gold name the taxonomy does not know either; strict is the headline figure.
    relaxed: Score = field(default_factory=Score)
    # How many gold names the taxonomy knows: a dictionary-based extractor can only name those
    # exactly, so known / total bounds its strict recall.
    gold_known: int = 0
    gold_total: int = 0
    errors: list[dict[str, object]] = field(default_factory=list)

    @property
    def overall(self) -> Score:
        total = Score()
        for score in self.by_type.values():
            total.true_positives += score.true_positives
            total.false_positives += score.false_positives
            total.false_negatives += score.false_negatives
        return total

    def as_json(self) -> dict[str, object]:
        return {"split": self.split, "documents": self.documents,
                "overall": self.overall.as_json(), "overall_relaxed": self.relaxed.as_json(),
                "gold_in_taxonomy": {"known": self.gold_known, "total": self.gold_total,
                                     "share": round(self.gold_known / self.gold_total, 3) if self.gold_total else 0.0},
                "by_type": {key: score.as_json() for key, score in self.by_type.items()}}


def load_gold(folder: Path) -> list[dict[str, object]]:
    gold = []
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("split") not in ("train", "dev"):
            raise ValueError(f"{path}: field 'split' must be 'train' or 'dev'")
        gold.append(record)
    return gold


def evaluate(extractor: Extractor, cases_dir: Path, gold_dir: Path) -> dict[str, SplitReport]:
    writeups = {w.case_id: w for w in read_paths([cases_dir]) if isinstance(w, WriteUp)}
    reports = {"train": SplitReport("train"), "dev": SplitReport("dev")}
    for record in load_gold(gold_dir):
        case_id = str(record["id"])
        if case_id not in writeups:
            raise ValueError(f"{gold_dir / (case_id + '.json')}: no write-up with id {case_id!r} in {cases_dir}")
        report = reports[str(record["split"])]
        report.documents += 1
        case = extractor.extract(writeups[case_id])
        for entity_type in ENTITY_TYPES:
            predicted = {fold(m.name) for m in case.mentions_of(entity_type.label)}
            gold = {fold(str(name)) for name in record.get(entity_type.key, [])}  # type: ignore[union-attr]
            report.by_type[entity_type.key].add(predicted, gold)
            known = {fold(c.name) for c in extractor.taxonomy.of_type(entity_type.label)}
            report.relaxed.add(*relaxed_sets(predicted, gold, known))
            report.gold_known += len(gold & known)
            report.gold_total += len(gold)
            if predicted != gold:
                report.errors.append({"id": case_id, "type": entity_type.key,
                                      "missed": sorted(gold - predicted), "extra": sorted(predicted - gold)})
    return reports


def content_words(name: str) -> set[str]:
    return {word for word in name.split() if word not in STOP_WORDS}


def relaxed_sets(predicted: set[str], gold: set[str], known: set[str]) -> tuple[set[str], set[str]]:
    """Rename each unmatched new-entity prediction to the unknown gold name it overlaps most
    (Jaccard of content words at least 0.5), then score as usual."""
    renamed = set(predicted & gold)
    open_gold = {g for g in gold - predicted if g not in known}
    for name in predicted - gold:
        best = max(open_gold, key=lambda g: jaccard(content_words(name), content_words(g)), default=None)
        if name not in known and best and jaccard(content_words(name), content_words(best)) >= 0.5:
            renamed.add(best)
            open_gold.discard(best)
        else:
            renamed.add(name)
    return renamed, gold


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0
