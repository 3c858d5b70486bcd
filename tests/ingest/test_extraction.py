"""The spaCy pipeline on write-ups: sections, cue phrases, negation, synonyms, new mentions."""

import pytest

from incident_graph.ingest.extract import MAX_EVIDENCE_CHARS, Extractor, as_json
from incident_graph.ingest.pipeline import build_pipeline, load_saved_pipeline, save_pipeline
from incident_graph.ingest.readers import writeup_from_text

from .conftest import names

SECTIONED = """---
title: Sectioned sample
organisation: ByteDance
---

## Symptoms

Training jobs showed sudden loss spikes and some produced NaN values.

## Root cause

- silent data corruption
- a flaky power rail on the accelerator boards

## Component

- GPU

## Contributing factor

- no hardware error signal

## Detection

Engineers noticed the loss curve jump. ECC, thermal and other hardware signals did not flag the devices.

## Remediation

- Drained the suspect nodes
- Restarted from the last checkpoint

## Lessons

Replay the exact workload. Keep the trace.
"""


def test_sections_decide_roles(extract):
    case = extract(SECTIONED)
    assert {"loss spike", "NaN loss"} <= names(case, "Symptom")
    assert "silent data corruption" in names(case, "RootCause")
    # The root cause bullet stays a root cause; the component section's bullet is the one component
    # ("checkpoint", named in passing in the remediation, is left to the model, which does not keep it).
    assert names(case, "Component") == {"GPU"}
    assert "no hardware error signal" in names(case, "ContributingFactor")
    root_cause = next(m for m in case.mentions if m.name == "silent data corruption")
    assert (root_cause.method, root_cause.section) == ("section", "root_cause")
    assert case.layout == "sectioned"
    assert case.remediation == ("Drained the suspect nodes", "Restarted from the last checkpoint")
    assert case.lesson_items == ("Replay the exact workload.", "Keep the trace.")


def test_same_concept_changes_role_with_its_section(extract):
    as_symptom = extract("## Symptoms\n\nWe saw silent data corruption in outputs.\n\n## Root cause\n\n- hardware defect\n\n"
                         "## Component\n\n- GPU\n")
    assert "silent data corruption" in names(as_symptom, "Symptom")
    assert "silent data corruption" not in names(as_symptom, "RootCause")


def test_every_mention_keeps_its_sentence_and_exact_offsets(extract):
    case = extract(SECTIONED)
    for mention in case.mentions:
        assert case.text[mention.start:mention.end] == mention.mention
        assert mention.mention in mention.sentence or mention.method == "metadata"
        assert mention.sentence in case.text
    spike = next(m for m in case.mentions if m.name == "loss spike")
    assert spike.sentence == "Training jobs showed sudden loss spikes and some produced NaN values."


def test_a_sentence_naming_thousands_of_entities_is_kept_around_each_mention(extract):
    # One 30 kB sentence naming 1,500 organisations: stored whole, its evidence would be 45 MB.
    names_in_sentence = " and ".join(f"Vendor{i} Ltd" for i in range(1_500))
    case = extract(f"The outage hit {names_in_sentence}, and a DNS outage followed.\n")
    organisations = [m for m in case.mentions if m.type == "Organisation"]
    assert len(organisations) > 1_000
    for mention in case.mentions:
        assert case.text[mention.start:mention.end] == mention.mention
        assert mention.mention in mention.sentence and mention.sentence in case.text
        assert len(mention.sentence) <= MAX_EVIDENCE_CHARS
    middle = next(m for m in organisations if m.mention == "Vendor750 Ltd")
    assert "Vendor749 Ltd and Vendor750 Ltd and Vendor751 Ltd" in middle.sentence
    assert len(middle.sentence) > MAX_EVIDENCE_CHARS * 0.9  # as much context as the cap allows


def test_negation_keeps_ecc_out_of_detection(extract):
    case = extract(SECTIONED)
    assert "ECC" not in case.detection_methods
    assert "loss curve monitoring" in case.detection_methods


def test_free_form_cue_phrases_decide_cause_and_effect(extract):
    case = extract("# Outage\n\nThe outage was caused by an expired certificate.\n")
    assert "expired certificate" in names(case, "RootCause")
    [mention] = [m for m in case.mentions if m.name == "expired certificate"]
    assert mention.method == "cue"
    effect = extract("# Clients\n\nA change to the trust chain caused an expired certificate error for old clients.\n")
    assert "expired certificate" in names(effect, "Symptom")


def test_negated_and_hedged_mentions_are_not_findings(extract):
    case = extract("# Review\n\nThere was no DDoS attack. Engineers initially suspected a network partition.\n")
    assert "DDoS attack" not in names(case, "RootCause")
    assert "network partition" not in names(case, "RootCause") | names(case, "Symptom")


def test_a_denial_covers_the_whole_list_it_opens(extract):
    case = extract("# Review\n\nEngineers ruled out a system update and a cyberattack. A bad route map was the cause.\n")
    causes = names(case, "RootCause")
    assert not any("cyberattack" in cause or "attack" in cause for cause in causes), causes
    assert any("route map" in cause for cause in causes), causes


def test_a_word_that_only_names_a_kind_of_component_is_no_cause(extract):
    case = extract("# Review\n\nCustomers use the Prolexic DDoS scrubbing service, which carries their traffic over "
                   "BGP. The service stopped passing traffic.\n")
    assert "DDoS attack" not in names(case, "RootCause") | names(case, "Symptom")
    assert any("scrubbing service" in component for component in names(case, "Component"))


def test_synonyms_and_inflections_map_to_one_canonical_entity(extract):
    case = extract("# Training\n\nThe loss spiked twice. Later a sudden loss spike hit again, and the loss jumped.\n")
    assert [m.name for m in case.mentions_of("Symptom")].count("loss spike") == 3
    assert names(case, "Symptom") == {"loss spike"}
    gpus = extract("# GPUs\n\nTwo GPUs failed; the GPU was replaced.\n")
    assert names(gpus, "Component") == {"GPU"}


@pytest.mark.parametrize("sentence, factor", [
    ("We underestimated how many people would keep writing during the migration.", "mistaken assumption"),
    ("Incident roles were unclear, so two engineers chased the same lead.", "unclear incident roles"),
    ("The job ran on a legacy deployment that was slated for replacement.", "legacy setup"),
])
def test_human_and_organisational_factors_have_names(extract, sentence, factor):
    case = extract(f"# Outage\n\nThe API returned errors for an hour. {sentence}\n")
    assert factor in names(case, "ContributingFactor"), case.mentions


def test_widely_used_software_is_a_component_under_its_kind(extract):
    """Elasticsearch, Netty and musl are named and never explained; each is a component under the
    kind it is, and "Google-bound traffic" names no BIND (whose lemma "bound" shares)."""
    case = extract("# Lag\n\nElasticsearch indexing fell behind for two hours. The DNS resolver in Netty and "
                   "the musl resolver of our images mishandled search domains, and Google-bound traffic was dropped.\n")
    components = {m.name: m for m in case.mentions_of("Component")}
    assert {"Elasticsearch", "Netty", "musl"} <= set(components), components.keys()
    assert components["Elasticsearch"].broader == "search engine"
    assert not any(name.startswith("BIND") for name in components), components.keys()


def test_a_hang_is_a_training_job_hang_only_when_a_training_job_hangs(extract):
    database = extract("# Database\n\nTwo misconfigurations caused the application database to hang.\n")
    assert "unresponsive system" in names(database, "Symptom")
    assert "training job hang" not in names(database, "Symptom")
    training = extract("# Training\n\nThe training job hung for six hours after a rank stalled.\n")
    assert "training job hang" in names(training, "Symptom")


def test_unknown_mentions_become_new_entities_with_normalised_names(extract):
    case = extract(SECTIONED)
    [new] = [m for m in case.mentions_of("RootCause") if not m.known]
    # The name is the phrase's nucleus, so cases that say it differently group; the mention is whole.
    assert new.name == "flaky power rail"
    assert new.method == "new-entity" and case.text[new.start:new.end] == "a flaky power rail on the accelerator boards"[2:]


def test_near_duplicate_new_entities_merge(extractor):
    first = extractor.extract(writeup_from_text("## Root cause\n\n- stale routing table entries\n", "a.md", "a"))
    second = extractor.extract(writeup_from_text("## Root cause\n\n- Stale routing-table entry\n", "b.md", "b"))
    assert {m.name for m in first.mentions_of("RootCause")} == {m.name for m in second.mentions_of("RootCause")}


def test_organisations_without_a_trained_model(extract):
    case = extract("# Outage\n\nByteDance's engineers and a team at Initech Systems found it. Cloudflare was not involved.\n")
    assert {"ByteDance", "Initech Systems", "Cloudflare"} <= names(case, "Organisation")
    from_metadata = extract(SECTIONED.replace("ByteDance", "Example Labs"))
    [org] = from_metadata.mentions_of("Organisation")
    assert (org.name, org.method, org.sentence) == ("Example Labs", "metadata", "organisation: Example Labs")


def test_json_contract_keys_and_shapes(extract):
    result = as_json(extract(SECTIONED, case_id="sectioned-sample"))
    assert list(result) == ["id", "title", "source", "url", "model", "organisations", "symptoms", "root_causes",
                            "components", "contributing_factors", "detection", "remediations", "lessons"]
    assert result["id"] == "sectioned-sample"
    assert result["source"] == "sectioned-sample.md" and result["url"] is None  # no source in its front matter
    assert result["model"] == "en_core_web_md 3.8.0"
    for key in ("organisations", "symptoms", "root_causes", "components", "contributing_factors"):
        for entity in result[key]:
            assert set(entity) == {"name", "mention", "sentence", "start", "end", "confidence"}
            assert isinstance(entity["start"], int) and 0 < entity["confidence"] <= 1
    assert all(isinstance(x, str) for x in result["detection"] + result["remediations"] + result["lessons"])


def test_pipeline_saves_and_loads_with_the_same_results(tmp_path):
    nlp = build_pipeline()
    save_pipeline(nlp, tmp_path / "pipeline")
    loaded = load_saved_pipeline(tmp_path / "pipeline")
    assert loaded.pipe_names == nlp.pipe_names
    writeup = writeup_from_text(SECTIONED, "s.md", "s")
    assert Extractor(loaded).extract(writeup) == Extractor(nlp).extract(writeup)


def test_named_products_stay_distinct_components_under_their_concept(extract):
    case = extract("## Component\n\n- kube-proxy\n- kubelet\n- RabbitMQ\n\n## Root cause\n\n- version skew between kubelet and kube-proxy\n")
    components = {m.name: m for m in case.mentions_of("Component")}
    assert {"kube-proxy", "kubelet", "RabbitMQ"} <= set(components)
    assert (components["kube-proxy"].broader, components["RabbitMQ"].broader) == ("Kubernetes", "message queue")


def test_urls_and_link_targets_are_never_entities(extract):
    case = extract("[Initech](https://status.initech.example/steam-outage-monitor-dns-failure). A bad config took down the edge.\n")
    assert all("://" not in m.mention and "](" not in m.mention and "outage-monitor" not in m.mention
               for m in case.mentions)
    assert "Initech" in names(case, "Organisation")
