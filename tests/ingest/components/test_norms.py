"""incident_norms: NORM is the lower-cased lemma, plurals included, so taxonomy patterns match."""

from incident_graph.ingest.components import MENTIONS
from incident_graph.ingest.components.norms import singular_of
from incident_graph.ingest.pipeline import load_saved_pipeline, save_pipeline


def norms(nlp, text: str) -> dict[str, str]:
    with nlp.select_pipes(disable=[name for name in nlp.pipe_names if name.startswith("incident_")
                                   and name != "incident_norms"]):
        return {token.text: token.norm_ for token in nlp(text)}


def test_a_plural_the_lookup_table_lacks_takes_the_taxonomys_singular(nlp):
    found = norms(nlp, "Two misconfigurations and several rollouts broke the caches.")
    assert found["misconfigurations"] == "misconfiguration"
    assert found["caches"] == "cache"


def test_a_plural_matches_the_taxonomy_concept_of_its_singular(nlp):
    doc = nlp("Two misconfigurations, plus a software bug, caused the outage.")
    causes = {span.text: span for span in doc.spans[MENTIONS] if span.label_ == "RootCause"}
    assert "software bug" in {span.id_ for span in causes.values()}
    misconfigurations = next(span for text, span in causes.items() if "misconfigurations" in text)
    assert misconfigurations._.known  # a taxonomy concept, not a new entity named "two misconfigurations"


def test_words_the_taxonomy_lacks_keep_their_own_form():
    words = frozenset({"cache", "dependency", "patch", "process"})
    assert singular_of("dependencies", words) == "dependency"
    assert singular_of("patches", words) == "patch"
    assert singular_of("processes", words) == "process"
    assert singular_of("caches", words) == "cache"
    assert singular_of("iptables", words) is None
    assert singular_of("kubernetes", words) is None


def test_the_saved_pipeline_keeps_the_words(nlp, tmp_path):
    save_pipeline(nlp, tmp_path / "pipeline")
    loaded = load_saved_pipeline(tmp_path / "pipeline")
    assert loaded.get_pipe("incident_norms").words == nlp.get_pipe("incident_norms").words
    assert "misconfiguration" in loaded.get_pipe("incident_norms").words


def test_a_number_in_the_plural_keeps_its_form(nlp):
    # The lemmatizer makes "502" of "502s" in a sentence; the taxonomy's pattern "502s" stays as it is.
    found = norms(nlp, "The card processor returned 502s to our gateway in the 1990s.")
    assert found["502s"] == "502s"
    assert found["1990s"] == "1990s"
    doc = nlp("During the incident the upstream returned 502s to our gateway.")
    assert "HTTP 5xx errors" in {span.id_ for span in doc.spans[MENTIONS] if span.label_ == "Symptom"}


def test_data_keeps_its_form_as_a_mass_noun(extract):
    """"Too little forensic data" is named so, not "too little forensic datum"."""
    case = extract("# Loss\n\n## Root cause\n\n- Too little forensic data\n")
    assert {m.name for m in case.mentions_of("RootCause")} == {"too little forensic data"}, case.mentions
