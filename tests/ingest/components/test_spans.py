"""The helpers the components share: where a name starts once a timeline's label is dropped, and
a bullet's label."""

import pytest

from incident_graph.ingest.components.spans import bullet_label, time_label_end


@pytest.mark.parametrize("text, rest", [
    ("26 March: workflow processing fell behind", "workflow processing fell behind"),
    ("09:49 UTC - the first bad version is published", "the first bad version is published"),
    ("midnight GMT on 1 March 2010, PlayStation consoles", "PlayStation consoles"),
    ("a ten-hour upgrade was started", "a ten-hour upgrade was started"),  # a hyphen inside a word is no label
    ("2 TB limit of the volume", "2 TB limit of the volume"),  # a quantity says what, not when
    ("API calls: slow", "API calls: slow"),
])
def test_a_leading_date_or_time_label_is_dropped(nlp, text, rest):
    doc = nlp(text)
    assert doc[time_label_end(doc[:]):].text == rest


@pytest.mark.parametrize("bullet, label", [
    ("- **Data voids.** For queries that almost nobody asks, only satire matched.", "- **Data voids.**"),
    ("- Disk filled up. Alerts fired an hour late.", "- Disk filled up."),
    ("- the cache expired every key at once", None),  # one sentence: no label
])
def test_a_bullets_opening_sentence_is_its_label_when_more_follows(nlp, bullet, label):
    doc = nlp(bullet)
    found = bullet_label(doc[:], trim=lambda span: span)
    assert (found.text if found is not None else None) == label


def test_a_numbered_bullets_label_after_a_sentence_ending_in_its_marker(nlp):
    """The parse can end the sentence before a numbered bullet at its "1. *": the label is the
    bullet's first sentence with a word in it."""
    text = "Three things stacked up:\n1. *Too much data from a few tenants.* A handful of clusters wrote far too much."
    doc = nlp(text)
    bullet = doc.char_span(text.index("*Too"), len(text), alignment_mode="expand")
    found = bullet_label(bullet, trim=lambda span: span)
    assert found is not None and found.text.startswith("Too much data from a few tenants"), found
