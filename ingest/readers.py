"""Read write-ups from files, folders, JSON/JSONL records and standard input.

Every input becomes either a WriteUp or a ReadFailure that names the file (and record) and the
problem; one bad input never stops the others.
"""

from __future__ import annotations

import fnmatch
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Iterable, Iterator

from incident_graph.ingest.pattern_files import normalise_heading, section_headings
from incident_graph.schema.entity_types import ENTITY_TYPES
from incident_graph.schema.records import first_day

MAX_BYTES = 1_000_000
TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text"}
JSON_SUFFIXES = {".json", ".jsonl", ".ndjson"}
DEFAULT_INCLUDE = ("*.md", "*.markdown", "*.txt", "*.text", "*.json", "*.jsonl", "*.ndjson")
# The headings of a JSON record's `sections`, in the order they are composed into its text.
SECTION_ORDER = (*(t.heading for t in ENTITY_TYPES if t.heading), "Detection", "Remediation", "Lessons")
FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*\n", re.DOTALL)
SURROGATE = re.compile("[\ud800-\udfff]")  # only JSON escapes can produce one; it is not valid Unicode


@dataclass(frozen=True)
class WriteUp:
    case_id: str
    title: str
    source: str
    text: str  # the whole write-up as read; evidence offsets point into it
    published: str | None
    organisation: str | None
    origin: str  # where it came from, for messages: a path, path#record, or <stdin>
    # Where the organisation stands in `text` (its front-matter field), for evidence; None when it
    # is not in the text (a JSON record's field).
    organisation_field: FrontMatterField | None = None


@dataclass(frozen=True)
class ReadFailure:
    origin: str
    message: str


def slugify(value: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")
    return slug[:80] or "case"


def parse_date(value: object) -> str | None:
    if value in (None, ""):
        return None
    text = str(value).strip()
    shown = repr(text) if len(text) <= 40 else repr(text[:40]) + f"... ({len(text):,} characters)"
    if not re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", text):
        raise ValueError(f"field 'date' is {shown}; expected YYYY, YYYY-MM or YYYY-MM-DD")
    try:
        first_day(text)  # the graph stores it as a date (Case.published_on)
    except ValueError:
        raise ValueError(f"field 'date' is {shown}, not a calendar date") from None
    return text


# ------------------------------------------------------------------ text and Markdown


@dataclass(frozen=True)
class FrontMatterField:
    value: str  # stripped
    start: int  # where the value is in the text: evidence offsets
    end: int
    line: str  # its line, stripped: the evidence sentence


def front_matter_fields(text: str) -> dict[str, FrontMatterField]:
    """The one metadata parser: a `---` front-matter block, or else the `Key: value` lines right
    under the title that post-mortem templates use (`Organisation: X`, `Date: ...`, `Source: ...`).
    Lines as str.splitlines breaks them, the key before the first colon (stripped, lower case,
    aliases such as `company` or `url` read as `organisation` and `source`), the value stripped;
    the last of a repeated key wins."""
    match = FRONT_MATTER.match(text)
    if match:
        block, offset = match.group(1), match.start(1)
        lines = zip(block.splitlines(keepends=True), block.splitlines())
        return fields_of(lines, offset, lambda key: True)
    start = metadata_block_start(text)
    if start is None:
        return link_entry_fields(text)
    lines = []
    for raw, line in zip(text[start:].splitlines(keepends=True), text[start:].splitlines()):
        if not METADATA_LINE.match(line):
            break
        lines.append((raw, line))
    return fields_of(lines, start, lambda key: key in METADATA_KEYS)


# Metadata lines under a title: known keys only, so a body starting "Impact: ..." is not metadata.
METADATA_KEYS = {"organisation", "organization", "org", "company", "date", "source", "url", "link", "title",
                 "id", "status", "severity", "authors", "author", "owner", "duration", "services", "service",
                 "affected services", "incident date", "published"}
KEY_ALIASES = {"org": "organisation", "company": "organisation", "url": "source", "link": "source",
               "incident date": "date", "published": "date"}
METADATA_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?([A-Za-z][A-Za-z ]{0,20}?)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*\S")
TITLE_LINE = re.compile(r"^#[ \t]+\S")


# A summary as lists of post-mortems write them: "[Cloudflare](https://...). A bad config caused ...".
LINK_ENTRY = re.compile(r"\A\s*\[([^\]\n]{1,60})\]\((https?://[^)\s]+)\)[ \t]*[.:,\u2013\u2014-]?[ \t]+(\S[^\n]*)")
NAME_LABEL = re.compile(r"^[A-Z0-9][\w&.'\u2019/ -]*$")


def link_entry_fields(text: str) -> dict[str, FrontMatterField]:
    """A write-up that opens with a link to its source: the link is the source, its text the
    organisation when it reads as a name (at most four words, capitalised), and the title is
    the name and the first sentence after it."""
    match = LINK_ENTRY.match(text)
    if not match:
        return {}
    label, url, rest = match.group(1).strip(), match.group(2), match.group(3)
    evidence = match.group(0)[: match.end(2) - match.start(0) + 1].strip()
    fields = {"source": FrontMatterField(url, match.start(2), match.end(2), evidence)}
    sentence = re.split(r"(?<=[.!?])\s", rest, maxsplit=1)[0].strip()
    if NAME_LABEL.match(label) and len(label.split()) <= 4:
        fields["organisation"] = FrontMatterField(label, match.start(1), match.start(1) + len(label), evidence)
        title = f"{label}: {sentence}"
    else:
        title = f"{label}. {sentence}"
    fields["title"] = FrontMatterField(title[:120].rstrip(), match.start(1), match.end(3), evidence)
    return fields


def metadata_block_start(text: str) -> int | None:
    """Where `Key: value` lines start under a `# Title` (or at the top), if they do."""
    offset = 0
    seen_title = False
    for raw in text.splitlines(keepends=True)[:4]:
        line = raw.strip()
        if not line:
            offset += len(raw)
            continue
        if TITLE_LINE.match(line) and not seen_title:
            seen_title = True
            offset += len(raw)
            continue
        match = METADATA_LINE.match(raw)
        if match and match.group(1).strip().lower() in METADATA_KEYS:
            return offset
        return None
    return None


def fields_of(lines: Iterable[tuple[str, str]], offset: int, accept: Callable[[str], bool]) -> dict[str, FrontMatterField]:
    fields: dict[str, FrontMatterField] = {}
    for raw, line in lines:
        key, sep, value = line.partition(":")
        name = key.strip().strip("-* \t").strip("*").strip().lower()
        if sep and name and accept(name):
            value_offset = offset + len(key) + len(sep)
            shown = value.lstrip("*")  # "**Date:** 2021-01-01" leaves the closing bold after the colon
            value_offset += len(value) - len(shown)
            start = value_offset + len(shown) - len(shown.lstrip())
            stripped = shown.strip()
            fields[KEY_ALIASES.get(name, name)] = FrontMatterField(stripped, start, start + len(stripped), line.strip())
        offset += len(raw)
    return fields


def organisation_field(fields: dict[str, FrontMatterField]) -> FrontMatterField | None:
    """The organisation: either spelling, organisation first; an empty value counts as none."""
    for key in ("organisation", "organization"):
        field = fields.get(key)
        if field is not None and field.value:
            return field
    return None


def first_heading(text: str) -> str | None:
    match = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else None


def first_line(text: str) -> str:
    body = FRONT_MATTER.sub("", text, count=1)
    for line in body.splitlines():
        if line.strip():
            return line.strip().lstrip("#").strip()[:120]
    return ""


def writeup_from_text(text: str, origin: str, default_id: str) -> WriteUp:
    if not text.strip():
        raise ValueError("the write-up is empty")
    located = front_matter_fields(text)
    fields = {key: field.value for key, field in located.items()}
    organisation = organisation_field(located)
    body = FRONT_MATTER.sub("", text, count=1)
    if not body.strip():
        raise ValueError("the write-up has front matter but no text")
    title = fields.get("title") or first_heading(body) or first_line(text) or default_id
    organisation = organisation or title_organisation(text, title)
    return WriteUp(
        case_id=slugify(fields.get("id") or default_id),
        title=title,
        source=fields.get("source") or origin,
        text=text,
        published=metadata_date(fields.get("date"), strict=FRONT_MATTER.match(text) is not None),
        organisation=organisation.value if organisation else None,
        origin=origin,
        organisation_field=organisation,
    )


# Words that open a title before a colon without naming anyone: "Post-mortem: ...", "Update: ...";
# a section's label ("Summary of impact: ...") does not name anyone either (section_headings).
TITLE_PREFIX_WORDS = {"post-mortem", "postmortem", "post mortem", "incident", "incident report", "outage",
                      "update", "retrospective", "review", "incident review", "resolved", "investigating",
                      "identified", "monitoring", "case study", "analysis", "report", "the", "how", "why", "what",
                      "partial", "major", "minor", "brief", "global", "regional", "intermittent", "scheduled",
                      "unplanned", "elevated", "degraded", "production", "service", "security"}
# Words that end the name before a title's colon or dash without being part of it: what kind of
# report it is ("Netlify learning review: ...", "OpenAI status - Elevated errors").
TITLE_REPORT_WORDS = {"post-mortem", "postmortem", "post", "mortem", "post-incident", "incident", "review",
                      "learning", "report", "rca", "root", "cause", "analysis", "status", "update", "summary",
                      "retrospective", "outage", "preliminary", "final", "pir"}
# A first line that opens with these is a sentence, not a name: "By 16:38 UTC the page said ...",
# "We prepared anyway: ...".
TITLE_SENTENCE_OPENERS = {"by", "at", "on", "in", "from", "since", "until", "after", "before", "around", "between",
                          "during", "we", "our", "i", "it", "they", "this", "a", "an", "then", "when", "as"}
# The name before a title's colon, or before a spaced dash after a report word ("X status - ...").
TITLE_ORGANISATION = re.compile(r"^([^:\n]{1,60}?)(:|\s[-\u2013\u2014]\s)\s*\S")


def title_organisation(text: str, title: str) -> FrontMatterField | None:
    """The name before the colon (or spaced dash) of a title such as "Cloudflare: a bad config took
    down the edge", without the words that say what kind of report it is ("Opbeat post-mortem: ...")."""
    match = TITLE_ORGANISATION.match(title)
    if not match:
        return None
    words = match.group(1).split()
    while words and words[-1].lower().strip("()") in TITLE_REPORT_WORDS:
        words.pop()
    if match.group(2) != ":" and len(words) == len(match.group(1).split()):
        return None  # "GitHub Codespaces - Failures creating codespaces": a status page names the product
    name = " ".join(words).removesuffix("'s").removesuffix("\u2019s")
    if not name or name.lower() in TITLE_PREFIX_WORDS or normalise_heading(name) in section_headings() \
            or len(words) > 4 or not NAME_LABEL.match(name) or words[0].lower() in TITLE_SENTENCE_OPENERS \
            or any(word.isdigit() for word in words):
        return None
    start = text.find(name)
    if start < 0:
        return None
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start: line_end if line_end >= 0 else len(text)].strip()
    return FrontMatterField(name, start, start + len(name), line)


def metadata_date(value: str | None, strict: bool) -> str | None:
    """Front matter's date must be a date; a `Date:` line under a title is prose, read if it can be."""
    try:
        return parse_date(value)
    except ValueError:
        if strict:
            raise
        return None


# ------------------------------------------------------------------ JSON records


def text_from_record(record: dict[str, object]) -> str:
    """Compose a record into the sectioned text the pipeline reads, so offsets have one meaning."""
    parts = [f"# {record['title']}", "", str(record["body"]).strip()]
    sections = record.get("sections") or {}
    if not isinstance(sections, dict):
        raise ValueError("field 'sections' must be an object of heading to text or list")
    for heading in SECTION_ORDER + tuple(k for k in sections if k not in SECTION_ORDER):
        value = sections.get(heading)
        if value in (None, "", []):
            continue
        lines = [f"- {item}" for item in value] if isinstance(value, list) else [str(value).strip()]
        parts += ["", f"## {heading}", "", *lines]
    return "\n".join(parts) + "\n"


def check_unicode(record: dict[str, object]) -> None:
    """A JSON escape such as \\ud800 decodes to an unpaired surrogate, which no UTF-8 text can hold."""
    for key, value in record.items():
        pending = [key, value]
        while pending:
            item = pending.pop()
            if isinstance(item, dict):
                pending += [*item.keys(), *item.values()]
            elif isinstance(item, list):
                pending += item
            elif isinstance(item, str) and (match := SURROGATE.search(item)):
                raise ValueError(f"field {key!r} holds an unpaired surrogate \\u{ord(match.group()):04x}, "
                                 "which is not valid Unicode")


def writeup_from_record(record: object, origin: str) -> WriteUp:
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    check_unicode(record)
    body = record.get("body")
    if not isinstance(body, str) or not body.strip():
        raise ValueError("field 'body' is missing or empty")
    title = record.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ValueError("field 'title' is missing or empty")
    organisation = record.get("organisation") or record.get("organization")
    return WriteUp(
        case_id=slugify(str(record.get("id") or title)),
        title=title.strip(),
        source=str(record.get("source") or origin),
        text=text_from_record(record),
        published=parse_date(record.get("date")),
        organisation=str(organisation) if organisation else None,
        origin=origin,
    )


def load_json(text: str) -> object:
    """json.loads, with every way it can refuse input as a ValueError that says what is wrong."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"malformed JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    except RecursionError:
        raise ValueError("malformed JSON: arrays or objects nested too deeply") from None
    except ValueError as error:  # e.g. an integer of more than 4,300 digits
        raise ValueError(f"malformed JSON: {str(error).split(';')[0]}") from None


def records_from_json(text: str, origin: str, lines: bool) -> Iterator[WriteUp | ReadFailure]:
    if lines:
        # JSON Lines break at \n only: str.splitlines would also break inside a record whose strings
        # hold U+2028, U+0085 or a form feed, which JSON allows unescaped.
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            where = f"{origin}#{number}"
            try:
                record = load_json(line)
            except ValueError as error:
                yield ReadFailure(where, str(error).replace(" at line 1 column", " at column"))
                continue
            try:
                yield writeup_from_record(record, where)
            except ValueError as error:
                yield ReadFailure(where, str(error))
        return
    try:
        data = load_json(text)
    except ValueError as error:
        yield ReadFailure(origin, str(error))
        return
    records = data if isinstance(data, list) else [data]
    if not records:
        yield ReadFailure(origin, "an empty JSON array: no records to read")
    for number, record in enumerate(records, start=1):
        where = f"{origin}#{number}" if isinstance(data, list) else origin
        try:
            yield writeup_from_record(record, where)
        except ValueError as error:
            yield ReadFailure(where, str(error))


# ------------------------------------------------------------------ files and folders


def decode(raw: bytes) -> str:
    if b"\x00" in raw:
        raise ValueError("binary content (NUL bytes); expected UTF-8 text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 text: invalid byte 0x{raw[error.start]:02x} at offset {error.start}") from None


def read_bytes(raw: bytes, origin: str, suffix: str, default_id: str,
               max_bytes: int = MAX_BYTES) -> Iterator[WriteUp | ReadFailure]:
    try:
        if len(raw) > max_bytes:
            raise ValueError(f"{len(raw):,} bytes is over the {max_bytes:,}-byte limit (--max-bytes)")
        if not raw.strip():
            raise ValueError("the file is empty")
        text = decode(raw)
        if not text.strip():  # a byte-order mark and nothing else
            raise ValueError("the file is empty")
    except ValueError as error:
        yield ReadFailure(origin, str(error))
        return
    if suffix in JSON_SUFFIXES:
        yield from records_from_json(text, origin, lines=suffix != ".json")
        return
    try:
        yield writeup_from_text(text.replace("\r\n", "\n"), origin, default_id)
    except ValueError as error:
        yield ReadFailure(origin, str(error))


def expand(paths: Iterable[Path], include: tuple[str, ...] = DEFAULT_INCLUDE) -> Iterator[Path | ReadFailure]:
    """Files in the order given; folders recursively, sorted, filtered by the include globs."""
    for path in paths:
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                if any(fnmatch.fnmatch(child.name, pattern) for pattern in include):
                    yield child
        elif path.is_file():
            yield path
        else:
            yield ReadFailure(str(path), "no such file or folder")


def read_paths(paths: Iterable[Path], include: tuple[str, ...] = DEFAULT_INCLUDE,
               max_bytes: int = MAX_BYTES) -> Iterator[WriteUp | ReadFailure]:
    for item in expand(paths, include):
        if isinstance(item, ReadFailure):
            yield item
            continue
        try:
            with item.open("rb") as handle:
                raw = handle.read(max_bytes + 1)
        except OSError as error:
            yield ReadFailure(str(item), f"cannot read: {error.strerror}")
            continue
        yield from read_bytes(raw, str(item), item.suffix.lower(), item.stem, max_bytes)


def read_stream(stream: IO[bytes] | None = None, name: str = "<stdin>",
                max_bytes: int = MAX_BYTES) -> Iterator[WriteUp | ReadFailure]:
    """Standard input: JSON when it starts with { or [, otherwise one Markdown/text write-up."""
    raw = (stream or sys.stdin.buffer).read(max_bytes + 1)
    start = raw.lstrip()[:1]
    suffix = ".jsonl" if start == b"{" else ".json" if start == b"[" else ".md"
    yield from read_bytes(raw, name, suffix, "stdin", max_bytes)
