"""incident_norms: NORM is the lower-cased lemma, so phrase patterns match any inflection."""

from __future__ import annotations

from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Token

from incident_graph.ingest.components.spans import ACRONYM_PLURAL


@Language.factory("incident_norms", default_config={})
def make_incident_norms(nlp: Language, name: str) -> "NormSetter":
    return NormSetter(nlp)


class NormSetter:
    """token.norm_ = lower-cased lemma, so phrase patterns match any inflection.

    The lookup table is case-sensitive ("Spikes" misses); acronym plurals ("GPUs") are not in it.
    """

    def __init__(self, nlp: Language) -> None:
        self.nlp = nlp
        self._table: Any = None

    @property
    def table(self) -> Any:
        if self._table is None:
            lemmatizer = self.nlp.get_pipe("lemmatizer") if "lemmatizer" in self.nlp.pipe_names else None
            lookups = getattr(lemmatizer, "lookups", None)
            self._table = lookups.get_table("lemma_lookup", {}) if lookups is not None else {}
        return self._table

    def __call__(self, doc: Doc) -> Doc:
        table = self.table
        for token in doc:
            token.norm_ = norm_of(token, table)
        return doc


def norm_of(token: Token, table: Any) -> str:
    text = token.text
    if ACRONYM_PLURAL.match(text):
        return text[:-1].lower()
    lemma = token.lemma_ if token.lemma_ and token.lemma_ != text else None
    if lemma is None:
        lower = text.lower()
        lemma = table.get(lower, lower) if hasattr(table, "get") else lower
    return lemma.lower()
