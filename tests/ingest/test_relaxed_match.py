"""The relaxed match evaluation scores by: forms, containment, overlap, the eight-word limit."""

from incident_graph.ingest.relaxed_match import concept_forms, matched, phrase_matches, score_items, words


def test_containment_overlap_and_length():
    assert phrase_matches(words("an expired TLS certificate on the balancer"), words("expired certificate"))
    assert phrase_matches(words("certificate expired"), words("expired certificate"))
    assert not phrase_matches(words("rate"), words("rates"))  # the crude plural stripping, as scored
    assert not phrase_matches(words("certificate"), words("expired certificate rotation job"))
    nine = words("one two three four five six seven eight nine expired certificate")
    assert not phrase_matches(nine, words("expired certificate"))


def test_found_and_correct_are_counted_per_concept_and_per_item():
    concepts = [concept_forms(["site outage", "went down"]), concept_forms("login failures")]
    items = [[words("service outage"), words("the site went down")], [words("queue backlog"), words("backlog")]]
    assert matched(items, concepts) == ([True, False], [True, False])  # what eval --errors lists
    score = score_items(items, concepts)
    assert (score.found, score.gold, score.correct, score.extracted) == (1, 2, 1, 2)
    assert score.precision == 0.5 and score.recall == 0.5
