import pytest

from incident_graph.graph.errors import GraphError
from incident_graph.graph.writes import sync_taxonomy, write_case, write_cases
from incident_graph.schema.models import Case
from incident_graph.schema.records import ExtractedCase, Mention
from incident_graph.schema.taxonomy import Concept

TEXT = "Training loss spiked. The cause was silent data corruption in a GPU."


def mention(label: str, name: str, text: str, confidence: float = 0.9) -> Mention:
    start = TEXT.index(text)
    sentence = TEXT[: TEXT.index(".") + 1] if start < TEXT.index(".") else TEXT[TEXT.index(".") + 2:]
    return Mention(type=label, name=name, mention=text, sentence=sentence, start=start,
                   end=start + len(text), confidence=confidence, method="taxonomy")


def sample_case() -> ExtractedCase:
    return ExtractedCase(
        case_id="sample-sdc",
        title="A GPU corrupts training",
        source="tests",
        text=TEXT,
        published="2025-02",
        mentions=(
            mention("Symptom", "loss spike", "loss spiked"),
            mention("RootCause", "silent data corruption", "silent data corruption"),
            mention("Component", "GPU", "GPU"),
        ),
    )


def test_case_with_entities_and_provenance_reads_back(empty_graph):
    assert write_case(empty_graph, sample_case()).action == "added"
    case = Case.nodes.get(case_id="sample-sdc")
    assert case.title == "A GPU corrupts training"
    assert str(case.published_on) == "2025-02-01"
    [cause] = case.root_causes.all()
    assert cause.name == "silent data corruption"
    evidence = case.root_causes.relationship(cause)
    assert evidence.sentence == "The cause was silent data corruption in a GPU."
    assert TEXT[evidence.start:evidence.end] == "silent data corruption"
    assert evidence.method == "taxonomy" and evidence.confidence == 0.9
    assert [s.name for s in case.symptoms.all()] == ["loss spike"]


def test_same_case_twice_is_skipped_and_changed_case_replaces_links(empty_graph):
    write_case(empty_graph, sample_case())
    assert write_case(empty_graph, sample_case()).action == "skipped"
    changed = ExtractedCase(**{**sample_case().__dict__, "mentions": sample_case().mentions[:1]})
    assert write_case(empty_graph, changed).action == "updated"
    rows = empty_graph.execute_query(
        "MATCH (:Case {case_id: 'sample-sdc'})-[r]->(e) RETURN type(r) AS type, e.name AS name"
    ).records
    assert [(r["type"], r["name"]) for r in rows] == [("HAS_SYMPTOM", "loss spike")]


def test_a_new_entity_goes_under_the_concept_it_was_placed_nearest_once(empty_graph):
    from dataclasses import replace

    empty_graph.execute_query("MERGE (:RootCause {name: 'hardware failure', known: 'taxonomy'})")
    placed = replace(mention("RootCause", "corrupting GPU", "silent data corruption in a GPU"),
                     method="new-entity", broader="hardware failure", known=False)
    case = ExtractedCase(**{**sample_case().__dict__, "mentions": (placed,)})
    write_case(empty_graph, case)
    broader = "MATCH (:RootCause {name: 'corrupting GPU'})-[:BROADER]->(b) RETURN b.name AS name"
    assert [r["name"] for r in empty_graph.execute_query(broader).records] == ["hardware failure"]
    # Placed elsewhere by a later write-up: the first placement stays, so re-runs change nothing.
    elsewhere = replace(placed, broader="software bug")
    empty_graph.execute_query("MERGE (:RootCause {name: 'software bug', known: 'taxonomy'})")
    write_case(empty_graph, ExtractedCase(**{**case.__dict__, "case_id": "other", "mentions": (elsewhere,)}))
    assert [r["name"] for r in empty_graph.execute_query(broader).records] == ["hardware failure"]
    # Known concepts keep the taxonomy's own links: nothing is added to them.
    known = replace(mention("RootCause", "silent data corruption", "silent data corruption"), broader="software bug")
    write_case(empty_graph, ExtractedCase(**{**case.__dict__, "case_id": "third", "mentions": (known,)}))
    rows = empty_graph.execute_query("MATCH (:RootCause {name: 'silent data corruption'})-[:BROADER]->(b) RETURN b").records
    assert rows == []


def renamed(case: ExtractedCase, case_id: str, **changes) -> ExtractedCase:
    return ExtractedCase(**{**case.__dict__, "case_id": case_id, **changes})


def case_links(driver) -> list[tuple[str, str, str]]:
    rows = driver.execute_query(
        "MATCH (c:Case)-[r]->(e) RETURN c.case_id AS case, type(r) AS type, e.name AS name ORDER BY case, type, name"
    ).records
    return [(r["case"], r["type"], r["name"]) for r in rows]


def test_a_batch_writes_every_case_and_a_rerun_skips_the_unchanged(empty_graph):
    batch = [renamed(sample_case(), f"batch-{n}") for n in range(3)]
    assert [o.action for o in write_cases(empty_graph, batch)] == ["added"] * 3
    assert len(case_links(empty_graph)) == 9
    batch[1] = renamed(batch[1], "batch-1", mentions=batch[1].mentions[:1])
    assert [o.action for o in write_cases(empty_graph, batch)] == ["skipped", "updated", "skipped"]
    assert [link for link in case_links(empty_graph) if link[0] == "batch-1"] == [
        ("batch-1", "HAS_SYMPTOM", "loss spike")]
    assert len(case_links(empty_graph)) == 7


def test_an_update_removes_the_extracted_entities_only_it_linked(empty_graph):
    def new_entity(name: str) -> Mention:
        return Mention(type="RootCause", name=name, mention=name, sentence=TEXT, start=0, end=5,
                       confidence=0.9, method="new-entity", known=False)

    first = renamed(sample_case(), "first", mentions=(new_entity("odd shared thing"), new_entity("odd lone thing")))
    second = renamed(sample_case(), "second", mentions=(new_entity("odd shared thing"),))
    write_cases(empty_graph, [first, second])
    assert write_case(empty_graph, renamed(first, "first", mentions=())).action == "updated"
    names = empty_graph.execute_query("MATCH (e:RootCause {known: 'extracted'}) RETURN e.name AS name").records
    assert [r["name"] for r in names] == ["odd shared thing"]


def test_a_batch_the_graph_refuses_writes_nothing(empty_graph):
    too_long = "x" * 40_000  # over Neo4j's limit for an indexed property value
    bad = renamed(sample_case(), "bad", mentions=(mention("Component", too_long, "GPU"),))
    with pytest.raises(GraphError):
        write_cases(empty_graph, [renamed(sample_case(), "good"), bad])
    assert empty_graph.execute_query("MATCH (n:Case) RETURN count(n) AS n").records[0]["n"] == 0


def test_in_one_batch_the_first_placement_of_a_new_entity_stays(empty_graph):
    from dataclasses import replace

    empty_graph.execute_query("MERGE (:RootCause {name: 'hardware failure', known: 'taxonomy'}) "
                              "MERGE (:RootCause {name: 'software bug', known: 'taxonomy'})")
    new = replace(mention("RootCause", "corrupting GPU", "silent data corruption in a GPU"),
                  method="new-entity", known=False)
    batch = [renamed(sample_case(), "unplaced", mentions=(new,)),
             renamed(sample_case(), "nowhere", mentions=(replace(new, broader="no such concept"),)),
             renamed(sample_case(), "first", mentions=(replace(new, broader="hardware failure"),)),
             renamed(sample_case(), "second", mentions=(replace(new, broader="software bug"),))]
    write_cases(empty_graph, batch)
    broader = "MATCH (:RootCause {name: 'corrupting GPU'})-[:BROADER]->(b) RETURN b.name AS name"
    assert [r["name"] for r in empty_graph.execute_query(broader).records] == ["hardware failure"]


def test_a_batch_costs_the_same_statements_whatever_its_size(empty_graph, monkeypatch):
    """One UNWIND per kind of node and relationship over the whole batch, not one per case."""
    from neo4j import ManagedTransaction

    statements: list[str] = []
    real_run = ManagedTransaction.run

    def run(self, query, *args, **kwargs):
        statements.append(query)
        return real_run(self, query, *args, **kwargs)

    monkeypatch.setattr(ManagedTransaction, "run", run)
    write_cases(empty_graph, [renamed(sample_case(), f"small-{n}") for n in range(2)])
    small = len(statements)
    statements.clear()
    write_cases(empty_graph, [renamed(sample_case(), f"large-{n}") for n in range(50)])
    assert len(statements) == small
    print(f"statements per batch: {small}")


def test_an_unheard_commit_then_a_graph_gone_says_the_batch_may_have_landed(empty_graph, monkeypatch):
    from neo4j import Session
    from neo4j.exceptions import IncompleteCommit, ServiceUnavailable

    from incident_graph.graph.errors import GraphUnavailable

    real = Session.execute_write
    calls: list[int] = []

    def execute_write(self, work, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            real(self, work, *args, **kwargs)
            raise IncompleteCommit("the connection dropped during COMMIT")  # it landed; nobody heard
        raise ServiceUnavailable("Neo4j went away")  # the retry finds no server

    monkeypatch.setattr(Session, "execute_write", execute_write)
    with pytest.raises(GraphUnavailable) as raised:
        write_cases(empty_graph, [renamed(sample_case(), f"landed-{n}") for n in range(3)])
    assert raised.value.maybe_committed


def test_a_concepts_signs_are_written_and_go_when_the_taxonomy_drops_them(empty_graph):
    signs = ("Xid errors in the kernel log", "one rank hangs")
    concept = Concept("GPU failure", "RootCause", description="A GPU stops working.", signs=signs)
    query = "MATCH (r:RootCause {name: 'GPU failure'}) RETURN r.signs AS signs, r.description AS description"
    sync_taxonomy(empty_graph, [concept])
    assert empty_graph.execute_query(query).records[0].data() == {"signs": list(signs),
                                                                  "description": "A GPU stops working."}
    sync_taxonomy(empty_graph, [Concept("GPU failure", "RootCause", description="A GPU stops working.")])
    assert empty_graph.execute_query(query).records[0]["signs"] is None
