"""Turn a write-up into an ExtractedCase: mentions with evidence, detection, remediation, lessons."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc

from incident_graph.ingest.components import DETECTION, MENTIONS
from incident_graph.ingest import readers
from incident_graph.ingest.readers import WriteUp
from incident_graph.ingest.sections import Layout
from incident_graph.schema.entity_types import ENTITY_TYPES
from incident_graph.schema.records import ExtractedCase, Mention
from incident_graph.schema.taxonomy import Taxonomy, load_taxonomy

MIN_CONFIDENCE = 0.5
NEAR_DUPLICATE_RATIO = 0.9


class EntityResolver:
    """Maps a mention to one canonical entity per type; near-duplicate new names merge.

    Keeps the names it has seen, so "config push error" and "config push errors" in two write-ups
    become one entity across a run (and across runs, when seeded with the graph's names).
    """

    def __init__(self, taxonomy: Taxonomy, known_names: Iterable[tuple[str, str]] = ()) -> None:
        self.taxonomy = taxonomy
        self.names: dict[str, dict[str, str]] = {}  # type -> folded name -> canonical name
        for concept in taxonomy.concepts:
            self.add(concept.type, concept.name)
            for synonym in concept.synonyms:
                self.names.setdefault(concept.type, {}).setdefault(fold(synonym), concept.name)
        for label, name in known_names:
            self.add(label, name)

    def add(self, label: str, name: str) -> None:
        self.names.setdefault(label, {}).setdefault(fold(name), name)

    def resolve(self, label: str, name: str, known: bool) -> str:
        if known:
            return name
        names = self.names.setdefault(label, {})
        folded = fold(name)
        if folded in names:
            return names[folded]
        for other, canonical in names.items():
            if SequenceMatcher(None, folded, other).ratio() >= NEAR_DUPLICATE_RATIO:
                names[folded] = canonical
                return canonical
        names[folded] = name
        return name


def fold(name: str) -> str:
    """Comparison key: lower case, punctuation as spaces, plural -s dropped from each word."""
    words = re.sub(r"[^\w]+", " ", name.lower()).split()
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words)


class Extractor:
    def __init__(self, nlp: Language, taxonomy: Taxonomy | None = None,
                 resolver: EntityResolver | None = None, min_confidence: float = MIN_CONFIDENCE) -> None:
        self.nlp = nlp
        self.taxonomy = taxonomy or load_taxonomy()
        self.resolver = resolver or EntityResolver(self.taxonomy)
        self.min_confidence = min_confidence

    def extract(self, writeup: WriteUp) -> ExtractedCase:
        return self.from_doc(writeup, self.nlp(writeup.text))

    def extract_many(self, writeups: list[WriteUp], batch_size: int = 16) -> Iterator[ExtractedCase]:
        docs = self.nlp.pipe((w.text for w in writeups), batch_size=batch_size)
        for writeup, doc in zip(writeups, docs):
            yield self.from_doc(writeup, doc)

    def from_doc(self, writeup: WriteUp, doc: Doc) -> ExtractedCase:
        layout: Layout = doc._.layout
        mentions = [m for m in self.mentions(doc) if m.confidence >= self.min_confidence]
        mentions += self.metadata_organisation(writeup, mentions)
        return ExtractedCase(
            case_id=writeup.case_id,
            title=writeup.title,
            source=writeup.source,
            text=writeup.text,
            published=writeup.published,
            layout="sectioned" if layout.is_sectioned else "free-form",
            detection=section_text(doc, layout, "detection"),
            detection_methods=tuple(dict.fromkeys(span.id_ for span in doc.spans[DETECTION])),
            remediation=tuple(remediation_steps(doc, layout)),
            lessons=section_text(doc, layout, "lessons"),
            lesson_items=tuple(section_sentences(doc, layout, "lessons")),
            mentions=tuple(mentions),
        )

    def mentions(self, doc: Doc) -> Iterator[Mention]:
        for span in doc.spans[MENTIONS]:
            label = span.label_
            name = self.resolver.resolve(label, span.id_, bool(span._.known))
            concept = self.taxonomy.get(label, name) or self.taxonomy.get(label, span.id_)
            sentence = span.sent
            yield Mention(
                type=label,
                name=name,
                mention=span.text,
                sentence=sentence.text.strip(),
                start=span.start_char,
                end=span.end_char,
                confidence=float(span._.confidence or 0.0),
                method=str(span._.method),
                section=str(span._.section or ""),
                broader=concept.broader if concept else None,
                aliases=concept.synonyms if concept else (),
                description=concept.description if concept else "",
                known=concept is not None,
            )

    def metadata_organisation(self, writeup: WriteUp, found: list[Mention]) -> list[Mention]:
        """The front matter's organisation, with its line as evidence, unless the text named it."""
        if not writeup.organisation:
            return []
        name = self.resolver.resolve("Organisation", writeup.organisation.strip(),
                                     known=self.taxonomy.get("Organisation", writeup.organisation.strip()) is not None)
        for concept in self.taxonomy.of_type("Organisation"):
            if fold(writeup.organisation) in {fold(concept.name), *map(fold, concept.synonyms)}:
                name = concept.name
        if any(m.type == "Organisation" and m.name == name for m in found):
            return []
        start, end, line = front_matter_value(writeup.text, ("organisation", "organization"))
        concept = self.taxonomy.get("Organisation", name)
        return [Mention(
            type="Organisation", name=name, mention=writeup.organisation, sentence=line,
            start=start, end=end, confidence=1.0, method="metadata", section="front_matter",
            aliases=concept.synonyms if concept else (), description=concept.description if concept else "",
            known=concept is not None,
        )]

FRONT_MATTER_LINE = re.compile(r"^[ \t]*([A-Za-z_-]+)[ \t]*:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def front_matter_value(text: str, keys: tuple[str, ...]) -> tuple[int, int, str]:
    """Offsets of a front-matter key's value and its line; the last one wins, as in the reader."""
    found = (0, 0, "")
    block = readers.FRONT_MATTER.match(text)
    for match in FRONT_MATTER_LINE.finditer(text, 0, block.end() if block else 0):
        if match.group(1).lower() in keys:
            found = (match.start(2), match.end(2), match.group(0).strip())
    return found


def section_text(doc: Doc, layout: Layout, kind: str) -> str:
    return "\n\n".join(doc.text[r.start:r.end].strip() for r in layout.sections(kind)).strip()


def remediation_steps(doc: Doc, layout: Layout) -> Iterator[str]:
    regions = layout.sections("remediation")
    bullets = [(s, e) for s, e in layout.bullets if any(r.start <= s < r.end for r in regions)]
    if bullets:
        yield from (doc.text[s:e].strip() for s, e in bullets)
        return
    yield from section_sentences(doc, layout, "remediation")


def section_sentences(doc: Doc, layout: Layout, kind: str) -> list[str]:
    found: list[str] = []
    for region in layout.sections(kind):
        span = doc.char_span(region.start, region.end, alignment_mode="contract")
        if span is not None:
            found += [s.text.strip() for s in span.sents if s.text.strip()]
    return found


def as_json(case: ExtractedCase) -> dict[str, object]:
    """The `extract --format json` contract: evaluation tools read these keys."""
    result: dict[str, object] = {"id": case.case_id, "title": case.title, "source": case.source}
    for entity_type in ENTITY_TYPES:
        result[entity_type.key] = [m.as_json() for m in case.strongest_mentions_of(entity_type.label)]
    result["detection"] = list(case.detection_methods)
    result["remediations"] = list(case.remediation)
    result["lessons"] = list(case.lesson_items)
    return {key: result[key] for key in (
        "id", "title", "source", "organisations", "symptoms", "root_causes", "components",
        "contributing_factors", "detection", "remediations", "lessons")}
