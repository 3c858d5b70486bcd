"""Tokenizing write-ups: long runs without whitespace are cut into pieces first."""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc


MAX_RUN_CHARS = 200  # longer than any URL or path in the corpus (136); a run this long is cut


def make_doc(nlp: Language, text: str) -> Doc:
    """nlp.make_doc, except that a run of over MAX_RUN_CHARS characters without whitespace is
    tokenized in pieces of at most that length.

    spaCy's tokenizer strips a long token's prefixes and suffixes one at a time, and each strip costs
    the token's length: 20,000 "[" then 20,000 "]" took minutes. The pieces are joined into one Doc
    of exactly the same text, so character offsets still point into the text as read. Text without
    such a run (every real write-up) is tokenized as before, in one call.
    """
    if len(text) > nlp.max_length or not LONG_RUN.search(text):
        return nlp.make_doc(text)  # (over max_length: spaCy's own error, as before)
    docs = [nlp.make_doc(text[start:end]) for start, end in pieces(text)]
    return Doc.from_docs(docs, ensure_whitespace=False)


LONG_RUN = re.compile(r"\S{%d,}" % (MAX_RUN_CHARS + 1))


def pieces(text: str) -> list[tuple[int, int]]:
    """(start, end) of consecutive pieces of the text, cut where each long run starts and inside it.

    A cut at a run's start follows whitespace, where the tokenizer splits anyway, so the text around
    the runs tokenizes exactly as in one call; each run's last piece runs on to the next long run.
    """
    cuts = [0]
    for run in LONG_RUN.finditer(text):
        cuts.append(run.start())
        cuts += run_cuts(text, run.start(), run.end())
    cuts.append(len(text))
    return [(start, end) for start, end in zip(cuts, cuts[1:]) if end > start]


def run_cuts(text: str, start: int, end: int) -> list[int]:
    """Where to cut a long run: after its last non-alphanumeric character in the second half of
    each stretch of MAX_RUN_CHARS (so "word,word,..." keeps its words whole), else at the limit."""
    cuts: list[int] = []
    while end - start > MAX_RUN_CHARS:
        limit = start + MAX_RUN_CHARS
        cut = limit
        for index in range(limit - 1, start + MAX_RUN_CHARS // 2 - 1, -1):
            if not text[index].isalnum():
                cut = index + 1
                break
        cuts.append(cut)
        start = cut
    return cuts
