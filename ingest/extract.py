"""Turn a write-up into an ExtractedCase: mentions with evidence, detection, remediation, lessons."""

from __future__ import annotations

import hashlib
import heapq
import math
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import cached_property
from typing import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc, Span

from incident_graph.ingest.components import DETECTION, MENTIONS, make_doc
from incident_graph.ingest.components.spans import MIN_CONFIDENCE, in_markup
from incident_graph.ingest.components.narrative import COURTESY
from incident_graph.ingest.pipeline import fingerprint_of, model_of
from incident_graph.ingest.readers import WriteUp
from incident_graph.ingest.sections import Layout
from incident_graph.ingest.sentence_encoder import case_embedding
from incident_graph.schema.entity_types import ENTITY_TYPES, ORGANISATION
from incident_graph.schema.records import ExtractedCase, Mention
from incident_graph.schema.taxonomy import Taxonomy, load_taxonomy

MAX_EVIDENCE_CHARS = 1_000  # of a sentence kept as evidence; a longer one is cut around its mention
NEAR_DUPLICATE_RATIO = 0.9
# Bounds on the work to resolve one new name (see NearDuplicates).
EXACT_POSTINGS = 2_000  # index entries a name may have and still be compared with every candidate
MAX_POSTINGS = 200  # index entries read for a name with more, rarest trigrams first
MAX_EXAMINED = 30  # names compared in full (difflib)


class EntityResolver:
    """Maps a mention to one canonical entity per type; near-duplicate new names merge.

    Keeps the names it has seen, so "config push error" and "config push errors" in two write-ups
    become one entity across a run (and across runs, when seeded with the graph's names).
    """

    def __init__(self, taxonomy: Taxonomy, known_names: Iterable[tuple[str, str]] = ()) -> None:
        self.taxonomy = taxonomy
        self.names: dict[str, dict[str, str]] = {}  # type -> folded name -> canonical name
        self.similar: dict[str, NearDuplicates] = {}  # type -> the same folded names, indexed
        for concept in taxonomy.concepts:
            self.add(concept.type, concept.name)
            for synonym in concept.synonyms:
                self.remember(concept.type, fold(synonym), concept.name)
        for label, name in known_names:
            self.add(label, name)

    def add(self, label: str, name: str) -> None:
        self.remember(label, fold(name), name)

    def remember(self, label: str, folded: str, canonical: str) -> None:
        """The first canonical name for a folded name stays."""
        names = self.names.setdefault(label, {})
        if folded not in names:
            names[folded] = canonical
            self.similar.setdefault(label, NearDuplicates()).add(folded)

    def resolve(self, label: str, name: str, known: bool) -> str:
        if known:
            return name
        names = self.names.setdefault(label, {})
        folded = fold(name)
        if folded in names:
            return names[folded]
        other = self.similar.setdefault(label, NearDuplicates()).find(folded)
        canonical = names[other] if other is not None else name
        self.remember(label, folded, canonical)
        return canonical

    def name_case(self, parsed: ParsedWriteUp) -> ExtractedCase:
        """The case with its mentions under their canonical names (in input order: names are remembered)."""
        mentions = [mention for mention in map(self.mention, parsed.found) if mention is not None]
        mentions += self.metadata_organisation(parsed.writeup, mentions)
        return replace(parsed.case, mentions=tuple(mentions))

    def mention(self, found: FoundSpan) -> Mention | None:
        """The span as a mention, or None when it is not confident enough (its name is remembered)."""
        name = self.resolve(found.type, found.found_name, found.found_known)
        if not found.kept:
            return None
        concept = self.taxonomy.get(found.type, name) or self.taxonomy.get(found.type, found.found_name)
        return Mention(
            type=found.type,
            name=name,
            mention=found.mention,
            sentence=found.sentence,
            start=found.start,
            end=found.end,
            confidence=found.confidence,
            method=found.method,
            section=found.section,
            broader=concept.broader if concept else found.broader,
            aliases=concept.synonyms if concept else (),
            description=concept.description if concept else "",
            known=concept is not None,
        )

    def metadata_organisation(self, writeup: WriteUp, found: list[Mention]) -> list[Mention]:
        """The front matter's organisation, with its line as evidence, unless the text named it."""
        if not writeup.organisation:
            return []
        label = ORGANISATION.label
        name = self.resolve(label, writeup.organisation.strip(),
                            known=self.taxonomy.get(label, writeup.organisation.strip()) is not None)
        for concept in self.taxonomy.of_type(label):
            if fold(writeup.organisation) in {fold(concept.name), *map(fold, concept.synonyms)}:
                name = concept.name
        if any(m.type == label and m.name == name for m in found):
            return []
        start, end, line = organisation_evidence(writeup)
        concept = self.taxonomy.get(label, name)
        return [Mention(
            type=label, name=name, mention=writeup.organisation, sentence=line,
            start=start, end=end, confidence=1.0, method="metadata", section="front_matter",
            aliases=concept.synonyms if concept else (), description=concept.description if concept else "",
            known=concept is not None,
        )]


class NearDuplicates:
    """Folded names indexed by trigram (3-character substring) and length, to find the first name
    whose difflib ratio with a new one is at least NEAR_DUPLICATE_RATIO without comparing it with
    every name: comparing with all of them was quadratic in the number of new entities.

    A name with a ratio of 0.9 or more holds enough of the new name's trigrams (see min_shared) and
    a length within difflib's real_quick_ratio bound, so the index finds every such name. When the
    new name's index entries are few (EXACT_POSTINGS; names from the corpus and typos of the
    taxonomy's have at most about 1,200), the names passing that count are compared in the order
    added: the same first match as a scan of all names (unless more than MAX_EXAMINED pass). A name
    like thousands of others (a hostile write-up) reads only MAX_POSTINGS entries, rarest trigrams
    first, and is compared with the MAX_EXAMINED names sharing most trigrams.
    """

    def __init__(self) -> None:
        self.order: dict[str, int] = {}  # folded name -> when it was added
        self.grams: dict[str, int] = {}  # folded name -> how many distinct trigrams it has
        self.index: dict[tuple[str, int], list[str]] = {}  # (trigram, length) -> folded names, in order

    def add(self, folded: str) -> None:
        if folded in self.order:
            return
        grams = trigrams(folded)
        self.order[folded], self.grams[folded] = len(self.order), len(grams)
        for gram in grams:
            self.index.setdefault((gram, len(folded)), []).append(folded)

    def find(self, folded: str) -> str | None:
        for other in sorted(self.candidates(folded), key=self.order.__getitem__):
            matcher = SequenceMatcher(None, folded, other)
            if matcher.quick_ratio() >= NEAR_DUPLICATE_RATIO and matcher.ratio() >= NEAR_DUPLICATE_RATIO:
                return other
        return None

    def candidates(self, folded: str) -> list[str]:
        grams, lengths = trigrams(folded), near_lengths(len(folded))
        postings = {gram: [names for length in lengths if (names := self.index.get((gram, length)))]
                    for gram in grams}
        if sum(len(names) for lists in postings.values() for names in lists) <= EXACT_POSTINGS:
            shared = Counter(other for lists in postings.values() for names in lists for other in names)
            found = [other for other, count in shared.items()
                     if count >= min_shared(len(folded), len(grams), len(other), self.grams[other])]
            return sorted(found, key=self.order.__getitem__)[:MAX_EXAMINED]
        shared = rarest_first(postings, MAX_POSTINGS)
        return heapq.nsmallest(MAX_EXAMINED, shared, key=lambda other: (-shared[other], self.order[other]))


def rarest_first(postings: dict[str, list[list[str]]], budget: int) -> Counter[str]:
    """How many of the trigrams each name holds, reading `budget` index entries, rarest first."""
    shared: Counter[str] = Counter()
    for gram in sorted(postings, key=lambda gram: sum(map(len, postings[gram]))):
        for names in postings[gram]:
            shared.update(names[:budget])
            budget -= len(names)
            if budget <= 0:
                return shared
    return shared


def trigrams(text: str) -> set[str]:
    return {text[i:i + 3] for i in range(len(text) - 2)}


def near_lengths(length: int) -> list[int]:
    """Lengths that pass difflib's real_quick_ratio bound with this one: others can never match."""
    return [other for other in range(length // 2, 2 * length + 2)
            if length + other and 2.0 * min(length, other) / (length + other) >= NEAR_DUPLICATE_RATIO]


def min_shared(length: int, grams: int, other_length: int, other_grams: int) -> int:
    """The fewest distinct trigrams two names (of these lengths, with this many distinct trigrams)
    share when their difflib ratio reaches NEAR_DUPLICATE_RATIO.

    The ratio is 2M/T for M characters in matching blocks. A trigram of one name is in the other
    unless it holds one of its characters left out (at most 3 trigrams each) or spans two blocks
    that touch in it; those are apart in the other name, so such joints are at most the other's
    characters left out (at most 2 trigrams each)."""
    matched = math.ceil(NEAR_DUPLICATE_RATIO * (length + other_length) / 2 - 1e-9)
    left_out, other_left_out = length - matched, other_length - matched
    return max(grams - 3 * left_out - 2 * other_left_out, other_grams - 3 * other_left_out - 2 * left_out)


def fold(name: str) -> str:
    """Comparison key: lower case, punctuation as spaces, plural -s dropped from each word."""
    words = re.sub(r"[^\w]+", " ", name.lower()).split()
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words)


@dataclass(frozen=True)
class FoundSpan:
    """A mention as the pipeline found it, before its name is resolved (see ParsedWriteUp)."""

    type: str
    found_name: str  # the matcher's name for it: a taxonomy concept's, or a new entity's as written
    found_known: bool  # the matcher found it in the taxonomy
    mention: str
    sentence: str
    start: int
    end: int
    confidence: float
    method: str
    section: str
    broader: str | None
    kept: bool  # confident enough to become a mention; every span's name is resolved all the same


@dataclass(frozen=True)
class ParsedWriteUp:
    """What the spaCy pipeline made of one write-up: the case without its mentions, and the spans.

    Parsing needs the pipeline and nothing else, so it can run in worker processes; naming the
    spans (EntityResolver.name_case) remembers names across write-ups, so it runs in one process,
    in input order, and the result is the same however many workers parsed.
    """

    writeup: WriteUp
    case: ExtractedCase  # mentions empty
    found: tuple[FoundSpan, ...]


class Extractor:
    def __init__(self, nlp: Language, taxonomy: Taxonomy | None = None,
                 resolver: EntityResolver | None = None, min_confidence: float = MIN_CONFIDENCE) -> None:
        self.nlp = nlp
        self.taxonomy = taxonomy or load_taxonomy()
        self.resolver = resolver or EntityResolver(self.taxonomy)
        self.min_confidence = min_confidence

    def extract(self, writeup: WriteUp) -> ExtractedCase:
        return self.resolver.name_case(self.parse_writeup(writeup))

    def parse_writeup(self, writeup: WriteUp) -> ParsedWriteUp:
        """One write-up through the pipeline on its own: the same result whatever else is parsed
        (nlp.pipe's batches can move a trained model's scores in the last digits)."""
        return self.parse(writeup, self.nlp(make_doc(self.nlp, writeup.text)))

    def extract_many(self, writeups: list[WriteUp], batch_size: int = 16) -> Iterator[ExtractedCase]:
        for parsed in self.parse_many(writeups, batch_size):
            yield self.resolver.name_case(parsed)

    def parse_many(self, writeups: list[WriteUp], batch_size: int = 16) -> Iterator[ParsedWriteUp]:
        docs = self.nlp.pipe((make_doc(self.nlp, w.text) for w in writeups), batch_size=batch_size)
        for writeup, doc in zip(writeups, docs):
            yield self.parse(writeup, doc)

    def from_doc(self, writeup: WriteUp, doc: Doc) -> ExtractedCase:
        return self.resolver.name_case(self.parse(writeup, doc))

    def parse(self, writeup: WriteUp, doc: Doc) -> ParsedWriteUp:
        layout: Layout = doc._.layout
        case = ExtractedCase(
            case_id=writeup.case_id,
            title=writeup.title,
            source=writeup.source,
            text=writeup.text,
            published=writeup.published,
            layout="sectioned" if layout.is_sectioned else "free-form",
            detection=section_text(doc, layout, "detection") or " ".join(narrative_sentences(doc, "detection")),
            detection_methods=tuple(dict.fromkeys(span.id_ for span in doc.spans[DETECTION])),
            remediation=tuple(remediation_steps(doc, layout)) or tuple(narrative_sentences(doc, "remediation")),
            lessons=section_text(doc, layout, "lessons") or " ".join(narrative_sentences(doc, "lessons")),
            lesson_items=tuple(section_sentences(doc, layout, "lessons")) or tuple(narrative_sentences(doc, "lessons")),
            extraction_model=model_of(self.nlp),
            origin=writeup.origin,
            input_hash=self.input_hash(writeup),
            embedding=case_embedding(writeup.title, writeup.text),
        )
        return ParsedWriteUp(writeup, case, tuple(self.found_spans(doc)))

    def input_hash(self, writeup: WriteUp) -> str:
        """Changes when the write-up as read, or the pipeline reading it, changes."""
        return input_hash(fingerprint_of(self.nlp), writeup)

    def found_spans(self, doc: Doc) -> Iterator[FoundSpan]:
        sentences = SentenceTexts(doc)
        has_broader = Span.has_extension("broader")
        for span in doc.spans[MENTIONS]:
            if in_markup(span):
                continue
            confidence = float(span._.confidence or 0.0)
            yield FoundSpan(
                type=span.label_,
                found_name=span.id_,
                found_known=bool(span._.known),
                mention=span.text,
                sentence=sentences.of(span),
                start=span.start_char,
                end=span.end_char,
                confidence=confidence,
                method=str(span._.method),
                section=str(span._.section or ""),
                broader=span._.get("broader") if has_broader else None,
                kept=confidence >= self.min_confidence,
            )


def input_hash(fingerprint: str, writeup: WriteUp) -> str:
    """Changes when the write-up as read, or the pipeline reading it (its fingerprint), changes.
    A function of its own so the ingest can skip an unchanged write-up before any pipeline parses it."""
    digest = hashlib.sha256(fingerprint.encode())
    for value in (writeup.case_id, writeup.title, writeup.source, writeup.published or "",
                  writeup.organisation or "", writeup.text):
        digest.update(b"\0" + value.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def organisation_evidence(writeup: WriteUp) -> tuple[int, int, str]:
    """Offsets of the organisation's value in the front matter and its line, as the reader located
    it; (0, 0, "") when the text does not hold it (a JSON record's field)."""
    field = writeup.organisation_field
    if field is None:
        return 0, 0, ""
    return field.start, field.end, field.line


class SentenceTexts:
    """The text of the sentence holding a span's first token (as Span.sent has it), stripped.

    Sentence starts are found once per Doc and each sentence's text is made once: Span.sent walks
    out to both ends of the sentence for every mention, and one long sentence can hold thousands.
    """

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        self.texts: dict[int, str] = {}  # sentence number -> text

    @cached_property
    def starts(self) -> list[int]:
        return [sentence.start for sentence in self.doc.sents]

    @cached_property
    def text(self) -> str:
        return self.doc.text  # joins every token's text: once per Doc

    def of(self, span: Span) -> str:
        number = bisect_right(self.starts, span.start) - 1
        if number not in self.texts:
            end = self.starts[number + 1] if number + 1 < len(self.starts) else len(self.doc)
            self.texts[number] = self.doc[self.starts[number]:end].text.strip()
        sentence = self.texts[number]
        return sentence if len(sentence) <= MAX_EVIDENCE_CHARS else self.window(span, number)

    def window(self, span: Span, number: int) -> str:
        """About MAX_EVIDENCE_CHARS of an over-long sentence around the mention, cut at spaces: a
        sentence naming thousands of entities would otherwise be stored once per entity."""
        last = self.starts[number + 1] if number + 1 < len(self.starts) else len(self.doc)
        sentence_start, sentence_end = self.doc[self.starts[number]].idx, self.doc[last - 1].idx + len(self.doc[last - 1])
        margin = max(0, (MAX_EVIDENCE_CHARS - len(span.text)) // 2)
        start = max(sentence_start, span.start_char - margin)
        end = min(sentence_end, span.end_char + margin)
        space = self.text.find(" ", start, span.start_char)
        start = space + 1 if start > sentence_start and space >= 0 else start
        space = self.text.rfind(" ", span.end_char, end)
        end = space if end < sentence_end and space >= 0 else end
        return self.text[start:end].strip()


def section_text(doc: Doc, layout: Layout, kind: str) -> str:
    text = doc.text  # doc.text joins every token's text: once, not once per section
    return "\n\n".join(text[r.start:r.end].strip() for r in layout.sections(kind)).strip()


def remediation_steps(doc: Doc, layout: Layout) -> Iterator[str]:
    """Each remediation section's bullets, or its sentences when it has none: a "Resolution"
    paragraph and an "Action items" list both count; courtesy ("we apologise") is no step."""
    text = doc.text  # once, not once per bullet
    courtesy = courtesy_ranges(doc)
    for region in layout.sections("remediation"):
        bullets = [(s, e) for s, e in layout.bullets if region.start <= s < region.end]
        if bullets:
            yield from (text[s:e].strip() for s, e in bullets if not courtesy_within(courtesy, s, e))
            continue
        span = doc.char_span(region.start, region.end, alignment_mode="contract")
        if span is not None:
            yield from (sentence.text.strip() for sentence in span.sents
                        if sentence.text.strip() and not courtesy_within(courtesy, sentence.start_char, sentence.end_char))


def courtesy_ranges(doc: Doc) -> list[tuple[int, int]]:
    """The sentences of courtesy or status boilerplate (incident_narrative), as character ranges."""
    return (doc._.narrative or {}).get(COURTESY, [])


def courtesy_within(ranges: list[tuple[int, int]], start: int, end: int) -> bool:
    """A courtesy sentence overlaps [start, end): that bullet, or sentence, is boilerplate."""
    return any(s < end and start < e for s, e in ranges)


def narrative_sentences(doc: Doc, kind: str) -> list[str]:
    """Sentences of prose that tell this kind (incident_narrative), for write-ups without its section."""
    spans = (doc._.narrative or {}).get(kind, [])
    text = doc.text
    return [text[start:end].strip() for start, end in spans]


def section_sentences(doc: Doc, layout: Layout, kind: str) -> list[str]:
    found: list[str] = []
    courtesy = courtesy_ranges(doc)
    for region in layout.sections(kind):
        span = doc.char_span(region.start, region.end, alignment_mode="contract")
        if span is not None:
            found += [s.text.strip() for s in span.sents
                      if s.text.strip() and not courtesy_within(courtesy, s.start_char, s.end_char)]
    return found


def as_json(case: ExtractedCase) -> dict[str, object]:
    """The `extract --format json` contract: evaluation tools read these keys (entity types in ENTITY_TYPES order).

    `source` is the file it was read from, so scorers find a write-up by its file name; `url` is the
    source the write-up names (its front matter), when it names one."""
    result: dict[str, object] = {"id": case.case_id, "title": case.title, "source": case.origin or case.source,
                                 "url": case.source if case.source != case.origin else None, "model": case.extraction_model}
    for entity_type in ENTITY_TYPES:
        result[entity_type.key] = [m.as_json() for m in case.strongest_mentions_of(entity_type.label)]
    result["detection"] = list(case.detection_methods)
    result["remediations"] = list(case.remediation)
    result["lessons"] = list(case.lesson_items)
    return result
