"""incident_sections: the layout of a write-up (front matter, headings, sections, bullets)."""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc

from incident_graph.ingest.sections import analyse


@Language.factory("incident_sections", default_config={"headings": {}})
def make_incident_sections(nlp: Language, name: str, headings: dict[str, list[str]]) -> "SectionTagger":
    return SectionTagger(headings)


class SectionTagger:
    """doc._.layout: the write-up's front matter, headings, sections and bullets."""

    def __init__(self, headings: dict[str, list[str]]) -> None:
        self.headings = headings

    def __call__(self, doc: Doc) -> Doc:
        doc._.layout = analyse(doc.text, self.headings)
        return doc
