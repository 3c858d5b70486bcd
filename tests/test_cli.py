"""The incident-graph command, end to end against the real Neo4j."""

import json

import pytest
from typer.testing import CliRunner

from incident_graph.cli import app

runner = CliRunner()


@pytest.fixture
def env(neo4j_settings, empty_graph):
    return {"NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user,
            "NEO4J_PASSWORD": neo4j_settings.password}


def test_help_lists_every_command():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("neo4j", "db", "ingest", "extract", "eval"):
        assert command in result.output


def test_extract_prints_the_json_contract(tmp_path):
    path = tmp_path / "case.md"
    path.write_text("# GPU trouble\n\nThe loss spiked because of silent data corruption in one GPU.\n")
    result = runner.invoke(app, ["extract", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    [case] = json.loads(result.stdout)
    assert case["id"] == "case"
    assert {e["name"] for e in case["symptoms"]} == {"loss spike"}
    assert {e["name"] for e in case["root_causes"]} == {"silent data corruption"}
    assert {e["name"] for e in case["components"]} == {"GPU"}


def test_ingest_reports_failures_by_file_and_exits_non_zero(env, tmp_path):
    (tmp_path / "good.md").write_text("# Fine\n\nA DDoS attack overloaded the DNS servers.\n")
    (tmp_path / "empty.md").write_text("")
    report = tmp_path / "report.json"
    result = runner.invoke(app, ["ingest", str(tmp_path), "--report", str(report)], env=env)
    assert result.exit_code == 1
    assert "empty.md: the file is empty" in result.stderr
    assert "1 added, 0 updated, 0 skipped (unchanged), 1 failed" in result.stdout
    assert json.loads(report.read_text())["counts"]["failed"] == 1
    again = runner.invoke(app, ["ingest", str(tmp_path / "good.md")], env=env)
    assert again.exit_code == 0 and "0 added, 0 updated, 1 skipped" in again.stdout


def test_db_status_json_has_the_documented_keys(env):
    result = runner.invoke(app, ["db", "status", "--json"], env=env)
    assert result.exit_code == 0, result.output
    status = json.loads(result.stdout)
    assert {"neo4j_version", "constraints", "indexes", "nodes", "relationships"} <= set(status)
    assert status["nodes"]["Case"] == 0


def test_db_reset_refuses_without_yes(env):
    result = runner.invoke(app, ["db", "reset"], env=env)
    assert result.exit_code == 2 and "--yes" in result.stderr


def test_unreachable_neo4j_is_a_clear_error():
    result = runner.invoke(app, ["db", "status"], env={"NEO4J_URI": "bolt://127.0.0.1:1"})
    assert result.exit_code == 1
    assert "No Neo4j answers at bolt://127.0.0.1:1" in result.stderr


def test_eval_reports_train_and_dev():
    # The JSON is keyed by model, then by split (incident-graph eval --help).
    result = runner.invoke(app, ["eval", "--json", "--model", "blank", "--split", "train", "--split", "dev"])
    assert result.exit_code == 0, result.output
    reports = json.loads(result.stdout)["blank"]
    assert set(reports) == {"train", "dev"}
    assert reports["train"]["documents"] >= 15 and reports["dev"]["documents"] >= 5
    for report in reports.values():
        overall = report["overall"]
        assert overall["gold"] > 0 and 0 <= overall["found"] <= overall["gold"] and 0 <= overall["f1"] <= 1


def test_eval_counts_the_gold_names_the_taxonomy_knows(tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "gold").mkdir()
    (tmp_path / "cases" / "spiky.md").write_text("# Spiky\n\nA loss spike stopped the run.\n", encoding="utf-8")
    gold = {"id": "spiky", "split": "dev", "symptoms": ["loss spike", "a symptom nobody has named"]}
    (tmp_path / "gold" / "spiky.json").write_text(json.dumps(gold), encoding="utf-8")
    result = runner.invoke(app, ["eval", "--json", "--model", "blank", "--cases", str(tmp_path / "cases"),
                                 "--gold", str(tmp_path / "gold")])
    assert result.exit_code == 0, result.output
    reports = json.loads(result.stdout)["blank"]
    assert reports["dev"]["overall"]["gold"] == 2 and reports["dev"]["overall"]["found"] == 1
    assert reports["train"]["documents"] == 0


def test_extract_refuses_an_unknown_format(tmp_path):
    path = tmp_path / "case.md"
    path.write_text("# GPU trouble\n\nThe loss spiked.\n")
    result = runner.invoke(app, ["extract", str(path), "--format", "xml"])
    assert result.exit_code == 2
    assert "'xml' is not one of 'json', 'table'" in result.output.replace("\n", " ")


def test_up_takes_the_connection_and_limit_options_of_serve():
    import typer

    commands = {command.name: command for command in typer.main.get_command(app).commands.values()}
    options = {name: {opt for param in command.params for opt in param.opts} for name, command in commands.items()}
    assert options["serve"] <= options["up"]
