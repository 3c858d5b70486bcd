"""Find the structure of a write-up: front matter, headings, sections and bullet items.

Works on character offsets of the original text so evidence offsets stay true.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property

from incident_graph.ingest.pattern_files import normalise_heading
from incident_graph.ingest.readers import FRONT_MATTER, METADATA_LINE, metadata_block_start
from incident_graph.schema.entity_types import ENTITY_TYPES

# Section kind -> the entity label its items are (sections.toml names the kinds).
ENTITY_SECTIONS = {entity_type.section: entity_type.label for entity_type in ENTITY_TYPES if entity_type.section}
SECTIONED_KINDS = {*ENTITY_SECTIONS, "detection", "remediation", "lessons"}
# The heading text runs to its last character that is not a space, tab or closing #. Greedy, so the
# engine backtracks once from the end; a lazy `(.+?)[ \t#]*$` retried the tail at every position
# and was quadratic on a long run of spaces inside the heading.
MARKDOWN_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*[^ \t#\n]|.)[ \t#]*$")
BOLD_HEADING = re.compile(r"^\*\*(.+?)\*\*:?[ \t]*$")
BULLET = re.compile(r"^[ \t]*(?:[-*\u2022]|\d+[.)])[ \t]+")
# "Root cause: ...", "**Mitigation:** ...": a known label opening a paragraph, as provider RCAs and
# post-mortem templates write sections. Bounded label length keeps the match linear.
LABEL = re.compile(r"^[ \t]*(?:\*\*|__)?([A-Za-z][A-Za-z0-9 ,/&()'-]{1,48}?)[ \t]*(?::(?:\*\*|__)|(?:\*\*|__):|:)[ \t]*")


@dataclass(frozen=True)
class Region:
    start: int
    end: int
    kind: str  # front_matter, heading, title, a section kind from sections.toml, or other
    heading: str = ""


@dataclass(frozen=True)
class Layout:
    regions: tuple[Region, ...]  # in text order, none overlapping (as analyse makes them)
    bullets: tuple[tuple[int, int], ...]  # (start, end) of each bullet item's text

    def kind_at(self, offset: int) -> str:
        # Called for every match: a binary search, not a scan, keeps many headings linear.
        index = bisect_right(self._starts, offset) - 1
        if index >= 0 and offset < self.regions[index].end:
            return self.regions[index].kind
        return "other"

    @property
    def is_sectioned(self) -> bool:
        return len(self._by_kind.keys() & SECTIONED_KINDS) >= 3

    def sections(self, kind: str) -> list[Region]:
        return list(self._by_kind.get(kind, ()))

    @cached_property
    def _starts(self) -> list[int]:
        return [region.start for region in self.regions]

    @cached_property
    def _by_kind(self) -> dict[str, list[Region]]:
        grouped: dict[str, list[Region]] = {}
        for region in self.regions:
            grouped.setdefault(region.kind, []).append(region)
        return grouped


def heading_kinds(headings: dict[str, list[str]]) -> dict[str, str]:
    return {normalise_heading(variant): kind for kind, variants in headings.items() for variant in variants}


KEYWORD_HEADING_WORDS = 5


class HeadingKinds:
    """A heading's section kind: its exact text in sections.toml, else the first keyword in it
    ("Remediation and Prevention", "Detailed Description of Impact")."""

    def __init__(self, headings: dict[str, list[str]], keywords: dict[str, list[str]] | None = None) -> None:
        self.exact = heading_kinds(headings)
        self.keywords = [(re.compile(rf"\b{re.escape(word.lower())}\b"), kind)
                         for kind, words in (keywords or {}).items() for word in words]

    def get(self, text: str, default: str | None = None) -> str | None:
        heading = normalise_heading(text)
        if heading in self.exact:
            return self.exact[heading]
        if len(heading.split()) > KEYWORD_HEADING_WORDS:
            return default  # "customer impact was limited to ...": a sentence, not a heading
        found = [(match.start(), kind) for pattern, kind in self.keywords if (match := pattern.search(heading))]
        return min(found)[1] if found else default

    def __contains__(self, text: str) -> bool:
        return self.get(text) is not None


def heading_of(line: str, previous_blank: bool, known: HeadingKinds) -> tuple[str, int] | None:
    """(heading text, level) when the line is a heading; plain lines only when known."""
    match = MARKDOWN_HEADING.match(line)
    if match:
        return match.group(2), len(match.group(1))
    match = BOLD_HEADING.match(line)
    if match:
        return match.group(1), 2
    stripped = line.strip()
    if not (previous_blank and stripped and len(stripped.split()) <= 5):
        return None
    if normalise_heading(stripped) in known.exact:
        return stripped, 2
    if stripped[-1] not in ".,;?!" and stripped[0].isupper() and stripped in known:
        return stripped, 2  # "Remediation and Prevention": capitalised, no full stop, a section's word
    return None


def metadata_lines(text: str) -> tuple[int, int] | None:
    """(start, end) of the `Key: value` metadata lines under the title, as the reader reads them."""
    start = metadata_block_start(text)
    if start is None:
        return None
    end = start
    for line in text[start:].splitlines(keepends=True):
        if not METADATA_LINE.match(line):
            break
        end += len(line)
    return start, end


def analyse(text: str, headings: dict[str, list[str]], keywords: dict[str, list[str]] | None = None) -> Layout:
    known = HeadingKinds(headings, keywords)
    regions: list[Region] = []
    bullets: list[tuple[int, int]] = []
    offset = 0
    match = FRONT_MATTER.match(text)
    if match:
        regions.append(Region(0, match.end(), "front_matter"))
        offset = match.end()
    metadata = None if match else metadata_lines(text)
    if metadata:
        start, end = metadata
        if start:
            regions.append(Region(0, start, "heading", text[:start].strip().lstrip("#").strip()))
        regions.append(Region(start, end, "front_matter"))
        offset = end
    kind, heading, section_start = "other", "", offset
    previous_blank = True
    for line in text[offset:].splitlines(keepends=True):
        content = line.rstrip("\n")
        found = heading_of(content, previous_blank, known)
        label = None if found else LABEL.match(content)
        if label and label.group(1) in known and content[label.end():].strip():
            # The label is a heading of its own; the paragraph after it is the section's text.
            if offset > section_start:
                regions.append(Region(section_start, offset, kind, heading))
            heading = label.group(1)
            regions.append(Region(offset, offset + label.end(), "heading", heading))
            kind = known.get(heading, "other")
            section_start = offset + label.end()
            previous_blank = False
            offset += len(line)
            continue
        if found:
            if offset > section_start:
                regions.append(Region(section_start, offset, kind, heading))
            heading, level = found
            regions.append(Region(offset, offset + len(line), "heading", heading))
            kind = "title" if level == 1 else known.get(heading, "other")
            if kind == "title":
                kind = "other"
            section_start = offset + len(line)
        else:
            bullet = BULLET.match(content)
            if bullet and content[bullet.end():].strip():
                bullets.append((offset + bullet.end(), offset + len(content.rstrip())))
        previous_blank = not content.strip()
        offset += len(line)
    if offset > section_start:
        regions.append(Region(section_start, offset, kind, heading))
    return Layout(tuple(regions), tuple(bullets))
