"""Extract-only and extract+write throughput, on the bundled corpus and on a synthetic set.

    python -m benchmarks.ingest_throughput [--synthetic 10000]

Prints documents/s and words/s for each, and the ratio of the two (how much writing to Neo4j
costs on top of extraction). Timings are noisy on a shared 2-core machine: compare the ratios
within one run, not absolute figures across runs.
"""

from __future__ import annotations

import argparse
import random
import re
import time

from benchmarks.common import benchmark_graph

from incident_graph.graph.writes import sync_taxonomy, write_case
from incident_graph.ingest.corpus import bundled_corpus_dir
from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.ingest.readers import WriteUp, read_paths


def corpus() -> list[WriteUp]:
    return [w for w in read_paths([bundled_corpus_dir()]) if isinstance(w, WriteUp)]


def synthetic(count: int, seed: int = 7) -> list[WriteUp]:
    """New write-ups stitched from the corpus's paragraphs: realistic text, unique ids."""
    rng = random.Random(seed)
    paragraphs = [p.strip() for w in corpus() for p in re.split(r"\n\s*\n", w.text)
                  if len(p.split()) > 12 and not p.startswith("---")]
    headings = ["## Symptoms", "## Root cause", "## Component", "## Contributing factor", "## Lessons"]
    writeups = []
    for index in range(count):
        parts = [f"# Synthetic incident {index}"]
        for heading in rng.sample(headings, 3):
            parts += [heading, rng.choice(paragraphs)]
        parts += [rng.choice(paragraphs) for _ in range(2)]
        text = "\n\n".join(parts) + "\n"
        writeups.append(WriteUp(f"synthetic-{index:05d}", f"Synthetic incident {index}", "synthetic", text,
                                None, None, f"synthetic#{index}"))
    return writeups


def words(writeups: list[WriteUp]) -> int:
    return sum(len(w.text.split()) for w in writeups)


def extract_only(extractor: Extractor, writeups: list[WriteUp]) -> tuple[float, list]:
    start = time.perf_counter()
    cases = list(extractor.extract_many(writeups))
    return time.perf_counter() - start, cases


def extract_and_write(extractor: Extractor, driver, writeups: list[WriteUp]) -> float:
    start = time.perf_counter()
    for case in extractor.extract_many(writeups):
        write_case(driver, case)
    return time.perf_counter() - start


def report(name: str, writeups: list[WriteUp], extract_s: float, write_s: float) -> None:
    docs, total_words = len(writeups), words(writeups)
    print(f"{name}: {docs} documents, {total_words} words")
    print(f"  extract only   : {docs / extract_s:9.1f} docs/s  {total_words / extract_s:11.0f} words/s  ({extract_s:.1f} s)")
    print(f"  extract + write: {docs / write_s:9.1f} docs/s  {total_words / write_s:11.0f} words/s  ({write_s:.1f} s)")
    print(f"  ratio extract-only / extract+write throughput: {write_s / extract_s:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthetic", type=int, default=10_000, help="size of the synthetic set")
    args = parser.parse_args()
    extractor = Extractor(default_pipeline())
    sets = [("bundled corpus", corpus()), (f"synthetic set", synthetic(args.synthetic))]
    with benchmark_graph() as (settings, driver):
        sync_taxonomy(driver, extractor.taxonomy.concepts)
        for name, writeups in sets:
            extract_s, _ = extract_only(extractor, writeups)
            write_s = extract_and_write(extractor, driver, writeups)
            report(name, writeups, extract_s, write_s)


if __name__ == "__main__":
    main()
