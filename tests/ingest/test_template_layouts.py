"""Post-mortem templates: labelled paragraphs, template headings, metadata lines under a title."""

from incident_graph.ingest.pattern_files import patterns_file
from incident_graph.ingest.readers import front_matter_fields, writeup_from_text
from incident_graph.ingest.sections import analyse

HEADINGS = patterns_file("sections.toml")["sections"]

RCA = """# Elevated errors in the EU region

Organisation: Example Cloud
Date: 2024-03-05
Source: https://status.example.org/incidents/42
Status: resolved

Summary of impact: Between 10:02 and 11:40 UTC customers saw timeouts and elevated error rates.

Root cause: A bad configuration push to the edge proxies.

**Mitigation:** Engineers rolled back the push.

## Timeline

- 10:02 UTC - alerts fire on error rates
- 11:40 UTC - recovered
"""


def kinds(text):
    return [(r.kind, text[r.start:r.end].strip()) for r in analyse(text, HEADINGS).regions]


def test_labelled_paragraphs_open_sections():
    found = dict((kind, text) for kind, text in kinds(RCA) if kind != "heading")
    assert found["symptoms"].startswith("Between 10:02")
    assert found["root_cause"] == "A bad configuration push to the edge proxies."
    assert found["remediation"] == "Engineers rolled back the push."
    assert found["timeline"].startswith("- 10:02 UTC")


def test_metadata_lines_under_the_title_are_read_like_front_matter():
    writeup = writeup_from_text(RCA, "rca.md", "rca")
    assert (writeup.title, writeup.organisation, writeup.published, writeup.source) == (
        "Elevated errors in the EU region", "Example Cloud", "2024-03-05", "https://status.example.org/incidents/42")
    field = front_matter_fields(RCA)["organisation"]
    assert RCA[field.start:field.end] == "Example Cloud"
    assert ("front_matter", "Organisation: Example Cloud\nDate: 2024-03-05\nSource: "
            "https://status.example.org/incidents/42\nStatus: resolved") in kinds(RCA)


def test_a_body_that_starts_with_a_label_is_not_metadata():
    text = "# Outage\n\nImpact: the site was down for an hour.\n"
    assert writeup_from_text(text, "x.md", "x").organisation is None
    assert ("symptoms", "the site was down for an hour.") in kinds(text)


def test_an_unreadable_date_line_is_prose_but_bad_front_matter_is_an_error():
    loose = "# Outage\n\nDate: the week after the launch\n\nThe site was down.\n"
    assert writeup_from_text(loose, "x.md", "x").published is None
    strict = "---\ntitle: t\ndate: the week after\n---\nThe site was down.\n"
    try:
        writeup_from_text(strict, "y.md", "y")
    except ValueError as error:
        assert "date" in str(error)
    else:
        raise AssertionError("a bad front-matter date must be refused")


PROVIDER_RCA = """Pub/Sub incident 23004

Summary
Pub/Sub saw elevated publish latency for two hours.

Root Cause
A routine update to the storage layer changed how batches were compacted.

Remediation and Prevention
Engineers rolled back the update.

Detailed Description of Impact
Some subscriptions stopped receiving messages.
"""


def test_a_plain_heading_not_listed_takes_the_kind_of_its_first_keyword():
    keywords = patterns_file("sections.toml")["keywords"]
    found = [(kind, text) for kind, text in
             ((r.kind, PROVIDER_RCA[r.start:r.end].strip()) for r in analyse(PROVIDER_RCA, HEADINGS, keywords).regions)
             if kind != "heading"]
    assert ("remediation", "Engineers rolled back the update.") in found
    assert ("symptoms", "Some subscriptions stopped receiving messages.") in found
    assert ("root_cause", "A routine update to the storage layer changed how batches were compacted.") in found


def test_a_sentence_with_a_keyword_is_no_heading():
    keywords = patterns_file("sections.toml")["keywords"]
    text = "Intro\n\nThe impact was limited to one region.\nMore text here.\n"
    assert "heading" not in [r.kind for r in analyse(text, HEADINGS, keywords).regions]
    text = "Intro\n\nCustomer impact was limited to two regions: the rest were fine.\n"
    assert {r.kind for r in analyse(text, HEADINGS, keywords).regions} == {"other"}


def test_a_section_starts_a_sentence_after_a_heading_without_a_full_stop(extract):
    case = extract(PROVIDER_RCA)
    steps = case.remediation
    assert steps == ("Engineers rolled back the update.",)
    assert all("Remediation and Prevention" not in m.sentence for m in case.mentions)


def test_a_resolution_paragraph_and_an_action_item_list_are_both_remediation(extract):
    case = extract("# Expired certificate\n\n## Resolution\n\nWe uploaded a new bundle and reloaded the load "
                   "balancers.\n\n## Action items\n\n- Track every certificate in the bundle.\n")
    assert case.remediation == ("We uploaded a new bundle and reloaded the load balancers.",
                                "Track every certificate in the bundle.")


def test_what_went_wrong_lists_contributing_factors(extract):
    """The SRE template's "What went wrong" lists what made the incident possible or worse; its
    bullets are factors, one each, beside the root cause its own section states."""
    case = extract("# Paris zone outage\n\n## Root cause\n\nWater leaked into the battery room.\n\n"
                   "## What went wrong\n\n- zones in the region were not isolated from each other\n"
                   "- the console depended on the failed region\n")
    assert [region.kind for region in analyse("## What went wrong\n\n- x\n", HEADINGS).regions][-1] \
        == "contributing_factor"
    assert [m.mention for m in case.mentions_of("ContributingFactor")] == \
        ["zones in the region were not isolated from each other", "console depended on the failed region"]


def test_common_post_mortem_headings_open_their_sections():
    text = ("# Outage\n\n## What customers saw\n\nPages failed.\n\n## Why rollback took so long\n\nNo runbook.\n\n"
            "## What we changed\n\nAdded a runbook.\n\n## How we noticed\n\nAn alert fired.\n")
    keywords = patterns_file("sections.toml")["keywords"]
    found = [(r.kind, text[r.start:r.end].strip()) for r in analyse(text, HEADINGS, keywords).regions
             if r.kind != "heading"]
    assert ("symptoms", "Pages failed.") in found
    assert ("contributing_factor", "No runbook.") in found  # a heading not listed, by its keyword
    assert ("remediation", "Added a runbook.") in found
    assert ("detection", "An alert fired.") in found


def test_what_caused_it_and_what_we_are_doing_next_open_their_sections():
    text = ("# Outage\n\n## What caused it\n\nA release went out before its migration.\n\n"
            "## What we are doing next\n\nA check for missing migrations.\n\n"
            "## What caused the delay in paging\n\nThe alert was muted.\n")
    keywords = patterns_file("sections.toml")["keywords"]
    found = [(r.kind, text[r.start:r.end].strip()) for r in analyse(text, HEADINGS, keywords).regions
             if r.kind != "heading"]
    assert ("root_cause", "A release went out before its migration.") in found
    assert ("remediation", "A check for missing migrations.") in found
    assert ("root_cause", "The alert was muted.") not in found  # six words: no heading by keyword
