"""Span keys, span and doc extensions, and the overlap index the components share."""

from __future__ import annotations

import re
from bisect import bisect_left, insort
from typing import Callable

from spacy.tokens import Doc, Span, Token

from incident_graph.schema.records import MAX_NAME_WORDS, NAME_FUNCTION_WORDS, name_words  # noqa: F401 (the components' names for them)

CANDIDATES = "incident_candidates"  # every taxonomy match, before roles are decided
MENTIONS = "incident"  # the accepted mentions, label = role, id = canonical name
DETECTION_CANDIDATES = "detection_candidates"
DETECTION = "detection"
SKIPPED_KINDS = {"front_matter", "heading"}
# A mention below this confidence is not a finding: the extractor reports only those at or above it.
MIN_CONFIDENCE = 0.5
LEADING_FILLER = {"a", "an", "the", "our", "its", "their", "this", "that", "these", "those", "his", "her", "some", "one"}
ACRONYM_PLURAL = re.compile(r"^[A-Z][A-Z0-9]+s$")
POSSESSIVE_MARKS = ("'s", "\u2019s")  # the possessive as the tokenizer splits it off: "Square's", "Square’s"
# Link targets and bare addresses: "[Google](https://status...)" names Google, never its URL.
MARKUP = re.compile(r"\]\([^)\s]*\)?|<?\b(?:https?://|www\.)[^\s<>()\]]+>?")


TIME_ENTITIES = ("DATE", "TIME")
# The NER misreads clock times and zones ("09:49 UTC" as an organisation), so these words count too.
TIME_WORDS = {"utc", "gmt", "pst", "pdt", "est", "edt", "cet", "cest", "bst", "ist", "jst", "am", "pm", "a.m.",
              "p.m.", "midnight", "noon", "approximately", "around", "about", "roughly", "~"}
LABEL_ENDS = {":", ",", "-", "–", "—"}


def is_time_word(token: Token) -> bool:
    return token.ent_type_ in TIME_ENTITIES or token.like_num or token.lower_ in TIME_WORDS \
        or any(c.isdigit() for c in token.text) and ":" in token.text


def time_label_end(span: Span) -> int:
    """Where the span starts once a leading date or time label is dropped: a timeline's "26 March:
    workflow processing fell behind", "09:49 UTC - the first bad version is published", "midnight
    GMT on 1 March 2010, PlayStation consoles" say when, not what. A preposition may join the
    label's words but never opens it: "at midnight, ..." is left whole."""
    for token in span:
        if token.text in LABEL_ENDS and token.i > span.start and token.whitespace_ \
                and (token.text in ":," or token.doc[token.i - 1].whitespace_):  # not "ten-hour"
            return token.i + 1
        if not is_time_word(token) and not (token.pos_ == "ADP" and token.i > span.start):
            break
    return span.start


def bullet_label(bullet: Span, trim: Callable[[Span], Span | None]) -> Span | None:
    """A bullet's opening sentence, trimmed, when more follows it and it is a name, as a label is:
    "**Data voids.** For queries that ..." is named by "Data voids"; None for a bullet of one
    sentence or one that opens with prose."""
    # The first sentence with a word inside the bullet: a numbered bullet's "1. *" can end the
    # sentence before it ("Three things went wrong:\n1. *Too much data.* A few tenants ...").
    first = next((s for s in bullet.sents if any(t.is_alpha for t in bullet.doc[max(s.start, bullet.start):s.end])), None)
    if first is None or first.end >= bullet.end:
        return None
    label = trim(bullet.doc[max(first.start, bullet.start):first.end])
    return label if label is not None and name_words(label.text) <= MAX_NAME_WORDS else None


def in_markup(span: Span) -> bool:
    """The span reaches into a URL or a Markdown link's target. The ranges are cached on the doc as
    plain lists, which survive the serialisation between worker processes."""
    doc = span.doc
    ranges = doc.user_data.get("incident_markup")
    if ranges is None:
        ranges = [[match.start(), match.end()] for match in MARKUP.finditer(doc.text)]
        doc.user_data["incident_markup"] = ranges
    # Markup ranges do not overlap one another: only the last one starting before the span's end can reach it.
    index = bisect_left(ranges, [span.end_char]) - 1
    return index >= 0 and ranges[index][1] > span.start_char

for name, default in (("layout", None), ("role_confidence", None)):
    if not Doc.has_extension(name):
        Doc.set_extension(name, default=default)
# What a mention carries besides its label and id (the canonical name); `broader` is the nearest
# taxonomy concept of a new entity.
MENTION_ATTRIBUTES = ("confidence", "method", "section", "negated", "hedged", "known", "loose_weight", "broader")
for name in MENTION_ATTRIBUTES:
    if not Span.has_extension(name):
        Span.set_extension(name, default=None)


def remade(mention: Span, start: int, end: int) -> Span:
    """The mention over other tokens of its doc [start, end), with its label, id and attributes."""
    result = Span(mention.doc, start, end, label=mention.label_, span_id=mention.id_)
    for name in MENTION_ATTRIBUTES:
        result._.set(name, mention._.get(name))
    return result



class SpanIndex:
    """Token ranges [start, end), to ask whether any overlaps a new one without scanning them all
    (a scan per match was quadratic in a write-up with thousands of matches)."""

    def __init__(self) -> None:
        self.ranges: list[tuple[int, int]] = []  # sorted
        self.longest = 0

    def add(self, start: int, end: int) -> None:
        insort(self.ranges, (start, end))
        self.longest = max(self.longest, end - start)

    def overlaps(self, start: int, end: int) -> bool:
        # Only a range that starts less than `longest` before `start` can reach into it.
        index = bisect_left(self.ranges, (start - self.longest + 1,))
        while index < len(self.ranges) and self.ranges[index][0] < end:
            if self.ranges[index][1] > start:
                return True
            index += 1
        return False


def nearest(positions: list[int], anchor: int) -> int:
    """The position closest to anchor in a sorted list; the earlier one on a tie."""
    index = bisect_left(positions, anchor)
    if index == len(positions):
        return positions[-1]
    if index == 0 or positions[index] - anchor < anchor - positions[index - 1]:
        return positions[index]
    return positions[index - 1]
