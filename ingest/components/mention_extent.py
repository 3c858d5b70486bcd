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

from typing import Callable, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from incident_graph.ingest.components.spans import (MAX_NAME_WORDS, MENTIONS, MIN_CONFIDENCE, TIME_ENTITIES,
                                                    in_markup, name_words, remade)

CLAUSE_MARKS = {",", ";", ":", "(", ")", "[", "]", "{", "}", "\u2014", "\u2013", '"', "\u201c", "\u201d"}
LEADING_WORDS = ("DET", "PRON", "PUNCT", "CCONJ", "SCONJ", "ADP", "PART", "AUX")
SUBJECTS = ("nsubj", "nsubjpass", "expl")
OTHER_PHRASES = ("conj", "cc", "relcl", "acl", "appos", "punct")  # what a noun phrase governs that says something else
MAX_REACH = 3 * MAX_NAME_WORDS  # tokens a mention may gain on either side: a name's length with its function words
MAX_WALK = 64  # steps up the parse from a token to the head it may belong to
TRAILING_WORDS = ("DET", "PUNCT", "CCONJ", "SCONJ", "ADP", "AUX", "PART")


# Verbs that only link a cause to its effect: "a migration caused a hard outage" states two
# findings, and neither statement takes in the verb or the other side. (A verb that says how
# things failed, "a bug crashed the servers", is part of the effect's statement.)
LINK_VERBS = ["cause", "trigger", "lead", "result", "spark", "provoke", "induce", "prompt"]


@Language.factory("incident_mention_extent",
                  default_config={"statement_types": ["Symptom", "RootCause", "ContributingFactor"],
                                  "phrase_types": ["Component"], "link_verbs": LINK_VERBS})
def make_mention_extent(nlp: Language, name: str, statement_types: list[str],
                        phrase_types: list[str], link_verbs: list[str]) -> "MentionExtent":
    return MentionExtent(statement_types, phrase_types, link_verbs)


class MentionExtent:
    def __init__(self, statement_types: Iterable[str], phrase_types: Iterable[str], link_verbs: Iterable[str]) -> None:
        self.statement_types = set(statement_types)
        self.phrase_types = set(phrase_types)
        self.link_verbs = set(link_verbs)

    def __call__(self, doc: Doc) -> Doc:
        if MENTIONS in doc.spans:
            spans = list(doc.spans[MENTIONS])
            # Kept findings by the tokens they cover, read once: a statement asks only about the
            # few tokens next to it, so a write-up of thousands of mentions stays linear.
            covering: dict[int, list[Span]] = {}
            for other in spans:
                if other.label_ in self.statement_types and float(other._.confidence or 0.0) >= MIN_CONFIDENCE:
                    for i in range(other.start, other.end):
                        covering.setdefault(i, []).append(other)
            doc.spans[MENTIONS] = [self.widened(span, covering) for span in spans]
        return doc

    def widened(self, span: Span, covering: dict[int, list[Span]]) -> Span:
        if span.label_ in self.statement_types:
            # One finding's statement does not take in another kind's: "a bug in the kernel
            # driver crashed the storage servers" is the servers' crash, and the bug its cause.
            def another_finding(i: int) -> bool:
                return any(other.label_ != span.label_ and (other.end <= span.start or other.start >= span.end)
                           for other in covering.get(i, ()))

            start, end = statement_extent(span, another_finding, self.link_verbs)
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


def governed_by(token: Token, head: Token, left_out: Callable[[Token], bool]) -> bool:
    """`head` is `token` or above it, and no token on the way up is `left_out`. The walk is
    bounded: a parse deeper than MAX_WALK says nothing a name could use."""
    for _ in range(MAX_WALK):
        if token.i == head.i:
            return True
        if left_out(token) or token.head.i == token.i:
            return False
        token = token.head
    return False


def statement_extent(span: Span, another_finding: Callable[[int], bool], link_verbs: set[str]) -> tuple[int, int]:
    """The span's clause between the clause marks round it, taken word by word outwards (first
    to the left, where the subject is, then to the right) while it stays a name's length. Its
    clause is what the nearest verb over it governs, less a relative clause or a coordinated
    clause with its own subject that the span is not in ("a race condition that corrupted user
    sessions" is the sessions' corruption); a date or time before the span ends it ("Earlier that
    Saturday" is when, not what, happened), while one after it says how long ("unusable for the
    entire weekend"). When the verb only links a cause to its effect (`link_verbs`), the span's
    side of it is the statement: "a hard outage of about seven minutes", not "a migration caused
    a hard outage"."""
    doc, sentence, head = span.doc, span.sent, clause_head(span)
    lowest, highest = sentence.start, sentence.end
    if head.lemma_.lower() in link_verbs and not span.start <= head.i < span.end:
        lowest, highest = (head.i + 1, highest) if head.i < span.start else (lowest, head.i)

    def other_clause(token: Token) -> bool:
        return (token.dep_ == "relcl" or token.dep_ == "conj" and token.pos_ in ("VERB", "AUX")
                and any(child.dep_ in SUBJECTS for child in token.children)) \
            and (token.right_edge.i < span.start or token.left_edge.i >= span.end)  # holds none of the span

    def in_clause(i: int) -> bool:
        if not lowest <= i < highest or another_finding(i):
            return False
        return governed_by(doc[i], head, other_clause)

    start, end = span.start, span.end
    while start - 1 >= span.start - MAX_REACH and in_clause(start - 1) and not ends_clause(doc[start - 1]) \
            and doc[start - 1].ent_type_ not in TIME_ENTITIES and fits(doc, start - 1, end):
        start -= 1
    while end < span.end + MAX_REACH and in_clause(end) and not ends_clause(doc[end]) \
            and not ends_clause(doc[end - 1]) and fits(doc, start, end + 1):
        end += 1
    return trimmed(span, start, end)


def clause_head(span: Span) -> Token:
    """The nearest verb over the span's head, or its sentence's root (a fragment is its whole
    sentence)."""
    head = span.root
    for _ in range(MAX_WALK):
        if head.pos_ in ("VERB", "AUX"):
            return head
        if head.head.i == head.i:
            break
        head = head.head
    return span.sent.root


def phrase_extent(span: Span) -> tuple[int, int]:
    """The noun phrase the span's head belongs to (a compound's head noun with what it governs),
    up to a clause mark and without the other items of a list or a relative clause ("the primary
    Redis cluster", not "JVM and MySQL" for JVM), when that is still a name; else its words up to
    the head."""
    doc, head = span.doc, span.root
    while head.dep_ in ("compound", "amod", "nmod") and head.head.pos_ in ("NOUN", "PROPN") \
            and head.head.i > head.i and head.head.sent == head.sent:
        head = head.head

    def other_phrase(token: Token) -> bool:
        return token.head.i == head.i and token.dep_ in OTHER_PHRASES

    def own(i: int) -> bool:
        return span.start <= i < span.end or 0 <= i < len(doc) and governed_by(doc[i], head, other_phrase)

    start, end = span.start, span.end
    while start - 1 >= span.start - MAX_REACH and own(start - 1) and not ends_clause(doc[start - 1]):
        start -= 1
    while end < span.end + MAX_REACH and own(end) and not ends_clause(doc[end]) and not ends_clause(doc[end - 1]):
        end += 1
    whole = (start, end) if start > span.start - MAX_REACH and end < span.end + MAX_REACH else None
    for extent in (whole, (start, max(head.i + 1, span.end))):
        if extent is not None:
            wide_start, wide_end = trimmed(span, *extent)
            if fits(doc, wide_start, wide_end):
                return wide_start, wide_end
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
