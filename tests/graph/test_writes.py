from incident_graph.graph.writes import write_case
from incident_graph.schema.models import Case
from incident_graph.schema.records import ExtractedCase, Mention

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
