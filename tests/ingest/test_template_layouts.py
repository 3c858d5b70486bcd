"""Post-mortem templates: labelled paragraphs, template headings, metadata lines under a title."""

from incident_graph.ingest.pipeline import patterns_file
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
