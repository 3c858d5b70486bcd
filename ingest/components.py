"""Custom spaCy components, registered by name and configured from data files.

Order in the pipeline (see pipeline.py):
  sentencizer -> incident_sentences -> lemmatizer -> incident_norms -> taxonomy_ruler
  -> detection_ruler -> incident_sections -> incident_roles -> incident_new_entities
  -> incident_organisations
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right, insort
from functools import cached_property, lru_cache
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from spacy.attrs import SENT_START
from spacy.language import Language
from spacy.matcher import Matcher
from spacy.tokens import Doc, Span, Token

from incident_graph.ingest.sections import ENTITY_SECTIONS, Layout, analyse

CANDIDATES = "incident_candidates"  # every taxonomy match, before roles are decided
MENTIONS = "incident"  # the accepted mentions, label = role, id = canonical name
DETECTION_CANDIDATES = "detection_candidates"
DETECTION = "detection"
SKIPPED_KINDS = {"front_matter", "heading"}
LEADING_FILLER = {"a", "an", "the", "our", "its", "their", "this", "that", "these", "those", "his", "her", "some", "one"}
ACRONYM_PLURAL = re.compile(r"^[A-Z][A-Z0-9]+s$")

for name, default in (("layout", None), ("role_confidence", None)):
    if not Doc.has_extension(name):
        Doc.set_extension(name, default=default)
for name in ("confidence", "method", "section", "negated", "hedged", "known", "loose_weight"):
    if not Span.has_extension(name):
        Span.set_extension(name, default=None)


# ------------------------------------------------------------------ tokens


MAX_RUN_CHARS = 200  # longer than any URL or path in the corpus (136); a run this long is cut


def make_doc(nlp: Language, text: str) -> Doc:
    """nlp.make_doc, except that a run of over MAX_RUN_CHARS characters without whitespace is
    tokenized in pieces of at most that length.

    spaCy's tokenizer strips a long token's prefixes and suffixes one at a time, and each strip costs
    the token's length: 20,000 "[" then 20,000 "]" took minutes. The pieces are joined into one Doc
    of exactly the same text, so character offsets still point into the text as read. Text without
    such a run (every real write-up) is tokenized as before, in one call.
    """
    if len(text) > nlp.max_length or not LONG_RUN.search(text):
        return nlp.make_doc(text)  # (over max_length: spaCy's own error, as before)
    docs = [nlp.make_doc(text[start:end]) for start, end in pieces(text)]
    return Doc.from_docs(docs, ensure_whitespace=False)


LONG_RUN = re.compile(r"\S{%d,}" % (MAX_RUN_CHARS + 1))


def pieces(text: str) -> list[tuple[int, int]]:
    """(start, end) of consecutive pieces of the text, cut where each long run starts and inside it.

    A cut at a run's start follows whitespace, where the tokenizer splits anyway, so the text around
    the runs tokenizes exactly as in one call; each run's last piece runs on to the next long run.
    """
    cuts = [0]
    for run in LONG_RUN.finditer(text):
        cuts.append(run.start())
        cuts += run_cuts(text, run.start(), run.end())
    cuts.append(len(text))
    return [(start, end) for start, end in zip(cuts, cuts[1:]) if end > start]


def run_cuts(text: str, start: int, end: int) -> list[int]:
    """Where to cut a long run: after its last non-alphanumeric character in the second half of
    each stretch of MAX_RUN_CHARS (so "word,word,..." keeps its words whole), else at the limit."""
    cuts: list[int] = []
    while end - start > MAX_RUN_CHARS:
        limit = start + MAX_RUN_CHARS
        cut = limit
        for index in range(limit - 1, start + MAX_RUN_CHARS // 2 - 1, -1):
            if not text[index].isalnum():
                cut = index + 1
                break
        cuts.append(cut)
        start = cut
    return cuts


# ------------------------------------------------------------------ sentences and norms


LINE_MARKERS = {"-", "*", "\u2022", "#"}


@Language.component("incident_sentences")
def incident_sentences(doc: Doc) -> Doc:
    """Sentences also start at paragraph breaks, bullets and headings, not only at full stops."""
    starts: list[int] = []
    previous_line_marker = False
    for token in doc[1:]:
        previous = doc[token.i - 1]
        if token.is_space or not (previous.is_space and "\n" in previous.text):
            continue
        marker = token.text in LINE_MARKERS
        if "\n\n" in previous.text or marker or previous_line_marker:
            starts.append(token.i)
        previous_line_marker = marker
    set_sentence_starts(doc, starts)
    return doc


def set_sentence_starts(doc: Doc, starts: list[int]) -> None:
    """Mark these tokens as sentence starts in one pass. Each `token.is_sent_start = True` checks
    the whole Doc for a parse first, so setting thousands of them one by one was quadratic."""
    if not starts:
        return
    values = doc.to_array([SENT_START])
    values[starts] = 1
    doc.from_array([SENT_START], values)


@Language.factory("incident_norms", default_config={})
def make_incident_norms(nlp: Language, name: str) -> "NormSetter":
    return NormSetter(nlp)


class NormSetter:
    """token.norm_ = lower-cased lemma, so phrase patterns match any inflection.

    The lookup table is case-sensitive ("Spikes" misses); acronym plurals ("GPUs") are not in it.
    """

    def __init__(self, nlp: Language) -> None:
        self.nlp = nlp
        self._table: Any = None

    @property
    def table(self) -> Any:
        if self._table is None:
            lemmatizer = self.nlp.get_pipe("lemmatizer") if "lemmatizer" in self.nlp.pipe_names else None
            lookups = getattr(lemmatizer, "lookups", None)
            self._table = lookups.get_table("lemma_lookup", {}) if lookups is not None else {}
        return self._table

    def __call__(self, doc: Doc) -> Doc:
        table = self.table
        for token in doc:
            token.norm_ = norm_of(token, table)
        return doc


def norm_of(token: Token, table: Any) -> str:
    text = token.text
    if ACRONYM_PLURAL.match(text):
        return text[:-1].lower()
    lemma = token.lemma_ if token.lemma_ and token.lemma_ != text else None
    if lemma is None:
        lower = text.lower()
        lemma = table.get(lower, lower) if hasattr(table, "get") else lower
    return lemma.lower()


# ------------------------------------------------------------------ loose phrase matching


@Language.factory("incident_loose_matcher", default_config={"spans_key": CANDIDATES, "window": 6,
                                                           "stop_words": []})
def make_loose_matcher(nlp: Language, name: str, spans_key: str, window: int,
                       stop_words: list[str]) -> "LooseMatcher":
    return LooseMatcher(spans_key, window, set(stop_words) | set(nlp.Defaults.stop_words))


class LooseMatcher:
    """Multi-word concept names that a write-up splits or reorders: "the certificate had expired"
    for "expired certificate". Every content lemma of the phrase must occur within a window of
    tokens in one sentence; the exact ruler's matches win over these (they are shorter-lived)."""

    def __init__(self, spans_key: str, window: int, stop_words: set[str]) -> None:
        self.spans_key = spans_key
        self.window = window
        self.stop_words = stop_words
        self.phrases: list[dict[str, Any]] = []  # {"label", "id", "lemmas": [...]}

    def add_phrases(self, phrases: list[dict[str, Any]]) -> None:
        self.phrases.extend(p for p in phrases if len(p["lemmas"]) >= 2)
        self._index = None

    @property
    def index(self) -> dict[str, list[dict[str, Any]]]:
        """Phrases by their first lemma: a sentence only checks phrases whose first lemma it has."""
        if getattr(self, "_index", None) is None:
            self._index = {}
            for phrase in self.phrases:
                self._index.setdefault(phrase["lemmas"][0], []).append(phrase)
        return self._index

    def __call__(self, doc: Doc) -> Doc:
        existing = list(doc.spans.get(self.spans_key, []))
        found: list[Span] = []
        index = self.index
        taken: dict[str, SpanIndex] = {}  # concept -> where it already matched
        for span in existing:
            taken.setdefault(span.id_, SpanIndex()).add(span.start, span.end)
        for sentence in doc.sents:
            positions: dict[str, list[int]] = {}
            for token in sentence:
                positions.setdefault(token.norm_, []).append(token.i)
            for phrase in (p for lemma in positions for p in index.get(lemma, ())):
                if not all(lemma in positions for lemma in phrase["lemmas"]):
                    continue
                span = self.tightest(doc, [positions[lemma] for lemma in phrase["lemmas"]])
                # Overlaps with other concepts are settled later (the longest span wins).
                same = taken.setdefault(phrase["id"], SpanIndex())
                if span is None or same.overlaps(span.start, span.end):
                    continue
                loose = Span(doc, span.start, span.end, label=phrase["label"], span_id=phrase["id"])
                loose._.loose_weight = len(phrase["lemmas"])
                found.append(loose)
                same.add(span.start, span.end)
        doc.spans[self.spans_key] = existing + found
        return doc

    def tightest(self, doc: Doc, occurrences: list[list[int]]) -> Span | None:
        """For each occurrence of the first lemma, the nearest occurrence of every other lemma; the
        narrowest such span within the window (the first one on a tie). Positions are sorted, so the
        nearest is a binary search: a long sentence repeating the words stays near linear."""
        best: tuple[int, int] | None = None
        for anchor in occurrences[0]:
            chosen = [nearest(positions, anchor) for positions in occurrences]
            start, end = min(chosen), max(chosen) + 1
            if end - start <= self.window and (best is None or end - start < best[1] - best[0]):
                best = (start, end)
        return doc[best[0]:best[1]] if best else None

    def to_disk(self, path: Path, exclude: Iterable[str] = ()) -> None:
        path.mkdir(parents=True, exist_ok=True)
        (path / "phrases.json").write_text(json.dumps(self.phrases))

    def from_disk(self, path: Path, exclude: Iterable[str] = ()) -> "LooseMatcher":
        self.phrases = json.loads((path / "phrases.json").read_text())
        self._index = None
        return self


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


# ------------------------------------------------------------------ sections


@Language.factory("incident_sections", default_config={"headings": {}})
def make_incident_sections(nlp: Language, name: str, headings: dict[str, list[str]]) -> "SectionTagger":
    return SectionTagger(headings)


class SectionTagger:
    """doc._.layout: the write-up's front matter, headings, sections and bullets."""

    def __init__(self, headings: dict[str, list[str]]) -> None:
        self.headings = headings

    def __call__(self, doc: Doc) -> Doc:
        doc._.layout = analyse(doc.text, self.headings)
        return doc


# ------------------------------------------------------------------ cues


@dataclass(frozen=True)
class Cues:
    cause_follows: tuple[tuple[str, ...], ...]
    cause_precedes: tuple[tuple[str, ...], ...]
    negation: tuple[tuple[str, ...], ...]
    hedging: tuple[tuple[str, ...], ...]
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
        return [token.lower_ for token in self.doc]

    @cached_property
    def norm(self) -> list[str]:
        return [token.norm_ for token in self.doc]

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


def negated(span: Span, index: CueIndex, follow: bool) -> bool:
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


def hedged(span: Span, index: CueIndex) -> bool:
    start, end = index.clause(span)
    first = index.first_phrase(index.cues.hedging, start, end)
    return first is not None and first < span.start


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


# ------------------------------------------------------------------ roles


@Language.factory(
    "incident_roles",
    default_config={"cues": {}, "confidence": {"section": 0.95, "cue": 0.85, "taxonomy": 0.75,
                                               "aside": 0.6, "hedged": 0.45, "outside_section": 0.4},
                    "nested_types": ["Organisation"]},
)
def make_incident_roles(nlp: Language, name: str, cues: dict[str, Any], confidence: dict[str, float],
                        nested_types: list[str]) -> "RoleAssigner":
    return RoleAssigner(cues, confidence, nested_types)


class RoleAssigner:
    """Decide the role of every taxonomy match: by section, then by cue phrase, then by its type.

    Negated matches are dropped; hedged ones keep a low confidence.
    """

    def __init__(self, cues: dict[str, Any], confidence: dict[str, float], nested_types: list[str]) -> None:
        self.cues = Cues.from_config(cues)
        self.confidence = confidence
        self.nested_types = set(nested_types)
        self.concepts: dict[str, dict[str, Any]] = {}

    def set_concepts(self, concepts: dict[str, dict[str, Any]]) -> None:
        self.concepts = concepts

    def roles_of(self, label: str, name: str) -> list[str]:
        return self.concepts.get(f"{label}\t{name}", {}).get("roles", [label])

    def __call__(self, doc: Doc) -> Doc:
        layout: Layout = doc._.layout
        cues = CueIndex(doc, self.cues)
        sectioned = self.sectioned_roles(doc)
        accepted: list[Span] = []
        for span in doc.spans.get(CANDIDATES, []):
            section = layout.kind_at(span.start_char)
            if section in SKIPPED_KINDS or negated(span, cues, follow=False):
                continue
            accepted.append(self.assign(span, section, cues, sectioned))
        doc.spans[MENTIONS] = resolve_overlaps(accepted, self.nested_types)
        doc.spans[DETECTION] = [
            span for span in doc.spans.get(DETECTION_CANDIDATES, [])
            if self.is_detection(span, layout, cues)
        ]
        return doc

    def assign(self, span: Span, section: str, cues: CueIndex, sectioned: set[str]) -> Span:
        label, name = span.label_, span.id_
        roles = self.roles_of(label, name)
        section_role = ENTITY_SECTIONS.get(section)
        if label in ("Component", "Organisation"):
            role, method = label, "section" if section_role == label else "taxonomy"
        elif section_role in roles:
            role, method = section_role, "section"
        else:
            side = cause_side(span, cues)
            if side == "cause" and "RootCause" in roles:
                role, method = "RootCause", "cue"
            elif side == "effect" and "Symptom" in roles:
                role, method = "Symptom", "cue"
            else:
                role, method = label, "taxonomy"
        score = self.confidence[method]
        if method == "taxonomy" and section in ("remediation", "lessons"):
            score = self.confidence["aside"]
        # In a sectioned write-up the author listed this role's entities in its own section; a
        # mention elsewhere (a lesson, a remediation step) is context, not a finding.
        if method != "section" and role in sectioned:
            score = min(score, self.confidence["outside_section"])
        is_hedged = hedged(span, cues)
        if is_hedged:
            score = min(score, self.confidence["hedged"])
        result = Span(doc=span.doc, start=span.start, end=span.end, label=role, span_id=name)
        result._.confidence = score
        result._.method = method
        result._.section = section
        result._.hedged = is_hedged
        result._.known = True
        result._.loose_weight = span._.loose_weight
        return result

    @staticmethod
    def sectioned_roles(doc: Doc) -> set[str]:
        layout: Layout = doc._.layout
        if not layout.is_sectioned:
            return set()
        return {role for kind, role in ENTITY_SECTIONS.items() if layout.sections(kind) and role != "Symptom"}

    def is_detection(self, span: Span, layout: Layout, cues: CueIndex) -> bool:
        section = layout.kind_at(span.start_char)
        if section in SKIPPED_KINDS or negated(span, cues, follow=True):
            return False
        if section == "detection":
            return True
        return cues.first_phrase(self.cues.detection, *cues.sentence(span.start)) is not None

    def to_disk(self, path: Path, exclude: Iterable[str] = ()) -> None:
        path.mkdir(parents=True, exist_ok=True)
        (path / "concepts.json").write_text(json.dumps(self.concepts, sort_keys=True))

    def from_disk(self, path: Path, exclude: Iterable[str] = ()) -> "RoleAssigner":
        self.concepts = json.loads((path / "concepts.json").read_text())
        return self


def content_weight(span: Span) -> int:
    """How many content words a match covers: a loose match counts its phrase's lemmas only."""
    if span._.loose_weight:
        return int(span._.loose_weight)
    return sum(1 for token in span if not (token.is_stop or token.is_punct or token.is_space))


def resolve_overlaps(spans: list[Span], nested_types: set[str]) -> list[Span]:
    """The match covering more content words wins, an exact match over a loose one on a tie, then
    the longer; a span of a nested type (an organisation) may sit inside another."""
    kept: list[Span] = []
    kept_by_label: dict[str, SpanIndex] = {}
    ranked = sorted(spans, key=lambda s: (-content_weight(s), bool(s._.loose_weight), -(s.end - s.start), s.start))
    for span in ranked:
        rivals = [span.label_] if span.label_ in nested_types else list(kept_by_label)
        if not any(label in kept_by_label and kept_by_label[label].overlaps(span.start, span.end) for label in rivals):
            kept.append(span)
            kept_by_label.setdefault(span.label_, SpanIndex()).add(span.start, span.end)
    return sorted(kept, key=lambda s: s.start)


# ------------------------------------------------------------------ new entities


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
            span = trim(span) if span is not None else None
            # A bullet of a paragraph's length is prose, not the name of an entity.
            if span is not None and len(span) <= MAX_NEW_ENTITY_TOKENS and len(span.text) <= MAX_NEW_ENTITY_CHARS \
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
    start, end = span.start, span.end
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


# ------------------------------------------------------------------ organisations


@Language.factory("incident_organisations", default_config={"cues": {}, "confidence": 0.7})
def make_organisations(nlp: Language, name: str, cues: dict[str, Any], confidence: float) -> "OrganisationFinder":
    return OrganisationFinder(nlp, cues, confidence)


CAPITALISED = {"TEXT": {"REGEX": r"^[A-Z][A-Za-z0-9&.-]*$"}}


class OrganisationFinder:
    """Organisations without a trained NER model: a capitalised name with a company suffix
    ("Knight Capital Group"), a possessive before staff or systems ("ByteDance's engineers"), or
    after "engineers at". A trained pipeline's ORG entities count too when one is installed."""

    def __init__(self, nlp: Language, cues: dict[str, Any], confidence: float) -> None:
        self.confidence = confidence
        self.matcher = Matcher(nlp.vocab)
        suffixes = list(cues.get("organisation_suffixes", []))
        possessed = [p.lower() for p in cues.get("organisation_possessed", [])]
        self.matcher.add("SUFFIX", [[{**CAPITALISED, "OP": "+"}, {"ORTH": {"IN": suffixes}}]], greedy="LONGEST")
        self.matcher.add("POSSESSIVE", [[{**CAPITALISED, "OP": "+"}, {"ORTH": {"IN": ["'s", "\u2019s"]}},
                                         {"NORM": {"IN": possessed}}]], greedy="LONGEST")
        preceding = [[{"LOWER": w} for w in phrase.lower().split()] + [{**CAPITALISED, "OP": "+"}]
                     for phrase in cues.get("organisation_preceding", [])]
        if preceding:
            self.matcher.add("PRECEDING", preceding, greedy="LONGEST")

    def __call__(self, doc: Doc) -> Doc:
        layout: Layout = doc._.layout
        mentions = list(doc.spans.get(MENTIONS, []))
        candidates = list(doc.spans.get(CANDIDATES, []))
        found: list[Span] = []
        taken, mentioned = SpanIndex(), SpanIndex()  # candidates, mentions and found; mentions and found
        for span in candidates:
            taken.add(span.start, span.end)
        for span in mentions:
            taken.add(span.start, span.end)
            mentioned.add(span.start, span.end)
        for match_id, start, end in self.matcher(doc):
            rule = doc.vocab.strings[match_id]
            span = doc[start:end]
            if rule == "POSSESSIVE":
                span = doc[start:end - 2]
            elif rule == "PRECEDING":
                span = doc[start + next(i for i, t in enumerate(span) if t.text[:1].isupper()):end]
            span = self.strip_sentence_start(span)
            if span is None or layout.kind_at(span.start_char) in SKIPPED_KINDS:
                continue
            if taken.overlaps(span.start, span.end):
                continue
            found.append(new_span(span, "Organisation", "taxonomy", self.confidence, layout))
            taken.add(span.start, span.end)
            mentioned.add(span.start, span.end)
        for ent in doc.ents:
            if ent.label_ == "ORG" and not mentioned.overlaps(ent.start, ent.end):
                found.append(new_span(ent, "Organisation", "ner", self.confidence, layout))
                mentioned.add(ent.start, ent.end)
        for span in found:
            span.id_ = span.text.strip()
        doc.spans[MENTIONS] = sorted(mentions + found, key=lambda s: s.start)
        return doc

    @staticmethod
    def strip_sentence_start(span: Span) -> Span | None:
        # A capitalised first word of a sentence is not evidence of a name ("Engineers at ...").
        start = span.start
        while start < span.end and span.doc[start].is_sent_start and span.doc[start].is_stop:
            start += 1
        return span.doc[start:span.end] if start < span.end else None
