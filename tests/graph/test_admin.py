import pytest
from neo4j.exceptions import ConstraintError

from incident_graph.graph.admin import graph_status, install_constraints_and_indexes, reset_data
from incident_graph.schema.models import EMBEDDING_DIMENSIONS


def test_init_is_idempotent(driver):
    before = graph_status(driver, "test")
    install_constraints_and_indexes(driver)
    after = graph_status(driver, "test")
    assert before.constraints == after.constraints
    assert before.indexes == after.indexes


def test_schema_has_unique_ids_names_and_full_text_index(driver):
    status = graph_status(driver, "test")
    unique = {(c["labels"][0], c["properties"][0]) for c in status.constraints if c["type"] == "UNIQUENESS"}
    assert ("Case", "case_id") in unique
    for label in ("Symptom", "RootCause", "Component", "ContributingFactor", "Organisation"):
        assert (label, "name") in unique
    full_text = {i["name"]: i for i in status.indexes if i["type"] == "FULLTEXT"}
    assert full_text["case_text"]["properties"] == ["title", "text", "detection", "lessons"]
    assert status.neo4j_version.startswith("5.26")


def test_constraint_rejects_duplicate_case_id(empty_graph):
    empty_graph.execute_query("CREATE (:Case {case_id: $id, title: 'first'})", id="dup")
    with pytest.raises(ConstraintError):
        empty_graph.execute_query("CREATE (:Case {case_id: $id, title: 'second'})", id="dup")
    count = empty_graph.execute_query("MATCH (c:Case) RETURN count(c) AS n").records[0]["n"]
    assert count == 1


def test_constraint_rejects_duplicate_entity_name(empty_graph):
    empty_graph.execute_query("CREATE (:Symptom {name: $name})", name="loss spike")
    with pytest.raises(ConstraintError):
        empty_graph.execute_query("CREATE (:Symptom {name: $name})", name="loss spike")
    # The same name under another label is a different entity.
    empty_graph.execute_query("CREATE (:RootCause {name: $name})", name="loss spike")


def test_reset_deletes_data_and_keeps_schema(driver):
    driver.execute_query("CREATE (:Case {case_id: 'x', title: 't'})-[:HAS_SYMPTOM]->(:Symptom {name: 's'})")
    before = graph_status(driver, "test")
    assert reset_data(driver) >= 2
    after = graph_status(driver, "test")
    assert sum(after.nodes.values()) == 0
    assert after.relationships == {}
    assert after.constraints == before.constraints


def test_init_installs_a_cosine_vector_index_on_case_embeddings(driver):
    record = driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options WHERE name = 'case_embedding' RETURN *"
    ).records[0]
    assert (record["labelsOrTypes"], record["properties"]) == (["Case"], ["embedding"])
    config = record["options"]["indexConfig"]
    assert (config["vector.dimensions"], config["vector.similarity_function"]) == (EMBEDDING_DIMENSIONS, "COSINE")


def test_an_index_of_an_earlier_encoders_width_is_replaced_and_its_embeddings_dropped(empty_graph):
    empty_graph.execute_query("DROP INDEX case_embedding IF EXISTS")
    empty_graph.execute_query("CREATE VECTOR INDEX case_embedding FOR (c:Case) ON c.embedding OPTIONS "
                         "{indexConfig: {`vector.dimensions`: 300, `vector.similarity_function`: 'cosine'}}")
    empty_graph.execute_query("CREATE (:Case {case_id: 'old', title: 't', embedding: $old}), "
                         "(:Case {case_id: 'new', title: 't', embedding: $new})",
                         old=[0.1] * 300, new=[0.1] * EMBEDDING_DIMENSIONS)
    try:
        install_constraints_and_indexes(empty_graph)
        width = empty_graph.execute_query("SHOW VECTOR INDEXES YIELD name, options WHERE name = 'case_embedding' "
                                     "RETURN options.indexConfig['vector.dimensions'] AS width").records[0]["width"]
        assert width == EMBEDDING_DIMENSIONS
        kept = empty_graph.execute_query("MATCH (c:Case) RETURN c.case_id AS id, c.embedding IS NOT NULL AS kept "
                                    "ORDER BY id").records
        assert [(r["id"], r["kept"]) for r in kept] == [("new", True), ("old", False)]
    finally:
        empty_graph.execute_query("MATCH (c:Case) WHERE c.case_id IN ['old', 'new'] DELETE c")
