"""Build, save and load the extraction pipeline.

spaCy's own machinery only: blank English (or a trained English pipeline when one is installed),
the sentencizer, the lookup lemmatizer from spacy-lookups-data, SpanRulers whose patterns are
generated from the taxonomy, and the registered components in components.py, configured from the
data files in ingest/patterns/.
"""

from __future__ import annotations

import importlib.util
import tomllib
import warnings
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language

from incident_graph.ingest import components  # noqa: F401  (registers the factories)
from incident_graph.ingest.components import CANDIDATES, DETECTION_CANDIDATES
from incident_graph.schema.taxonomy import Taxonomy, load_taxonomy

TRAINED_PIPELINES = ("en_core_web_sm", "en_core_web_md", "en_core_web_lg", "en_core_web_trf")


def patterns_file(name: str) -> dict[str, Any]:
    text = resources.files("incident_graph.ingest").joinpath("patterns", name).read_text(encoding="utf-8")
    return tomllib.loads(text)


def base_pipeline(use_trained: bool = True) -> Language:
    """A trained English pipeline's tokenizer and NER when installed, blank English otherwise."""
    if use_trained:
        for name in TRAINED_PIPELINES:
            if importlib.util.find_spec(name) is not None:
                return spacy.load(name, exclude=["parser", "lemmatizer", "attribute_ruler", "senter", "tagger"])
    return spacy.blank("en")


def taxonomy_patterns(taxonomy: Taxonomy) -> list[dict[str, str]]:
    return [
        {"label": concept.type, "pattern": phrase, "id": concept.name}
        for concept in taxonomy.concepts
        for phrase in dict.fromkeys((concept.name, *concept.synonyms))
    ]


def detection_patterns() -> list[dict[str, str]]:
    return [
        {"label": "Detection", "pattern": phrase, "id": method["name"]}
        for method in patterns_file("detection.toml")["method"]
        for phrase in dict.fromkeys((method["name"], *method.get("synonyms", [])))
    ]


def concept_roles(taxonomy: Taxonomy) -> dict[str, dict[str, Any]]:
    return {
        f"{concept.type}\t{concept.name}": {"roles": list(concept.roles), "broader": concept.broader}
        for concept in taxonomy.concepts
    }


def build_pipeline(taxonomy: Taxonomy | None = None, use_trained: bool = True,
                   loose_matching: bool = True) -> Language:
    taxonomy = taxonomy or load_taxonomy()
    cues = patterns_file("cues.toml")
    headings = patterns_file("sections.toml")["sections"]
    nlp = base_pipeline(use_trained)
    nlp.add_pipe("sentencizer", first=True)
    nlp.add_pipe("incident_sentences", after="sentencizer")
    nlp.add_pipe("lemmatizer", config={"mode": "lookup"}, after="incident_sentences")
    nlp.add_pipe("incident_norms", after="lemmatizer")
    # Phrase patterns on NORM (lower-cased lemma) match every inflection and any casing.
    ruler_config = {"spans_key": CANDIDATES, "phrase_matcher_attr": "NORM", "spans_filter": None,
                    "annotate_ents": False, "overwrite": True, "validate": True}
    taxonomy_ruler = nlp.add_pipe("span_ruler", name="taxonomy_ruler", config=ruler_config)
    detection_ruler = nlp.add_pipe("span_ruler", name="detection_ruler",
                                   config={**ruler_config, "spans_key": DETECTION_CANDIDATES})
    loose = nlp.add_pipe("incident_loose_matcher") if loose_matching else None
    nlp.add_pipe("incident_sections", config={"headings": headings})
    roles = nlp.add_pipe("incident_roles", config={"cues": cues})
    nlp.add_pipe("incident_new_entities", config={"cues": cues})
    nlp.add_pipe("incident_organisations", config={"cues": cues})
    nlp.initialize()
    with warnings.catch_warnings():
        # W012: the phrase patterns run through the lemmatizer on purpose, to match on NORM.
        warnings.filterwarnings("ignore", message=r"\[W012\]")
        taxonomy_ruler.add_patterns(taxonomy_patterns(taxonomy))
        detection_ruler.add_patterns(detection_patterns())
    roles.set_concepts(concept_roles(taxonomy))
    if loose is not None:
        loose.add_phrases(loose_phrases(nlp, taxonomy))
    return nlp


def loose_phrases(nlp: Language, taxonomy: Taxonomy) -> list[dict[str, Any]]:
    """Content lemmas of each multi-word name and synonym, through the pipeline's own norms."""
    stop_words = nlp.Defaults.stop_words
    # A phrase that says something is absent ("no canary") must not match loosely: its negation
    # word is a stop word and would be dropped, matching the opposite statement.
    negations = {"no", "not", "never", "without", "n't", "none", "nor", "lack", "missing", "absent"}
    texts = [(c.type, c.name, phrase) for c in taxonomy.concepts for phrase in dict.fromkeys((c.name, *c.synonyms))
             if not negations & set(phrase.lower().replace("n't", " n't").split())]
    with nlp.select_pipes(enable=["lemmatizer", "incident_norms"]):
        docs = nlp.pipe(text for _, _, text in texts)
        phrases = []
        for (label, name, _), doc in zip(texts, docs):
            lemmas = [t.norm_ for t in doc if not (t.is_stop or t.lower_ in stop_words or t.is_punct)]
            phrases.append({"label": label, "id": name, "lemmas": list(dict.fromkeys(lemmas))})
    return phrases


def save_pipeline(nlp: Language, path: Path) -> None:
    nlp.to_disk(path)


def load_saved_pipeline(path: Path) -> Language:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"\[W012\]")
        return spacy.load(path)


@lru_cache(maxsize=4)
def default_pipeline(taxonomy_dir: str | None = None) -> Language:
    """The pipeline for the bundled (or given) taxonomy, built once per process."""
    taxonomy = load_taxonomy(Path(taxonomy_dir)) if taxonomy_dir else load_taxonomy()
    return build_pipeline(taxonomy)
