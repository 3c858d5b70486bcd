"""Short names matched by meaning: the nearest of a list of names to a phrase, by the cosine of
their embeddings (ingest/embedding.py: the unit mean of the trained pipeline's content-word vectors).

Diagnosis uses it twice: an analyst's phrase that names no known symptom is matched to the graph's
symptoms, and a root cause the extractor found but could not place in the taxonomy is placed under
the nearest taxonomy root cause. Names repeat from request to request (the graph's symptoms), so
their vectors are kept per pipeline; a pipeline without vectors matches nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy
from spacy.language import Language

from incident_graph.ingest.embedding import text_embedding
from incident_graph.ingest.components.spans import NAME_FUNCTION_WORDS

MAX_CACHED_NAMES = 50_000  # vectors kept per pipeline; far more than a graph's entity names


def words(text: str) -> frozenset[str]:
    """Content words, lower case, a plural -s dropped ("databases" and "database" agree)."""
    found = (w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in NAME_FUNCTION_WORDS)
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in found)


def shares_words(phrase: frozenset[str], form: frozenset[str]) -> bool:
    return bool(form) and 2 * len(phrase & form) >= len(form)


@dataclass(frozen=True)
class Match:
    name: str
    similarity: float  # cosine of the two embeddings, -1 to 1


class NameVectors:
    """Embeddings of names (and their aliases), computed once per name."""

    def __init__(self, nlp: Language) -> None:
        self.nlp = nlp
        self._vectors: dict[str, numpy.ndarray | None] = {}

    def of(self, text: str) -> numpy.ndarray | None:
        if text not in self._vectors:
            if len(self._vectors) >= MAX_CACHED_NAMES:
                self._vectors.clear()
            embedding = text_embedding(self.nlp, text)
            self._vectors[text] = numpy.asarray(embedding) if embedding is not None else None
        return self._vectors[text]

    def nearest(self, phrase: str, names: Sequence[tuple[str, Sequence[str]]], threshold: float,
                shared_word: bool = False) -> Match | None:
        """The name whose own words or one of whose aliases is nearest to `phrase`, when at least
        `threshold`; None when nothing is that close (or the phrase has no vectors).

        With `shared_word`, only forms that share at least half their content words with the phrase
        count ("payment failures" for "card payments declined", not "back to normal the next day"
        for "froze on the extra day"). The trained
        pipeline's vectors are pruned (rare words borrow a frequent word's vector: "gpu" has the
        vector of "cache"), so for a name shown to a person the cosine alone is not evidence enough."""
        vector = self.of(phrase)
        if vector is None:
            return None
        phrase_words = words(phrase)
        owners = [(name, self.of(form)) for name, aliases in names for form in (name, *aliases)
                  if not shared_word or shares_words(phrase_words, words(form))]
        owners = [(name, other) for name, other in owners if other is not None]
        if not owners:
            return None
        similarities = numpy.stack([other for _, other in owners]) @ vector
        best = int(numpy.argmax(similarities))
        if similarities[best] < threshold:
            return None
        return Match(owners[best][0], round(float(similarities[best]), 4))


_BY_PIPELINE: dict[int, NameVectors] = {}


def name_vectors(nlp: Language) -> NameVectors:
    """The shared cache of one pipeline (pipelines are built once per process)."""
    return _BY_PIPELINE.setdefault(id(nlp), NameVectors(nlp))
