"""incident_sections: the layout of a write-up (front matter, headings, sections, bullets).

It runs before the parser and starts a sentence where a heading starts and where its section's text
starts: a plain "Root Cause" line or a "Mitigation:" label has no full stop, and without the break
the section's first sentence would begin inside its heading.
"""

from __future__ import annotations

from bisect import bisect_left

from spacy.language import Language
from spacy.tokens import Doc

from incident_graph.ingest.components.sentences import set_sentence_starts
from incident_graph.ingest.sections import Layout, analyse


@Language.factory("incident_sections", default_config={"headings": {}, "keywords": {}})
def make_incident_sections(nlp: Language, name: str, headings: dict[str, list[str]],
                           keywords: dict[str, list[str]]) -> "SectionTagger":
    return SectionTagger(headings, keywords)


class SectionTagger:
    """doc._.layout: the write-up's front matter, headings, sections and bullets."""

    def __init__(self, headings: dict[str, list[str]], keywords: dict[str, list[str]] | None = None) -> None:
        self.headings = headings
        self.keywords = keywords or {}

    def __call__(self, doc: Doc) -> Doc:
        doc._.layout = analyse(doc.text, self.headings, self.keywords)
        if not doc.has_annotation("DEP"):  # a parse fixes its sentences; only set them before one
            set_sentence_starts(doc, heading_bounds(doc, doc._.layout))
        return doc


def heading_bounds(doc: Doc, layout: Layout) -> list[int]:
    """The first word of every heading and of the text after it."""
    offsets = [token.idx for token in doc]
    starts = set()
    for region in layout.regions:
        if region.kind != "heading":
            continue
        for offset in (region.start, region.end):
            i = bisect_left(offsets, offset)
            while i < len(doc) and doc[i].is_space:
                i += 1
            if 0 < i < len(doc):
                starts.add(i)
    return sorted(starts)
