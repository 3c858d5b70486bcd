"""Fuzzing the way in: generated write-ups of every hostile shape, read, extracted and ingested.

Random bytes, huge lines, deep Markdown nesting, odd Unicode (right-to-left, zero-width, combining,
surrogate-escaped bytes, JSON escapes of unpaired surrogates), and Cypher- and HTML-looking text.
What must hold: nothing raises out of the readers or the extractor; every refusal is a ReadFailure
naming where it came from with a one-line message; a write-up that is read is stored with its text
exactly as read, and every piece of evidence points at its mention in that text.

Shapes that once made extraction super-linear, and still take a second or more, are kept out of the
generators (a fuzzer would spend its budget on them); test_hostile_shapes_extract_in_time holds them
to a time budget instead.
"""

from __future__ import annotations

import io
import json
import os
import signal
import time
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from incident_graph.graph.admin import reset_data
from incident_graph.graph.writes import existing_extracted_names
from incident_graph.ingest.extract import EntityResolver, Extractor
from incident_graph.ingest.ingestion import ingest_writeups
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.ingest.readers import ReadFailure, WriteUp, read_bytes, read_stream, writeup_from_text
from incident_graph.schema.taxonomy import load_taxonomy

SCALE = float(os.environ.get("INCIDENT_GRAPH_FUZZ_SCALE", "1"))
READ_EXAMPLES = int(2000 * SCALE)
EXTRACT_EXAMPLES = int(1000 * SCALE)
INGEST_EXAMPLES = int(200 * SCALE)
FUZZ = dict(deadline=None, derandomize=False, print_blob=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example,
                                   HealthCheck.filter_too_much])
COUNTS: dict[str, int] = {}

HOSTILE = [
    "'}) MATCH (n) DETACH DELETE n //", '"}) DETACH DELETE c RETURN 1 //', "$case_id", "{case_id: 'x'}",
    "` DROP CONSTRAINT constraint_unique_Case_case_id", "CALL db.clearQueryCaches()", "MATCH (n) RETURN n; //",
    "name:*~ OR text:\"x\"^10 AND -(", "\\\\' OR '1'='1", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
    "</textarea><svg onload=alert(1)>", "javascript:alert(1)", "{{7*7}}", "${jndi:ldap://x/a}", "&lt;b&gt;&#x27;",
    "%00%0a", "../../etc/passwd", "title: injected", "id: ../../x", "---", "```", "| a | b |\n|---|---|",
    "\u202eevil\u202c", "\u200b\u200c\u200d\u2060\ufeff", "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd",
    "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645", "Z\u0338\u0321a\u0337l\u0336g\u0335o",
    "\U0001f469\u200d\U0001f4bb\U0001f525", "\U0001d56f\U0001d579", "\u0085\u2028\u2029", "\x0b\x0c\x1c\x1d\x1e",
    "\r", "\t", "\x7f\x1b[31m", "\u00a0\u3000", "\ufffd", "\U0010ffff",
]
VOCABULARY = [
    "DNS", "outage", "expired certificate", "DDoS attack", "load balancer", "BGP", "config push", "GPU", "GPUs",
    "loss spike", "disk full", "memory leak", "caused by", "triggered by", "due to", "not", "no", "possibly",
    "the", "a", "of", "and", "engineers", "at", "Cloudflare", "Amazon Web Services", "Initech Ltd", "'s",
    "engineers at Globex", "database", "failover", "replication lag", "alert", "paged", "rollback", "TLS",
    "handshake failures", "leap second", "regex", "CPU", "thread limit", "power loss", "fibre cut", ".", ",", ":",
]
SECTIONS = ["Symptoms", "Root cause", "Root causes", "Component", "Components", "Contributing factors",
            "Detection", "Remediation", "Lessons", "Impact", "What went wrong", "Timeline", "Summary"]
# Surrogates as Python's surrogateescape makes them from undecodable bytes, and lone ones.
SURROGATES = st.sampled_from(["\udc80", "\udcff", "\udcc3\udca9", "\ud800", "\udfff", "\ud83d"])


def unicode_text(max_size: int = 40):
    return st.text(st.characters(codec="utf-8"), max_size=max_size)


words = st.one_of(st.sampled_from(VOCABULARY), st.sampled_from(VOCABULARY), st.sampled_from(HOSTILE),
                  unicode_text(12))
sentence = st.lists(words, min_size=1, max_size=12).map(" ".join)
heading = st.builds(lambda level, text: "#" * level + " " + text, st.integers(1, 7),
                    st.one_of(st.sampled_from(SECTIONS), sentence))
bold_heading = st.builds(lambda text, colon: f"**{text}**" + (":" if colon else ""), st.sampled_from(SECTIONS),
                         st.booleans())
bullet = st.builds(lambda depth, marker, text: "  " * depth + marker + " " + text, st.integers(0, 30),
                   st.sampled_from(["-", "*", "\u2022", "1.", "12)", "+"]), sentence)
quote = st.builds(lambda depth, text: "> " * depth + text, st.integers(1, 400), sentence)
line = st.one_of(sentence, sentence, bullet, bullet, heading, bold_heading, st.sampled_from(SECTIONS), quote,
                 st.sampled_from(HOSTILE), unicode_text(), st.just(""))
huge_line = st.builds(lambda unit, count: unit * count,
                      # no taxonomy terms: thousands of mentions take seconds (a shape of its own below)
                      st.sampled_from(["x", "word ", "lorem ipsum dolor sit amet. ", "\u00e9", "\u200b", "\U0001f525",
                                       "<b>", "'}) ", "\u05e9 ", "\t"]),
                      st.integers(2_000, 20_000))
front_matter = st.lists(
    st.tuples(st.sampled_from(["title", "id", "date", "source", "organisation", "Organization", " organisation ",
                               "tags", "", "x"]),
              st.one_of(sentence, st.sampled_from(HOSTILE), st.sampled_from(["2024-02-30", "2023-13-01", "2021-06",
                                                                             "1999", "99999", ""]))),
    max_size=6).map(lambda fields: "---\n" + "".join(f"{k}: {v}\n" for k, v in fields) + "---\n")


@st.composite
def markdown(draw) -> str:
    lines = draw(st.lists(line, max_size=30))
    if draw(st.integers(0, 7)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(huge_line))
    if draw(st.integers(0, 5)) == 0:
        depth, item = draw(st.integers(10, 2_000)), draw(st.sampled_from(VOCABULARY))
        lines.append("".join("  " * i + "- " + item + "\n" for i in range(depth // 10)))
        lines.append("> " * depth + item)
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n"]))
    text = newline.join(lines)
    if draw(st.booleans()):
        text = draw(front_matter) + text
    return text


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), unicode_text(),
              st.sampled_from(HOSTILE)),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(unicode_text(8), children, max_size=4)),
    max_leaves=12)
record = st.fixed_dictionaries(
    {},
    optional={"id": st.one_of(sentence, json_values), "title": st.one_of(sentence, json_values),
              "body": st.one_of(markdown(), json_values), "date": st.one_of(st.sampled_from(["2020-01-02", "2020-02-30",
                                                                                           "2020"]), json_values),
              "organisation": st.one_of(st.sampled_from(VOCABULARY), json_values), "source": json_values,
              "sections": st.one_of(st.dictionaries(st.sampled_from(SECTIONS), st.one_of(
                  sentence, st.lists(sentence, max_size=5), json_values), max_size=4), json_values)})


@st.composite
def json_document(draw) -> bytes:
    records = draw(st.lists(record, min_size=1, max_size=4))
    if draw(st.booleans()):  # JSON escapes of surrogates: valid JSON, not valid Unicode
        records[0]["body"] = str(records[0].get("body", "")) + draw(SURROGATES)
    ascii_only = draw(st.booleans())
    shape = draw(st.sampled_from(["object", "array", "lines"]))
    if shape == "object":
        text = json.dumps(records[0], ensure_ascii=ascii_only)
    elif shape == "array":
        text = json.dumps(records, ensure_ascii=ascii_only)
    else:
        text = "\n".join(json.dumps(r, ensure_ascii=ascii_only) for r in records)
    if draw(st.integers(0, 5)) == 0:  # a cut-off, a nesting bomb or an endless number
        text = draw(st.sampled_from([text[: len(text) // 2], "[" * draw(st.integers(500, 200_000)),
                                     '{"a": ' * 5_000, "1" * 5_000, text + "\n{", '{"title": "t", "body": "b", '
                                     '"date": ' + "9" * 4_400 + "}"]))
    return text.encode("utf-8", "surrogatepass")


@st.composite
def encoded(draw, documents) -> bytes:
    text = draw(documents)
    if draw(st.integers(0, 3)) == 0:
        position = draw(st.integers(0, len(text)))
        text = text[:position] + draw(SURROGATES) + text[position:]
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"]))
    if not encoding.startswith("utf-8"):
        return text.encode(encoding, "replace")
    try:  # surrogateescape turns \udc80-\udcff back into the bytes they stood for
        return text.encode(encoding, draw(st.sampled_from(["surrogateescape", "surrogatepass"])))
    except UnicodeEncodeError:
        return text.encode(encoding, "surrogatepass")  # anything else: the (invalid) UTF-8 of a surrogate


raw_input = st.one_of(st.binary(max_size=4096), encoded(markdown()), encoded(markdown()), json_document())
suffixes = st.sampled_from([".md", ".md", ".txt", ".json", ".jsonl", ".ndjson", ".markdown"])
# For extraction, JSON goes to JSON readers: a nesting bomb read as Markdown is the nested-brackets shape.
documents = st.one_of(st.tuples(encoded(markdown()), st.sampled_from([".md", ".txt", ".markdown"])),
                      st.tuples(encoded(markdown()), st.sampled_from([".md", ".txt"])),
                      st.tuples(json_document(), st.sampled_from([".json", ".jsonl", ".ndjson"])))


def expected_text(raw: bytes) -> str:
    return raw.decode("utf-8-sig").replace("\r\n", "\n")


def check_read(items: list[WriteUp | ReadFailure], origin: str, raw: bytes, suffix: str) -> list[WriteUp]:
    assert items, "every input gives at least one WriteUp or ReadFailure"
    for item in items:
        assert item.origin == origin or item.origin.startswith(origin + "#"), item.origin
        if isinstance(item, ReadFailure):
            assert isinstance(item.message, str) and item.message.strip(), item
            assert "\n" not in item.message and len(item.message) <= 300, item.message
            assert "Traceback" not in item.message
        else:
            assert isinstance(item, WriteUp)
            assert item.case_id and len(item.case_id) <= 80 and item.text.strip()
            item.text.encode("utf-8")  # valid Unicode, storable
            if suffix not in (".json", ".jsonl", ".ndjson"):
                assert item.text == expected_text(raw)  # the text exactly as given
    return [item for item in items if isinstance(item, WriteUp)]


def check_evidence(case, text: str) -> None:
    assert case.text == text
    for mention in case.mentions:
        assert 0 <= mention.start <= mention.end <= len(text), mention
        if mention.method == "metadata" and (mention.start, mention.end, mention.sentence) == (0, 0, ""):
            continue  # a JSON record's organisation field: it is not in the text, so no offsets
        assert text[mention.start:mention.end] == mention.mention, mention
        assert mention.sentence in text


LINE_BREAKS_OTHER_THAN_NEWLINE = set("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def tricky_front_matter(text: str) -> bool:
    """The front-matter shapes where a second parser of the front matter (the extractor had its own
    regex) parts ways with the reader's: both spellings of the key, a value ending in whitespace
    other than space or tab, or a line break other than \\n (str.splitlines breaks there)."""
    from incident_graph.ingest.readers import FRONT_MATTER

    block = FRONT_MATTER.match(text)
    if not block:
        return False
    if LINE_BREAKS_OTHER_THAN_NEWLINE & set(block.group(0)):
        return True
    keys, odd_space = set(), False
    for line in block.group(1).splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() in ("organisation", "organization"):
            keys.add(key.strip().lower())
            odd_space |= value.strip() != value.strip(" \t")
    return len(keys) > 1 or odd_space


@pytest.fixture(scope="module")
def nlp():
    # Linearity of our own code on hostile shapes, and thousands of generated write-ups: on blank
    # English, whose cost is all ours. The trained parse is spaCy's and linear; its speed is
    # measured by benchmarks/extraction_speed.py, not timed here.
    return default_pipeline(model="blank")


@pytest.fixture(scope="module")
def taxonomy():
    return load_taxonomy()


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    if COUNTS:
        print("\nfuzzed: " + ", ".join(f"{name} {count}" for name, count in COUNTS.items()))


def count(name: str) -> None:
    COUNTS[name] = COUNTS.get(name, 0) + 1


EXAMPLE_LIMIT_S = 300.0  # a hang guard, not a speed test: load on a 2-core machine varies


class TooSlow(Exception):
    pass


@contextmanager
def time_limit(seconds: float = EXAMPLE_LIMIT_S):
    """A generated write-up that takes this long is a finding (a super-linear shape), not a hang."""
    def expire(signum, frame):
        raise TooSlow(f"one generated write-up took over {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@settings(max_examples=READ_EXAMPLES, **FUZZ)
@given(raw=raw_input, suffix=suffixes)
def test_readers_never_raise_and_every_failure_names_its_origin(raw, suffix):
    count("read")
    origin = f"fuzz/odd name \u202e{suffix}"
    with time_limit():
        items = list(read_bytes(raw, origin, suffix, "odd-name", max_bytes=200_000))
        streamed = list(read_stream(io.BytesIO(raw), max_bytes=200_000))
    check_read(items, origin, raw, suffix)
    assert all(item.origin.split("#")[0] == "<stdin>" for item in streamed)


def test_extraction_never_raises_and_evidence_points_at_the_mention(nlp, taxonomy):
    # One extractor for all examples, as an ingest has one for a corpus: building it costs 25 times
    # one generated write-up's extraction, and it is the extraction that is fuzzed.
    extractor = Extractor(nlp, taxonomy, EntityResolver(taxonomy))

    @settings(max_examples=EXTRACT_EXAMPLES, **FUZZ)
    @given(document=documents)
    def run(document):
        raw, suffix = document
        count("extract")
        origin = f"fuzz/case{suffix}"
        for writeup in check_read(list(read_bytes(raw, origin, suffix, "case")), origin, raw, suffix):
            with time_limit():
                case = extractor.extract(writeup)
            check_evidence(case, writeup.text)

    run()


def test_fuzzed_write_ups_are_stored_exactly_and_evidence_points_into_the_stored_text(driver, nlp, taxonomy):
    reset_data(driver)
    sequence = iter(range(1_000_000))
    # One extractor for the run, as one ingest has: its resolver learns each example's new entities
    # as the graph does (building one costs as much as 25 examples' extraction).
    extractor = Extractor(nlp, taxonomy, EntityResolver(taxonomy, existing_extracted_names(driver)))

    @settings(max_examples=INGEST_EXAMPLES, **FUZZ)
    @given(document=documents)
    def run(document):
        raw, suffix = document
        count("ingest")
        origin = f"fuzz/{next(sequence)}{suffix}"
        items = list(read_bytes(raw, origin, suffix, origin.split("/")[1].split(".")[0]))
        writeups = check_read(items, origin, raw, suffix)
        with time_limit():
            summary = ingest_writeups(driver, items, extractor)
        written = set(summary.added) | set(summary.updated) | set(summary.skipped)
        first: dict[str, WriteUp] = {}
        for writeup in writeups:
            first.setdefault(writeup.case_id, writeup)
        for case_id, writeup in first.items():
            assert case_id in written, (case_id, [f.message for f in summary.failed])
            # The first write-up of an id is stored; each later one with that id (two JSON records
            # of one title, say) is refused as a duplicate that names where the first came from.
            refusals = [f.message for f in summary.failed if f.case_id == case_id]
            repeats = sum(w.case_id == case_id for w in writeups) - 1
            assert len(refusals) == repeats, refusals
            assert all(m.startswith("duplicate case id") and writeup.origin in m for m in refusals), refusals
            stored = driver.execute_query(
                "MATCH (c:Case {case_id: $id}) OPTIONAL MATCH (c)-[r]->(e) "
                "RETURN c.text AS text, collect(properties(r)) AS evidence", id=case_id).records[0]
            assert stored["text"] == writeup.text
            for evidence in stored["evidence"]:
                if evidence["method"] == "metadata" and (evidence["start"], evidence["end"]) == (0, 0):
                    assert evidence["sentence"] == ""  # a JSON record's organisation: not in the text
                    continue
                assert stored["text"][evidence["start"]:evidence["end"]] == evidence["mention"], evidence

    run()
    # Whatever the write-ups said, the graph is still only what the writer makes.
    labels = {r["label"] for r in driver.execute_query("MATCH (n) UNWIND labels(n) AS label RETURN DISTINCT label").records}
    assert labels <= {"Case", "Symptom", "RootCause", "Component", "ContributingFactor", "Organisation"}
    constraints = driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN count(*) AS n").records[0]["n"]
    assert constraints >= 6


# ------------------------------------------------------------------ shapes that must stay linear


def finishes_within(seconds: float, work) -> bool:
    """Run `work` in a forked child (the pipeline is already loaded); False if it is not done in time."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no cleanup, no pytest, just the work
        os.close(read_end)
        try:
            work()
            os._exit(0)
        except BaseException as error:
            os.write(write_end, f"{type(error).__name__}: {error}"[:2000].encode())
            os._exit(3)
    os.close(write_end)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            with os.fdopen(read_end, "rb") as pipe:
                error = pipe.read().decode(errors="replace")
            assert os.waitstatus_to_exitcode(status) == 0, f"the extraction raised {error}"
            return True
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(read_end)
    return False


BUDGET_S = 4.0  # each shape is 40-300 kB; linear code extracts any of them in about a second
# Most of these were super-linear once: RELIABILITY.md 'Shapes that were slow to extract' names the
# code at fault and has the figures, before and after.
SHAPES = [
    pytest.param("word " * 50_000, id="one-250kB-line-of-words"),
    pytest.param("x" * 250_000, id="one-250kB-token"),
    pytest.param("> " * 100_000 + "deep\n", id="quote-nested-100000-deep"),
    pytest.param("".join("  " * i + "- DNS outage\n" for i in range(300)), id="list-nested-300-deep"),
    pytest.param("\n".join("#" * (1 + i % 6) + " Root cause" for i in range(20_000)), id="twenty-thousand-headings"),
    pytest.param("\u202e\u200b\u05e9\u0645 Z\u0338\u0321a\U0001f525 " * 20_000, id="rtl-zero-width-combining-200kB"),
    pytest.param("# a" + " " * 100_000 + "b\n", id="heading-with-a-long-run-of-spaces"),
    pytest.param("## Root cause\n\n- " + "word " * 20_000 + "\n", id="one-long-bullet-in-an-entity-section"),
    pytest.param("".join(f"## Root cause\n\n- odd thing {i}\n\n" for i in range(3_000)),
                 id="three-thousand-new-entities"),
    pytest.param("## Remediation\n\n" + "- rolled back the config push\n" * 10_000, id="ten-thousand-bullets"),
    pytest.param("'}) MATCH (n) DETACH DELETE n // <script>alert(1)</script> " * 5_000, id="one-300kB-sentence"),
    pytest.param("[" * 20_000 + "]" * 20_000, id="nested-brackets"),
    pytest.param("DNS outage " * 5_000, id="five-thousand-mentions-in-one-sentence"),
    pytest.param("the DNS outage was caused by an expired certificate, " * 2_000, id="cause-cues-in-one-sentence"),
    pytest.param("Initech Ltd and Globex Corp " * 4_000, id="thousands-of-organisation-names"),
    pytest.param("## Root cause\n\n" + "- DNS outage\n" * 4_000, id="known-names-as-entity-bullets"),
]


LINEAR_FACTOR = 8  # a shape may cost this many times ordinary prose of its length, measured in the same run
ORDINARY = "## Root cause\n\nThe cache ran out of memory after a config push, and requests failed.\n\n"


@pytest.mark.parametrize("text", SHAPES)
def test_hostile_shapes_extract_in_time(nlp, taxonomy, text):
    """Compared with ordinary prose of the same length in the same run, not with a fixed time: on a
    slower or busier machine both take longer, and super-linear code still stands out by far."""
    extractor = Extractor(nlp, taxonomy, EntityResolver(taxonomy))
    ordinary = writeup_from_text((ORDINARY * (len(text) // len(ORDINARY) + 1))[:len(text)], "prose.md", "prose")
    started = time.monotonic()
    extractor.extract(ordinary)
    budget = max(BUDGET_S, LINEAR_FACTOR * (time.monotonic() - started))
    writeup = writeup_from_text(text, "shape.md", "shape")
    assert finishes_within(budget, lambda: check_evidence(extractor.extract(writeup), writeup.text)), \
        f"extraction of {len(text):,} characters took over {budget:.1f} s ({LINEAR_FACTOR}x ordinary prose of its length)"


@pytest.mark.parametrize("front", ["organisation: Initech Ltd\norganisation: Globex\n", "Organisation: Globex\n",
                                   "organisation : Globex\n"], ids=["repeated-key", "capitalised-key", "spaced-key"])
def test_front_matter_organisation_evidence_points_at_its_value(nlp, taxonomy, front):
    text = f"---\ntitle: An outage\n{front}---\n\nThe DNS outage.\n\norganisation: Initech Ltd\n"
    writeup = writeup_from_text(text, "org.md", "org")
    case = Extractor(nlp, taxonomy, EntityResolver(taxonomy)).extract(writeup)
    [mention] = [m for m in case.mentions if m.method == "metadata"]
    assert mention.mention == "Globex"
    assert text[mention.start:mention.end] == "Globex"


@pytest.mark.parametrize("front", ["organisation: Globex\norganization: Initech Ltd\n", "organisation: Globex\u00a0\n",
                                   "organisation: Globex\u2028more\n"],
                         ids=["both-spellings", "no-break-space-after", "line-separator-in-value"])
def test_front_matter_organisation_evidence_on_tricky_front_matter(nlp, taxonomy, front):
    """The extractor finds the organisation with the reader's own parser, so on the shapes where a
    second parser used to differ, the evidence still points at exactly the value read."""
    text = f"---\ntitle: An outage\n{front}---\n\nThe DNS outage.\n"
    assert tricky_front_matter(text)
    writeup = writeup_from_text(text, "org.md", "org")
    case = Extractor(nlp, taxonomy, EntityResolver(taxonomy)).extract(writeup)
    [mention] = [m for m in case.mentions if m.method == "metadata"]
    assert mention.mention == writeup.organisation == "Globex"
    assert text[mention.start:mention.end] == "Globex"
    assert mention.sentence == "organisation: Globex"


def test_a_write_up_with_a_10kB_bullet_in_an_entity_section_is_stored(driver, nlp, taxonomy):
    text = "## Symptoms\n\nThe API was down.\n\n## Root cause\n\n- " + "x" * 10_000 + "\n"
    writeup = writeup_from_text(text, "long-bullet.md", "long-bullet")
    summary = ingest_writeups(driver, [writeup], Extractor(nlp, taxonomy, EntityResolver(taxonomy)))
    assert summary.failed == []
    stored = driver.execute_query("MATCH (c:Case {case_id: 'long-bullet'}) RETURN c.text AS text").records
    assert [r["text"] for r in stored] == [text]


# ------------------------------------------------------------------ what fuzzing found, pinned down

FOUND = [
    (b"[" * 100_000, ".json", "malformed JSON: arrays or objects nested too deeply"),
    (b"[" * 100_000, ".jsonl", "malformed JSON: arrays or objects nested too deeply"),
    (b'{"title": "t", "body": "b", "date": ' + b"9" * 5_000 + b"}", ".json", "malformed JSON: Exceeds the limit"),
    (b'{"title": "t", "body": "a DDoS attack \\ud800"}', ".json", "field 'body' holds an unpaired surrogate \\ud800"),
    (b'{"title": "t", "body": "b", "sections": {"Root cause": ["\\udfff"]}}', ".jsonl",
     "field 'sections' holds an unpaired surrogate \\udfff"),
    (b"\xef\xbb\xbf", ".jsonl", "the file is empty"),
    (b"\xef\xbb\xbf \n", ".md", "the file is empty"),
    (b"[]", ".json", "an empty JSON array: no records to read"),
    (b"---\ndate: 2023-02-30\n---\nA DDoS attack.\n", ".md", "field 'date' is '2023-02-30', not a calendar date"),
    (b"---\ndate: " + b"1" * 5_000 + b"\n---\nA DDoS attack.\n", ".md", "field 'date' is '1111111111"),
]


@pytest.mark.parametrize("raw, suffix, message", FOUND, ids=[
    "json-nesting-bomb", "jsonl-nesting-bomb", "5000-digit-number", "surrogate-escape-in-body",
    "surrogate-escape-in-sections", "bom-only-jsonl", "bom-only-markdown", "empty-json-array", "february-30",
    "5000-character-date"])
def test_inputs_found_by_fuzzing_fail_alone_with_a_clear_message(driver, nlp, taxonomy, raw, suffix, message):
    items = list(read_bytes(raw, f"found{suffix}", suffix, "found")) + list(read_bytes(
        b"The DDoS attack took the API down.\n", "good.md", ".md", "good"))
    [failure, good] = items
    assert isinstance(failure, ReadFailure) and failure.message.startswith(message), failure
    assert len(failure.message) < 200
    reset_data(driver)
    summary = ingest_writeups(driver, items, Extractor(nlp, taxonomy, EntityResolver(taxonomy)))
    assert summary.added == ["good"] and [f.origin for f in summary.failed] == [failure.origin]


def test_a_value_the_graph_cannot_take_fails_its_write_up_not_the_batch(driver, nlp, taxonomy, monkeypatch):
    """Any exception from writing one case (not only a Neo4jError) is that case's failure."""
    from incident_graph.graph import writes

    original = writes.case_properties

    def case_properties(case, *args):
        if case.case_id == "bad":
            raise ValueError("day is out of range for month")
        return original(case, *args)

    # Both cases go in one batch; the batch fails, and each case is tried alone.
    monkeypatch.setattr(writes, "case_properties", case_properties)
    reset_data(driver)
    items = [writeup_from_text("A DDoS attack.\n", f"{name}.md", name) for name in ("bad", "good")]
    summary = ingest_writeups(driver, items, Extractor(nlp, taxonomy, EntityResolver(taxonomy)))
    assert summary.added == ["good"]
    assert [(f.case_id, f.message) for f in summary.failed] == [
        ("bad", "not written: ValueError: day is out of range for month")]
