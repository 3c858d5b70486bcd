"""incident_narrative: detection, remediation and lessons told in prose, without their sections.

A sentence outside the Detection, Remediation and Lessons sections that uses a cue phrase of one
of them (ingest/patterns/narrative.toml: "we rolled back", "engineers were paged", "going
forward we will") is recorded as that kind in doc._.narrative, as (start, end) character offsets.
The extractor uses them only where the write-up has no such section. A sentence of courtesy or
status boilerplate ("we apologise for the impact", "we will provide an update") is recorded as
"courtesy" instead, in any section, and the extractor leaves it out of steps and lessons.
"""

from __future__ import annotations

from typing import Any, Iterator

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from incident_graph.ingest.components.spans import SKIPPED_KINDS
from incident_graph.ingest.sections import Layout

# In the order a sentence is tried: what will be done ("going forward we will alert on ...") is a
# lesson even when it names an alert or a rollback.
KINDS = ("lessons", "detection", "remediation")
COURTESY = "courtesy"

if not Doc.has_extension("narrative"):
    Doc.set_extension("narrative", default=None)


@Language.factory("incident_narrative", default_config={"cues": {}, "effect_phrases": []})
def make_narrative(nlp: Language, name: str, cues: dict[str, Any], effect_phrases: list[str]) -> "NarrativeSentences":
    return NarrativeSentences(cues, effect_phrases)


class NarrativeSentences:
    """effect_phrases are the cause cues that put the cause first (cues.toml's cause_precedes:
    "cause", "lead to"): a remediation cue such a phrase brought about is what happened."""

    def __init__(self, cues: dict[str, Any], effect_phrases: list[str]) -> None:
        self.max_words = int(cues.get("max_sentence_words", 60))
        self.effect_phrases: dict[str, list[tuple[str, ...]]] = {}  # verb -> the words that follow it
        for phrase in effect_phrases:
            verb, *rest = phrase.lower().split()
            self.effect_phrases.setdefault(verb, []).append(tuple(rest))
        # kind -> first word -> phrases
        self.phrases = {kind: by_first_word(cues.get(kind, [])) for kind in KINDS}
        self.courtesy = by_first_word(cues.get(COURTESY, []))
        self.status_updates = by_first_word(cues.get("status_updates", []))
        self.max_status_words = int(cues.get("max_status_words", 10))

    def __call__(self, doc: Doc) -> Doc:
        layout: Layout = doc._.layout
        found: dict[str, list[tuple[int, int]]] = {kind: [] for kind in (*KINDS, COURTESY)}
        for sentence in doc.sents:
            section = layout.kind_at(sentence.start_char)
            if section in SKIPPED_KINDS:
                continue
            words = [(t.lower_, t.norm_) for t in sentence]
            if self.is_courtesy(words):
                found[COURTESY].append((sentence.start_char, sentence.end_char))
                continue
            if section in KINDS or len(sentence) > self.max_words:
                continue
            for kind in KINDS:
                if any(not (kind == "remediation" and self.brought_about(sentence[at]))
                       for at in self.cues_at(words, self.phrases[kind])):
                    found[kind].append((sentence.start_char, sentence.end_char))
                    break
        doc._.narrative = found
        return doc

    def is_courtesy(self, words: list[tuple[str, str]]) -> bool:
        if next(self.cues_at(words, self.courtesy), None) is not None:
            return True
        return sum(1 for lower, _ in words if lower.isalnum()) <= self.max_status_words \
            and next(self.cues_at(words, self.status_updates), None) is not None

    @staticmethod
    def cues_at(words: list[tuple[str, str]], by_first: dict[str, list[tuple[str, ...]]]) -> Iterator[int]:
        """The index of the first word of each cue phrase in the words, in order."""
        for index, (lower, norm) in enumerate(words):
            for phrase in by_first.get(lower, []) + (by_first.get(norm, []) if norm != lower else []):
                if all(k + index < len(words) and word in words[k + index] for k, word in enumerate(phrase)):
                    yield index
                    break

    def brought_about(self, token: Token) -> bool:
        """The word is what an effect phrase before it brought about: "caused the instances to
        reboot", "led to a restart"."""
        for ancestor in list(token.ancestors)[:3]:
            if ancestor.i < token.i and any(
                self.follow_in_order(rest, token.doc[ancestor.i + 1:token.i + 1])
                for rest in self.effect_phrases.get(ancestor.norm_, ())
            ):
                return True
        return False

    @staticmethod
    def follow_in_order(words: tuple[str, ...], tokens: Span) -> bool:
        """Each of the words is among the tokens' norms, in this order ("lead directly to")."""
        norms = iter(t.norm_ for t in tokens)
        return all(word in norms for word in words)


def by_first_word(phrases: list[str]) -> dict[str, list[tuple[str, ...]]]:
    """Cue phrases as lower-cased words, grouped by their first word."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        words = tuple(phrase.lower().split())
        found.setdefault(words[0], []).append(words)
    return found
