"""incident_entity_classifier: the trained model that decides among candidate phrases."""

import json
import shutil

import numpy
import pytest

from incident_graph.ingest.components import MENTIONS
from incident_graph.ingest.components.cues import CueIndex
from incident_graph.ingest.components.entity_classifier import CLASSES, TYPES, EntityClassifier
from incident_graph.ingest.pipeline import build_pipeline, default_pipeline, load_saved_pipeline, save_pipeline
from incident_graph.ingest.corpus import bundled_corpus_dir, gold_dir
from incident_graph.ingest.train_classifier import (
    THRESHOLDS, LabelledDoc, fit, fold_of, load_weights, out_of_fold_probabilities, stacked, train, weights_file)

TEXT = """# Disk full on the log shippers

## Impact

Customers saw delayed dashboards and failed log searches for two hours.

## Root cause

The root cause was a full disk on the log shipper hosts, after a retention job silently stopped.
"""


def test_the_shipped_weights_load_and_fit_the_features():
    weights = load_weights(weights_file())
    assert weights is not None, "ingest/models/entity_classifier.npz is missing: run incident-graph train-classifier"
    classifier = default_pipeline().get_pipe("incident_entity_classifier")
    doc = default_pipeline()(TEXT)
    candidates = classifier.candidates(doc)
    features = classifier.features(doc, candidates)
    assert features.shape == (len(candidates), weights["weights"].shape[0])
    probabilities = classifier.probabilities(features)
    assert probabilities.shape == (len(candidates), len(CLASSES))
    assert numpy.allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)


def test_it_decides_the_mentions_of_a_template_write_up():
    doc = default_pipeline()(TEXT)
    labels = {(span.label_, span.text) for span in doc.spans[MENTIONS]}
    assert any(label == "RootCause" and "full disk" in text for label, text in labels)
    assert any(label == "Symptom" for label, _ in labels)
    assert all(float(span._.confidence) >= 0.5 for span in doc.spans[MENTIONS] if span.label_ in TYPES)


def test_a_decision_does_not_change_the_next_one_on_the_same_write_up():
    """The threshold search decides each write-up once per setting: what one decision wrote into
    the spans (spaCy keeps a span's confidence by its words, label and id) must not move the next."""
    nlp = default_pipeline()
    classifier = nlp.get_pipe("incident_entity_classifier")
    with nlp.select_pipes(disable=["incident_entity_classifier"]):
        doc = nlp(TEXT)
    candidates = classifier.candidates(doc)
    probabilities = classifier.probabilities(classifier.features(doc, candidates))
    cues = CueIndex(doc, classifier.cues)
    shipped = dict(classifier.thresholds), classifier.floors

    def decided() -> list[tuple[str, int, int, str, float]]:
        spans = classifier.decide(doc, candidates, probabilities, cues)
        return sorted((s.label_, s.start, s.end, s.id_, round(float(s._.confidence), 6)) for s in spans)

    try:
        first = decided()
        classifier.thresholds.update({label: 0.01 for label in TYPES})  # a setting that keeps nearly everything
        classifier.set_floors({"section": {label: 0.01 for label in TYPES}, "document": {label: 0.01 for label in TYPES}})
        assert len(decided()) > len(first)
        classifier.thresholds.update(shipped[0])
        classifier.set_floors(shipped[1])
        assert decided() == first
    finally:
        classifier.thresholds.update(shipped[0])
        classifier.set_floors(shipped[1])


def test_blank_english_leaves_the_rules_alone():
    nlp = build_pipeline(use_trained=False)
    classifier = nlp.get_pipe("incident_entity_classifier")
    assert classifier.weights is None
    doc = nlp(TEXT)
    assert {span.label_ for span in doc.spans[MENTIONS]} <= {*TYPES, "Organisation"}


def test_fit_learns_a_separable_problem():
    rng = numpy.random.default_rng(1)
    labels = rng.integers(0, len(CLASSES), 600)
    features = rng.normal(0, 1, (600, 8)).astype("float32")
    features[numpy.arange(600), labels] += 4.0  # each class has its own feature
    weights = fit(features, labels, steps=300)
    scores = ((features - weights["mean"]) / weights["scale"]) @ weights["weights"] + weights["bias"]
    assert (scores.argmax(axis=1) == labels).mean() > 0.9


def test_folds_come_from_the_id_alone_and_use_every_fold():
    ids = [f"case-{n}" for n in range(50)]
    assert [fold_of(i, 5) for i in ids] == [fold_of(i, 5) for i in ids]
    assert {fold_of(i, 5) for i in ids} == set(range(5))


def test_a_write_up_is_scored_by_weights_fitted_without_its_fold():
    rng = numpy.random.default_rng(2)
    classifier = EntityClassifier(None, {}, {})  # its own weights: the shared pipeline's stay as shipped
    docs = []
    for n in range(12):
        labels = rng.integers(0, len(CLASSES), 40)
        features = rng.normal(0, 1, (40, 6)).astype("float32")
        features[numpy.arange(40), labels] += 2.0
        docs.append(LabelledDoc(f"doc-{n}", None, [None] * 40, features, labels, {}))
    probabilities = out_of_fold_probabilities(classifier, docs, 3)
    held = docs[0]
    rest = [d for d in docs if fold_of(d.case_id, 3) != fold_of(held.case_id, 3)]
    classifier.set_weights(fit(*stacked(rest)))
    assert numpy.allclose(probabilities[0], classifier.probabilities(held.features), atol=1e-5)
    classifier.set_weights(fit(*stacked(docs)))  # fitted on the write-up itself: other probabilities
    assert not numpy.allclose(probabilities[0], classifier.probabilities(held.features), atol=1e-3)


def test_training_fits_the_fitting_splits_and_never_reads_the_held_out_ones(tmp_path):
    cases, gold = tmp_path / "cases", tmp_path / "gold"
    cases.mkdir()
    gold.mkdir()
    records = [json.loads(p.read_text()) for p in sorted(gold_dir().glob("*.json"))]
    chosen = [r for r in records if r["split"] == "train"][:4] + [r for r in records if r["split"] == "tune-new"][:2]
    for record in chosen:
        source = next(bundled_corpus_dir().glob(f"{record['id']}.*"))
        shutil.copy(source, cases / source.name)
        (gold / f"{record['id']}.json").write_text(json.dumps(record))
    # A held-out record whose write-up is absent: reading it would fail.
    (gold / "held-out.json").write_text(json.dumps({"id": "held-out", "split": "dev-new", "symptoms": [["x"]]}))
    nlp = build_pipeline(use_classifier=False)
    result = train(nlp, cases, gold, folds=2, out=tmp_path / "weights.npz")
    assert result["documents"] == 6 and result["splits"] == ["train", "tune-new"]
    weights = load_weights(tmp_path / "weights.npz")
    assert weights is not None and set(weights["thresholds"]) == set(TYPES)
    assert all(value in THRESHOLDS for value in weights["thresholds"].values())
    assert all(0.0 <= f1 <= 1.0 for f1 in result["out_of_fold_f1"].values())
    with pytest.raises(ValueError, match="folds must be at least 2"):
        train(nlp, cases, gold, folds=1, out=tmp_path / "again.npz")


def test_the_weights_travel_with_the_saved_pipeline(tmp_path):
    save_pipeline(default_pipeline(), tmp_path / "pipeline")
    loaded = load_saved_pipeline(tmp_path / "pipeline")
    assert loaded.get_pipe("incident_entity_classifier").weights is not None
    original, again = default_pipeline()(TEXT), loaded(TEXT)
    assert {(s.label_, s.start, s.end) for s in again.spans[MENTIONS]} == \
        {(s.label_, s.start, s.end) for s in original.spans[MENTIONS]}


def test_a_short_report_keeps_the_cause_and_effect_it_states(extract):
    """The model alone keeps neither from this one sentence; the causal grammar states both."""
    case = extract("[Heroku](https://example.org/p). A change to our build cache system caused some git "
                   "pushes to fail for users.\n")
    causes = [m.mention for m in case.mentions_of("RootCause")]
    assert any(cause.startswith("change to our build cache system") for cause in causes), causes
    assert any("pushes to fail" in m.mention for m in case.mentions_of("Symptom"))


def test_a_stated_effect_keeps_the_name_the_causal_grammar_gave_it(extract):
    """"a race condition corrupted user sessions": the sessions' corruption, said by what was done
    to them, whether the model keeps it or the stated fallback does."""
    case = extract("# Outage\n\nThe deploy introduced a race condition that corrupted user sessions.\n")
    symptoms = {m.name: m.mention for m in case.mentions_of("Symptom")}
    assert symptoms.get("session corruption") == "corrupted user sessions", symptoms


def test_a_stated_cause_is_not_added_when_the_model_found_one(extract):
    case = extract("# Disk full\n\n## Root cause\n\nThe root cause was a full disk on the log hosts. A retention "
                   "job change caused the cleanup to stop.\n")
    assert len(case.mentions_of("RootCause")) >= 1
    assert not any(m.mention.startswith("retention job change") and m.confidence == 0.5
                   for m in case.mentions_of("RootCause"))


def test_a_denied_cause_is_never_the_stated_one(extract):
    case = extract("[Example](https://example.org/p). An attack did not cause the outage.\n")
    assert not any("attack" in m.mention.lower() for m in case.mentions_of("RootCause"))


def test_a_product_named_after_its_vendor_is_a_component_not_an_organisation(extract):
    case = extract("Elevated error rates for Amazon CloudFront\n\nSome customers saw errors when fetching content "
                   "through Amazon CloudFront edge locations.\n")
    assert any(m.mention == "Amazon CloudFront" for m in case.mentions_of("Component"))
    assert "Amazon CloudFront" not in {m.mention for m in case.mentions_of("Organisation")}


def test_a_generic_head_is_a_candidate_only_with_a_modifier_that_says_what():
    nlp = default_pipeline()
    classifier = nlp.get_pipe("incident_entity_classifier")
    with nlp.select_pipes(disable=["incident_entity_classifier"]):
        doc = nlp("A routine update to the storage layer changed compaction. The update was rolled back.")
    texts = {c.span.text for c in classifier.candidates(doc)}
    assert "routine update" in texts
    assert "update" not in texts


def test_a_root_cause_section_states_its_cause_when_the_model_keeps_none(extract):
    case = extract("# DNS failures\n\n## Root cause\n\nThe new CoreDNS version enabled a cache prefetch setting that, "
                   "with our low memory limit, caused the pods to be killed under load.\n")
    assert any("CoreDNS version" in m.mention for m in case.mentions_of("RootCause"))


def test_a_denied_symptom_is_none_but_an_absence_can_be_a_factor(extract):
    case = extract("# Outage\n\n## Impact\n\n- Checkout failed for an hour\n- No data was lost\n\n"
                   "## Contributing factors\n\n- No automatic rollback\n")
    assert not any("data" in m.mention.lower() for m in case.mentions_of("Symptom"))
    assert any("automatic rollback" in m.mention for m in case.mentions_of("ContributingFactor"))


FACTOR_BULLETS = """# Routing bug

## Root cause

- a context window routing error that sent some short requests to the long-context servers

## Contributing factor

- sticky routing kept an affected user's later requests on the wrong servers
- privacy controls limited what engineers could see of the conversations that showed the problem
"""


def test_a_cause_or_factor_bullet_is_one_finding(extract):
    case = extract(FACTOR_BULLETS)
    factors = [m.mention for m in case.mentions_of("ContributingFactor")]
    assert len(factors) == 2, factors
    # A bullet longer than a name is cut to its first words, and never mid-phrase ("... on the").
    assert factors[0] == "sticky routing kept an affected user's later requests"
    assert factors[1] == "privacy controls limited what engineers could see of the conversations"
    causes = case.mentions_of("RootCause")
    assert len(causes) == 1 and causes[0].mention.startswith("context window routing error")


def test_a_bullet_stays_a_finding_under_a_threshold_below_the_extractors_bar(extract):
    """A threshold the search may choose under 0.5 is no confidence: the bullet is kept at the bar."""
    classifier = default_pipeline().get_pipe("incident_entity_classifier")
    shipped = dict(classifier.thresholds)
    try:
        classifier.thresholds.update({"RootCause": 0.45, "ContributingFactor": 0.45})
        case = extract(FACTOR_BULLETS)
    finally:
        classifier.thresholds.update(shipped)
    factors = case.mentions_of("ContributingFactor")
    assert len(factors) == 2 and all(m.confidence >= 0.5 for m in factors), factors


def test_a_taxonomy_name_inside_a_bullet_stays_the_findings_name(extract):
    case = extract("# Outage\n\n## Root cause\n\n- a bad configuration change pushed to every region at once\n")
    causes = case.mentions_of("RootCause")
    assert [m.name for m in causes] == ["bad configuration change"]
    assert causes[0].mention.startswith("bad configuration change pushed to every region")


def test_a_missing_safeguard_is_kept_as_a_factor_named_for_its_absence(extract):
    """The model rarely saw absences as candidates; the rule keeps them, and the name keeps its "no"
    ("no integrity check" says the opposite of "integrity check")."""
    case = extract("[Example](https://example.org/p). The ledger service stalled for an hour. The nightly "
                   "export had no integrity check, and nobody reviewed the new retention job.\n")
    factors = {m.name: m.mention for m in case.mentions_of("ContributingFactor")}
    assert "no integrity check" in factors.get("no integrity check", ""), factors
    assert any(name.startswith("nobody reviewed") and mention.lower() == "nobody reviewed the new retention job"
               for name, mention in factors.items()), factors


def test_a_contracted_negation_is_named_not(extract):
    case = extract("[Example](https://example.org/p). The vendor didn't include ECC on the cache chips.\n")
    names = [m.name for m in case.mentions_of("ContributingFactor")]
    assert any("not include" in name and "n't" not in name for name in names), names


def test_a_denied_symptom_is_never_the_stated_one(extract):
    """The short report states no other symptom, so the causal grammar's first would be kept."""
    case = extract("Our storage cluster went read-only for two hours. The investigation found two "
                   "misconfigurations, plus a software bug in the replication daemon. No data was lost.\n")
    assert not any("data was lost" in m.mention for m in case.mentions_of("Symptom"))
    assert len(case.mentions_of("RootCause")) == 2


def test_the_incident_named_by_itself_is_no_symptom(extract):
    case = extract("# Checkout errors\n\nCheckout returned errors for 40 minutes. The outage lasted until the "
                   "deploy was reverted, and support answered by email during the outage. It was our worst "
                   "outage this year.\n")
    symptoms = {m.mention.lower() for m in case.mentions_of("Symptom")}
    assert not symptoms & {"outage", "worst outage"}, symptoms
    assert any("error" in text for text in symptoms), symptoms


def test_what_a_failure_happened_to_is_no_root_cause(extract):
    case = extract("Payments were delayed for three hours. The root cause turned out to be transaction ID "
                   "wraparound in Postgres. Propagation of configuration changes was also delayed.\n")
    causes = {m.mention.lower() for m in case.mentions_of("RootCause")}
    assert not any("configuration change" in text for text in causes), causes
    assert any("wraparound" in text for text in causes), causes


@pytest.mark.parametrize("text, denied, failed", [
    ("# Certificate expiry\n\n## Impact\n\n- Web browsers were almost entirely unaffected.\n"
     "- Older API clients failed their TLS handshakes.\n", ("unaffected", "browser"), "handshake"),
    ("# Patch update\n\nThe app stopped getting past the start screen for about 300 users. "
     "Nobody lost any data, and no email was lost either.\n", ("lost",), "start screen"),
])
def test_what_came_through_unharmed_is_no_symptom(extract, text, denied, failed):
    symptoms = {m.mention.lower() for m in extract(text).mentions_of("Symptom")}
    assert not any(word in mention for word in denied for mention in symptoms), symptoms
    assert any(failed in mention for mention in symptoms), symptoms


def test_a_muted_alert_is_kept_as_a_contributing_factor(extract):
    case = extract("# Indexing delays\n\n## Detection\n\nA customer report reached support 40 minutes after the "
                   "migration started; our consumer-lag alert had been muted since a previous incident.\n")
    factors = {m.mention.lower() for m in case.mentions_of("ContributingFactor")}
    assert any("alert had been muted" in text for text in factors), factors


def test_how_the_incident_was_found_is_no_symptom_or_cause(extract):
    case = extract("# Checkout outage\n\nOn Tuesday afternoon our checkout service started returning 502s to "
                   "roughly a third of shoppers. The on-call engineer was paged by the error-rate alert at 14:12 "
                   "and saw that the payment workers were restarting in a loop.\n\nIt turned out that a new "
                   "release of the payment worker had a memory leak in its retry handler.\n")
    found = {m.mention.lower() for m in case.mentions_of("Symptom") + case.mentions_of("RootCause")}
    assert not any("paged" in text for text in found), found
    assert any("memory leak" in text for text in found), found


def test_a_component_named_without_what_went_wrong_is_no_symptom(extract):
    case = extract("# Load balancer state deleted\n\n## Impact\n\nFor six hours the load balancers in the "
                   "region were hard to manage. Applications behind them returned errors.\n")
    symptoms = {m.mention.lower() for m in case.mentions_of("Symptom")}
    assert not any("load balancer" in text for text in symptoms), symptoms
    assert any("error" in text for text in symptoms), symptoms
    assert "load balancer" in {m.name for m in case.mentions_of("Component")}


def test_a_bullet_opening_with_a_label_is_named_by_the_label(extract):
    """"**Data voids.** For queries that ...": the bold label names the finding; the explanation
    after it is no part of the name."""
    case = extract("# Odd answers\n\n## Impact\n\n"
                   "- **Search results were stale.** The index stopped updating for two hours.\n\n"
                   "## Root cause\n\n"
                   "- **Misreading queries and language.** Some overviews misunderstood what a query was "
                   "asking, or missed the nuance of the page they drew from.\n\n"
                   "## Contributing factors\n\n"
                   "- **Configuration drift after a credential change.** When the password was rotated, "
                   "one host kept the old value for days.\n")
    assert [m.mention for m in case.mentions_of("RootCause")] == ["Misreading queries and language"]
    assert [m.mention for m in case.mentions_of("ContributingFactor")] == ["Configuration drift after a credential change"]
    assert "Search results were stale" in [m.mention for m in case.mentions_of("Symptom")]


def test_work_done_by_hand_during_the_response_is_no_contributing_factor(extract):
    """Responders do much by hand; "manually" alone says how the fix was done, not what made the
    incident worse. A step that was itself manual still is one."""
    case = extract("Engineers restarted the web servers by hand and manually drained the queue. "
                   "The failover had to be run by hand, so it took an hour.")
    factors = [m.mention for m in case.mentions_of("ContributingFactor")]
    assert factors == ["run by hand"], factors


def test_what_the_services_users_could_not_do_is_kept_by_its_rule(extract):
    """The model saw few of these phrasings; the grammar that finds them is precise enough to keep."""
    case = extract("Passengers could not check in for domestic or international flights, staff fell back on "
                   "paper, and delays spread through the day.")
    symptoms = {m.name: m.method for m in case.mentions_of("Symptom")}
    assert symptoms.get("passenger unable to check in") == "inability", symptoms



def test_what_the_incident_did_not_touch_is_no_component(extract):
    case = extract("# Mail outage\n\nThe mail database crashed after a bad schema migration. "
                   "No other Rackspace products or businesses were affected.\n")
    components = {m.mention.lower() for m in case.mentions_of("Component")}
    assert not any(text.startswith("no ") for text in components), components
    assert any("database" in text for text in components), components


def test_a_component_the_taxonomy_names_is_no_symptom_by_itself(extract):
    case = extract("# Login errors\n\nThe status page told customers that engineers were investigating the "
                   "login errors. By 10:05 UTC the status page said the teams were restoring the hosts.\n")
    symptoms = {m.name: m.mention for m in case.mentions_of("Symptom")}
    assert "status page" not in symptoms, symptoms
    assert "status page" in {m.name for m in case.mentions_of("Component")}
    assert any("login errors" in mention for mention in symptoms.values()), symptoms
