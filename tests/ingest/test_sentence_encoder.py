"""Case embeddings from the sentence encoder (all-MiniLM-L6-v2 on onnxruntime), stored on the case
and found through Neo4j's vector index."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.ingestion import ingest_writeups
from incident_graph.ingest.pipeline import build_pipeline
from incident_graph.ingest.readers import writeup_from_text
from incident_graph.ingest.sentence_encoder import (
    SentenceEncoder,
    default_encoder,
    model_file,
    sentence_embedding,
    tokenizer_file,
)
from incident_graph.schema.models import EMBEDDING_DIMENSIONS

WRITE_UP = """---
title: An expired TLS certificate takes the API down
---

The certificate of the public API expired at midnight and every client failed its TLS handshake.
"""


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_an_embedding_is_a_unit_vector_of_the_graph_dimension():
    vector = sentence_embedding("the database ran out of disk space")
    assert vector is not None and len(vector) == EMBEDDING_DIMENSIONS
    assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-4)


def test_texts_about_the_same_failure_are_closer_than_texts_sharing_words():
    # The word-vector mean put these two first: they share "database", "server" and "requests".
    disk = sentence_embedding("the database server ran out of disk space and writes failed")
    storage = sentence_embedding("the volume filled up, so nothing more could be saved")
    other = sentence_embedding("the database server answered requests slowly after a config change")
    assert cosine(disk, storage) > cosine(disk, other)


def test_a_text_without_content_words_embeds_to_nothing():
    assert sentence_embedding("  \n ") is None and sentence_embedding("the of and ... !!") is None


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path):
    forged = tmp_path / "model.onnx"
    forged.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="model.onnx: sha256 .* is not the pinned"):
        SentenceEncoder(forged, tokenizer_file()).encode("disk full")


def test_the_installed_model_is_found():
    assert model_file() is not None and default_encoder() is not None


@pytest.fixture(scope="module")
def blank_extractor() -> Extractor:
    return Extractor(build_pipeline(use_trained=False))


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


def test_the_blank_pipeline_embeds_cases_the_same_way(blank_extractor, extractor):
    # The encoder does not depend on spaCy's model: similar cases work on the blank fallback too.
    writeup = writeup_from_text(WRITE_UP, "cert.md", "cert")
    assert blank_extractor.extract(writeup).embedding == extractor.extract(writeup).embedding
