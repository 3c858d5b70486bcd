"""The helpers the components share: where a name starts once a timeline's label is dropped."""

import pytest

from incident_graph.ingest.components.spans import time_label_end


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
