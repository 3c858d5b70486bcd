"""Text embeddings from the trained pipeline's static word vectors.

A text's embedding is the unit-length mean of the vectors of its content words (alphabetic tokens
that are not stop words and that the vocabulary has a vector for). The same function embeds a
case at ingest (its title and text), a search phrase (casesLike) and an analyst's symptoms
(diagnose), so they compare by cosine. A pipeline without vectors (blank English) embeds nothing:
`None`, and the features built on embeddings say so.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy
from spacy.language import Language
from spacy.tokens import Doc, Token

from incident_graph.schema.models import EMBEDDING_DIMENSIONS

Embedding = tuple[float, ...]


def has_vectors(nlp: Language) -> bool:
    """True when the pipeline's vocabulary carries word vectors of the graph's dimension."""
    rows, width = nlp.vocab.vectors.shape
    return rows > 0 and width == EMBEDDING_DIMENSIONS


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


def docs_embedding(nlp: Language, docs: Iterable[Doc]) -> Embedding | None:
    """The embedding of several texts taken together (a case's title and text)."""
    if not has_vectors(nlp):
        return None
    return unit_mean([vector for doc in docs for vector in content_vectors(nlp, doc)])


def text_embedding(nlp: Language, text: str) -> Embedding | None:
    """The embedding of one text (tokenized only), or None without vectors or content words."""
    return docs_embedding(nlp, [nlp.make_doc(text)])


def phrase_embedding(text: str, nlp: Language | None = None) -> Embedding | None:
    """A search phrase's embedding through the same pipeline as ingest (None without vectors)."""
    from incident_graph.ingest.pipeline import default_pipeline

    return text_embedding(nlp or default_pipeline(), text)
