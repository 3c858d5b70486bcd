"""incident_narrative: detection, remediation and lessons told in prose."""

import pytest

from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.pipeline import build_pipeline, default_pipeline
from incident_graph.ingest.readers import writeup_from_text

FREE_FORM = """# The queue that filled up

On Tuesday the order queue backed up for an hour. An alert on queue depth paged the on-call
engineer at 09:12. The team rolled back the consumer release and restarted the workers, after
which the backlog drained. Going forward we will load-test consumer releases before they ship.
"""


def test_free_form_prose_gives_detection_remediation_and_lessons():
    case = Extractor(default_pipeline()).extract(writeup_from_text(FREE_FORM, "queue.md", "queue"))
    assert "paged the on-call" in case.detection
    assert any("rolled back" in step for step in case.remediation)
    assert any("load-test" in lesson for lesson in case.lesson_items)


def test_sections_win_over_prose():
    text = FREE_FORM + "\n## Remediation\n\n- Added a dead-letter queue\n"
    case = Extractor(default_pipeline()).extract(writeup_from_text(text, "queue.md", "queue"))
    assert case.remediation == ("Added a dead-letter queue",)


def test_the_blank_pipeline_reads_prose_too():
    case = Extractor(build_pipeline(use_trained=False)).extract(writeup_from_text(FREE_FORM, "queue.md", "queue"))
    assert any("rolled back" in step for step in case.remediation)


def test_what_will_be_done_is_a_lesson_even_when_it_names_an_alert():
    text = ("# Lost orders\n\nThe consumer lost orders for an hour. We rolled back the consumer. Going forward, "
            "consumers will acknowledge only after a commit, and we will alert on publisher blocking.\n")
    case = Extractor(default_pipeline()).extract(writeup_from_text(text, "orders.md", "orders"))
    assert any("Going forward" in lesson for lesson in case.lesson_items)
    assert not any("Going forward" in step for step in case.remediation)


@pytest.mark.parametrize(("text", "brought_about", "done"), [
    ("# Rebooting hosts\n\nA kernel bug in the hypervisor caused the instances to reboot. The OS was "
     "patched remotely, and the affected instances were restarted.\n", "caused the instances to reboot",
     "patched remotely"),
    # A cause phrase of several words ("lead to") brings about too.
    ("# Restart loop\n\nA leaked file handle in the agent led to a restart of every worker. The team "
     "rolled back the agent release.\n", "led to a restart", "rolled back"),
])
def test_what_a_cause_brought_about_is_no_remediation(text, brought_about, done):
    case = Extractor(default_pipeline()).extract(writeup_from_text(text, "reboot.md", "reboot"))
    assert not any(brought_about in step for step in case.remediation)
    assert any(done in step for step in case.remediation)


COURTESY = """# Gateway errors

## Mitigation

We rolled back the deployment. We apologise for the impact this caused.

## Action items

- Add memory alerts to the gateway
- We will provide an update when the review is done

## Lessons learned

Canary checks would have caught the leak. Thank you for your patience.
"""


def test_courtesy_and_status_boilerplate_is_no_step_or_lesson():
    case = Extractor(default_pipeline()).extract(writeup_from_text(COURTESY, "gateway.md", "gateway"))
    assert case.remediation == ("We rolled back the deployment.", "Add memory alerts to the gateway")
    assert case.lesson_items == ("Canary checks would have caught the leak.",)


def test_a_longer_status_sentence_that_says_what_is_done_stays():
    text = ("# Gateway errors\n\n## Next steps\n\nWe are continuing to investigate and will add memory alerts "
            "to every gateway in the region.\n")
    case = Extractor(default_pipeline()).extract(writeup_from_text(text, "gateway.md", "gateway"))
    assert any("memory alerts" in step for step in case.remediation + case.lesson_items)
