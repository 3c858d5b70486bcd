"""Batched writes and parsing in worker processes, against the real Neo4j and pipeline."""

from incident_graph.graph.admin import reset_data
from incident_graph.ingest.ingestion import BatchWriter, IngestSummary, ingest_paths
from incident_graph.ingest.readers import writeup_from_text
from incident_graph.schema.records import ExtractedCase, Mention
from tests.reliability.harness import differences, generate_corpus, snapshot


def test_workers_make_the_same_graph_as_parsing_in_this_process(empty_graph, tmp_path):
    folder = tmp_path / "corpus"
    generate_corpus(folder, 12, seed=3)
    in_process = ingest_paths(empty_graph, [folder], workers=0)
    assert in_process.failed == [] and len(in_process.added) == 12
    reference = snapshot(empty_graph)
    reset_data(empty_graph)
    in_workers = ingest_paths(empty_graph, [folder], workers=2)
    assert in_workers.failed == [] and in_workers.added == in_process.added
    assert not differences(snapshot(empty_graph), reference)
    again = ingest_paths(empty_graph, [folder], workers=2)
    assert again.skipped == in_process.added and again.added == [] and again.updated == []


def test_a_case_the_graph_refuses_fails_alone_and_its_batch_is_written(empty_graph, extractor):
    cases = [extractor.extract(writeup_from_text("A DDoS attack took the API down.\n", f"{name}.md", name))
             for name in ("first", "bad", "last")]
    too_long = "x" * 40_000  # over Neo4j's limit for an indexed property value
    cases[1] = ExtractedCase(**{**cases[1].__dict__, "mentions": (Mention(
        type="Component", name=too_long, mention="API", sentence="A DDoS attack took the API down.",
        start=24, end=27, confidence=0.9, method="section", known=False),)})
    summary = IngestSummary()
    done: list[str] = []
    writer = BatchWriter(empty_graph, summary, done.append, batch_size=10)
    for case in cases:
        writer.add(case)
    writer.flush()
    assert summary.added == ["first", "last"]
    [failure] = summary.failed
    assert (failure.origin, failure.case_id) == ("bad.md", "bad") and failure.message.startswith("not written: ")
    assert sorted(done) == ["bad.md", "first.md", "last.md"]
    stored = empty_graph.execute_query("MATCH (c:Case) RETURN c.case_id AS id ORDER BY id").records
    assert [r["id"] for r in stored] == ["first", "last"]
