"""Name embeddings from the trained pipeline's word vectors, and the blank pipeline without them."""

from __future__ import annotations

import math

from incident_graph.ingest.embedding import has_vectors, text_embedding
from incident_graph.ingest.pipeline import build_pipeline, default_pipeline


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_a_name_embedding_is_a_unit_vector_of_the_pipelines_width():
    nlp = default_pipeline()
    vector = text_embedding(nlp, "the database ran out of disk space")
    assert vector is not None and len(vector) == nlp.vocab.vectors.shape[1]
    assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-4)


def test_names_of_the_same_thing_are_closer_than_unrelated_ones():
    nlp = default_pipeline()
    disk = text_embedding(nlp, "disk full")
    storage = text_embedding(nlp, "storage volume full")
    power = text_embedding(nlp, "power outage")
    assert cosine(disk, storage) > cosine(disk, power)


def test_stop_words_and_punctuation_alone_embed_to_nothing():
    assert text_embedding(default_pipeline(), "the of and ... !!") is None


def test_the_blank_pipeline_has_no_vectors_and_embeds_no_name():
    blank = build_pipeline(use_trained=False)
    assert not has_vectors(blank)
    assert text_embedding(blank, "the database ran out of disk space") is None
