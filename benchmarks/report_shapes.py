"""Extraction on the shapes real incident reports take, scored against gold the relaxed way.

    python -m benchmarks.report_shapes [--folder PATH] [--model MODEL] [--errors]

benchmarks/report_shapes/ holds twelve write-ups of public incidents the bundled corpus does not
retell, in three shapes the corpus rarely has: provider RCAs (labelled paragraphs or plain-text
headings), status-page update series (newest first) and one-paragraph curated-list summaries.
They were written and annotated (gold.json, the shape `../shared/eval/relaxed_score.py` reads)
before the extractor was measured on them; README.md names each one's source. Prints P/R/F1 per
entity type and overall, as `incident-graph eval` scores (ingest/relaxed_match.py's score_items).

--folder scores another set laid out the same way (write-ups, gold.json, README.md):
benchmarks/unseen_writeups/ holds sixteen more, written on 2026-12-01 for a measurement before
and after one session's changes; benchmarks/blind_writeups/ sixteen written on 2026-12-08 by
writers who never ran the extractor, in two halves (gold.json's `_halves`): a is read for misses,
b is only ever scored.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from incident_graph.ingest.extract import Extractor, as_json
from incident_graph.ingest.pipeline import build_pipeline, model_of
from incident_graph.ingest.readers import WriteUp, read_paths
from incident_graph.ingest.relaxed_match import Score, concept_forms, score_items, words
from incident_graph.schema.entity_types import ENTITY_TYPES

FOLDER = Path(__file__).resolve().parent / "report_shapes"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=FOLDER,
                        help="write-ups with gold.json (default: benchmarks/report_shapes)")
    parser.add_argument("--model", default=None, help="spaCy model (default: the extractor's choice)")
    parser.add_argument("--errors", action="store_true", help="list missed and extra entities")
    args = parser.parse_args()
    gold = {name: record for name, record in json.loads((args.folder / "gold.json").read_text()).items()
            if not name.startswith("_")}
    writeups = [w for w in read_paths([args.folder]) if isinstance(w, WriteUp) and Path(w.origin).name in gold]
    extractor = Extractor(build_pipeline(model=args.model))
    totals = {entity_type.key: Score() for entity_type in ENTITY_TYPES}
    for writeup, case in zip(writeups, extractor.extract_many(writeups)):
        extracted, record = as_json(case), gold[Path(writeup.origin).name]
        for entity_type in ENTITY_TYPES:
            items = [[words(str(i["name"])), words(str(i["mention"]))] for i in extracted[entity_type.key]]
            concepts = [concept_forms(c) for c in record.get(entity_type.key, [])]
            score = score_items(items, concepts)
            totals[entity_type.key].add(score)
            if args.errors and (score.found < score.gold or score.correct < score.extracted):
                print(f"  {Path(writeup.origin).stem} {entity_type.key}: found {score.found}/{score.gold}, "
                      f"extracted {[i['mention'] for i in extracted[entity_type.key]]}")
    overall = Score()
    print(f"{len(writeups)} write-ups, model {model_of(extractor.nlp)}")
    for key, score in totals.items():
        overall.add(score)
        print(f"  {key:22s} P {score.precision:.2f}  R {score.recall:.2f}  F1 {score.f1:.2f}  "
              f"(extracted {score.extracted}, gold {score.gold})")
    print(f"  {'overall':22s} P {overall.precision:.2f}  R {overall.recall:.2f}  F1 {overall.f1:.2f}")


if __name__ == "__main__":
    main()
