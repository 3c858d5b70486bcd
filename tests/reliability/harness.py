"""Shared by the reliability tests and benchmarks/kill_ingest.py.

A deterministic corpus generated from the bundled write-ups, a canonical snapshot of the graph
(every node and relationship with its properties, minus the write timestamp), checks that a
partial graph is a consistent part of a complete one, and the `ingest` command run as its own
process so it can be killed.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from neo4j import Driver

from incident_graph.config import Settings
from incident_graph.ingest.corpus import bundled_corpus_dir

REPO = Path(__file__).resolve().parents[2]
INGEST = [sys.executable, "-c", "from incident_graph.cli import app; app()", "ingest"]
HEADINGS = ("Symptoms", "Root cause", "Component", "Contributing factor", "Detection", "Remediation", "Lessons")
LIST_HEADINGS = ("Root cause", "Component", "Contributing factor", "Remediation")
ORGANISATIONS = ("Example Labs", "Amazon Web Services", "Cloudflare", "Initech Ltd", "GitHub", "Globex Corporation")


# ------------------------------------------------------------------ a generated corpus


def corpus_pieces() -> tuple[list[str], list[str]]:
    """Runs of two to four sentences and bullet items from the bundled write-ups."""
    runs: list[str] = []
    bullets: list[str] = []
    for path in sorted(bundled_corpus_dir().glob("*.md")):
        body = re.sub(r"\A---\n.*?\n---\n", "", path.read_text(), flags=re.DOTALL)
        for block in re.split(r"\n\s*\n", body):
            block = block.strip()
            if not block or block.startswith("#"):
                continue
            if block.startswith("- "):
                bullets += [line[2:].strip() for line in block.splitlines() if line.startswith("- ")]
                continue
            sentences = re.split(r"(?<=[.!?])\s+", " ".join(block.split()))
            for start in range(0, len(sentences), 3):
                run = " ".join(sentences[start:start + 3])
                if len(run.split()) >= 8:
                    runs.append(run)
    return runs, bullets


def generate_corpus(folder: Path, count: int, seed: int = 6) -> list[Path]:
    """`count` write-ups, sectioned and free-form, some with an organisation; the same for a seed."""
    rng = random.Random(seed)
    runs, bullets = corpus_pieces()
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        # An explicit source: without one a case's source is its file's path, which differs between folders.
        front = ["---", f"title: Generated incident {index}", f"source: https://example.org/incidents/{index}",
                 f"date: 20{10 + index % 15}-{1 + index % 12:02d}-{1 + index % 28:02d}"]
        if index % 3:
            front.append(f"organisation: {rng.choice(ORGANISATIONS)}")
        blocks = ["\n".join(front + ["---"])]
        if index % 4 == 0:
            blocks += [f"# Generated incident {index}"] + [rng.choice(runs) for _ in range(rng.randint(2, 3))]
        else:
            for heading in sorted(rng.sample(HEADINGS, rng.randint(2, 4)), key=HEADINGS.index):
                blocks.append(f"## {heading}")
                if heading in LIST_HEADINGS and rng.random() < 0.7:
                    blocks.append("\n".join(f"- {item}" for item in rng.sample(bullets, rng.randint(1, 3))))
                else:
                    blocks.append(rng.choice(runs))
        path = folder / f"gen-{index:04d}.md"
        path.write_text("\n\n".join(blocks) + "\n")
        paths.append(path)
    return paths


# ------------------------------------------------------------------ snapshots


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


@dataclass
class Snapshot:
    """Nodes by (labels, key) and relationships by (start, type, end), each with its properties."""

    nodes: dict[tuple[str, str], str] = field(default_factory=dict)
    relationships: dict[tuple[tuple[str, str], str, tuple[str, str]], str] = field(default_factory=dict)

    def cases(self) -> set[str]:
        return {key for labels, key in self.nodes if labels == "Case"}

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for labels, _ in self.nodes:
            counts[labels] = counts.get(labels, 0) + 1
        for _, rel_type, _ in self.relationships:
            counts[rel_type] = counts.get(rel_type, 0) + 1
        return dict(sorted(counts.items()))


def node_key(labels: list[str], props: dict[str, object]) -> tuple[str, str]:
    return ":".join(sorted(labels)), str(props.get("case_id") if "Case" in labels else props.get("name"))


def snapshot(driver: Driver) -> Snapshot:
    # ingested_at differs between runs; case_count is derived from the links (compared whole it
    # would differ on every partial graph), and the tests check it with case_count_drift instead.
    strip = lambda props: {k: v for k, v in props.items() if k not in ("ingested_at", "case_count")}  # noqa: E731
    result = Snapshot()
    for record in driver.execute_query("MATCH (n) RETURN labels(n) AS labels, properties(n) AS props").records:
        key = node_key(record["labels"], record["props"])
        assert key not in result.nodes, f"two nodes with the key {key}"
        result.nodes[key] = canonical(strip(record["props"]))
    query = ("MATCH (a)-[r]->(b) RETURN labels(a) AS al, properties(a) AS ap, type(r) AS type, "
             "labels(b) AS bl, properties(b) AS bp, properties(r) AS props")
    for record in driver.execute_query(query).records:
        key = (node_key(record["al"], record["ap"]), record["type"], node_key(record["bl"], record["bp"]))
        assert key not in result.relationships, f"two relationships {key}"
        result.relationships[key] = canonical(record["props"])
    return result


def differences(actual: Snapshot, expected: Snapshot, limit: int = 10) -> list[str]:
    """What differs, property by property, for the first `limit` nodes or relationships."""
    found = []
    for name, mine, theirs in (("node", actual.nodes, expected.nodes),
                               ("relationship", actual.relationships, expected.relationships)):
        for key in sorted(set(mine) | set(theirs), key=str):
            if mine.get(key) == theirs.get(key):
                continue
            if key not in mine or key not in theirs:
                found.append(f"{name} {key} only in the {'graph' if key in mine else 'clean run'}")
                continue
            got, want = json.loads(mine[key]), json.loads(theirs[key])
            changed = {k: (str(got.get(k))[:300], str(want.get(k))[:300]) for k in set(got) | set(want)
                       if got.get(k) != want.get(k)}
            found.append(f"{name} {key}: (got, clean run) {changed}")
    return found[:limit]


def partial_problems(partial: Snapshot, complete: Snapshot, order: list[str]) -> list[str]:
    """Why `partial` is not a consistent part of `complete` (empty when it is).

    Consistent: every node and relationship it has is in the complete graph with the same
    properties; every case it has carries all of its links; the cases form a prefix of the
    ingest order; and no entity extracted from a write-up is left without a case.
    """
    problems = []
    for key, props in partial.nodes.items():
        if complete.nodes.get(key) != props:
            problems.append(f"node {key} differs from a clean run: {props[:200]}")
    for key, props in partial.relationships.items():
        if complete.relationships.get(key) != props:
            problems.append(f"relationship {key} differs from a clean run")
    cases = partial.cases()
    for key in complete.relationships:
        if key[0][0] == "Case" and key[0][1] in cases and key not in partial.relationships:
            problems.append(f"case {key[0][1]} is missing its link {key[1]} -> {key[2]}")
    for labels, case_id in partial.nodes:
        if labels == "Case" and "content_hash" not in json.loads(partial.nodes[(labels, case_id)]):
            problems.append(f"case {case_id} has no content_hash")
    if cases != set(order[:len(cases)]):
        problems.append(f"the {len(cases)} cases written are not the first {len(cases)} in ingest order")
    taxonomy = {key for key, props in complete.nodes.items()
                if key[0] != "Case" and json.loads(props).get("known") != "extracted"}
    broader = {key for key in complete.relationships if key[1] == "BROADER"}
    for name, whole in (("taxonomy entities", taxonomy), ("BROADER links", broader)):
        present = len(whole & (set(partial.nodes) | set(partial.relationships)))
        if present not in (0, len(whole)):
            problems.append(f"{present} of the {len(whole)} {name}: the taxonomy is half-written")
    # The writer's rule: an extracted entity stays while a case links to it or it is someone's broader.
    linked = {end for (start, rel, end) in partial.relationships if start[0] == "Case" or rel == "BROADER"}
    for key, props in partial.nodes.items():
        if json.loads(props).get("known") == "extracted" and key not in linked:
            problems.append(f"extracted entity {key} has no case")
    return problems


# ------------------------------------------------------------------ the ingest command as a process


def ingest_env(settings: Settings) -> dict[str, str]:
    env = dict(os.environ)
    # The faults are in the write path. Blank English takes the same path through extraction, minus
    # the trained parse, and keeps each run of hundreds of write-ups short.
    env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user, NEO4J_PASSWORD=settings.password,
               PYTHONUNBUFFERED="1", COLUMNS="200", INCIDENT_GRAPH_SPACY_MODEL="blank")
    return env


@dataclass
class IngestRun:
    process: subprocess.Popen
    stdout: Path
    stderr: Path
    started: float

    def wait(self, timeout: float = 600) -> int:
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        """SIGKILL: no handler, no cleanup, no goodbye to Neo4j."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def output(self) -> tuple[str, str]:
        return self.stdout.read_text(errors="replace"), self.stderr.read_text(errors="replace")


def start_ingest(settings: Settings, folder: Path, logs: Path, name: str, report: Path | None = None,
                 options: tuple[str, ...] = ()) -> IngestRun:
    """`ingest` of `folder` as its own process; `options` go on its command line."""
    logs.mkdir(parents=True, exist_ok=True)
    stdout, stderr = logs / f"{name}.out", logs / f"{name}.err"
    command = INGEST + [str(folder), *options] + (["--report", str(report)] if report else [])
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                   env=ingest_env(settings), cwd=REPO)
    return IngestRun(process, stdout, stderr, time.monotonic())


def finished_cleanly(run: IngestRun) -> re.Match:
    """The counts the run printed, once it has exited 0."""
    assert run.wait() == 0, run.output()
    stdout, _ = run.output()
    counts = re.search(r"cases: (\d+) added, (\d+) updated, (\d+) skipped \(unchanged\), (\d+) failed", stdout)
    assert counts, stdout
    return counts


def case_count(driver: Driver) -> int:
    return driver.execute_query("MATCH (c:Case) RETURN count(c) AS n").records[0]["n"]


def wait_for_cases(driver: Driver, run: IngestRun, target: int, timeout: float = 300) -> int:
    """Poll until the graph holds `target` cases (or the process ended); returns the count seen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        count = case_count(driver)
        if count >= target or not run.running:
            return count
        time.sleep(0.02)
    raise TimeoutError(f"the graph did not reach {target} cases in {timeout:.0f} s")


def open_write_transaction(driver: Driver, timeout: float = 10.0) -> bool:
    """Wait until another client holds write locks (a case mid-transaction); False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        records = driver.execute_query(
            "SHOW TRANSACTIONS YIELD currentQuery, activeLockCount "
            "WHERE activeLockCount > 0 AND NOT currentQuery STARTS WITH 'SHOW' RETURN count(*) AS n").records
        if records[0]["n"]:
            return True
        time.sleep(0.002)
    return False


def prefix_of(complete: Snapshot, case_ids: set[str]) -> Snapshot:
    """What a clean run of only these write-ups holds, derived from a clean run of all of them.

    Valid because write-ups are ingested in order and each one's extraction depends only on the
    ones before it: the taxonomy, the given cases, their links and the entities those link to.
    """
    keep_cases = {("Case", case_id) for case_id in case_ids}
    relationships = {key: props for key, props in complete.relationships.items()
                     if key[0] in keep_cases or (key[1] == "BROADER")}
    linked = {end for (start, _, end) in relationships if start in keep_cases}
    nodes = {key: props for key, props in complete.nodes.items()
             if key in keep_cases or key in linked
             or (key[0] != "Case" and json.loads(props).get("known") != "extracted")}
    relationships = {key: props for key, props in relationships.items() if key[0] in nodes and key[2] in nodes}
    return Snapshot(nodes, relationships)


class ResettingProxy:
    """A loopback TCP proxy in front of Neo4j that can reset every open connection at once.

    Models a network blip or a server-side connection reset: both ends get an RST, and the
    driver sees the connection die in the middle of whatever it was doing.
    """

    def __init__(self, host: str, port: int) -> None:
        import selectors
        import threading

        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.waker_r, self.waker_w = socket.socketpair()
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.waker_r, selectors.EVENT_READ, "wake")
        self.peers: dict[socket.socket, socket.socket] = {}
        self.resets_requested = 0
        self.resets = 0
        self.connections_reset = 0
        self.running = True
        self.thread = threading.Thread(target=self.loop, name="resetting-proxy", daemon=True)
        self.thread.start()

    def reset_all(self) -> None:
        self.resets_requested += 1
        self.waker_w.send(b"r")

    def close(self) -> None:
        self.running = False
        self.waker_w.send(b"x")
        self.thread.join(timeout=5)
        for sock in list(self.peers):
            sock.close()
        self.listener.close()

    def drop(self, sock: socket.socket, rst: bool) -> None:
        import struct

        for end in (sock, self.peers.get(sock)):
            if end is None or end not in self.peers:
                continue
            self.peers.pop(end, None)
            self.selector.unregister(end)
            if rst:
                end.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            end.close()

    def loop(self) -> None:
        while self.running:
            for key, _ in self.selector.select(timeout=0.2):
                if key.data == "wake":
                    self.waker_r.recv(64)
                    while self.resets < self.resets_requested:
                        self.resets += 1
                        clients = [s for s in self.peers if s.getsockname()[1] == self.port]
                        self.connections_reset += len(clients)
                        for sock in clients:
                            self.drop(sock, rst=True)
                elif key.data == "accept":
                    try:
                        client, _ = self.listener.accept()
                        upstream = socket.create_connection(self.target, timeout=5)
                    except OSError:
                        continue
                    for end in (client, upstream):
                        end.setblocking(True)
                        end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no Nagle stalls
                    self.peers[client], self.peers[upstream] = upstream, client
                    self.selector.register(client, 1, "pipe")
                    self.selector.register(upstream, 1, "pipe")
                else:
                    sock = key.fileobj
                    if sock not in self.peers:
                        continue
                    try:
                        data = sock.recv(65536)
                        if data:
                            self.peers[sock].sendall(data)
                            continue
                    except OSError:
                        pass
                    self.drop(sock, rst=False)
