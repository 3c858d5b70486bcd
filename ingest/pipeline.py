"""Build, save and load the extraction pipeline.

spaCy's own machinery only: a trained English pipeline (tagger, parser, NER and vectors; chosen by
ingest/trained_model.py) or blank English, the sentencizer, the lookup lemmatizer from
spacy-lookups-data, SpanRulers whose patterns are generated from the taxonomy, and the registered
components in ingest/components/, configured from the data files in ingest/patterns/.
"""

from __future__ import annotations

import hashlib
import warnings
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language

from incident_graph.ingest import components  # noqa: F401  (registers the factories)
from incident_graph.ingest.components import CANDIDATES, DETECTION_CANDIDATES
from incident_graph.ingest.pattern_files import patterns_file
from incident_graph.ingest.sentence_encoder import encoder_fingerprint
from incident_graph.ingest.train_classifier import load_weights, weights_file
from incident_graph.ingest.trained_model import BLANK, ModelChoice, choose_model, load_trained
from incident_graph.schema.taxonomy import Taxonomy, load_taxonomy

MODEL_META_KEY = "incident_graph_model"  # nlp.meta key naming the trained pipeline underneath
FINGERPRINT_META_KEY = "incident_graph_fingerprint"  # what the extraction depends on, hashed


def base_pipeline(choice: ModelChoice) -> Language:
    """The trained pipeline's tagger, parser, NER and vectors, or blank English."""
    nlp = spacy.blank("en") if choice.is_blank else load_trained(choice)
    nlp.meta[MODEL_META_KEY] = choice.name
    return nlp


def model_of(nlp: Language) -> str:
    """The name of the trained pipeline an extraction pipeline runs on ("blank" for none)."""
    return str(nlp.meta.get(MODEL_META_KEY, BLANK))


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
                   loose_matching: bool = True, model: str | None = None,
                   use_classifier: bool = True) -> Language:
    """The extractor's pipeline on `model` (see trained_model.py for the order it is chosen in);
    use_trained=False runs on blank English."""
    taxonomy = taxonomy or load_taxonomy()
    cues = patterns_file("cues.toml")
    sections = patterns_file("sections.toml")
    nlp = base_pipeline(choose_model(model) if use_trained else choose_model(BLANK))
    trained = list(nlp.pipe_names)
    # Sentence starts from paragraphs and bullets come first: the parser keeps them.
    nlp.add_pipe("sentencizer", first=True)
    nlp.add_pipe("incident_sentences", after="sentencizer")
    nlp.add_pipe("incident_sections", config={"headings": sections["sections"], "keywords": sections["keywords"]},
                 after="incident_sentences")
    nlp.add_pipe("lemmatizer", config={"mode": "lookup"},
                 after=trained[-1] if trained else "incident_sentences")
    nlp.add_pipe("incident_norms", after="lemmatizer")
    # Phrase patterns on NORM (lower-cased lemma) match every inflection and any casing.
    ruler_config = {"spans_key": CANDIDATES, "phrase_matcher_attr": "NORM", "spans_filter": None,
                    "annotate_ents": False, "overwrite": True, "validate": True}
    taxonomy_ruler = nlp.add_pipe("span_ruler", name="taxonomy_ruler", config=ruler_config)
    detection_ruler = nlp.add_pipe("span_ruler", name="detection_ruler",
                                   config={**ruler_config, "spans_key": DETECTION_CANDIDATES})
    loose = nlp.add_pipe("incident_loose_matcher") if loose_matching else None
    roles = nlp.add_pipe("incident_roles", config={"cues": cues})
    nlp.add_pipe("incident_new_entities", config={"cues": cues})
    phrases = nlp.add_pipe("incident_phrases", config={"rules": patterns_file("phrases.toml"), "cues": cues})
    classifier = nlp.add_pipe("incident_entity_classifier", config={"cues": cues})
    nlp.add_pipe("incident_organisations", config={"cues": cues})
    nlp.add_pipe("incident_narrative", config={"cues": patterns_file("narrative.toml"),
                                               "effect_phrases": cues["cause_precedes"]})
    nlp.add_pipe("incident_mention_extent")
    initialize_own_pipes(nlp, trained)
    with warnings.catch_warnings():
        # W012: the phrase patterns run through the lemmatizer on purpose, to match on NORM.
        warnings.filterwarnings("ignore", message=r"\[W012\]")
        taxonomy_ruler.add_patterns(taxonomy_patterns(taxonomy))
        detection_ruler.add_patterns(detection_patterns())
    roles.set_concepts(concept_roles(taxonomy))
    if loose is not None:
        loose.add_phrases(loose_phrases(nlp, taxonomy))
    heads, concepts = phrase_heads_and_concepts(nlp, taxonomy)
    phrases.set_taxonomy(heads, concepts)
    nlp.get_pipe("incident_norms").set_words(word for concept in concepts for word in concept["lemmas"].split())
    weights = load_weights(weights_file()) if trained and use_classifier else None
    if weights is not None:
        classifier.set_weights(weights)
    nlp.meta[FINGERPRINT_META_KEY] = pipeline_fingerprint(nlp, taxonomy, weights is not None)
    return nlp


def pipeline_fingerprint(nlp: Language, taxonomy: Taxonomy, with_weights: bool) -> str:
    """A hash of everything extraction depends on besides the text: the model, the taxonomy, the
    pattern files, the classifier's weights and the sentence encoder of the case embeddings."""
    digest = hashlib.sha256(model_of(nlp).encode())
    digest.update(encoder_fingerprint().encode())
    digest.update(repr(sorted(map(repr, taxonomy.concepts))).encode())
    for path in sorted(resources.files("incident_graph.ingest").joinpath("patterns").iterdir(), key=lambda p: p.name):
        if path.name.endswith(".toml"):
            digest.update(path.read_bytes())
    if with_weights:
        digest.update(weights_file().read_bytes())
    return digest.hexdigest()


def fingerprint_of(nlp: Language) -> str:
    return str(nlp.meta.get(FINGERPRINT_META_KEY, ""))


def phrase_heads_and_concepts(nlp: Language, taxonomy: Taxonomy) -> tuple[dict[str, dict[str, int]], list[dict[str, str]]]:
    """What the phrase finder learns from the taxonomy: which types each head word names (the last
    content lemma of every name and synonym), and each concept's name and content lemmas for linking."""
    stop_words = nlp.Defaults.stop_words
    texts = [(c, phrase) for c in taxonomy.concepts if c.type != "Organisation"
             for phrase in dict.fromkeys((c.name, *c.synonyms))]
    heads: dict[str, dict[str, int]] = {}
    lemmas: dict[tuple[str, str], set[str]] = {}
    with nlp.select_pipes(enable=["lemmatizer", "incident_norms"]):
        for (concept, _), doc in zip(texts, nlp.pipe(text for _, text in texts)):
            content = [t.norm_ for t in doc if not (t.is_stop or t.lower_ in stop_words or t.is_punct)]
            lemmas.setdefault((concept.type, concept.name), set()).update(content)
            if content:
                counts = heads.setdefault(content[-1], {})
                counts[concept.type] = counts.get(concept.type, 0) + 1
    concepts = [{"type": c.type, "name": c.name, "broader": c.broader or "", "text": c.name,
                 "lemmas": " ".join(sorted(lemmas.get((c.type, c.name), ())))}
                for c in taxonomy.concepts if c.type != "Organisation"]
    return heads, concepts


def initialize_own_pipes(nlp: Language, trained: list[str]) -> None:
    """Initialize the pipes added here; nlp.initialize() would reset the trained ones' weights."""
    if not trained:
        nlp.initialize()
        return
    for name, pipe in nlp.pipeline:
        if name not in trained and hasattr(pipe, "initialize"):
            pipe.initialize(lambda: [], nlp=nlp)


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
def default_pipeline(taxonomy_dir: str | None = None, model: str | None = None) -> Language:
    """The pipeline for the bundled (or given) taxonomy, built once per process."""
    taxonomy = load_taxonomy(Path(taxonomy_dir)) if taxonomy_dir else load_taxonomy()
    return build_pipeline(taxonomy, model=model)
