"""Extraction speed: the trained pipeline on N processes against blank English on one, in one run.

    python -m benchmarks.extraction_speed [--documents 1000] [--processes 2]

On the same synthetic write-ups (stitched from the corpus's paragraphs, as in ingest_throughput):

1. blank: today's fallback extractor (blank English and the rule components), one process;
2. trained: the extractor on the trained spaCy pipeline, in a pool of --processes worker
   processes, each building its pipeline once (as `ingest` workers do);
3. bare: the trained spaCy pipeline alone (tok2vec, tagger, parser, NER; no component of ours) on
   one process, and the trained extractor on one process: their ratio is what our components cost.

Prints documents/s and words/s of each and the ratios. Timings are noisy on a shared 2-core
machine: read the ratios, which come from one run.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from benchmarks.ingest_throughput import synthetic, words

from incident_graph.ingest.components import make_doc
from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.pipeline import build_pipeline, model_of
from incident_graph.ingest.readers import WriteUp
from incident_graph.ingest.trained_model import BLANK, choose_model, load_trained

_worker_extractor: Extractor | None = None


def start_worker() -> None:
    global _worker_extractor
    _worker_extractor = Extractor(build_pipeline())


def extract_chunk(writeups: list[WriteUp]) -> int:
    assert _worker_extractor is not None
    return sum(len(case.mentions) for case in _worker_extractor.extract_many(writeups))


def timed(function, *args) -> float:
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


def in_pool(writeups: list[WriteUp], processes: int, chunk: int = 20) -> float:
    """Seconds to extract everything in `processes` workers, their start-up (model load) included."""
    chunks = [writeups[i:i + chunk] for i in range(0, len(writeups), chunk)]
    start = time.perf_counter()
    with ProcessPoolExecutor(processes, initializer=start_worker) as pool:
        list(pool.map(extract_chunk, chunks))
    return time.perf_counter() - start


def line(name: str, writeups: list[WriteUp], seconds: float) -> None:
    print(f"  {name:42s} {len(writeups) / seconds:8.1f} docs/s {words(writeups) / seconds:10.0f} words/s "
          f"({seconds:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=1_000)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    writeups = synthetic(args.documents)
    choice = choose_model()
    if choice.is_blank:
        raise SystemExit("no trained spaCy pipeline is installed (make install); nothing to compare")
    print(f"{len(writeups)} synthetic write-ups, {words(writeups)} words; trained pipeline {choice.name}")
    blank = Extractor(build_pipeline(model=BLANK))
    blank_s = timed(lambda: list(blank.extract_many(writeups)))
    line("blank extractor, 1 process", writeups, blank_s)
    trained = Extractor(build_pipeline())
    assert model_of(trained.nlp) == choice.name
    trained_one_s = timed(lambda: list(trained.extract_many(writeups)))
    line("trained extractor, 1 process", writeups, trained_one_s)
    bare = load_trained(choice)
    bare_s = timed(lambda: list(bare.pipe(make_doc(bare, w.text) for w in writeups)))
    line("bare trained spaCy pipeline, 1 process", writeups, bare_s)
    pool_s = in_pool(writeups, args.processes)
    line(f"trained extractor, {args.processes} processes", writeups, pool_s)
    print(f"speed ratio, trained on {args.processes} processes / blank on 1: {blank_s / pool_s:.2f} (goal >= 1.0)")
    print(f"cost of our components, trained extractor / bare pipeline (1 process): {trained_one_s / bare_s:.2f}x "
          "(goal <= 1.5x)")


if __name__ == "__main__":
    main()
