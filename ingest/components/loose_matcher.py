"""incident_loose_matcher: multi-word concept names split or reordered within a few words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span

from incident_graph.ingest.components.spans import CANDIDATES, SpanIndex, nearest


@Language.factory("incident_loose_matcher", default_config={"spans_key": CANDIDATES, "window": 6,
                                                           "stop_words": []})
def make_loose_matcher(nlp: Language, name: str, spans_key: str, window: int,
                       stop_words: list[str]) -> "LooseMatcher":
    return LooseMatcher(spans_key, window, set(stop_words) | set(nlp.Defaults.stop_words))


class LooseMatcher:
    """Multi-word concept names that a write-up splits or reorders: "the certificate had expired"
    for "expired certificate". Every content lemma of the phrase must occur within a window of
    tokens in one sentence; the exact ruler's matches win over these (they are shorter-lived)."""

    def __init__(self, spans_key: str, window: int, stop_words: set[str]) -> None:
        self.spans_key = spans_key
        self.window = window
        self.stop_words = stop_words
        self.phrases: list[dict[str, Any]] = []  # {"label", "id", "lemmas": [...]}

    def add_phrases(self, phrases: list[dict[str, Any]]) -> None:
        self.phrases.extend(p for p in phrases if len(p["lemmas"]) >= 2)
        self._index = None

    @property
    def index(self) -> dict[str, list[dict[str, Any]]]:
        """Phrases by their first lemma: a sentence only checks phrases whose first lemma it has."""
        if getattr(self, "_index", None) is None:
            self._index = {}
            for phrase in self.phrases:
                self._index.setdefault(phrase["lemmas"][0], []).append(phrase)
        return self._index

    def __call__(self, doc: Doc) -> Doc:
        existing = list(doc.spans.get(self.spans_key, []))
        found: list[Span] = []
        index = self.index
        taken: dict[str, SpanIndex] = {}  # concept -> where it already matched
        for span in existing:
            taken.setdefault(span.id_, SpanIndex()).add(span.start, span.end)
        for sentence in doc.sents:
            positions: dict[str, list[int]] = {}
            for token in sentence:
                positions.setdefault(token.norm_, []).append(token.i)
            for phrase in (p for lemma in positions for p in index.get(lemma, ())):
                if not all(lemma in positions for lemma in phrase["lemmas"]):
                    continue
                span = self.tightest(doc, [positions[lemma] for lemma in phrase["lemmas"]])
                # Overlaps with other concepts are settled later (the longest span wins).
                same = taken.setdefault(phrase["id"], SpanIndex())
                if span is None or same.overlaps(span.start, span.end):
                    continue
                loose = Span(doc, span.start, span.end, label=phrase["label"], span_id=phrase["id"])
                loose._.loose_weight = len(phrase["lemmas"])
                found.append(loose)
                same.add(span.start, span.end)
        doc.spans[self.spans_key] = existing + found
        return doc

    def tightest(self, doc: Doc, occurrences: list[list[int]]) -> Span | None:
        """For each occurrence of the first lemma, the nearest occurrence of every other lemma; the
        narrowest such span within the window (the first one on a tie). Positions are sorted, so the
        nearest is a binary search: a long sentence repeating the words stays near linear."""
        best: tuple[int, int] | None = None
        for anchor in occurrences[0]:
            chosen = [nearest(positions, anchor) for positions in occurrences]
            start, end = min(chosen), max(chosen) + 1
            if end - start <= self.window and (best is None or end - start < best[1] - best[0]):
                best = (start, end)
        return doc[best[0]:best[1]] if best else None

    def to_disk(self, path: Path, exclude: Iterable[str] = ()) -> None:
        path.mkdir(parents=True, exist_ok=True)
        (path / "phrases.json").write_text(json.dumps(self.phrases))

    def from_disk(self, path: Path, exclude: Iterable[str] = ()) -> "LooseMatcher":
        self.phrases = json.loads((path / "phrases.json").read_text())
        self._index = None
        return self
