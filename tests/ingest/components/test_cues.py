"""Cue phrases: negation and hedging scopes, read on the trained pipeline's parse."""

import pytest

from incident_graph.ingest.components.cues import CueIndex, Cues, cause_side, first_conjunct, hedged, negated
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
    ("On 12 May 2023 customers saw failures and high latency.", "high latency"),
    ("From May 3 the disk filled up.", "disk filled up"),
])
def test_the_month_of_may_is_no_hedge(nlp, cues, sentence, phrase):
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


@pytest.mark.parametrize("sentence, phrase", [
    ("Engineers ruled out a system update and a cyberattack.", "cyberattack"),
    ("It was not a power cut or a cooling fault.", "cooling fault"),
    ("There were no alerts, pages or tickets.", "tickets"),
])
def test_a_negation_reaches_every_item_of_its_list(nlp, cues, sentence, phrase):
    doc = nlp(sentence)
    assert negated(span_of(doc, phrase), CueIndex(doc, cues), follow=False)


@pytest.mark.parametrize("sentence, phrase", [
    ("There was no leak and a full disk stopped the writes.", "full disk"),
    ("It was not a DDoS attack but a bad push.", "bad push"),
])
def test_an_item_with_its_own_determiner_or_after_a_contrast_is_not_negated(nlp, cues, sentence, phrase):
    doc = nlp(sentence)
    assert not negated(span_of(doc, phrase), CueIndex(doc, cues), follow=False)


def test_the_first_conjunct_stops_at_a_contrast(nlp):
    doc = nlp("It was not a DDoS attack but a bad push.")
    push = span_of(doc, "push").root
    assert first_conjunct(push).i == push.i
    listed = nlp("Engineers ruled out a system update and a cyberattack.")
    assert first_conjunct(span_of(listed, "cyberattack").root).text == "update"
