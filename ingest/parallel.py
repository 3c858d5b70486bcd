"""Parse write-ups with the spaCy pipeline in worker processes, results back in input order.

Two parsers with the same face: `WorkerParser` (worker processes) and `InProcessParser` (this
process, `--workers 0`). Each tells the fingerprint of the pipeline it parses with, so the ingest
can skip a write-up whose input hash is unchanged before anything parses it.

Each worker loads the pipeline once (`default_pipeline()`, a few seconds for a trained one) and
parses chunks of write-ups, each on its own (`Extractor.parse_writeup`). At most `window` chunks are in flight, so
memory stays flat however many write-ups there are, and the consumer (the writer) gets results in
the order it sent them while the workers go on parsing. Naming (EntityResolver.name_case) stays
with the consumer: it depends on the write-ups before.

A worker dies with its parent (PR_SET_PDEATHSIG on Linux), so a killed ingest leaves no worker
behind holding a pipeline in memory.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Iterable, Iterator

from incident_graph.ingest.extract import Extractor, ParsedWriteUp
from incident_graph.ingest.pipeline import fingerprint_of
from incident_graph.ingest.readers import WriteUp

CHUNK_SIZE = 4  # write-ups per task: fewer messages between processes, workers still kept even
# Chunks in flight per worker. The consumer (the writer) stops taking results while it commits a
# batch; with two chunks per worker the workers ran dry during each commit and the corpus's ingest
# took 1.6x its parsing alone. Eight chunks (32 write-ups, a few seconds of parsing) per worker
# cover a commit and keep memory flat.
WINDOW_PER_WORKER = 8
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class ParseFailure:
    """A write-up the pipeline could not parse, and why."""

    writeup: WriteUp
    message: str


Parsed = ParsedWriteUp | ParseFailure

_worker_extractor: Extractor | None = None


def parse_chunk(extractor: Extractor, writeups: list[WriteUp]) -> list[Parsed]:
    """Each write-up parsed on its own (see Extractor.parse_writeup); a bad one fails alone."""
    return [parse_one(extractor, writeup) for writeup in writeups]


def parse_one(extractor: Extractor, writeup: WriteUp) -> Parsed:
    try:
        return extractor.parse_writeup(writeup)
    except Exception as error:  # one broken write-up never stops the rest
        return ParseFailure(writeup, f"extraction failed: {type(error).__name__}: {error}")


def die_with_parent(parent: int) -> None:
    """Ask Linux to kill this process when its parent dies (elsewhere: nothing)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def start_worker(parent: int) -> None:
    global _worker_extractor
    die_with_parent(parent)
    from incident_graph.ingest.pipeline import default_pipeline

    _worker_extractor = Extractor(default_pipeline())


def parse_in_worker(writeups: list[WriteUp]) -> list[Parsed]:
    assert _worker_extractor is not None, "start_worker did not run"
    return parse_chunk(_worker_extractor, writeups)


def chunks(writeups: Iterable[WriteUp], size: int) -> Iterator[list[WriteUp]]:
    chunk: list[WriteUp] = []
    for writeup in writeups:
        chunk.append(writeup)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def worker_fingerprint() -> str:
    assert _worker_extractor is not None, "start_worker did not run"
    return fingerprint_of(_worker_extractor.nlp)


class WorkerParser:
    """Parsing in `workers` processes (spawned on entering, stopped on leaving)."""

    def __init__(self, workers: int, chunk_size: int = CHUNK_SIZE, window: int | None = None) -> None:
        self.workers, self.chunk_size = workers, chunk_size
        self.window = window or WINDOW_PER_WORKER * workers  # chunks parsed or waiting at once
        self.pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> "WorkerParser":
        context = multiprocessing.get_context("spawn")  # a fresh interpreter: no driver, threads or locks copied
        self.pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context, initializer=start_worker,
                                        initargs=(os.getpid(),))
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self.pool is not None
        self.pool.shutdown(wait=True, cancel_futures=True)

    def fingerprint(self) -> str:
        """The workers' pipeline fingerprint (waits for one worker to load the pipeline)."""
        assert self.pool is not None, "use WorkerParser as a context manager"
        return self.pool.submit(worker_fingerprint).result()

    def parse(self, writeups: Iterable[WriteUp]) -> Iterator[Parsed]:
        """Every write-up parsed, in input order, while the consumer works on the earlier ones."""
        assert self.pool is not None, "use WorkerParser as a context manager"
        pending: deque[Future[list[Parsed]]] = deque()
        try:
            for chunk in chunks(writeups, self.chunk_size):
                if len(pending) >= self.window:
                    yield from pending.popleft().result()
                pending.append(self.pool.submit(parse_in_worker, chunk))
            while pending:
                yield from pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


class InProcessParser:
    """The same stream without worker processes (workers=0), with the given extractor's pipeline."""

    def __init__(self, extractor: Extractor, chunk_size: int = CHUNK_SIZE) -> None:
        self.extractor, self.chunk_size = extractor, chunk_size

    def __enter__(self) -> "InProcessParser":
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass

    def fingerprint(self) -> str:
        return fingerprint_of(self.extractor.nlp)

    def parse(self, writeups: Iterable[WriteUp]) -> Iterator[Parsed]:
        for chunk in chunks(writeups, self.chunk_size):
            yield from parse_chunk(self.extractor, chunk)


Parser = WorkerParser | InProcessParser
