"""incident_mention_extent: a finding's mention is the statement or noun phrase that says it."""

from incident_graph.ingest.components import MENTIONS
from incident_graph.schema.records import MAX_NAME_WORDS, name_words


def mentions(extract, text: str, label: str) -> dict[str, str]:
    return {m.name: m.mention for m in extract(text).mentions_of(label)}


def test_a_symptom_mention_is_its_whole_clause(extract):
    symptoms = mentions(extract, "Earlier that Saturday a user reported an unrelated bug: the app crashed when "
                                 "logging certain kinds of calls.\n", "Symptom")
    assert "app crashed when logging certain kinds of calls" in symptoms.values(), symptoms


def test_the_statement_stops_at_a_clause_mark(extract):
    symptoms = mentions(extract, "The database ran out of connections, and the checkout page returned errors "
                                 "for about an hour.\n", "Symptom")
    said = [mention for mention in symptoms.values() if "returned errors" in mention]
    assert said and all("connections" not in mention for mention in said), symptoms


def test_a_date_before_the_finding_is_no_part_of_it(extract):
    causes = mentions(extract, "Earlier that Saturday a user reported an unrelated bug: the app crashed.\n",
                      "RootCause")
    assert causes and all("Saturday" not in mention for mention in causes.values()), causes


def test_a_relative_clause_the_finding_is_not_in_stays_out(extract):
    text = "# Outage\n\nThe deploy introduced a race condition that corrupted user sessions.\n"
    case = extract(text)
    assert {m.mention for m in case.mentions_of("Symptom")} == {"corrupted user sessions"}
    assert all("sessions" not in m.mention for m in case.mentions_of("RootCause")), case.mentions


def test_a_component_mention_is_its_noun_phrase_without_the_rest_of_a_list(extract):
    components = mentions(extract, "Requests to the primary Redis cluster and the MySQL replicas timed out for "
                                   "twenty minutes.\n", "Component")
    assert "primary Redis cluster" in components.values(), components
    assert all(" and " not in mention for mention in components.values()), components


def test_a_mention_keeps_its_words_its_name_and_a_name_length(nlp):
    text = ("Requests to the primary Redis cluster timed out for twenty minutes. During the recovery a second "
            "problem in the regional network fabric cut connectivity for thousands of virtual machines in two "
            "zones for several hours.")
    with nlp.select_pipes(disable=["incident_mention_extent"]):
        short_doc = nlp(text)
    wide_doc = nlp(text)
    before, after = list(short_doc.spans[MENTIONS]), list(wide_doc.spans[MENTIONS])
    assert len(before) == len(after) and len(after) > 0
    for short, wide in zip(before, after):
        assert (short.label_, short.id_, short._.confidence) == (wide.label_, wide.id_, wide._.confidence)
        assert wide.start <= short.start and short.end <= wide.end
        assert name_words(wide.text) <= max(MAX_NAME_WORDS, name_words(short.text))
    assert any(len(wide) > len(short) for short, wide in zip(before, after))


def test_a_statement_does_not_take_in_another_kind_of_finding(extract):
    case = extract("A bug in the kernel driver crashed the storage servers.\n")
    symptoms = [m.mention for m in case.mentions_of("Symptom")]
    assert any("crashed the storage servers" in mention for mention in symptoms), symptoms
    assert all("bug" not in mention for mention in symptoms), symptoms


def test_a_verb_that_links_cause_and_effect_belongs_to_neither(extract):
    case = extract("Statuspage, 12 August 2019: an ad-hoc database migration caused a hard outage of about "
                   "seven minutes across several components. Most interruptions were caused by faulty software.\n")
    symptoms = {m.mention for m in case.mentions_of("Symptom")}
    assert any("hard outage" in mention for mention in symptoms), symptoms
    assert all("caused" not in mention and "migration" not in mention for mention in symptoms), symptoms
    causes = {m.mention for m in case.mentions_of("RootCause")}
    assert any("faulty software" in mention for mention in causes), causes
    assert all("caused" not in mention and "interruptions" not in mention for mention in causes), causes


def test_a_component_mention_leaves_out_a_clause_about_it(extract):
    components = mentions(extract, "A lightweight DNS forwarder used in the cluster dropped queries.\n", "Component")
    assert "lightweight DNS forwarder" in components.values(), components
    assert not any("cluster" in mention for mention in components.values()), components
