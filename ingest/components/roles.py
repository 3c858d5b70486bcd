"""incident_roles: the role of every taxonomy match, by section, cue phrase or type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span

from incident_graph.ingest.components.cues import CueIndex, Cues, cause_side, hedged, negated
from incident_graph.ingest.components.spans import CANDIDATES, DETECTION, DETECTION_CANDIDATES, MENTIONS, SKIPPED_KINDS, SpanIndex
from incident_graph.ingest.sections import ENTITY_SECTIONS, Layout


@Language.factory(
    "incident_roles",
    default_config={"cues": {}, "confidence": {"section": 0.95, "cue": 0.85, "taxonomy": 0.75,
                                               "aside": 0.6, "hedged": 0.45, "outside_section": 0.4,
                                               "timeline": 0.45},
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
            if section in SKIPPED_KINDS or negated(span, cues, follow=False) or self.is_other_kind(span):
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
        # A timeline retells the incident line by line: only what a cue or its section says counts.
        if method == "taxonomy" and section == "timeline":
            score = self.confidence["timeline"]
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
    def is_other_kind(span: Span) -> bool:
        """A one-word synonym of a component that a noun before it makes another thing: the
        "card processor" or "alarm processor" is no CPU. The concept's own name stays (the
        "orders database" is a database)."""
        if not span.doc.has_annotation("DEP"):
            return False  # blank English has no parse to read
        if span.label_ != "Component" or len(span) != 1 or span.root.norm_ == span.id_.lower():
            return False
        return any(child.dep_ == "compound" and child.i < span.start and child.pos_ in ("NOUN", "PROPN")
                   for child in span.root.children)

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
