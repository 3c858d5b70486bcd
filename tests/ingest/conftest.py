import pytest

from incident_graph.ingest.extract import Extractor
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.ingest.readers import writeup_from_text


@pytest.fixture(scope="session")
def nlp():
    """The default pipeline, on the trained model: the components' tests read its parse."""
    nlp = default_pipeline()
    if "parser" not in nlp.pipe_names:
        pytest.fail("the trained spaCy pipeline is not installed (make install)")
    return nlp


@pytest.fixture(scope="session")
def extractor() -> Extractor:
    return Extractor(default_pipeline())


@pytest.fixture
def extract(extractor):
    """Extract one write-up given as text; returns the ExtractedCase."""

    def run(text: str, case_id: str = "case"):
        return extractor.extract(writeup_from_text(text, f"{case_id}.md", case_id))

    return run


def names(case, label):
    return {m.name for m in case.mentions_of(label)}
