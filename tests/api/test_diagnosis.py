"""diagnose: the two-level ranking on the constructed example, text read by the real pipeline on a
small graph of corpus write-ups, leaving a case out as if it were absent, and eval-diagnosis."""

from __future__ import annotations

import json

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from incident_graph.api.diagnosis import run_diagnosis
from incident_graph.api.query_slots import GraphReader
from incident_graph.cli import app
from incident_graph.graph.admin import reset_data
from incident_graph.graph.writes import delete_case, write_case
from incident_graph.ingest.corpus import bundled_corpus_dir
from incident_graph.ingest.ingestion import ingest_paths
from incident_graph.schema.records import ExtractedCase, Mention
from incident_graph.schema.taxonomy import load_taxonomy

from .conftest import GraphQLClient, client_for

pytestmark = pytest.mark.anyio

DIAGNOSE = """
query($symptoms: [String!], $text: String, $first: Int) {
  diagnose(symptoms: $symptoms, text: $text, first: $first) {
    rootCause { name } group { name } score groupScore supportingCaseCount supportingCases { id }
    evidence { case { id } sentence } matchedSymptoms understoodSymptoms { phrase symptom similarity method }
  }
}
"""

# Certificates and dates, from two splits, so that neighbours share causes.
SAMPLE = [
    "azure-2013-storage-certificate-expiry", "epic-games-2021-wildcard-certificate", "oculus-2018-expired-certificate",
    "spotify-2020-expired-certificate", "honda-2022-navigation-clock", "invenco-2024-nz-leap-day-pumps",
    "microsoft-2008-zune-leap-year", "sectigo-2020-addtrust-root-expiry", "gemalto-2010-german-bank-cards",
    "globalsign-2016-ocsp-revocation-error",
]
TUNE_NEW_IN_SAMPLE = 3
CARD_CASE = "bank-cards-rollover"


def card_case() -> ExtractedCase:
    """A case whose symptom the taxonomy does not know (an extracted name) and whose root cause it does."""
    symptom, cause = "card transactions declined", "date rollover bug"
    text = f"Cards stop working. Every {symptom} after midnight. A {cause} in the terminals caused it."
    mentions = tuple(
        Mention(type=label, name=name, mention=name, sentence=sentence, start=text.index(name),
                end=text.index(name) + len(name), confidence=0.9, method="section", known=known)
        for label, name, sentence, known in (
            ("Symptom", symptom, f"Every {symptom} after midnight.", False),
            ("RootCause", cause, f"A {cause} in the terminals caused it.", True),
        )
    )
    return ExtractedCase(case_id=CARD_CASE, title="Cards stop working", source="tests/cards.md", text=text,
                         published="2020-01-01", mentions=mentions)


def ingest_sample(driver: Driver) -> None:
    reset_data(driver)
    summary = ingest_paths(driver, [bundled_corpus_dir() / f"{case_id}.md" for case_id in SAMPLE])
    assert summary.failed == [] and len(summary.added) == len(SAMPLE)
    write_case(driver, card_case())


@pytest.fixture(scope="module")
def sample_graph(driver: Driver) -> Driver:
    ingest_sample(driver)
    return driver


@pytest.fixture
async def sample_api(sample_graph: Driver, neo4j_settings):
    async with await client_for(sample_graph, neo4j_settings) as http:
        yield GraphQLClient(http)


# ------------------------------------------------------------------ the constructed example


async def test_names_rank_causes_under_their_groups(api):
    rows = (await api.data(DIAGNOSE, {"symptoms": ["loss spike", "crash loop"]}))["diagnose"]
    # N = 7 cases; IDF = ln(1 + 7/3) for loss spike (3 cases), ln(1 + 7/2) for crash loop (2 cases).
    # Case weights (IDF x confidence, normalised): bytedance .4721, llama .4037, undated .1243.
    # hardware fault gets .4721*.9 + .4037*.6 = .6671 from its cause silent data corruption (all of the
    # group's evidence: share 1, prior 3/4 of the group's cases, 2 supporting cases, m = 0.5):
    # .6671 * (2 * 1 + .5 * .75) / 2.5 = .6337. software bug has no group: its share, .3851.
    assert [(r["rootCause"]["name"], r["group"] and r["group"]["name"], [c["id"] for c in r["supportingCases"]])
            for r in rows] == [
        ("silent data corruption", "hardware fault", ["gpu-sdc-bytedance", "llama-training-interrupts"]),
        ("software bug", None, ["llama-training-interrupts", "undated-note"]),
        ("power failure", "hardware fault", []),  # only its group's prediction: .6671 * (.5 * .25) / 2.5
    ]
    assert [r["score"] for r in rows] == pytest.approx([0.633705, 0.385081, 0.033353], abs=1e-5)
    assert [r["groupScore"] for r in rows] == pytest.approx([0.667058, 0.385081, 0.667058], abs=1e-5)
    first = rows[0]
    assert first["evidence"] == [
        {"case": {"id": "gpu-sdc-bytedance"}, "sentence": "The write-up names silent data corruption here."},
        {"case": {"id": "llama-training-interrupts"}, "sentence": "The write-up names silent data corruption here."},
    ]
    assert first["matchedSymptoms"] == ["loss spike", "crash loop"]
    assert first["understoodSymptoms"] == [
        {"phrase": "loss spike", "symptom": "loss spike", "similarity": 1.0, "method": "name"},
        {"phrase": "crash loop", "symptom": "crash loop", "similarity": 1.0, "method": "name"},
    ]


async def test_a_specific_cause_with_the_evidence_beats_the_common_one_of_its_group(api):
    # "service outage": cloudflare and gitlab (configuration error), datacenter-power (power failure and
    # hardware fault). power failure has 1 of the 4 hardware-fault cases, silent data corruption 3, yet
    # the evidence is all power failure's.
    rows = (await api.data(DIAGNOSE, {"symptoms": ["service outage"]}))["diagnose"]
    names = [r["rootCause"]["name"] for r in rows]
    assert names.index("power failure") < names.index("silent data corruption")
    assert names[0] == "configuration error"


async def test_a_broader_symptom_takes_its_narrower_ones_and_unknown_names_are_not_understood(api):
    rows = (await api.data(DIAGNOSE, {"symptoms": ["availability loss", "no such symptom"], "first": 2}))["diagnose"]
    assert len(rows) == 2
    assert {c["id"] for r in rows for c in r["supportingCases"]} <= {
        "gpu-sdc-bytedance", "llama-training-interrupts", "cloudflare-dns-outage", "gitlab-db-deletion",
        "datacenter-power"}
    assert [u["symptom"] for u in rows[0]["understoodSymptoms"]] == ["availability loss"]
    assert await api.data(DIAGNOSE, {"symptoms": ["no such symptom"]}) == {"diagnose": []}


@pytest.mark.parametrize(("variables", "message"), [
    ({"symptoms": ["loss spike"], "text": "loss spiked"}, "Give exactly one of `symptoms`"),
    ({}, "not neither"),
    ({"text": "   "}, "`text` must say something"),
    ({"symptoms": [" "]}, "`symptoms` must name at least one symptom."),
    ({"text": "x" * 501}, "`text` may be at most 500 characters"),
    ({"text": "loss spiked", "first": 0}, "`first` must be between 1 and 100"),
])
async def test_refusals_name_the_argument(api, variables, message):
    assert message in await api.error(DIAGNOSE, variables)


# ------------------------------------------------------------------ text, on write-ups of the corpus


async def test_text_understands_a_paraphrase_by_meaning_and_answers_with_both_levels(sample_api):
    rows = (await sample_api.data(DIAGNOSE, {"text": "payments by card were refused; the on-call engineer was in Lisbon"}))
    rows = rows["diagnose"]
    [understood] = rows[0]["understoodSymptoms"]  # the second phrase is near no symptom of the graph
    assert (understood["phrase"], understood["symptom"], understood["method"]) == (
        "payments by card were refused", "card transactions declined", "meaning")
    assert 0.75 <= understood["similarity"] < 1
    cards = next(r for r in rows if CARD_CASE in [c["id"] for c in r["supportingCases"]])
    assert (cards["rootCause"]["name"], cards["group"]["name"]) == ("date rollover bug", "time and date")
    assert cards["matchedSymptoms"] == ["card transactions declined"]
    assert {"case": {"id": CARD_CASE}, "sentence": "A date rollover bug in the terminals caused it."} in cards["evidence"]
    assert cards["score"] <= cards["groupScore"]


async def test_text_finds_cases_by_meaning_when_it_names_no_symptom(sample_api):
    rows = (await sample_api.data(DIAGNOSE, {"text": "clients refuse to connect: the certificate of the server "
                                                     "has expired"}))["diagnose"]
    assert rows and rows[0]["score"] >= rows[-1]["score"]
    supported = {c["id"] for r in rows for c in r["supportingCases"]}
    assert supported & {"azure-2013-storage-certificate-expiry", "oculus-2018-expired-certificate",
                        "spotify-2020-expired-certificate", "sectigo-2020-addtrust-root-expiry"}


async def test_text_finds_a_cause_no_case_has_by_the_taxonomys_signs(sample_api, sample_graph):
    # The sample holds certificate and date cases only; nothing in it was caused by cooling.
    assert not sample_graph.execute_query(
        "MATCH (:Case)-[]->(:RootCause {name: 'cooling failure'}) RETURN 1 LIMIT 1").records
    text = "alarms on the temperature of the data hall; racks of servers switched themselves off to protect the hardware"
    rows = (await sample_api.data(DIAGNOSE, {"text": text, "first": 20}))["diagnose"]
    # Ranked where no case points to it, first of the causes that only the taxonomy's signs suggest; the
    # taxonomy is no case, so it lists no supporting case or evidence.
    unsupported = [r for r in rows if not r["supportingCases"]]
    assert unsupported and unsupported[0]["rootCause"]["name"] == "cooling failure"
    assert unsupported[0]["evidence"] == [] and unsupported[0]["score"] > 0


def summary(answer) -> tuple:
    return (answer.understood, [(c.concept, c.group, round(c.score, 9), round(c.group_score, 9), c.supporting,
                                 c.evidence) for c in answer.causes])


async def test_leaving_a_case_out_is_the_same_as_it_being_absent(driver: Driver):
    ingest_sample(driver)
    text = "every headset failing at once; cant reach runtime service; certificate expired"
    reader = GraphReader(driver)
    present = await run_diagnosis(reader, text=text, first=50)
    assert present.causes and present.causes[0].supporting
    left_out = present.causes[0].supporting[0]  # a case the answer rests on, whichever extraction found
    excluded = await run_diagnosis(reader, text=text, exclude=[left_out], first=50)
    assert left_out not in {case for cause in excluded.causes for case in cause.supporting}
    assert delete_case(driver, left_out)
    absent = await run_diagnosis(GraphReader(driver), text=text, first=50)
    assert summary(excluded) == summary(absent)
    assert summary(present) != summary(absent)
    ingest_sample(driver)  # the module's graph again, for the tests after this one


def test_eval_diagnosis_prints_hit_figures_beside_the_baseline(sample_graph, neo4j_settings):
    env = {"NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user,
           "NEO4J_PASSWORD": neo4j_settings.password}
    result = CliRunner().invoke(app, ["eval-diagnosis", "--json", "--split", "tune-new", "--split", "train"], env=env)
    assert result.exit_code == 0, result.output
    assert f"diagnosed {len(SAMPLE)} of {len(SAMPLE)} cases" in result.stderr
    figures = json.loads(result.stdout)["sets"]
    assert {name: figures[name]["cases"] for name in figures} == {
        "tune-new": TUNE_NEW_IN_SAMPLE, "train": len(SAMPLE) - TUNE_NEW_IN_SAMPLE}
    for values in figures.values():
        for key in ("hit@1", "hit@3", "group_hit@1", "group_hit@3"):
            assert 0 <= values[key] <= 1 and 0 <= values[f"baseline_{key}"] <= 1
            assert values[key.replace("1", "3")] >= values[key]  # the top 3 hold the top 1
    # Expired certificates fill the training cases: certificate questions find them.
    assert figures["train"]["group_hit@3"] > 0
    # The analyst's path through suggestFilters' names: the same cases, diagnosed from names.
    via_names = CliRunner().invoke(app, ["eval-diagnosis", "--json", "--split", "train", "--via-names"], env=env)
    assert via_names.exit_code == 0, via_names.output
    named = json.loads(via_names.stdout)["sets"]["train"]
    assert named["cases"] == figures["train"]["cases"] and named["group_hit@3"] > 0
    table = CliRunner().invoke(app, ["eval-diagnosis", "--split", "tune-new"], env=env)
    assert table.exit_code == 0 and "hit@3" in table.stdout and "tune-new" in table.stdout
    refused = CliRunner().invoke(app, ["eval-diagnosis", "--split", "validation"], env=env)
    assert refused.exit_code == 2 and "--split must be one of old, train, tune-new, dev-new, holdout" in refused.stderr


async def test_a_root_cause_shows_its_signs_as_the_taxonomy_says_them(sample_api):
    data = await sample_api.data('{ rootCauses(search: "cooling failure") { edges { node { name signs } } } }')
    node = next(e["node"] for e in data["rootCauses"]["edges"] if e["node"]["name"] == "cooling failure")
    assert node["signs"] == list(load_taxonomy().get("RootCause", "cooling failure").signs)
    assert len(node["signs"]) >= 3
