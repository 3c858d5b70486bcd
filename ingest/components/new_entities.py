"""incident_new_entities: entity-section bullets the taxonomy does not know become entities."""

from __future__ import annotations

import re
from typing import Any, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span

from incident_graph.ingest.components.cues import CueIndex, Cues, negated, phrase_at
from incident_graph.ingest.components.spans import (LEADING_FILLER, MAX_NAME_WORDS, MENTIONS, SKIPPED_KINDS, SpanIndex,
                                                    bullet_label, name_words, time_label_end)
from incident_graph.ingest.sections import ENTITY_SECTIONS, Layout


@Language.factory("incident_new_entities", default_config={"cues": {}, "confidence": {"bullet": 0.8, "cue": 0.6},
                                                          "max_cue_phrase_tokens": 5, "cue_phrases": False})
def make_new_entities(nlp: Language, name: str, cues: dict[str, Any], confidence: dict[str, float],
                      max_cue_phrase_tokens: int, cue_phrases: bool) -> "NewEntityFinder":
    return NewEntityFinder(cues, confidence, max_cue_phrase_tokens, cue_phrases)


MAX_NEW_ENTITY_TOKENS = 25
MAX_NEW_ENTITY_CHARS = 200
PHRASE_STOPS = {"which", "that", "who", "when", "where", "after", "before", "while", "and", "or", "as",
                "so", "then", "until", "in", "on", "at", "for", "to", "from", "with", "by", "during",
                "be", "is", "was", "were", "are", "had", "has", "have", "it", "this", "they", "we"}
PHRASE_REJECT_START = {"it", "this", "that", "them", "they", "we", "he", "she", "there", "which", "what", "how"}


class NewEntityFinder:
    """Mentions the taxonomy does not know: bullet items of entity sections, and the phrase right
    after a cause cue in prose ("due to a misconfigured timeout"). They are kept, not dropped."""

    def __init__(self, cues: dict[str, Any], confidence: dict[str, float], max_tokens: int,
                 use_cue_phrases: bool) -> None:
        self.cues = Cues.from_config(cues)
        self.confidence = confidence
        self.max_tokens = max_tokens
        self.use_cue_phrases = use_cue_phrases

    def __call__(self, doc: Doc) -> Doc:
        layout: Layout = doc._.layout
        mentions = list(doc.spans.get(MENTIONS, []))
        cues = CueIndex(doc, self.cues)
        named: dict[str, SpanIndex] = {}  # role -> where mentions of it are, in characters
        for mention in mentions:
            named.setdefault(mention.label_, SpanIndex()).add(mention.start_char, mention.end_char)
        found: list[Span] = []
        for start, end in layout.bullets:
            role = ENTITY_SECTIONS.get(layout.kind_at(start))
            if role is None or (role in named and named[role].overlaps(start, end)):
                continue
            span = doc.char_span(start, end, alignment_mode="expand")
            if span is not None:
                label = bullet_label(span, trim)
                span = label if label is not None else trim(span)
            # A bullet of a paragraph's length is prose, not the name of an entity.
            if span is not None and len(span) <= MAX_NEW_ENTITY_TOKENS and len(span.text) <= MAX_NEW_ENTITY_CHARS \
                    and (not doc.has_annotation("DEP") or name_words(span.text) <= MAX_NAME_WORDS) \
                    and not negated(span, cues, follow=False):
                found.append(new_span(span, role, "section", self.confidence["bullet"], layout))
        for span in self.cue_phrases(doc, layout, mentions):
            found.append(new_span(span, "RootCause", "cue", self.confidence["cue"], layout))
        doc.spans[MENTIONS] = sorted(mentions + found, key=lambda s: s.start)
        return doc

    def cue_phrases(self, doc: Doc, layout: Layout, mentions: list[Span]) -> Iterable[Span]:
        if layout.is_sectioned or not self.use_cue_phrases:
            return
        tokens = list(doc)
        for index in range(len(tokens)):
            phrase = phrase_at(tokens, index, self.cues.cause_follows)
            if not phrase or layout.kind_at(tokens[index].idx) in SKIPPED_KINDS:
                continue
            start = index + len(phrase)
            while start < len(tokens) and tokens[start].lower_ in LEADING_FILLER:
                start += 1
            end = start
            while (end < len(tokens) and end - start < self.max_tokens and not tokens[end].is_punct
                   and not tokens[end].is_space and tokens[end].lower_ not in PHRASE_STOPS
                   and not tokens[end].is_sent_start):
                end += 1
            if end == start or tokens[start].lower_ in PHRASE_REJECT_START or end - start > self.max_tokens - 1:
                continue
            span = doc[start:end]
            if any(m.start < span.end and span.start < m.end for m in mentions):
                continue
            if all(t.is_stop or t.like_num for t in span):
                continue
            yield span


def trim(span: Span) -> Span | None:
    start, end = time_label_end(span), span.end  # a timeline-style bullet: "26 March: jobs were slow"
    doc = span.doc
    while start < end and (doc[start].is_punct or doc[start].is_space or doc[start].lower_ in LEADING_FILLER):
        start += 1
    while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space):
        end -= 1
    return doc[start:end] if end > start else None


def normalised_name(span: Span) -> str:
    """Lower case, leading article dropped, the last word as its lemma: 'the GPUs' -> 'gpu'."""
    words = [t for t in span if not t.is_space]
    while words and words[0].lower_ in LEADING_FILLER:
        words = words[1:]
    if not words:
        return span.text.lower().strip()
    parts = [t.lower_ + t.whitespace_ for t in words[:-1]] + [words[-1].norm_ or words[-1].lower_]
    return re.sub(r"\s+", " ", "".join(parts)).strip(" .,;:")


def new_span(span: Span, role: str, method: str, confidence: float, layout: Layout) -> Span:
    result = Span(span.doc, span.start, span.end, label=role, span_id=normalised_name(span))
    result._.confidence = confidence
    result._.method = "new-entity"
    result._.section = layout.kind_at(span.start_char)
    result._.hedged = False
    result._.known = False
    return result
