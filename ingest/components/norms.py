"""incident_norms: NORM is the lower-cased lemma, so phrase patterns match any inflection."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Token

from incident_graph.ingest.components.spans import ACRONYM_PLURAL

NUMBER_PLURAL = re.compile(r"^[0-9][0-9xX]*s$")
PLURAL_TAG = "NNS"  # the tagger's plural common noun
# Latin plurals that technical English uses as mass nouns: "regional data" is no "regional datum",
# "storage media" no "storage medium". They keep their own form, in patterns and names alike.
MASS_NOUNS = frozenset({"data", "metadata", "media"})
# Regular plural endings and what replaces them, longest first: "dependencies", "caches", "rollouts".
PLURAL_ENDINGS = (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"), ("xes", "x"), ("s", ""))


@Language.factory("incident_norms", default_config={})
def make_incident_norms(nlp: Language, name: str) -> "NormSetter":
    return NormSetter(nlp)


class NormSetter:
    """token.norm_ = lower-cased lemma, so phrase patterns match any inflection.

    The lookup table is case-sensitive ("Spikes" misses); acronym plurals ("GPUs") are not in it;
    and it lacks many plurals of technical words ("misconfigurations"). A plural the table leaves
    as it is takes its regular singular when the taxonomy uses that word (`set_words`), so
    "iptables" or "Kubernetes", tagged plural now and then, keep their own form.
    """

    def __init__(self, nlp: Language) -> None:
        self.nlp = nlp
        self._table: Any = None
        self.words: frozenset[str] = frozenset()

    @property
    def table(self) -> Any:
        if self._table is None:
            lemmatizer = self.nlp.get_pipe("lemmatizer") if "lemmatizer" in self.nlp.pipe_names else None
            lookups = getattr(lemmatizer, "lookups", None)
            self._table = lookups.get_table("lemma_lookup", {}) if lookups is not None else {}
        return self._table

    def set_words(self, words: Iterable[str]) -> None:
        """The taxonomy's content words (as norms): the singulars a plural may take."""
        self.words = frozenset(words)

    def __call__(self, doc: Doc) -> Doc:
        table = self.table
        for token in doc:
            if NUMBER_PLURAL.match(token.text):
                # "502s" names status codes, "1990s" a decade: neither the lemmatizer (which makes
                # "502" of it in a sentence, not in a pattern) nor the singular may touch it.
                token.norm_ = token.lower_
                continue
            norm = norm_of(token, table)
            if token.tag_ == PLURAL_TAG and norm == token.lower_:
                norm = singular_of(norm, self.words) or norm
            token.norm_ = norm
        return doc

    def to_disk(self, path: Path, exclude: Iterable[str] = ()) -> None:
        path.mkdir(parents=True, exist_ok=True)
        (path / "words.json").write_text(json.dumps(sorted(self.words)))

    def from_disk(self, path: Path, exclude: Iterable[str] = ()) -> "NormSetter":
        self.set_words(json.loads((path / "words.json").read_text()))
        return self


def norm_of(token: Token, table: Any) -> str:
    text = token.text
    if text.lower() in MASS_NOUNS:
        return text.lower()
    if ACRONYM_PLURAL.match(text):
        return text[:-1].lower()
    lemma = token.lemma_ if token.lemma_ and token.lemma_ != text else None
    if lemma is None:
        lower = text.lower()
        lemma = table.get(lower, lower) if hasattr(table, "get") else lower
    return lemma.lower()


def singular_of(word: str, words: frozenset[str]) -> str | None:
    """The regular singular of a plural, if it is one of the words."""
    for ending, replacement in PLURAL_ENDINGS:
        if word.endswith(ending) and not word.endswith("ss"):
            singular = word[: -len(ending)] + replacement
            if singular in words:
                return singular
    return None
