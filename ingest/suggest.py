"""Filter suggestions for a search phrase, from the same pipeline and taxonomy as ingest."""

from __future__ import annotations

from spacy.language import Language

from incident_graph.ingest.components import CANDIDATES
from incident_graph.ingest.pipeline import default_pipeline
from incident_graph.schema.records import Mention

MAX_PHRASE_CHARS = 2_000


def suggest_filters(text: str, nlp: Language | None = None) -> list[Mention]:
    """Every taxonomy concept named in `text`, once per (type, name), in the order they appear.

    Unlike extraction, overlapping matches all count: "my loss spiked after a GPU fault" suggests
    the symptom "loss spike", the root cause "GPU failure" and the component "GPU".
    """
    nlp = nlp or default_pipeline()
    doc = nlp(text[:MAX_PHRASE_CHARS])
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
