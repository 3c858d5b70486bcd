"""What the extractor finds in short real post-mortem summaries, without gold: coverage per field.

    python -m benchmarks.summary_coverage LIST.md [--model MODEL]

LIST.md is a list of summaries in the form curated collections use, one paragraph each, opening
with a link named by the organisation: "[Cloudflare](https://...). A bad config caused ...".
(The README of github.com/danluu/post-mortems is one; it is not shipped here.) Each entry is read
as its own write-up, exactly as `incident-graph extract` reads a file, and the benchmark prints
the share of entries with: the organisation of the link found, any symptom, root cause,
component, contributing factor and remediation. Coverage is not precision: read a sample of what
was found (`--show N`) before trusting a rise.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.pipeline import build_pipeline, model_of
from incident_graph.ingest.readers import writeup_from_text

ENTRY = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)[.:,]?\s+\S")
FIELDS = ("symptoms", "root_causes", "components", "contributing_factors")


def entries(text: str) -> list[tuple[str, str]]:
    """(organisation, paragraph) for each paragraph that opens with a link."""
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        match = ENTRY.match(paragraph)
        if match:
            found.append((match.group(1), paragraph))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("list", type=Path)
    parser.add_argument("--model", default=None, help="spaCy model (default: the extractor's choice)")
    parser.add_argument("--show", type=int, default=0, help="print what was found in the first N entries")
    args = parser.parse_args()
    summaries = entries(args.list.read_text(encoding="utf-8"))
    extractor = Extractor(build_pipeline(model=args.model))
    counts = dict.fromkeys(("organisation", *FIELDS, "remediation"), 0)
    for number, (organisation, paragraph) in enumerate(summaries, start=1):
        case = extractor.extract(writeup_from_text(paragraph + "\n", f"summary-{number}.md", f"summary-{number}"))
        names = {m.name.lower() for m in case.mentions_of("Organisation")}
        counts["organisation"] += any(organisation.lower() in n or n in organisation.lower() for n in names)
        for field, label in zip(FIELDS, ("Symptom", "RootCause", "Component", "ContributingFactor")):
            counts[field] += bool(case.mentions_of(label))
        counts["remediation"] += bool(case.remediation)
        if number <= args.show:
            print(f"{number}. {paragraph[:160]}")
            for label in ("Organisation", "Symptom", "RootCause", "Component", "ContributingFactor"):
                print(f"   {label}: {sorted({m.name for m in case.mentions_of(label)})}")
    total = max(1, len(summaries))
    print(f"{len(summaries)} summaries, model {model_of(extractor.nlp)}")
    for field, count in counts.items():
        print(f"  {field:22s} {count / total:.2f}  ({count})")


if __name__ == "__main__":
    main()
