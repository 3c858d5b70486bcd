"""incident_roles: which taxonomy matches become mentions, and in which role."""

from incident_graph.ingest.components import MENTIONS


def components(nlp, text: str) -> dict[str, str]:
    doc = nlp(text)
    return {span.text: span.id_ for span in doc.spans[MENTIONS] if span.label_ == "Component"}


def test_a_noun_before_a_one_word_synonym_makes_it_another_thing(nlp):
    # "processor" is a synonym of CPU; a card processor or an alarm processor is no CPU.
    assert "CPU" not in components(nlp, "The card processor returned errors to the gateway.").values()
    assert "CPU" not in components(nlp, "The alarm processor stopped updating the operators' screens.").values()


def test_a_one_word_synonym_on_its_own_and_a_concept_named_itself_stay(nlp):
    assert "CPU" in components(nlp, "The processor overheated and the host rebooted.").values()
    found = components(nlp, "The orders database ran out of connections.")
    assert any(name.lower() == "database" for name in found.values()), found
