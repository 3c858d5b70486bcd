"""Symptoms read out of an analyst's own words, for diagnosis.

Analysts type fragments ("kube-proxy in crashloopbackoff; dial tcp ... connection refused; no
app errors"), so the text is cut at semicolons, commas, line breaks and sentence ends. The ingest
pipeline finds the taxonomy's symptoms (names and synonyms, as in suggestFilters); a fragment that
names none is matched by meaning to the symptoms the graph knows (ingest/meaning_match.py), when
close enough. The root causes the words name are read too: an analyst who writes "certificate has
expired" has named a cause.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from spacy.language import Language

from incident_graph.ingest.meaning_match import Match, name_vectors
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.ingest.suggest import suggest_filters
from incident_graph.schema.entity_types import ROOT_CAUSE, SYMPTOM
from incident_graph.schema.records import Mention

# Where one fragment ends: ; , or a line break, or whitespace after a sentence's full stop.
FRAGMENT_BREAK = re.compile(r"[;,\n]+|(?<=[.!?])\s+")
MAX_FRAGMENTS = 50  # a 500-character text has fewer; bounds the matching work

KnownNames = Sequence[tuple[str, Sequence[str]]]  # (canonical name, aliases)


@dataclass(frozen=True)
class UnderstoodSymptom:
    phrase: str  # the analyst's words
    symptom: str  # the graph's symptom they were taken for
    similarity: float  # 1.0 for a name or synonym; else the cosine of the two embeddings
    method: str  # "name" (given as a name), "taxonomy" (a name or synonym in the text), "meaning"


@dataclass(frozen=True)
class Fragment:
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Reading:
    symptoms: tuple[UnderstoodSymptom, ...]
    root_causes: tuple[str, ...]  # taxonomy root causes the text names, in order


def fragments(text: str) -> list[Fragment]:
    """The pieces between breaks, stripped, with their offsets; empty pieces are dropped."""
    pieces, start = [], 0
    for found in [*FRAGMENT_BREAK.finditer(text), None]:
        end = found.start() if found else len(text)
        piece = text[start:end]
        stripped = piece.strip()
        if stripped:
            offset = start + piece.index(stripped)
            pieces.append(Fragment(stripped, offset, offset + len(stripped)))
        start = found.end() if found else len(text)
    return pieces[:MAX_FRAGMENTS]


def read_symptoms(text: str, known: KnownNames, threshold: float, nlp: Language | None = None) -> Reading:
    """The symptoms `text` names (taxonomy matches first, then matches by meaning to `known`), one
    entry per graph symptom (its strongest phrase), and the root causes it names."""
    nlp = nlp or default_pipeline()
    mentions = suggest_filters(text, nlp)
    named = [m for m in mentions if m.type == SYMPTOM.label]
    pieces = fragments(text)
    understood = [
        UnderstoodSymptom(phrase=fragment_of(pieces, m.start, m.mention), symptom=m.name, similarity=1.0,
                          method="taxonomy")
        for m in named
    ]
    for piece, match in matches_by_meaning(pieces, named, known, threshold, nlp):
        understood.append(UnderstoodSymptom(piece.text, match.name, match.similarity, "meaning"))
    causes = tuple(dict.fromkeys(m.name for m in mentions if m.type == ROOT_CAUSE.label))
    return Reading(strongest_per_symptom(understood), causes)


def matches_by_meaning(pieces: list[Fragment], named: list[Mention], known: KnownNames, threshold: float,
                       nlp: Language, shared_word: bool = False) -> list[tuple[Fragment, Match]]:
    """Each fragment in which the pipeline read no symptom, with the known symptom nearest to it in
    meaning, when close enough (and, with `shared_word`, sharing a word with it)."""
    vectors = name_vectors(nlp)
    found = []
    for piece in pieces:
        if any(piece.start <= m.start < piece.end for m in named):
            continue  # the pipeline already read a symptom here
        match = vectors.nearest(piece.text, known, threshold, shared_word)
        if match is not None:
            found.append((piece, match))
    return found


def suggestions(text: str, known: KnownNames, threshold: float, nlp: Language | None = None) -> list[Mention]:
    """suggestFilters: the taxonomy's concepts named in `text` (ingest/suggest.py), then, for each
    fragment that names no symptom, the known symptom nearest to it in meaning among those sharing
    a word with it, with the cosine as its confidence: "card payments declined" suggests a payment
    failure the graph knows, and a suggestion is never a coincidence of pruned vectors."""
    nlp = nlp or default_pipeline()
    mentions = suggest_filters(text, nlp)
    named = [m for m in mentions if m.type == SYMPTOM.label]
    seen = {(m.type, m.name) for m in mentions}
    for piece, match in matches_by_meaning(fragments(text), named, known, threshold, nlp, shared_word=True):
        if (SYMPTOM.label, match.name) not in seen:
            seen.add((SYMPTOM.label, match.name))
            mentions.append(Mention(type=SYMPTOM.label, name=match.name, mention=piece.text, sentence=piece.text,
                                    start=piece.start, end=piece.end, confidence=match.similarity, method="meaning"))
    return mentions


def fragment_of(pieces: list[Fragment], start: int, fallback: str) -> str:
    return next((piece.text for piece in pieces if piece.start <= start < piece.end), fallback)


def strongest_per_symptom(understood: list[UnderstoodSymptom]) -> tuple[UnderstoodSymptom, ...]:
    best: dict[str, UnderstoodSymptom] = {}
    for item in understood:
        if item.symptom not in best or item.similarity > best[item.symptom].similarity:
            best[item.symptom] = item
    return tuple(best.values())


def named_symptoms(names: Sequence[str], known: KnownNames) -> Reading:
    """Symptoms given as names: each canonical name or alias (any case) of a known symptom; the
    others are not understood."""
    canonical = {form.lower(): name for name, aliases in known for form in (name, *aliases)}
    understood = [UnderstoodSymptom(name, canonical[name.lower()], 1.0, "name")
                  for name in names if name.lower() in canonical]
    return Reading(strongest_per_symptom(understood), ())
