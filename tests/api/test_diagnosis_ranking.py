"""diagnosis_ranking: the taxonomy's descriptions as one more pseudo-case, on a hand-computed example."""

from __future__ import annotations

import pytest

from incident_graph.api.diagnosis_ranking import BY_DESCRIPTION, CauseLink, Concept, described, rank

CONCEPTS = {
    "configuration error": Concept(("configuration error",), 3),
    "bad configuration change": Concept(("bad configuration change", "configuration error"), 3),
    "expired certificate": Concept(("expired certificate",), 0),  # no case of the graph has it
}
LINKS = [CauseLink("case-1", ("bad configuration change", "configuration error"), 1.0, "A bad push.")]


def test_without_descriptions_a_cause_no_case_has_is_never_ranked():
    ranked = rank({"case-1": 1.0}, LINKS, CONCEPTS)
    assert [cause.concept for cause in ranked] == ["bad configuration change"]


def test_the_causes_nearest_by_description_are_credited_relative_to_the_nearest():
    links = described({"expired certificate": 0.6, "bad configuration change": 0.3, "configuration error": 0.9,
                       "unknown": 0.99}, CONCEPTS)
    # A group ("configuration error") and a name outside the concepts are never described causes.
    assert [(link.case_id, link.chain[0], link.confidence) for link in links] == [
        (BY_DESCRIPTION, "expired certificate", 1.0), (BY_DESCRIPTION, "bad configuration change", 0.5)]


def test_a_described_cause_is_ranked_and_the_pseudo_case_is_never_listed():
    ranked = rank({"case-1": 1.0}, LINKS, CONCEPTS, descriptions={"expired certificate": 0.6,
                                                                  "bad configuration change": 0.3},
                  taxonomy_weight=0.1)
    # Weights: case-1 1.0, the taxonomy 0.1 of that; total 1.1. Masses: bad configuration change and
    # its group (1.0 + 0.1 x 0.5) / 1.1, expired certificate 0.1 / 1.1. Scores (m = 0.5): the change
    # has share 1, prior 3/3 and 2 supporters: .9545 x (2 + .5) / 2.5; the certificate, its own group
    # with no cases (prior 0) and 1 supporter: .0909 x 1 / 1.5.
    assert [(c.concept, c.supporting) for c in ranked] == [
        ("bad configuration change", ("case-1",)), ("expired certificate", ())]
    assert [c.score for c in ranked] == pytest.approx([1.05 / 1.1, 0.1 / 1.1 / 1.5], abs=1e-6)
