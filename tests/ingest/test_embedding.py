"""Case embeddings from the trained pipeline's vectors, and the blank pipeline without them."""

from __future__ import annotations

import math

import pytest

from incident_graph.ingest.embedding import has_vectors, text_embedding
from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.ingestion import ingest_writeups
from incident_graph.ingest.pipeline import build_pipeline, default_pipeline
from incident_graph.ingest.readers import writeup_from_text
from incident_graph.schema.models import EMBEDDING_DIMENSIONS

WRITE_UP = """---
title: An expired TLS certificate takes the API down
---

The certificate of the public API expired at midnight and every client failed its TLS handshake.
"""


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b))


@pytest.fixture(scope="module")
def blank_extractor() -> Extractor:
    return Extractor(build_pipeline(use_trained=False))


def test_an_embedding_is_a_unit_vector_of_the_graph_dimension():
    vector = text_embedding(default_pipeline(), "the database ran out of disk space")
    assert vector is not None and len(vector) == EMBEDDING_DIMENSIONS
    assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-4)


def test_texts_about_the_same_thing_are_closer_than_unrelated_ones():
    nlp = default_pipeline()
    disk = text_embedding(nlp, "the database server ran out of disk space")
    storage = text_embedding(nlp, "storage volume full, writes to the database failed")
    power = text_embedding(nlp, "a lightning strike cut power to the data centre")
    assert cosine(disk, storage) > cosine(disk, power)


def test_stop_words_and_punctuation_alone_embed_to_nothing():
    assert text_embedding(default_pipeline(), "the of and ... !!") is None


def test_an_extracted_case_carries_its_embedding_outside_its_content_hash(extractor):
    case = extractor.extract(writeup_from_text(WRITE_UP, "cert.md", "cert"))
    assert case.embedding is not None and len(case.embedding) == EMBEDDING_DIMENSIONS
    again = extractor.extract(writeup_from_text(WRITE_UP, "cert.md", "cert"))
    assert again.embedding == case.embedding and again.content_hash == case.content_hash
    # The title counts: the same text under another title embeds differently.
    retitled = extractor.extract(writeup_from_text(WRITE_UP.replace("An expired TLS certificate takes",
                                                                  "Lightning strike brings"), "cert.md", "cert"))
    assert retitled.embedding != case.embedding


def test_ingest_stores_the_embedding_and_a_rerun_skips_the_case(empty_graph, extractor):
    writeup = writeup_from_text(WRITE_UP, "cert.md", "cert")
    first = ingest_writeups(empty_graph, [writeup], extractor)
    second = ingest_writeups(empty_graph, [writeup], extractor)
    assert (first.added, second.skipped) == (["cert"], ["cert"])
    stored = empty_graph.execute_query("MATCH (c:Case {case_id: 'cert'}) RETURN c.embedding AS e").records[0]["e"]
    assert stored == pytest.approx(list(extractor.extract(writeup).embedding))
    found = empty_graph.execute_query(
        "CALL db.index.vector.queryNodes('case_embedding', 1, $vector) YIELD node, score "
        "RETURN node.case_id AS id, score", vector=stored).records
    assert [r["id"] for r in found] == ["cert"] and found[0]["score"] == pytest.approx(1.0, abs=1e-3)


def test_the_blank_pipeline_has_no_vectors_and_writes_no_embedding(empty_graph, blank_extractor):
    assert not has_vectors(blank_extractor.nlp)
    assert text_embedding(blank_extractor.nlp, "the database ran out of disk space") is None
    summary = ingest_writeups(empty_graph, [writeup_from_text(WRITE_UP, "cert.md", "cert")], blank_extractor)
    assert summary.added == ["cert"]
    record = empty_graph.execute_query("MATCH (c:Case {case_id: 'cert'}) RETURN c.embedding AS e").records[0]
    assert record["e"] is None
