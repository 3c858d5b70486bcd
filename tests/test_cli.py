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


def test_eval_scores_blank_and_trained_side_by_side_on_every_split():
    result = runner.invoke(app, ["eval", "--json", "--split", "dev", "--split", "dev-new"])
    assert result.exit_code == 0, result.output
    reports = json.loads(result.stdout)
    assert set(reports) == {"blank", "en_core_web_md 3.8.0"}
    for by_split in reports.values():
        assert set(by_split) == {"dev", "dev-new"}
        assert by_split["dev"]["documents"] == 10 and by_split["dev-new"]["documents"] >= 20
        for report in by_split.values():
            overall = report["overall"]
            assert overall["gold"] > 0 and 0 <= overall["f1"] <= 1
            assert overall["found"] <= overall["gold"] and overall["correct"] <= overall["extracted"]


def test_eval_scores_the_relaxed_way_against_forms(tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "gold").mkdir()
    (tmp_path / "cases" / "spiky.md").write_text("# Spiky\n\nA loss spike stopped the run.\n", encoding="utf-8")
    gold = {"id": "spiky", "split": "dev", "symptoms": [["loss spike", "the loss jumped"], "a symptom nobody named"]}
    (tmp_path / "gold" / "spiky.json").write_text(json.dumps(gold), encoding="utf-8")
    result = runner.invoke(app, ["eval", "--json", "--model", "blank", "--cases", str(tmp_path / "cases"),
                                 "--gold", str(tmp_path / "gold")])
    assert result.exit_code == 0, result.output
    symptoms = json.loads(result.stdout)["blank"]["dev"]["by_type"]["symptoms"]
    assert (symptoms["found"], symptoms["gold"]) == (1, 2)
    assert symptoms["correct"] == symptoms["extracted"] == 1


def test_eval_refuses_an_unknown_split_or_model():
    assert runner.invoke(app, ["eval", "--split", "nope"]).exit_code == 2
    result = runner.invoke(app, ["eval", "--model", "no_such_model_package"])
    assert result.exit_code == 2 and "no_such_model_package" in result.output


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


def test_up_takes_the_workers_option_of_ingest():
    import typer

    commands = {command.name: command for command in typer.main.get_command(app).commands.values()}
    workers = {name: next(param for param in commands[name].params if "--workers" in param.opts)
               for name in ("ingest", "up")}
    assert workers["up"].help == workers["ingest"].help and workers["up"].default is workers["ingest"].default is None


def test_up_ingests_its_corpus_in_worker_processes_then_serves(env, tmp_path, monkeypatch):
    import incident_graph.api.app

    served = []
    monkeypatch.setattr(incident_graph.api.app, "serve", lambda settings, **options: served.append(options))
    (tmp_path / "dns.md").write_text("# DNS down\n\nA DDoS attack overloaded the DNS servers.\n")
    (tmp_path / "gpu.md").write_text("# GPU trouble\n\nThe loss spiked because of silent data corruption in one GPU.\n")
    result = runner.invoke(app, ["up", "--external-neo4j", "--corpus", str(tmp_path), "--workers", "1",
                                 "--port", "8123"], env=env)
    assert result.exit_code == 0, result.output
    assert "cases: 2 added, 0 updated, 0 unchanged, 0 failed" in result.stdout
    assert [options["port"] for options in served] == [8123]
    again = runner.invoke(app, ["up", "--external-neo4j", "--corpus", str(tmp_path), "--workers", "0"], env=env)
    assert again.exit_code == 0 and "cases: 0 added, 0 updated, 2 unchanged" in again.stdout
