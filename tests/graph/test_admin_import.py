"""The bulk first load: the synthetic graph as CSV files, imported by neo4j-admin into a second
managed server of its own, against the same shape written by the batched writer."""

import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from neo4j.time import Date

from incident_graph.graph import server
from incident_graph.graph.admin import install_constraints_and_indexes
from incident_graph.graph.admin_import import csv_type, graph_shape, header, import_into, write_synthetic_csv
from incident_graph.graph.case_counts import recount_case_counts
from incident_graph.graph.connection import bind_neomodel, open_driver
from incident_graph.graph.synthetic import SyntheticShape, write_synthetic_graph
from incident_graph.schema.models import Case, Evidence
from tests.network import free_port

SHAPE = SyntheticShape(cases=300, seed=11)


def test_headers_take_names_and_types_from_the_model():
    case_columns = header(Case, "case_id", "Case")
    assert case_columns[0] == "case_id:ID(Case)"
    assert "published_on:date" in case_columns and "ingested_at:datetime" in case_columns
    assert "remediation:string[]" in case_columns and "embedding:float[]" in case_columns
    assert header(Evidence)[:4] == ["sentence", "mention", "start:int", "end:int"]
    assert csv_type(Evidence.defined_properties()["confidence"]) == "float"


def test_the_importer_refuses_a_running_server(neo4j_settings, tmp_path):
    files = write_synthetic_csv(SyntheticShape(cases=5), tmp_path)
    with pytest.raises(server.ServerError, match="is running: the importer needs it stopped"):
        import_into(neo4j_settings, files)


def test_imported_graph_equals_the_written_one(empty_graph, neo4j_settings, tmp_path):
    write_synthetic_graph(empty_graph, SHAPE)
    written = graph_shape(empty_graph)
    assert written["Case"] == 300 and 0 < written["dated cases"] < 300

    files = write_synthetic_csv(SHAPE, tmp_path / "csv")
    assert (files.cases, files.links) == (300, sum(written[k] for k in written if k.isupper() and k != "BROADER"))
    settings = replace(neo4j_settings, uri=f"bolt://127.0.0.1:{free_port()}", password="incident-graph-import",
                       heap="512m", pagecache="128m",
                       state_dir=Path(os.environ.get("INCIDENT_GRAPH_STATE_DIR",
                                                     Path(__file__).resolve().parents[2] / ".incident-graph")))
    driver = None
    try:
        report = import_into(settings, files)
        assert "IMPORT DONE" in report
        server.start(settings)
        driver = open_driver(settings)  # not connect(): that would rebind neomodel to this server
        install_constraints_and_indexes(driver)
        recount_case_counts(driver)
        assert graph_shape(driver) == written
        one = driver.execute_query("MATCH (c:Case {case_id: $id}) RETURN c", id="synthetic-000007").records[0]["c"]
        stored = empty_graph.execute_query("MATCH (c:Case {case_id: $id}) RETURN c", id="synthetic-000007").records[0]["c"]
        assert isinstance(one["published_on"], (Date, type(None)))
        # Everything the writer stored, the importer stored alike, except the empty strings and
        # lists a CSV cell cannot tell from a missing value (both read as the model's default).
        assert {k: v for k, v in dict(one).items() if k != "ingested_at"} == \
            {k: v for k, v in dict(stored).items() if k != "ingested_at" and v not in ("", [])}
    finally:
        if driver is not None:
            driver.close()
        server.stop(settings)
        shutil.rmtree(server.layout_for(settings).instance, ignore_errors=True)  # its store and logs
        bind_neomodel(empty_graph)  # install_constraints_and_indexes bound neomodel to the second server
