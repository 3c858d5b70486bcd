"""incident_loose_matcher: taxonomy names whose words are split or reordered within a few words."""

from incident_graph.ingest.components.spans import CANDIDATES
from incident_graph.ingest.pipeline import default_pipeline


def loose_matches(text: str) -> list[tuple[str, str]]:
    nlp = default_pipeline()
    later = nlp.pipe_names[nlp.pipe_names.index("incident_loose_matcher") + 1:]
    with nlp.select_pipes(disable=later):
        doc = nlp(text)
    return [(span.id_, span.text) for span in doc.spans[CANDIDATES] if span._.loose_weight]


def test_a_reordered_phrase_is_proposed_under_the_taxonomy_name():
    assert ("expired certificate", "certificate for the API had expired") in \
        loose_matches("# Certs\n\nThe certificate for the API had expired on Sunday.\n")


def test_words_further_apart_than_the_window_are_no_match():
    assert not any(name == "expired certificate" for name, _ in loose_matches(
        "The certificate that the team had renewed by hand every single year without any reminder expired."))
