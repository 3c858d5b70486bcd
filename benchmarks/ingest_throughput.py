"""Ingest time against extraction alone, and the write rate of pre-extracted cases.

    python -m benchmarks.ingest_throughput [--synthetic 1000] [--workers 2] [--batch-size 100]
                                           [--write-cases 2000] [--sets corpus,synthetic] [--port 17688]

For the bundled corpus and a synthetic set (stitched from the corpus's paragraphs), in one run:
- extraction alone in this process (`Extractor.extract`, one write-up after the other);
- extraction alone in `--workers` processes (the ingest's parsing stream and naming, no writes;
  includes starting the workers, which load the pipeline);
- the ingest itself (`ingest_writeups`, the same workers, batches of `--batch-size`) into an
  emptied graph; its time over each extraction-alone time.
Then the write rate: the corpus's extracted cases copied under new ids to `--write-cases` cases,
written into an emptied graph in batches of `--batch-size` (`write_cases`), and the first 200 of
them one transaction per case (`write_case`: the same writer with batches of one) for comparison.

Timings are noisy on a shared 2-core machine: compare within one run.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import time
from dataclasses import replace

from benchmarks.common import benchmark_graph

from incident_graph.graph.admin import reset_data
from incident_graph.graph.writes import sync_taxonomy, write_case, write_cases
from incident_graph.ingest.corpus import bundled_corpus_dir
from incident_graph.ingest.extract import EntityResolver, Extractor
from incident_graph.ingest.ingestion import BATCH_SIZE, default_workers, ingest_writeups, named
from incident_graph.ingest.parallel import ParseFailure, WorkerParser
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.ingest.readers import WriteUp, read_paths
from incident_graph.schema.records import ExtractedCase
from incident_graph.schema.taxonomy import load_taxonomy

PER_CASE_COMPARISON = 200  # cases written one transaction each, for the before figure


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


def timed(work) -> tuple[float, object]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def extract_in_workers(writeups: list[WriteUp], workers: int) -> list[ExtractedCase | ParseFailure]:
    """The ingest's extraction without the writes: parsing in worker processes, naming here."""
    with WorkerParser(workers) as parser:
        return list(named(EntityResolver(load_taxonomy()), parser.parse(writeups)))


def compare_ingest(name: str, writeups: list[WriteUp], driver, workers: int, batch_size: int) -> list[ExtractedCase]:
    """Prints the three times for one set; returns the cases extracted in this process."""
    extractor = Extractor(default_pipeline())
    alone_s, cases = timed(lambda: [extractor.extract(w) for w in writeups])
    workers_s, _ = timed(lambda: extract_in_workers(writeups, workers))
    reset_data(driver)
    ingest_s, summary = timed(lambda: ingest_writeups(driver, writeups, workers=workers, batch_size=batch_size))
    docs, total_words = len(writeups), words(writeups)
    print(f"{name}: {docs} documents, {total_words} words; {workers} workers, batches of {batch_size}")
    for label, seconds in (("extract alone, this process", alone_s), (f"extract alone, {workers} workers", workers_s),
                           (f"ingest, {workers} workers", ingest_s)):
        print(f"  {label:30}: {seconds:7.1f} s  {docs / seconds:7.1f} docs/s  {total_words / seconds:8.0f} words/s")
    print(f"  ingest / extract alone (this process): {ingest_s / alone_s:.2f}x;"
          f" ingest / extract alone ({workers} workers): {ingest_s / workers_s:.2f}x;"
          f" {len(summary.added)} added, {len(summary.failed)} failed")
    return cases


def write_rate(driver, cases: list[ExtractedCase], count: int, batch_size: int) -> None:
    copies = [replace(cases[n % len(cases)], case_id=f"copy-{n:06d}") for n in range(count)]
    links = sum(len({(m.type, m.name) for m in case.mentions}) for case in copies)
    taxonomy = load_taxonomy()
    reset_data(driver)
    sync_taxonomy(driver, taxonomy.concepts)
    batched_s, _ = timed(lambda: [write_cases(driver, copies[i:i + batch_size])
                                  for i in range(0, len(copies), batch_size)])
    reset_data(driver)
    sync_taxonomy(driver, taxonomy.concepts)
    single = copies[:PER_CASE_COMPARISON]
    single_s, _ = timed(lambda: [write_case(driver, case) for case in single])
    print(f"write rate of pre-extracted cases ({count} cases, {links} links, from the corpus's extraction):")
    print(f"  batches of {batch_size:<4}        : {count / batched_s:7.1f} cases/s  ({batched_s:.1f} s)")
    print(f"  one transaction per case: {len(single) / single_s:7.1f} cases/s  ({single_s:.1f} s for {len(single)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthetic", type=int, default=1_000, help="size of the synthetic set")
    parser.add_argument("--workers", type=int, default=default_workers(), help="parsing processes (default: cores)")
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE, help="cases per write transaction")
    parser.add_argument("--write-cases", type=int, default=2_000, help="pre-extracted cases for the write rate")
    parser.add_argument("--sets", default="corpus,synthetic", help="which ingest comparisons: corpus, synthetic")
    parser.add_argument("--port", type=int, default=17688, help="port of the benchmark's own managed Neo4j")
    args = parser.parse_args()
    chosen = set(args.sets.split(",")) if args.sets else set()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with benchmark_graph(args.port) as (_, driver):
        corpus_cases = compare_ingest("bundled corpus", corpus(), driver, args.workers, args.batch_size) \
            if "corpus" in chosen else [Extractor(default_pipeline()).extract(w) for w in corpus()]
        if "synthetic" in chosen:
            compare_ingest("synthetic set", synthetic(args.synthetic), driver, args.workers, args.batch_size)
        write_rate(driver, corpus_cases, args.write_cases, args.batch_size)
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
