"""incident_organisations: organisations by rule (suffixes, possessives), metadata and NER."""

from __future__ import annotations

from typing import Any

from spacy.language import Language
from spacy.matcher import Matcher
from spacy.tokens import Doc, Span

from incident_graph.ingest.components.cues import Cues, ends_like_product, is_report_title
from incident_graph.ingest.components.new_entities import new_span
from incident_graph.ingest.components.spans import CANDIDATES, MENTIONS, POSSESSIVE_MARKS, SKIPPED_KINDS, SpanIndex
from incident_graph.ingest.sections import Layout


@Language.factory("incident_organisations", default_config={"cues": {}, "confidence": 0.7})
def make_organisations(nlp: Language, name: str, cues: dict[str, Any], confidence: float) -> "OrganisationFinder":
    return OrganisationFinder(nlp, cues, confidence)


CAPITALISED = {"TEXT": {"REGEX": r"^[A-Z][A-Za-z0-9&.-]*$"}}
# A company that goes by its domain, in lower case: "incident.io", "bunny.net", "groups.io".
DOMAIN_NAME = {"TEXT": {"REGEX": r"^[a-z][a-z0-9-]*\.(io|net|com|org|so|dev|app|ai|co|cloud|sh)$"}}


def after_phrases(phrases: list[str], name: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Matcher patterns of a name after each phrase: "engineers at" + Initech."""
    return [[{"LOWER": word} for word in phrase.lower().split()] + [name] for phrase in phrases]


def capitalised_run_start(doc: Doc, start: int, end: int) -> int:
    """Where the run of capitalised words that ends a match begins."""
    first = end
    while first > start and doc[first - 1].text[:1].isupper():
        first -= 1
    return first


class OrganisationFinder:
    """Organisations without a trained NER model: a capitalised name with a company suffix
    ("Knight Capital Group"), a possessive before staff or systems ("ByteDance's engineers"), or
    after "engineers at". A trained pipeline's ORG entities count too when one is installed."""

    def __init__(self, nlp: Language, cues: dict[str, Any], confidence: float) -> None:
        self.confidence = confidence
        self.cues = Cues.from_config(cues)
        self.early_chars = int(cues.get("organisation_early_chars", 600))
        self.min_mentions = int(cues.get("organisation_min_mentions", 2))
        self.possessed = {p.lower() for p in cues.get("organisation_possessed", [])}
        self.organisation_verbs = {v.lower() for v in cues.get("organisation_verbs", [])}
        self.matcher = Matcher(nlp.vocab)
        suffixes = list(cues.get("organisation_suffixes", []))
        possessed = [p.lower() for p in cues.get("organisation_possessed", []) + cues.get("organisation_owned", [])]
        self.matcher.add("SUFFIX", [[{**CAPITALISED, "OP": "+"}, {"ORTH": {"IN": suffixes}}]], greedy="LONGEST")
        possessive = {"ORTH": {"IN": list(POSSESSIVE_MARKS)}}
        self.matcher.add("POSSESSIVE", [[{**CAPITALISED, "OP": "+"}, possessive, {"NORM": {"IN": possessed}}]],
                         greedy="LONGEST")
        preceding = list(cues.get("organisation_preceding", []))
        if preceding:
            self.matcher.add("PRECEDING", after_phrases(preceding, {**CAPITALISED, "OP": "+"}), greedy="LONGEST")
        # A domain is a site until something says it acts: its possessive ("incident.io's monolith"),
        # "at bunny.net", "customers of incident.io"; "buildkite.com went down" names the site.
        self.matcher.add("DOMAIN", [[DOMAIN_NAME, possessive], *after_phrases(["at", *preceding], DOMAIN_NAME)])

    def __call__(self, doc: Doc) -> Doc:
        layout: Layout = doc._.layout
        mentions = list(doc.spans.get(MENTIONS, []))
        candidates = list(doc.spans.get(CANDIDATES, []))
        found: list[Span] = []
        taken, mentioned = SpanIndex(), SpanIndex()  # candidates, mentions and found; mentions and found
        for span in candidates:
            taken.add(span.start, span.end)
        organisations_found = SpanIndex()
        for span in mentions:
            taken.add(span.start, span.end)
            mentioned.add(span.start, span.end)
            if span.label_ == "Organisation":
                organisations_found.add(span.start, span.end)
        for match_id, start, end in self.matcher(doc):
            rule = doc.vocab.strings[match_id]
            span = doc[start:end]
            if rule == "POSSESSIVE":
                span = doc[start:end - 2]
            elif rule == "PRECEDING":
                span = doc[capitalised_run_start(doc, start, end):end]  # "Here at Initech": Initech
            elif rule == "DOMAIN":  # the domain ends "at bunny.net" and opens "bunny.net's"
                span = doc[start:start + 1] if doc[end - 1].text in POSSESSIVE_MARKS else doc[end - 1:end]
            span = self.strip_sentence_start(span)
            if span is None or layout.kind_at(span.start_char) in SKIPPED_KINDS:
                continue
            # "Square's services": the possessive names the company even inside another finding.
            if (organisations_found if rule in ("POSSESSIVE", "DOMAIN") else taken).overlaps(span.start, span.end):
                continue
            found.append(new_span(span, "Organisation", "taxonomy", self.confidence, layout))
            organisations_found.add(span.start, span.end)
            taken.add(span.start, span.end)
            mentioned.add(span.start, span.end)
        # A product named like a company is a component; a symptom or cause that names the company
        # ("sellers could not use Square") leaves it an organisation.
        others = SpanIndex()
        for span in mentions:
            if span.label_ == "Component":
                others.add(span.start, span.end)
        organisations = [ent for ent in doc.ents if ent.label_ == "ORG"]
        counts: dict[str, int] = {}
        for ent in organisations:
            counts[ent.text] = counts.get(ent.text, 0) + 1
        products = self.used_as_products(organisations)
        for ent in organisations:
            if mentioned.overlaps(ent.start, ent.end) or others.overlaps(ent.start, ent.end):
                continue
            if ent.text in products:
                continue
            if layout.kind_at(ent.start_char) in SKIPPED_KINDS or not self.looks_like_organisation(ent):
                continue
            # A name said once deep in a long write-up is more often a product or a passing mention.
            if counts[ent.text] < self.min_mentions and ent.start_char > self.early_chars + self.body_start(layout):
                continue
            found.append(new_span(ent, "Organisation", "ner", self.confidence, layout))
            mentioned.add(ent.start, ent.end)
        for span in found:
            span.id_ = span.text.strip()
        doc.spans[MENTIONS] = sorted(mentions + found, key=lambda s: s.start)
        return doc

    def used_as_products(self, names: list[Span]) -> set[str]:
        """Names the write-up uses as things, not as companies: with an article ("the Shepherd
        service", "a Refinery node") or as a modifier of a noun at least as often as not, and
        never as a company ("Cloudflare's engineers", "at Cloudflare", "Cloudflare said")."""
        uses: dict[str, list[bool]] = {}
        companies: set[str] = set()
        for ent in names:
            if self.acts_as_company(ent):
                companies.add(ent.text)
            uses.setdefault(ent.text, []).append(self.used_as_thing(ent))
        return {text for text, flags in uses.items()
                if text not in companies and 2 * sum(flags) >= len(flags)}

    def acts_as_company(self, ent: Span) -> bool:
        doc = ent.doc
        after = doc[ent.end] if ent.end < len(doc) else None
        if after is not None and after.lower_ in POSSESSIVE_MARKS and ent.end + 1 < len(doc):
            after = doc[ent.end + 1]
        before = doc[ent.start - 1] if ent.start > 0 else None
        return (after is not None and after.norm_ in self.possessed) \
            or (before is not None and before.lower_ in ("at", "by")) \
            or (ent.root.dep_ == "nsubj" and ent.root.head.lemma_.lower() in self.organisation_verbs)

    def used_as_thing(self, ent: Span) -> bool:
        """"the Shepherd service", "Shepherd hosts", "Shepherd's schema cache" (a company's would be
        its engineers, team or customers: organisation_possessed)."""
        before = ent.doc[ent.start - 1] if ent.start > 0 else None
        last = ent[-1]
        return (before is not None and before.dep_ in ("det", "poss") and before.head.i >= ent.start) \
            or (last.dep_ in ("compound", "amod", "nmod", "poss") and last.head.i >= ent.end
                and last.head.pos_ in ("NOUN", "PROPN") and last.head.norm_ not in self.possessed)

    def looks_like_organisation(self, ent: Span) -> bool:
        """Not an acronym of technology (UTC, API, DNS), a time, a heading, a report's title or a product name."""
        text = ent.text.strip()
        if not text or any(ch.isdigit() for ch in text) or text.startswith("#"):
            return False
        if len(ent) == 1 and text.isupper() and len(text) <= 6:
            return False
        return not (is_report_title(ent, self.cues) or ends_like_product(ent, self.cues))

    @staticmethod
    def body_start(layout: Layout) -> int:
        return next((r.end for r in layout.regions if r.kind == "front_matter"), 0)

    @staticmethod
    def strip_sentence_start(span: Span) -> Span | None:
        # A capitalised first word of a sentence is not evidence of a name ("Engineers at ...").
        start = span.start
        while start < span.end and span.doc[start].is_sent_start and span.doc[start].is_stop:
            start += 1
        return span.doc[start:span.end] if start < span.end else None
