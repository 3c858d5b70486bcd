"""Reading write-ups: formats, folders, standard input, and every kind of bad input."""

import io
import json

from incident_graph.ingest.readers import ReadFailure, WriteUp, read_paths, read_stream

SECTIONED = """---
title: A sample case
source: https://example.org/postmortem
date: 2024-03-05
organisation: Example Corp
---

## Symptoms

Requests failed.
"""


def only(items):
    [item] = list(items)
    return item


def test_markdown_front_matter_gives_id_title_source_date_and_organisation(tmp_path):
    path = tmp_path / "sample-case.md"
    path.write_text(SECTIONED)
    writeup = only(read_paths([path]))
    assert isinstance(writeup, WriteUp)
    assert (writeup.case_id, writeup.title, writeup.source) == ("sample-case", "A sample case", "https://example.org/postmortem")
    assert (writeup.published, writeup.organisation) == ("2024-03-05", "Example Corp")
    assert writeup.text == SECTIONED  # offsets point into the text exactly as read


def test_free_form_title_comes_from_first_heading(tmp_path):
    path = tmp_path / "free.md"
    path.write_text("# Disk filled up\n\nThe disk filled up because logs were never rotated.\n")
    writeup = only(read_paths([path]))
    assert writeup.title == "Disk filled up" and writeup.source == str(path) and writeup.published is None


def test_jsonl_records_and_json_array(tmp_path):
    jsonl = tmp_path / "records.jsonl"
    jsonl.write_text("\n".join(json.dumps({"id": f"r{i}", "title": f"T{i}", "body": "Body text."}) for i in range(3)))
    array = tmp_path / "records.json"
    array.write_text(json.dumps([{"title": "Array case", "body": "Text", "sections": {"Root cause": ["a bad push"]}}]))
    items = list(read_paths([jsonl, array]))
    assert [w.case_id for w in items] == ["r0", "r1", "r2", "array-case"]
    assert "## Root cause\n\n- a bad push" in items[3].text


def test_folders_are_read_recursively_with_include_globs(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "one.md").write_text("# One\n\nText.")
    (tmp_path / "a" / "b" / "two.txt").write_text("Two\n\nText.")
    (tmp_path / "a" / "b" / "skip.csv").write_text("x,y")
    assert sorted(w.case_id for w in read_paths([tmp_path])) == ["one", "two"]
    assert [w.case_id for w in read_paths([tmp_path], include=("*.txt",))] == ["two"]


def test_standard_input_text_and_json():
    text = only(read_stream(io.BytesIO(b"# From stdin\n\nBody.")))
    assert text.title == "From stdin" and text.origin == "<stdin>"
    record = only(read_stream(io.BytesIO(b'{"title": "J", "body": "B"}')))
    assert record.case_id == "j"


def failure_for(tmp_path, name, content: bytes, **kwargs):
    path = tmp_path / name
    path.write_bytes(content)
    item = only(read_paths([path], **kwargs))
    assert isinstance(item, ReadFailure), item
    assert item.origin.startswith(str(path))
    return item.message


def test_bad_inputs_each_get_one_clear_error_naming_the_file(tmp_path):
    assert failure_for(tmp_path, "empty.md", b"") == "the file is empty"
    assert "binary content" in failure_for(tmp_path, "binary.md", b"\x00\x01\x02abc")
    assert "not UTF-8" in failure_for(tmp_path, "latin1.md", "caf\u00e9 outage".encode("latin-1"))
    assert "over the 100-byte limit" in failure_for(tmp_path, "big.md", b"x" * 500, max_bytes=100)
    assert "malformed JSON" in failure_for(tmp_path, "broken.json", b'{"title": "x", ')
    assert "field 'body' is missing" in failure_for(tmp_path, "nobody.json", b'{"title": "x"}')
    assert "field 'date'" in failure_for(tmp_path, "baddate.md", b"---\ndate: yesterday\n---\n\nText.")


def test_one_bad_record_does_not_hide_the_good_ones(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"title": "good", "body": "ok"}\n{"title": "bad"\n{"title": "also good", "body": "ok"}\n')
    items = list(read_paths([path]))
    assert [type(i).__name__ for i in items] == ["WriteUp", "ReadFailure", "WriteUp"]
    assert items[1].origin == f"{path}#2"


def test_missing_path_is_a_failure(tmp_path):
    assert only(read_paths([tmp_path / "nope.md"])).message == "no such file or folder"


def test_a_summary_opening_with_its_source_link_names_organisation_source_and_title():
    from incident_graph.ingest.readers import writeup_from_text

    text = "[Initech](https://status.initech.example/incidents/42). A bad config caused every edge router to crash. It took an hour.\n"
    writeup = writeup_from_text(text, "s1.md", "s1")
    assert (writeup.organisation, writeup.source) == ("Initech", "https://status.initech.example/incidents/42")
    assert writeup.title == "Initech: A bad config caused every edge router to crash."
    field = writeup.organisation_field
    assert text[field.start:field.end] == "Initech"
    # A link whose text is a sentence, not a name, is only the source.
    long_label = writeup_from_text("[how our cache fell over](https://blog.example/p). It did.\n", "s2.md", "s2")
    assert (long_label.organisation, long_label.source) == (None, "https://blog.example/p")


def test_a_title_naming_the_organisation_before_a_colon():
    from incident_graph.ingest.readers import writeup_from_text

    named = writeup_from_text("# Initrode: a bad config took down the edge\n\nRouters crashed.\n", "a.md", "a")
    assert named.organisation == "Initrode"
    assert named.organisation_field.line == "# Initrode: a bad config took down the edge"
    for title in ("Post-mortem: the edge went down", "How we lost the edge: a story", "Update: resolved"):
        assert writeup_from_text(f"# {title}\n\nRouters crashed.\n", "b.md", "b").organisation is None


def test_a_title_names_the_organisation_without_the_kind_of_report():
    from incident_graph.ingest.readers import writeup_from_text

    titles = {"Netlify learning review: API and origin outage": "Netlify", "Opbeat post-mortem: intake outage": "Opbeat",
              "IONOS Cloud RCA: control plane degradation": "IONOS Cloud", "Initrode's incident report: DNS": "Initrode",
              "OpenAI status \u2014 Elevated errors on the API": "OpenAI", "Project Helix Status - Page delivery issues":
              "Project Helix", "Partial outage: cache requests fail": None, "Incident report: tokens overwritten": None,
              # A status page's "Product - what happened" names the product, not who runs it.
              "GitHub Codespaces - Failures creating codespaces": None,
              # A first line that is a sentence.
              "By 16:38 UTC the status page said so": None, "We prepared anyway: we added a disk": None}
    for title, organisation in titles.items():
        assert writeup_from_text(f"# {title}\n\nRouters crashed.\n", "t.md", "t").organisation == organisation, title


def test_a_section_label_opening_a_plain_text_report_names_no_organisation():
    from incident_graph.ingest.readers import writeup_from_text

    for label in ("Summary of impact", "Preliminary root cause", "Next steps", "Customer impact",
                  "Customer  Impact", "**Next steps**"):
        text = f"{label}: between 06:52 and 09:10 UTC customers saw errors.\n\nMitigation: we rolled back.\n"
        assert writeup_from_text(text, "r.txt", "r").organisation is None, label
