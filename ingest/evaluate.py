"""Precision, recall and F1 of extraction against the gold annotations, scored the relaxed way.

Gold files (ingest/corpus/gold/<id>.json) list, per entity type, concepts: each a list of
acceptable forms (or, in the older files, one name). An extracted entity is what
`extract --format json` prints: one item per entity, with its canonical name and its mention.
A gold concept is found when an item of the same type in the same write-up matches one of its
forms (ingest/relaxed_match.py); an item is correct when it matches any gold concept of its type.
These are the figures ../shared/eval/relaxed_score.py prints for the same output.

Each gold file has a split, reported apart:
- `train`: the taxonomy, the patterns and the entity classifier may be fitted on it;
- `tune-new`: write-ups on incident kinds the first corpus did not cover; the entity classifier is
  fitted on it too (its settings chosen out of fold, ingest/train_classifier.py);
- `dev`: the first held-out write-ups;
- `dev-new`: new-topic write-ups frozen before any tuning (by a hash of the id): never tuned on;
- `holdout`: write-ups added after dev-new had been looked at, by writers who never saw the
  extractor's output (and of the corpus only three examples of its format), scored once when
  they were added: never tuned on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from incident_graph.ingest.corpus import SPLITS
from incident_graph.ingest.extract import Extractor, as_json
from incident_graph.ingest.readers import WriteUp, read_paths
from incident_graph.ingest.relaxed_match import Score, concept_forms, matched, words
from incident_graph.schema.entity_types import ENTITY_TYPES

MAX_ERRORS_PER_SPLIT = 40  # misses and extras kept for --errors


@dataclass
class SplitReport:
    split: str
    documents: int = 0
    by_type: dict[str, Score] = field(default_factory=lambda: {t.key: Score() for t in ENTITY_TYPES})
    errors: list[dict[str, object]] = field(default_factory=list)

    @property
    def overall(self) -> Score:
        total = Score()
        for score in self.by_type.values():
            total.add(score)
        return total

    def as_json(self) -> dict[str, object]:
        return {"split": self.split, "documents": self.documents, "overall": self.overall.as_json(),
                "by_type": {key: score.as_json() for key, score in self.by_type.items()}}


def load_gold(folder: Path) -> list[dict[str, object]]:
    gold = []
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("split") not in SPLITS:
            raise ValueError(f"{path}: field 'split' must be one of {', '.join(SPLITS)}, not {record.get('split')!r}")
        for entity_type in ENTITY_TYPES:
            concepts = record.get(entity_type.key, [])
            if not isinstance(concepts, list) or not all(
                    isinstance(c, str) or (isinstance(c, list) and c and all(isinstance(f, str) for f in c))
                    for c in concepts):
                raise ValueError(f"{path}: field {entity_type.key!r} must list names or lists of forms")
        gold.append(record)
    return gold


def evaluate(extractor: Extractor, cases_dir: Path, gold_dir: Path,
             splits: tuple[str, ...] = SPLITS) -> dict[str, SplitReport]:
    writeups = {w.case_id: w for w in read_paths([cases_dir]) if isinstance(w, WriteUp)}
    reports = {split: SplitReport(split) for split in splits}
    records = [r for r in load_gold(gold_dir) if r["split"] in reports]
    for record in records:
        if str(record["id"]) not in writeups:
            raise ValueError(f"{gold_dir / (str(record['id']) + '.json')}: no write-up with id {record['id']!r} "
                             f"in {cases_dir}")
    chosen = [writeups[str(r["id"])] for r in records]
    for record, case in zip(records, extractor.extract_many(chosen)):
        report = reports[str(record["split"])]
        report.documents += 1
        extracted = as_json(case)
        for entity_type in ENTITY_TYPES:
            items = extracted[entity_type.key]
            surfaces = [[words(str(i["name"])), words(str(i["mention"]))] for i in items]  # type: ignore[index]
            raw = record.get(entity_type.key, []) or []
            concepts = [concept_forms(c) for c in raw]  # type: ignore[union-attr]
            found, correct = matched(surfaces, concepts)
            score = Score.of(found, correct)
            report.by_type[entity_type.key].add(score)
            if len(report.errors) < MAX_ERRORS_PER_SPLIT and (score.found < score.gold or score.correct < score.extracted):
                missed = [c if isinstance(c, str) else c[0] for c, hit in zip(raw, found) if not hit]  # type: ignore[arg-type]
                extra = [str(i["mention"]) for i, hit in zip(items, correct) if not hit]  # type: ignore[index]
                report.errors.append({"id": record["id"], "type": entity_type.key, "missed": missed, "extra": extra})
    return reports
