"""Cue phrases (cause, negation, hedging, detection) and one index of them per Doc."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from spacy.tokens import Doc, Span, Token


@dataclass(frozen=True)
class Cues:
    cause_follows: tuple[tuple[str, ...], ...]
    cause_precedes: tuple[tuple[str, ...], ...]
    negation: tuple[tuple[str, ...], ...]
    hedging: tuple[tuple[str, ...], ...]
    impact_verbs: frozenset[str]
    product_words: frozenset[str]  # a name ending in one is a product, not a company ("Stripe API")
    report_words: frozenset[str]  # a name of only these is a report's title ("Post Incident Review")
    clause_breaks: frozenset[str]
    detection: tuple[tuple[str, ...], ...]
    negation_follows_window: int
    negation_precedes_window: int

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Cues":
        def phrases(key: str) -> tuple[tuple[str, ...], ...]:
            # Longest first, so "caused by" wins over "cause".
            found = [tuple(p.lower().replace("n't", " n't").split()) for p in config.get(key, [])]
            return tuple(sorted(found, key=len, reverse=True))

        return cls(
            cause_follows=phrases("cause_follows"),
            cause_precedes=phrases("cause_precedes"),
            negation=phrases("negation"),
            hedging=phrases("hedging"),
            impact_verbs=frozenset(v.lower() for v in config.get("impact_verbs", [])),
            product_words=frozenset(w.lower() for w in config.get("organisation_not_last_words", [])),
            report_words=frozenset(w.lower() for w in config.get("report_words", [])),
            clause_breaks=frozenset(b.lower() for b in config.get("clause_breaks", [])),
            detection=phrases("detection"),
            negation_follows_window=int(config.get("negation_follows_window", 8)),
            negation_precedes_window=int(config.get("negation_precedes_window", 4)),
        )


def phrase_at(tokens: list[Token], index: int, phrases: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
    first = tokens[index]
    by_first = phrases_by_first_word(phrases)
    candidates = by_first.get(first.lower_, ()) + by_first.get(first.norm_, ())
    for phrase in sorted(candidates, key=len, reverse=True) if candidates else ():
        end = index + len(phrase)
        if end <= len(tokens) and all(
            word in (tokens[index + k].lower_, tokens[index + k].norm_) for k, word in enumerate(phrase)
        ):
            return phrase
    return None


@lru_cache(maxsize=64)
def phrases_by_first_word(phrases: tuple[tuple[str, ...], ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    grouped: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        grouped.setdefault(phrase[0], []).append(phrase)
    return {word: tuple(group) for word, group in grouped.items()}


DATE_WORD = "<month>"  # what a month name that is also a cue word reads as


def is_month(token: Token) -> bool:
    """"May" in "12 May 2023" or "May 3" is a date, not the hedge "may"."""
    if token.text != "May":
        return False
    doc = token.doc
    return (token.i > 0 and doc[token.i - 1].like_num) or (token.i + 1 < len(doc) and doc[token.i + 1].like_num)


class CueIndex:
    """One Doc's sentences, clause breaks and cue phrase matches, found once.

    A match's clause (its sentence, cut at clause breaks) and the cues in it are then looked up:
    scanning the clause again for every match was quadratic when one sentence held thousands of
    matches. Every answer is what phrase_at gives on the clause's tokens: a phrase counts where it
    matches and ends inside the clause, and the longest such phrase is the one found. Built on first
    use, so a Doc without matches costs nothing.
    """

    def __init__(self, doc: Doc, cues: Cues) -> None:
        self.doc = doc
        self.cues = cues
        self.length = len(doc)
        self.found: dict[tuple[tuple[str, ...], ...], dict[int, tuple[int, ...]]] = {}
        self.positions: dict[tuple[tuple[str, ...], ...], list[int]] = {}
        self.cause_positions: list[int] | None = None  # where either kind of cause cue matches
        self.chains: dict[tuple[int, int], tuple[list[int], list[tuple[int, int, bool]]]] = {}

    @cached_property
    def lower(self) -> list[str]:
        return [DATE_WORD if is_month(token) else token.lower_ for token in self.doc]

    @cached_property
    def norm(self) -> list[str]:
        return [DATE_WORD if is_month(token) else token.norm_ for token in self.doc]

    @cached_property
    def at(self) -> dict[str, list[int]]:
        """A token's lower case or norm -> where it is."""
        at: dict[str, list[int]] = {}
        for i, (lower, norm) in enumerate(zip(self.lower, self.norm)):
            at.setdefault(lower, []).append(i)
            if norm != lower:
                at.setdefault(norm, []).append(i)
        return at

    @cached_property
    def sentence_starts(self) -> list[int]:
        return [sentence.start for sentence in self.doc.sents]

    @cached_property
    def breaks(self) -> list[int]:
        return [i for i, word in enumerate(self.lower) if word in self.cues.clause_breaks]

    @cached_property
    def commas(self) -> list[int]:
        return [i for i, word in enumerate(self.lower) if word == ","]

    def sentence(self, index: int) -> tuple[int, int]:
        """Start and end of the sentence holding the token, as Span.sent has them."""
        k = bisect_right(self.sentence_starts, index) - 1
        end = self.sentence_starts[k + 1] if k + 1 < len(self.sentence_starts) else self.length
        return self.sentence_starts[k], end

    def clause(self, span: Span) -> tuple[int, int]:
        """The span's clause: its sentence from just after the last break before the span to the
        first break after it (a span running past its sentence's end keeps the sentence's end)."""
        sentence_start, sentence_end = self.sentence(span.start)
        k = bisect_left(self.breaks, span.start) - 1
        start = max(sentence_start, self.breaks[k] + 1) if k >= 0 else sentence_start
        if span.end >= sentence_end:
            return start, sentence_end
        k = bisect_left(self.breaks, span.end)
        return start, min(sentence_end, self.breaks[k]) if k < len(self.breaks) else sentence_end

    def matches(self, phrases: tuple[tuple[str, ...], ...]) -> dict[int, tuple[int, ...]]:
        """Token index -> lengths of the phrases matching there, longest first."""
        if phrases not in self.found:
            by_first = phrases_by_first_word(phrases)
            found: dict[int, tuple[int, ...]] = {}
            for i in sorted({i for word in by_first for i in self.at.get(word, ())}):
                candidates = by_first.get(self.lower[i], ()) + by_first.get(self.norm[i], ())
                lengths = sorted({len(p) for p in candidates if self.matches_at(i, p)}, reverse=True)
                if lengths:
                    found[i] = tuple(lengths)
            self.found[phrases], self.positions[phrases] = found, sorted(found)
        return self.found[phrases]

    def matches_at(self, index: int, phrase: tuple[str, ...]) -> bool:
        return index + len(phrase) <= self.length and all(
            word in (self.lower[index + k], self.norm[index + k]) for k, word in enumerate(phrase))

    def phrase_length(self, phrases: tuple[tuple[str, ...], ...], index: int, end: int) -> int:
        """Length of the longest phrase at index that ends by `end`; 0 for none."""
        return next((length for length in self.matches(phrases).get(index, ()) if index + length <= end), 0)

    def first_phrase(self, phrases: tuple[tuple[str, ...], ...], start: int, end: int) -> int | None:
        """Where the first phrase that starts and ends in [start, end) starts. Only the last few
        matches before `end` can fail to end inside, so this looks at few positions."""
        self.matches(phrases)
        positions = self.positions[phrases]
        k = bisect_left(positions, start)
        while k < len(positions) and positions[k] < end:
            if self.phrase_length(phrases, positions[k], end):
                return positions[k]
            k += 1
        return None

    def cause_cue(self, index: int, end: int) -> tuple[int, bool] | None:
        """(length, True) for a cause-follows phrase at index, else (length, False) for a
        cause-precedes one, ending by `end`."""
        length = self.phrase_length(self.cues.cause_follows, index, end)
        if length:
            return length, True
        length = self.phrase_length(self.cues.cause_precedes, index, end)
        return (length, False) if length else None

    def next_cause_cue(self, start: int, end: int) -> tuple[int, int, bool] | None:
        """The first cause cue at or after start, ending by end: (index, length, follows)."""
        if self.cause_positions is None:
            self.matches(self.cues.cause_follows)
            self.matches(self.cues.cause_precedes)
            self.cause_positions = sorted(set(self.positions[self.cues.cause_follows])
                                          | set(self.positions[self.cues.cause_precedes]))
        positions = self.cause_positions
        k = bisect_left(positions, start)
        while k < len(positions) and positions[k] < end:
            cue = self.cause_cue(positions[k], end)
            if cue:
                return positions[k], *cue
            k += 1
        return None

    def cause_chain(self, start: int, end: int) -> tuple[list[int], list[tuple[int, int, bool]]]:
        """The cause cues a scan of the clause finds, from its start, skipping past each one found."""
        if (start, end) not in self.chains:
            starts: list[int] = []
            chain: list[tuple[int, int, bool]] = []
            cue = self.next_cause_cue(start, end)
            while cue:
                starts.append(cue[0])
                chain.append(cue)
                cue = self.next_cause_cue(cue[0] + cue[1], end)
            self.chains[(start, end)] = (starts, chain)
        return self.chains[(start, end)]

    def comma_between(self, start: int, end: int) -> bool:
        k = bisect_left(self.commas, start)
        return k < len(self.commas) and self.commas[k] < end


NEGATION_GAP_WORDS = {"a", "an", "the", "any", "single", "sign", "signs", "of", "evidence", "indication",
                      "other", "such", "obvious", "visible", "real", "actual", "be", "is", "was"}


IMPACT_AUXILIARIES = {"have", "be", "also", "briefly", "intermittently"}


# A coordination that contrasts ("not a DDoS attack but a bad push") ends a negation's reach.
CONTRASTING_CONJUNCTIONS = {"but", "yet", "instead", "rather"}


def first_conjunct(token: Token) -> Token:
    """The first item of the list a word is in ("a cyberattack" in "ruled out a system update and
    a cyberattack" -> "update"), so what denies the first item denies the others; itself when
    it is no list item or a contrast joins it."""
    while token.dep_ == "conj" and token.head.i < token.i:
        between = [t for t in token.head.subtree if token.head.i < t.i < token.i and t.dep_ == "cc"]
        if any(t.lower_ in CONTRASTING_CONJUNCTIONS for t in between):
            break
        token = token.head
    return token


def negated(span: Span, index: CueIndex, follow: bool) -> bool:
    first = first_conjunct(span.root)
    if first.i != span.root.i and first.left_edge.i < span.start:
        opening = span.doc[first.left_edge.i]
        if opening.lower_ == "no":  # "no alerts, pages or tickets", not "no leak and a full disk"
            if not any(child.dep_ == "det" for child in span.root.children):
                return True
        elif negated(span.doc[first.left_edge.i:first.i + 1], index, follow=False):
            return True  # "ruled out a system update and a cyberattack", "not a power cut or a fan"
    start, end = index.clause(span)
    cues = index.cues
    # "no ECC errors", "not a DDoS attack", "without any alert": only filler between cue and span.
    for i in range(max(start, span.start - cues.negation_precedes_window), span.start):
        length = index.phrase_length(cues.negation, i, end)
        if length and all(index.lower[k] in NEGATION_GAP_WORDS for k in range(i + length, span.start)):
            return True
    # "ECC, thermal and other hardware signals did not flag them": only for detection methods,
    # since the subject of a negated verb is still part of an incident.
    if follow:
        for i in range(span.end, min(end, span.end + cues.negation_follows_window)):
            if index.phrase_length(cues.negation, i, end):
                return True
    return False


def is_report_title(span: Span, cues: Cues) -> bool:
    """"Preliminary Post Incident Review (PIR)": the report itself, never an entity in it."""
    return all(token.lower_ in cues.report_words for token in span)


def ends_like_product(span: Span, cues: Cues) -> bool:
    """"Azure Cognitive Services", "Stripe API": a name the NER may call ORG that is a product."""
    return span[-1].lower_ in cues.product_words


def opens_with_negation(span: Span, index: CueIndex) -> bool:
    """"No data was lost", "none of the alerts fired": the span itself denies."""
    return bool(index.phrase_length(index.cues.negation, span.start, span.end))


def hedged(span: Span, index: CueIndex) -> bool:
    start, end = index.clause(span)
    first = index.first_phrase(index.cues.hedging, start, end)
    if first is None or first >= span.start:
        return False
    # "Customers may have experienced errors": status pages state impact this way; it is not doubt.
    after = first + index.phrase_length(index.cues.hedging, first, end)
    while after < span.start and index.norm[after] in IMPACT_AUXILIARIES:
        after += 1
    return not (after < span.start and index.norm[after] in index.cues.impact_verbs)


def cause_side(span: Span, index: CueIndex) -> str | None:
    """'cause' when a cue puts the span on the cause side of its clause, 'effect' on the other.

    The nearest cue wins, one before the span on a tie. The cues before the span are those a scan
    of the clause from its start finds (it skips past each cue found); after the span, the scan
    goes on from the span's end, or from the end of a cue running over it."""
    start, end = index.clause(span)
    starts, chain = index.cause_chain(start, end)
    best: tuple[int, str] | None = None
    resume = span.end
    k = bisect_left(starts, span.start) - 1
    if k >= 0:
        at, length, follows = chain[k]
        side = "cause" if follows else "effect"
        # "Because the certificate expired, handshakes failed": the comma ends the cause.
        if follows and at - start <= 1 and index.comma_between(at, span.start):
            side = "effect"
        best = (span.start - at, side)
        resume = max(span.end, at + length)
    after = index.next_cause_cue(resume, end)
    if after and (best is None or after[0] - span.end < best[0]):
        best = (after[0] - span.end, "effect" if after[2] else "cause")
    return best[1] if best else None
