"""The relaxed match between an extracted phrase and a gold concept, as the project scores.

A gold concept is a list of acceptable forms. An extracted phrase (a name or a mention) matches a
form when, after lower-casing, dropping a few function words and crude plural stripping, the
phrase (at most 8 such words) contains the whole form, or the two overlap by more than half
(Jaccard). Evaluation (ingest/evaluate.py) and the entity classifier's training labels
(ingest/train_classifier.py) both use it, so what is learnt is what is measured.
"""

from __future__ import annotations

import re
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
