"""Embeddings of short names from the trained pipeline's static word vectors.

A name's embedding is the unit-length mean of the vectors of its content words (alphabetic tokens
that are not stop words and that the vocabulary has a vector for). ingest/meaning_match.py
matches an analyst's phrase to the graph's symptom names with it, and an extracted root cause to
a taxonomy cause. Cases, search phrases and an analyst's whole text are compared by sentence
embeddings instead (ingest/sentence_encoder.py). A pipeline without vectors (blank English)
embeds nothing: `None`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy
from spacy.language import Language
from spacy.tokens import Token

Embedding = tuple[float, ...]


def has_vectors(nlp: Language) -> bool:
    """True when the pipeline's vocabulary carries word vectors."""
    rows, width = nlp.vocab.vectors.shape
    return rows > 0 and width > 0


def content_vectors(nlp: Language, tokens: Iterable[Token]) -> list[numpy.ndarray]:
    vocab = nlp.vocab
    vectors = []
    for token in tokens:
        if not token.is_alpha or token.is_stop:
            continue
        form = token.lower_ if vocab.has_vector(token.lower_) else token.text
        if vocab.has_vector(form):
            vectors.append(numpy.asarray(vocab.get_vector(form), dtype=numpy.float64))
    return vectors


def unit_mean(vectors: list[numpy.ndarray]) -> Embedding | None:
    if not vectors:
        return None
    mean = numpy.mean(vectors, axis=0)
    norm = float(numpy.linalg.norm(mean))
    if norm == 0.0:
        return None
    return tuple(round(float(value), 6) for value in mean / norm)


def text_embedding(nlp: Language, text: str) -> Embedding | None:
    """The embedding of one text (tokenized only), or None without vectors or content words."""
    if not has_vectors(nlp):
        return None
    return unit_mean(content_vectors(nlp, nlp.make_doc(text)))
