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
