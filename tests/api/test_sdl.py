"""schema/schema.graphql is the printed schema, and the names analysts' queries rely on are in it."""

from __future__ import annotations

from graphql import build_schema as parse_sdl
from typer.testing import CliRunner

from incident_graph.api.graphql_schema import SDL_PATH, render_sdl
from incident_graph.cli import app


def test_exported_sdl_is_current():
    assert SDL_PATH.read_text(encoding="utf-8") == render_sdl(), (
        "schema/schema.graphql is stale: run `incident-graph export-schema`"
    )


def test_export_schema_writes_and_checks(tmp_path):
    runner = CliRunner()
    target = tmp_path / "schema.graphql"
    assert runner.invoke(app, ["export-schema", "--check", "--output", str(target)]).exit_code == 1
    assert runner.invoke(app, ["export-schema", "--output", str(target)]).exit_code == 0
    assert target.read_text(encoding="utf-8") == render_sdl()
    assert runner.invoke(app, ["export-schema", "--check", "--output", str(target)]).exit_code == 0
    target.write_text(render_sdl().replace("totalCount", "total"), encoding="utf-8")
    result = runner.invoke(app, ["export-schema", "--check", "--output", str(target)])
    assert result.exit_code == 1


def test_contract_names():
    schema = parse_sdl(SDL_PATH.read_text(encoding="utf-8"))
    for type_name in ("Case", "Symptom", "RootCause", "Component", "ContributingFactor", "Organisation"):
        assert type_name in schema.type_map
    assert set(schema.type_map["EntityType"].values) == {  # type: ignore[union-attr]
        "SYMPTOM", "ROOT_CAUSE", "COMPONENT", "CONTRIBUTING_FACTOR", "ORGANISATION"}
    query = schema.query_type.fields  # type: ignore[union-attr]
    expected_arguments = {
        "case": {"id"}, "cases": {"filter", "first", "after"}, "casesSharingRootCause": {"symptom", "first"},
        "relatedCases": {"id", "via", "first"}, "similarCases": {"id", "first", "after"},
        "casesLike": {"text", "first", "after"}, "diagnose": {"symptoms", "text", "first"}, "suggestFilters": {"text"},
        "path": {"from", "to", "maxHops"}, "subgraph": {"filter", "limit"},
        "counts": {"by", "filter", "first", "after"},
        "trends": {"groupBy", "filter", "interval", "first", "after"},
        "stackReview": {"components", "first", "after"},
        "conceptGraph": {"filter", "limit"},
        **{name: {"search", "first", "after"}
           for name in ("symptoms", "rootCauses", "components", "contributingFactors", "organisations")},
    }
    assert {name: set(field.args) for name, field in query.items()} == expected_arguments
    assert set(schema.type_map["CaseFilter"].fields) == {  # type: ignore[union-attr]
        "symptoms", "rootCauses", "components", "contributingFactors", "organisations", "text",
        "publishedFrom", "publishedTo"}
    connection = schema.type_map["CaseConnection"]
    assert {"totalCount", "pageInfo", "edges", "facets"} <= set(connection.fields)  # type: ignore[union-attr]
    assert set(schema.type_map["Evidence"].fields) >= {  # type: ignore[union-attr]
        "sentence", "start", "end", "method", "confidence", "mention"}
    assert set(schema.type_map["Diagnosis"].fields) == {  # type: ignore[union-attr]
        "rootCause", "group", "score", "groupScore", "supportingCaseCount", "supportingCases", "evidence",
        "matchedSymptoms", "understoodSymptoms"}
    assert set(schema.mutation_type.fields) == {"ingestDocuments", "deleteCase"}  # type: ignore[union-attr]
