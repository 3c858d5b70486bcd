"""Each entity's case_count stays exact through every write: add, update, delete, placement,
taxonomy change, concurrent writers, snapshot load, and a graph written before counts existed."""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from incident_graph.graph.admin import install_constraints_and_indexes
from incident_graph.graph.case_counts import case_count_drift
from incident_graph.graph.connection import connect
from incident_graph.graph.writes import delete_case, sync_taxonomy, write_case, write_cases
from incident_graph.schema.records import ExtractedCase, Mention
from incident_graph.schema.taxonomy import Concept

TEXT = "Requests timed out. The cause was a full disk on the database host."


def mention(label: str, name: str, **changes) -> Mention:
    base = Mention(type=label, name=name, mention=name, sentence=TEXT, start=0, end=5,
                   confidence=0.9, method="taxonomy")
    return replace(base, **changes)


def new_cause(name: str, broader: str | None = None) -> Mention:
    return mention("RootCause", name, method="new-entity", known=False, broader=broader)


def case(case_id: str, *mentions: Mention) -> ExtractedCase:
    return ExtractedCase(case_id=case_id, title=f"case {case_id}", source="tests", text=TEXT, mentions=mentions)


def counts(driver, label: str) -> dict[str, int]:
    rows = driver.execute_query(f"MATCH (e:{label}) RETURN e.name AS name, e.case_count AS count").records
    return {row["name"]: row["count"] for row in rows}


def taxonomy(driver) -> None:
    sync_taxonomy(driver, [
        Concept(name="storage failure", type="RootCause"),
        Concept(name="disk full", type="RootCause", broader="storage failure"),
        Concept(name="timeouts", type="Symptom"),
        Concept(name="request timeout", type="Symptom", broader="timeouts"),
    ])


def test_a_case_counts_once_on_every_concept_it_reaches(empty_graph):
    taxonomy(empty_graph)
    # Two links under one group: the group counts the case once, not twice.
    write_case(empty_graph, case("a", mention("RootCause", "disk full"), mention("RootCause", "storage failure"),
                                 mention("Symptom", "request timeout")))
    write_case(empty_graph, case("b", mention("RootCause", "disk full")))
    assert counts(empty_graph, "RootCause") == {"storage failure": 2, "disk full": 2}
    assert counts(empty_graph, "Symptom") == {"timeouts": 1, "request timeout": 1}
    assert case_count_drift(empty_graph) == []


def test_updates_reruns_and_deletes_keep_the_counts_exact(empty_graph):
    taxonomy(empty_graph)
    first = case("a", mention("RootCause", "disk full"), mention("Symptom", "request timeout"))
    write_cases(empty_graph, [first, case("b", mention("RootCause", "disk full"))])
    write_cases(empty_graph, [first])  # unchanged: skipped, nothing counted twice
    assert counts(empty_graph, "RootCause")["disk full"] == 2
    write_case(empty_graph, case("a", mention("Symptom", "request timeout")))  # loses its cause
    assert counts(empty_graph, "RootCause") == {"storage failure": 1, "disk full": 1}
    assert delete_case(empty_graph, "b")
    assert counts(empty_graph, "RootCause") == {"storage failure": 0, "disk full": 0}
    assert counts(empty_graph, "Symptom") == {"timeouts": 1, "request timeout": 1}
    assert case_count_drift(empty_graph) == []


def test_placing_an_entity_other_cases_link_to_counts_those_cases_above_it(empty_graph):
    taxonomy(empty_graph)
    # The first write-up places the new cause nowhere; a later one places it under "disk full":
    # the earlier case now reaches "disk full" and "storage failure" too.
    write_case(empty_graph, case("early", new_cause("inode exhaustion", broader="no such concept")))
    assert counts(empty_graph, "RootCause")["storage failure"] == 0
    write_case(empty_graph, case("later", new_cause("inode exhaustion", broader="disk full")))
    assert counts(empty_graph, "RootCause") == {"storage failure": 2, "disk full": 2, "inode exhaustion": 2}
    assert case_count_drift(empty_graph) == []


def test_a_new_broader_link_in_the_taxonomy_recounts(empty_graph):
    taxonomy(empty_graph)
    write_case(empty_graph, case("a", mention("Symptom", "timeouts")))
    sync_taxonomy(empty_graph, [Concept(name="availability loss", type="Symptom"),
                                Concept(name="timeouts", type="Symptom", broader="availability loss")])
    assert counts(empty_graph, "Symptom")["availability loss"] == 1
    assert case_count_drift(empty_graph) == []


def test_concurrent_writers_on_shared_concepts_lose_no_count(empty_graph, neo4j_settings):
    taxonomy(empty_graph)

    def write_batches(prefix: str) -> None:
        driver = connect(neo4j_settings)  # its own driver, as a writer on another machine would have
        try:
            for number in range(8):
                write_cases(driver, [case(f"{prefix}-{number}-{n}", mention("RootCause", "disk full"),
                                          mention("Symptom", "request timeout")) for n in range(5)])
        finally:
            driver.close()

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(write_batches, ["x", "y", "z"]))
    assert counts(empty_graph, "RootCause") == {"storage failure": 120, "disk full": 120}
    assert case_count_drift(empty_graph) == []


def test_a_graph_written_before_counts_existed_gets_them_at_install(empty_graph):
    taxonomy(empty_graph)
    write_cases(empty_graph, [case("a", mention("RootCause", "disk full")), case("b", mention("RootCause", "disk full"))])
    empty_graph.execute_query("MATCH (e:RootCause) REMOVE e.case_count")
    assert case_count_drift(empty_graph) != []
    install_constraints_and_indexes(empty_graph)
    assert counts(empty_graph, "RootCause") == {"storage failure": 2, "disk full": 2}


def test_the_corpus_ingest_leaves_exact_counts(corpus_graph):
    assert case_count_drift(corpus_graph) == []
    top = corpus_graph.execute_query("MATCH (s:Symptom) RETURN max(s.case_count) AS top").records[0]["top"]
    assert top > 1
