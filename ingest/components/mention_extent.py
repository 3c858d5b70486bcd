"""incident_mention_extent: each finding's mention widened to the words of the write-up that say it.

The components before this one find an entity by its shortest telling words ("app crashed",
"Redis"), which suit naming and linking. A reader of the evidence, and a gold annotation, wants
the statement: "the app crashed when logging certain kinds of calls". So, once every name and
confidence is settled, a state or event (a symptom, a root cause, a contributing factor) reaches
out to the clause it stands in, up to the nearest comma, colon, bracket, dash or line break, and
a component to the noun phrase it heads ("the primary Redis cluster"), each at most a name's
length in content words. Names, confidences and every earlier decision are untouched.
"""

from __future__ import annotations

from typing import Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from incident_graph.ingest.components.spans import (MAX_NAME_WORDS, MENTIONS, MIN_CONFIDENCE, TIME_ENTITIES,
                                                    in_markup, name_words, remade)

CLAUSE_MARKS = {",", ";", ":", "(", ")", "[", "]", "{", "}", "\u2014", "\u2013", '"', "\u201c", "\u201d"}
LEADING_WORDS = ("DET", "PRON", "PUNCT", "CCONJ", "SCONJ", "ADP", "PART", "AUX")
SUBJECTS = ("nsubj", "nsubjpass", "expl")
OTHER_PHRASES = ("conj", "cc", "relcl", "appos", "punct")  # what a noun phrase governs that says something else
TRAILING_WORDS = ("DET", "PUNCT", "CCONJ", "SCONJ", "ADP", "AUX", "PART")


@Language.factory("incident_mention_extent",
                  default_config={"statement_types": ["Symptom", "RootCause", "ContributingFactor"],
                                  "phrase_types": ["Component"]})
def make_mention_extent(nlp: Language, name: str, statement_types: list[str],
                        phrase_types: list[str]) -> "MentionExtent":
    return MentionExtent(statement_types, phrase_types)


class MentionExtent:
    def __init__(self, statement_types: Iterable[str], phrase_types: Iterable[str]) -> None:
        self.statement_types = set(statement_types)
        self.phrase_types = set(phrase_types)

    def __call__(self, doc: Doc) -> Doc:
        if MENTIONS in doc.spans:
            spans = list(doc.spans[MENTIONS])
            doc.spans[MENTIONS] = [self.widened(span, spans) for span in spans]
        return doc

    def widened(self, span: Span, spans: list[Span]) -> Span:
        if span.label_ in self.statement_types:
            # One finding's statement does not take in another kind's: "a bug in the kernel
            # driver crashed the storage servers" is the servers' crash, and the bug its cause.
            others = {i for other in spans if other.label_ in self.statement_types and other.label_ != span.label_
                      and float(other._.confidence or 0.0) >= MIN_CONFIDENCE
                      and (other.end <= span.start or other.start >= span.end) for i in range(other.start, other.end)}
            start, end = statement_extent(span, others)
        elif span.label_ in self.phrase_types:
            start, end = phrase_extent(span)
        else:
            return span
        if (start, end) == (span.start, span.end):
            return span
        wider = remade(span, start, end)
        return span if in_markup(wider) else wider


def ends_clause(token: Token) -> bool:
    """A mark that closes a clause in running text: a dash only with spaces round it ("start-up"
    is one word), any line break."""
    return token.is_space or "\n" in token.whitespace_ or token.text in CLAUSE_MARKS \
        or (token.text == "-" and bool(token.whitespace_))


def fits(doc: Doc, start: int, end: int) -> bool:
    return name_words(doc[start:end].text) <= MAX_NAME_WORDS


def statement_extent(span: Span, others: set[int] = frozenset()) -> tuple[int, int]:
    """The span's clause between the clause marks round it, taken word by word outwards (first
    to the left, where the subject is, then to the right) while it stays a name's length. Its
    clause is what the nearest verb over it governs, less a relative clause the span is not in
    ("a race condition that corrupted user sessions" is the sessions' corruption); a date or time
    before the span ends it ("Earlier that Saturday" is when, not what, happened), while one after
    it says how long ("unusable for the entire weekend")."""
    doc = span.doc
    clause = clause_tokens(span) - others
    start, end = span.start, span.end
    while start - 1 in clause and not ends_clause(doc[start - 1]) and doc[start - 1].ent_type_ not in TIME_ENTITIES \
            and fits(doc, start - 1, end):
        start -= 1
    while end in clause and not ends_clause(doc[end]) and not ends_clause(doc[end - 1]) \
            and fits(doc, start, end + 1):
        end += 1
    return trimmed(span, start, end)


def clause_tokens(span: Span) -> set[int]:
    """The indices of the tokens of the span's clause (see statement_extent)."""
    head = span.root
    while head.pos_ not in ("VERB", "AUX") and head.head.i != head.i:
        head = head.head
    tokens = set(range(span.sent.start, span.sent.end)) if head.pos_ not in ("VERB", "AUX") \
        else {token.i for token in head.subtree}
    for token in span.sent:
        other_clause = token.dep_ == "relcl" or token.dep_ == "conj" and token.pos_ in ("VERB", "AUX") \
            and any(child.dep_ in SUBJECTS for child in token.children)
        if token.i in tokens and other_clause and not any(span.start <= t.i < span.end for t in token.subtree):
            tokens -= {t.i for t in token.subtree}
    return tokens | set(range(span.start, span.end))


def phrase_extent(span: Span) -> tuple[int, int]:
    """The noun phrase the span's head belongs to (a compound's head noun with what it governs),
    up to a clause mark and without the other items of a list or a relative clause ("the primary
    Redis cluster", not "JVM and MySQL" for JVM), when that is still a name; else its words up to
    the head."""
    doc, head = span.doc, span.root
    while head.dep_ in ("compound", "amod", "nmod") and head.head.pos_ in ("NOUN", "PROPN") \
            and head.head.i > head.i and head.head.sent == head.sent:
        head = head.head
    own = {token.i for token in head.subtree} - {t.i for child in head.children if child.dep_ in OTHER_PHRASES
                                                 for t in child.subtree}
    own |= set(range(span.start, span.end))
    start, end = span.start, span.end
    while start - 1 in own and not ends_clause(doc[start - 1]):
        start -= 1
    while end in own and not ends_clause(doc[end]) and not ends_clause(doc[end - 1]):
        end += 1
    for start, end in ((start, end), (start, max(head.i + 1, span.end))):
        start, end = trimmed(span, start, end)
        if fits(doc, start, end):
            return start, end
    return span.start, span.end


def trimmed(span: Span, start: int, end: int) -> tuple[int, int]:
    """[start, end) without what cannot begin or end a statement beyond the span's own words: a
    leading determiner or conjunction, a trailing preposition, conjunction or mark, or a word whose
    head the statement leaves out ("after its MongoDB" of "after its MongoDB cluster", "During
    recovery a second problem")."""
    doc = span.doc

    def outside(token: Token) -> bool:
        return not start <= token.head.i < end

    def bare(token: Token) -> bool:  # a mark or markup ("**" of a bold label), no word
        return not any(c.isalnum() for c in token.text)

    while end > span.end and (doc[end - 1].pos_ in TRAILING_WORDS or bare(doc[end - 1]) or outside(doc[end - 1])):
        end -= 1
    while start < span.start and (doc[start].pos_ in LEADING_WORDS or bare(doc[start]) or outside(doc[start])):
        start += 1
    return start, end
