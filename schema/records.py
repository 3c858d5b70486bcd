"""Plain records passed from extraction to the graph: the contract between ingest/ and graph/."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, fields
from datetime import date

# An entity's name has at most this many words, counted as the evaluation counts them (words of
# letters and digits, these few function words left out): a longer phrase is a description.
MAX_NAME_WORDS = 8
NAME_FUNCTION_WORDS = frozenset("a an the of in on to for by and or with without from at as is was were be its it this that".split())
WORD = re.compile(r"[a-z0-9]+")


def name_words(text: str) -> int:
    return sum(1 for word in WORD.findall(text.lower()) if word not in NAME_FUNCTION_WORDS)


def first_day(published: str) -> date:
    """The first day of a date written YYYY, YYYY-MM or YYYY-MM-DD; ValueError off the calendar."""
    parts = [int(part) for part in published.split("-")]
    return date(parts[0], parts[1] if len(parts) > 1 else 1, parts[2] if len(parts) > 2 else 1)


# How a mention was found: the evidence's `method`. The API's description and the graph model's
# comment derive from this table.
EVIDENCE_METHODS: dict[str, str] = {
    "section": "a bullet or the opening sentence of a section named for the type",
    "taxonomy": "a taxonomy name or synonym",
    "cue": 'causal or descriptive grammar ("X caused Y", "due to X", "requests failed")',
    "parse": "a noun phrase whose head the taxonomy types",
    "np": "a noun phrase the entity classifier chose",
    "clause": "a clause the entity classifier chose",
    "product": 'a product named after its vendor ("Amazon CloudFront")',
    "absence": 'a missing safeguard ("there was no canary")',
    "inability": 'what the service\'s users could not do ("customers could not place orders")',
    "new-entity": "a section bullet the taxonomy does not know",
    "ner": "the named-entity recogniser (organisations)",
    "metadata": "front matter or a metadata line",
    "meaning": "an analyst's phrase matched to a symptom by meaning (diagnose text)",
}


def evidence_method_description() -> str:
    return "How the extractor found the mention: " + "; ".join(
        f"{name}, {meaning}" for name, meaning in EVIDENCE_METHODS.items()) + "."


@dataclass(frozen=True)
class Mention:
    """One entity found in a write-up, with the evidence behind it."""

    type: str  # entity label: Symptom, RootCause, Component, ContributingFactor, Organisation
    name: str  # canonical name
    mention: str  # text as written
    sentence: str
    start: int  # character offsets into ExtractedCase.text
    end: int
    confidence: float
    method: str  # a key of EVIDENCE_METHODS
    section: str = ""
    broader: str | None = None
    aliases: tuple[str, ...] = ()
    description: str = ""
    known: bool = True  # False for a mention the taxonomy does not know

    @property
    def specificity(self) -> int:
        """How many words the mention has, up to a name's length: past it, more words say no more
        about what the entity is."""
        return min(name_words(self.mention), MAX_NAME_WORDS)

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "mention": self.mention,
            "sentence": self.sentence,
            "start": self.start,
            "end": self.end,
            "confidence": round(self.confidence, 3),
        }


UNHASHED_FIELDS = ("mentions", "origin", "embedding", "input_hash")  # mentions are hashed on their own


@dataclass(frozen=True)
class ExtractedCase:
    case_id: str
    title: str
    source: str
    text: str
    published: str | None = None
    layout: str = "free-form"
    detection: str = ""  # the Detection section's text
    detection_methods: tuple[str, ...] = ()  # how it was found, canonical names
    remediation: tuple[str, ...] = ()
    lessons: str = ""
    lesson_items: tuple[str, ...] = ()  # the lessons, one sentence each
    mentions: tuple[Mention, ...] = field(default_factory=tuple)
    extraction_model: str = ""  # the trained spaCy pipeline the extraction ran on, or "blank"
    origin: str = ""  # the file (and record) it was read from; not part of the content
    input_hash: str = ""  # the write-up as read and the pipeline that read it (see Extractor.input_hash)
    # Unit-length mean of the title's and text's content-word vectors (ingest/embedding.py); None
    # without vectors. Derived from text and model, which the hash covers, so not hashed itself.
    embedding: tuple[float, ...] | None = None

    @property
    def published_on(self) -> date | None:
        return first_day(self.published) if self.published else None

    @property
    def content_hash(self) -> str:
        """Changes when the write-up or what was extracted from it changes."""
        # Shallow field dicts, not dataclasses.asdict: every field is a plain value or a tuple of
        # them, so the JSON is the same, without deep-copying the embedding and every mention (asdict
        # made hashing cost about 2 ms a case, as much as writing it in a batch).
        payload = json.dumps(
            {"case": {f.name: getattr(self, f.name) for f in fields(self) if f.name not in UNHASHED_FIELDS},
             "mentions": [{f.name: getattr(m, f.name) for f in fields(m)} for m in self.mentions]},
            sort_keys=True, default=str,
        )
        return hashlib.sha256(payload.encode()).hexdigest()

    def mentions_of(self, label: str) -> list[Mention]:
        return [mention for mention in self.mentions if mention.type == label]

    def strongest_mentions_of(self, label: str) -> list[Mention]:
        """One mention per entity of this type: the most confident; on ties the most specific
        wording (more words, up to a name's length: "infinite loop" over "bug" for a software bug),
        then the first; in text order."""
        best: dict[str, Mention] = {}
        for mention in self.mentions_of(label):
            current = best.get(mention.name)
            if current is None or (mention.confidence, mention.specificity) > (current.confidence, current.specificity):
                best[mention.name] = mention
        return sorted(best.values(), key=lambda m: m.start)
