"""The relaxed match between an extracted phrase and a gold concept, as the project scores.

A gold concept is a list of acceptable forms. An extracted phrase (a name or a mention) matches a
form when, after lower-casing, dropping a few function words and crude plural stripping, the
phrase (at most 8 such words) contains the whole form, or the two overlap by more than half
(Jaccard). Evaluation (ingest/evaluate.py) and the entity classifier's training labels and
threshold search (ingest/train_classifier.py) use it and its `Score`, so what is learnt is what
is measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from incident_graph.ingest.components.spans import MAX_NAME_WORDS, NAME_FUNCTION_WORDS

Words = frozenset[str]


def words(text: str) -> Words:
    found = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in NAME_FUNCTION_WORDS:
            continue
        for suffix in ("ies", "es", "s"):
            if len(word) > 4 and word.endswith(suffix):
                word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
                break
        found.add(word)
    return frozenset(found)


def phrase_matches(extracted: Words, form: Words) -> bool:
    if not extracted or not form or len(extracted) > MAX_NAME_WORDS:
        return False
    if form <= extracted:
        return True
    return len(extracted & form) / len(extracted | form) > 0.5


def concept_forms(concept: str | Sequence[str]) -> list[Words]:
    """A gold concept as its forms' word sets; a plain string is a concept of one form."""
    return [words(concept)] if isinstance(concept, str) else [words(form) for form in concept]


def matches_concept(phrases: Iterable[str], concept: list[Words]) -> bool:
    return any(phrase_matches(words(phrase), form) for phrase in phrases if phrase for form in concept)


@dataclass
class Score:
    found: int = 0  # gold concepts matched by some extracted item
    gold: int = 0
    correct: int = 0  # extracted items matching some gold concept
    extracted: int = 0

    @classmethod
    def of(cls, found: list[bool], correct: list[bool]) -> "Score":
        """From matched(): each gold concept found or not, each extracted item correct or not."""
        return cls(found=sum(found), gold=len(found), correct=sum(correct), extracted=len(correct))

    def add(self, other: "Score") -> None:
        self.found += other.found
        self.gold += other.gold
        self.correct += other.correct
        self.extracted += other.extracted

    @property
    def precision(self) -> float:
        return self.correct / self.extracted if self.extracted else 0.0

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_json(self) -> dict[str, float | int]:
        return {"precision": round(self.precision, 3), "recall": round(self.recall, 3), "f1": round(self.f1, 3),
                "found": self.found, "gold": self.gold, "correct": self.correct, "extracted": self.extracted}


def matched(items: list[list[Words]], concepts: list[list[Words]]) -> tuple[list[bool], list[bool]]:
    """Whether each gold concept is found by some item, and whether each item matches some concept.
    items: each extracted entity's surfaces (name, mention); concepts: each gold concept's forms."""
    found = [any(phrase_matches(s, f) for f in forms for item in items for s in item) for forms in concepts]
    correct = [any(phrase_matches(s, f) for forms in concepts for f in forms for s in item) for item in items]
    return found, correct


def score_items(items: list[list[Words]], concepts: list[list[Words]]) -> Score:
    return Score.of(*matched(items, concepts))
