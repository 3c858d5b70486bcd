"""Cue phrases: negation and hedging scopes, read on the trained pipeline's parse."""

import pytest

from incident_graph.ingest.components.cues import CueIndex, Cues, cause_side, hedged
from incident_graph.ingest.pattern_files import patterns_file


@pytest.fixture(scope="module")
def cues():
    return Cues.from_config(patterns_file("cues.toml"))


def span_of(doc, text):
    start = doc.text.index(text)
    return doc.char_span(start, start + len(text))


@pytest.mark.parametrize("sentence, phrase", [
    ("Customers may have experienced timeouts and errors.", "timeouts"),
    ("Some users might see slow page loads.", "slow page loads"),
])
def test_a_status_page_stating_impact_is_not_hedging(nlp, cues, sentence, phrase):
    doc = nlp(sentence)
    assert not hedged(span_of(doc, phrase), CueIndex(doc, cues))


@pytest.mark.parametrize("sentence, phrase", [
    ("Engineers suspected a DDoS attack.", "DDoS attack"),
    ("The outage may have been caused by a bad cable.", "bad cable"),
])
def test_doubt_still_hedges(nlp, cues, sentence, phrase):
    doc = nlp(sentence)
    assert hedged(span_of(doc, phrase), CueIndex(doc, cues))


@pytest.mark.parametrize("sentence, phrase, side", [
    ("The root cause turned out to be silent data corruption in a GPU.", "silent data corruption", "cause"),
    ("The root cause was identified as a priority inversion.", "priority inversion", "cause"),
    ("A bad push caused the outage.", "bad push", "cause"),
    ("A bad push caused the outage.", "outage", "effect"),
])
def test_the_noun_cause_is_no_cause_verb(nlp, cues, sentence, phrase, side):
    doc = nlp(sentence)
    assert cause_side(span_of(doc, phrase), CueIndex(doc, cues)) == side
