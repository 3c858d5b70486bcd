"""incident_sentences: sentences also start at paragraphs, bullets and headings."""

from __future__ import annotations

from spacy.attrs import SENT_START
from spacy.language import Language
from spacy.tokens import Doc


LINE_MARKERS = {"-", "*", "\u2022", "#"}


@Language.component("incident_sentences")
def incident_sentences(doc: Doc) -> Doc:
    """Sentences also start at paragraph breaks, bullets and headings, not only at full stops."""
    starts: list[int] = []
    previous_line_marker = False
    for token in doc[1:]:
        previous = doc[token.i - 1]
        if token.is_space or not (previous.is_space and "\n" in previous.text):
            continue
        marker = token.text in LINE_MARKERS
        if "\n\n" in previous.text or marker or previous_line_marker:
            starts.append(token.i)
        previous_line_marker = marker
    set_sentence_starts(doc, starts)
    return doc


def set_sentence_starts(doc: Doc, starts: list[int]) -> None:
    """Mark these tokens as sentence starts in one pass. Each `token.is_sent_start = True` checks
    the whole Doc for a parse first, so setting thousands of them one by one was quadratic."""
    if not starts:
        return
    values = doc.to_array([SENT_START])
    values[starts] = 1
    doc.from_array([SENT_START], values)
