"""Filter suggestions for a search phrase, from the same pipeline and taxonomy as ingest."""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc

from incident_graph.ingest.components import CANDIDATES
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.schema.records import Mention

MAX_PHRASE_CHARS = 2_000

# A suggestion needs the taxonomy's matches only: the pipes up to the loose matcher, without the
# parser, NER and detection patterns, which set nothing those matches or their sentences depend on
# (checked on 2,000 corpus sentences and 500 runs of three: the same suggestions and sentences,
# in a quarter of the time; tests/ingest/test_suggest.py keeps checking it).
LAST_MATCHING_PIPE = "incident_loose_matcher"
NOT_FOR_MATCHING = ("parser", "ner", "detection_ruler")


def matching_pipes(nlp: Language) -> list[str]:
    """The pipes a suggestion runs, in pipeline order."""
    names = nlp.pipe_names
    if LAST_MATCHING_PIPE in names:
        names = names[: names.index(LAST_MATCHING_PIPE) + 1]
    return [name for name in names if name not in NOT_FOR_MATCHING]


def matched_doc(text: str, nlp: Language) -> Doc:
    """`text` through the matching pipes only (each called in turn: no pipeline state is changed,
    so concurrent requests can share the pipeline)."""
    doc = nlp.make_doc(text)
    for name in matching_pipes(nlp):
        doc = nlp.get_pipe(name)(doc)
    return doc


def suggest_filters(text: str, nlp: Language | None = None) -> list[Mention]:
    """Every taxonomy concept named in `text`, once per (type, name), in the order they appear.

    Unlike extraction, overlapping matches all count: "my loss spiked after a GPU fault" suggests
    the symptom "loss spike", the root cause "GPU failure" and the component "GPU".
    """
    nlp = nlp or default_pipeline()
    return suggestions_in(matched_doc(text[:MAX_PHRASE_CHARS], nlp))


def suggestions_in(doc: Doc) -> list[Mention]:
    """The taxonomy concepts a processed doc's matches name, once per (type, name), in order."""
    seen: set[tuple[str, str]] = set()
    suggestions: list[Mention] = []
    for span in sorted(doc.spans[CANDIDATES], key=lambda s: (s.start, -len(s))):
        key = (span.label_, span.id_)
        if key in seen:
            continue
        seen.add(key)
        suggestions.append(Mention(type=span.label_, name=span.id_, mention=span.text, sentence=span.sent.text.strip(),
                                   start=span.start_char, end=span.end_char, confidence=1.0, method="taxonomy"))
    return suggestions
