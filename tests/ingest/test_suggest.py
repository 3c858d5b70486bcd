"""suggest_filters runs only the pipes the taxonomy's matches need: on corpus sentences it suggests
exactly what the whole pipeline's matches give, with the same sentences."""

import random
import re

from incident_graph.ingest.corpus import bundled_corpus_dir
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.ingest.suggest import matching_pipes, suggest_filters, suggestions_in


def corpus_phrases(count: int) -> list[str]:
    phrases = []
    for path in sorted(bundled_corpus_dir().glob("*.md")):
        text = path.read_text(encoding="utf-8")
        phrases += [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", text) if 20 < len(s.strip()) < 300]
    random.Random(5).shuffle(phrases)
    # Single sentences, and runs of three, so sentence boundaries inside a phrase are tried too.
    return phrases[:count] + [" ".join(phrases[i:i + 3]) for i in range(count, 2 * count, 3)]


def test_the_parser_and_ner_are_left_out():
    pipes = matching_pipes(default_pipeline())
    assert "taxonomy_ruler" in pipes and "incident_loose_matcher" in pipes
    assert not {"parser", "ner", "incident_entity_classifier"} & set(pipes)


def test_suggestions_equal_the_whole_pipelines_matches():
    nlp = default_pipeline()
    phrases = corpus_phrases(300)
    suggested = 0
    for phrase in phrases:
        got = suggest_filters(phrase, nlp)
        assert got == suggestions_in(nlp(phrase)), phrase  # the whole pipeline's matches
        suggested += bool(got)
    assert suggested > len(phrases) // 4  # the phrases name concepts: the comparison is not of empties
