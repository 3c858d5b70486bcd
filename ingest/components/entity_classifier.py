"""incident_entity_classifier: a trained model decides which candidate phrases are entities.

The rules before it propose; this component disposes. Its candidates are every mention found so
far (taxonomy matches, section bullets, causal phrases) and every other noun phrase and failure
clause of the parse. Each gets features that carry over to write-ups never seen: the phrase's and
its head's vectors from the trained pipeline, the section it is in, what the rules proposed and by
which method, its grammatical role and what governs it (a cause verb, a negation), its named-entity
label, and which types the taxonomy's own phrases with the same head have. A multinomial logistic
regression (ingest/train_classifier.py fits it on the gold write-ups of the train split, labels
from the same relaxed match the evaluation uses) gives each candidate a probability per type;
those above the type's threshold become mentions, the most probable of overlapping ones per type.

Without a parse or without weights (blank English) the component changes nothing.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import numpy
from spacy.language import Language
from spacy.tokens import Doc, Span

from incident_graph.ingest.components.cues import (CueIndex, Cues, cause_side, ends_like_product, hedged,
                                                   is_report_title, negated, opens_with_negation)
from incident_graph.ingest.components.phrases import DANGLING_POS, PhraseFinder, phrase_vector, unit
from incident_graph.ingest.components.spans import (MAX_NAME_WORDS, MENTIONS, MIN_CONFIDENCE, POSSESSIVE_MARKS,
                                                    SKIPPED_KINDS, SpanIndex, bullet_label, in_markup, name_words, remade)
from incident_graph.ingest.sections import Layout

TYPES = ("Symptom", "RootCause", "Component", "ContributingFactor")
CLASSES = ("none", *TYPES)
SECTION_KINDS = ("symptoms", "root_cause", "component", "contributing_factor", "detection", "remediation",
                 "lessons", "timeline", "summary", "other")
METHODS = ("section", "cue", "taxonomy", "new-entity", "parse", "loose", "np", "clause")
DEPS = ("nsubj", "nsubjpass", "dobj", "pobj", "attr", "conj", "compound", "ROOT", "appos", "acomp")
ENTITY_LABELS = ("ORG", "PRODUCT", "GPE", "PERSON", "NORP", "FAC")
POS = ("NOUN", "PROPN", "VERB", "ADJ")
VECTOR_WIDTH = 300
HEDGED_CONFIDENCE = 0.45  # as incident_roles gives a hedged match
BULLET_STATEMENT_TYPES = ("Symptom", "RootCause", "ContributingFactor")  # what a bullet can state
BULLET_CUT_POS = (*DANGLING_POS, "PRON")  # a cut bullet never ends on these ("... of the conversations that")
SECTION_TYPES = {"symptoms": "Symptom", "root_cause": "RootCause", "component": "Component",
                 "contributing_factor": "ContributingFactor"}


@dataclass
class Candidate:
    span: Span
    proposed: str | None  # the role the rules gave it, if any
    method: str
    name: str | None  # the rules' canonical name, if any
    known: bool = False
    # The rules' confidence, read once when the candidate is made: spaCy keys a span's extension
    # values by its offsets, label and id, so a mention made over the same words and role writes
    # its own confidence there, and a second decision on the same doc (the threshold search of
    # ingest/train_classifier.py) must not read that one.
    confidence: float = 0.0


# Methods whose confident findings stay without the model; types whose causal statement is kept when
# the model found none of the type; types whose section bullets are one finding each.
RULE_METHODS = ("section", "taxonomy", "product", "absence", "inability")
STATED_TYPES = ("RootCause", "Symptom")
BULLET_TYPES = ("RootCause", "ContributingFactor")


@Language.factory("incident_entity_classifier",
                  default_config={"cues": {}, "thresholds": {}, "rule_methods": list(RULE_METHODS),
                                  "min_rule_confidence": 0.5, "stated_types": list(STATED_TYPES),
                                  "bullet_types": list(BULLET_TYPES)})
def make_entity_classifier(nlp: Language, name: str, cues: dict[str, Any], thresholds: dict[str, float],
                           rule_methods: list[str], min_rule_confidence: float,
                           stated_types: list[str], bullet_types: list[str]) -> "EntityClassifier":
    return EntityClassifier(nlp, cues, thresholds, rule_methods, min_rule_confidence, stated_types, bullet_types)


class EntityClassifier:
    """Rule mentions made by `rule_methods` (a section's bullets, a taxonomy name with its role)
    stay when the rules were confident; every other candidate needs the model's probability."""

    def __init__(self, nlp: Language, cues: dict[str, Any], thresholds: dict[str, float],
                 rule_methods: Iterable[str] = RULE_METHODS, min_rule_confidence: float = 0.5,
                 stated_types: Iterable[str] = STATED_TYPES, bullet_types: Iterable[str] = BULLET_TYPES) -> None:
        self.nlp = nlp
        self.cues = Cues.from_config(cues)
        self.organisation_suffixes = set(cues.get("organisation_suffixes", []))  # "Ltd", "Inc": a company
        self.thresholds = {t: float(thresholds.get(t, 0.35)) for t in TYPES}
        self.rule_methods = set(rule_methods)
        self.min_rule_confidence = min_rule_confidence
        # Types whose causal statement ("X caused the outage", "due to X") is kept when the model
        # found nothing of the type in the whole write-up (see stated_fallback).
        self.stated_types = tuple(stated_types)
        self.bullet_types = tuple(bullet_types)
        self.weights: numpy.ndarray | None = None  # features x classes
        self.bias: numpy.ndarray | None = None
        self.mean: numpy.ndarray | None = None
        self.scale: numpy.ndarray | None = None
        # Lower bars for the most probable candidate per sentence of a type's section, and per
        # write-up (see decide); 1.0 turns one off. Chosen with the thresholds on the tune split.
        self.section_floors: dict[str, float] = {t: 1.0 for t in TYPES}
        self.doc_floors: dict[str, float] = {t: 1.0 for t in TYPES}

    @property
    def finder(self) -> PhraseFinder:
        return self.nlp.get_pipe("incident_phrases")

    # ------------------------------------------------------------ weights

    def set_weights(self, weights: dict[str, Any]) -> None:
        self.weights = numpy.asarray(weights["weights"], dtype="float32")
        self.bias = numpy.asarray(weights["bias"], dtype="float32")
        self.mean = numpy.asarray(weights["mean"], dtype="float32")
        self.scale = numpy.asarray(weights["scale"], dtype="float32")
        self.thresholds.update({t: float(v) for t, v in weights.get("thresholds", {}).items()})
        self.set_floors(weights.get("floors", {}))

    def set_floors(self, floors: dict[str, dict[str, float]]) -> None:
        self.section_floors.update({t: float(v) for t, v in floors.get("section", {}).items()})
        self.doc_floors.update({t: float(v) for t, v in floors.get("document", {}).items()})

    @property
    def floors(self) -> dict[str, dict[str, float]]:
        return {"section": dict(self.section_floors), "document": dict(self.doc_floors)}

    def to_disk(self, path: Path, exclude: Iterable[str] = ()) -> None:
        path.mkdir(parents=True, exist_ok=True)
        if self.weights is not None:
            numpy.savez(path / "weights.npz", weights=self.weights, bias=self.bias, mean=self.mean, scale=self.scale)
        (path / "thresholds.json").write_text(json.dumps(self.thresholds, sort_keys=True))
        (path / "floors.json").write_text(json.dumps(self.floors, sort_keys=True))

    def from_disk(self, path: Path, exclude: Iterable[str] = ()) -> "EntityClassifier":
        if (path / "weights.npz").is_file():
            with numpy.load(path / "weights.npz") as data:
                self.set_weights({key: data[key] for key in data.files})
        self.thresholds.update(json.loads((path / "thresholds.json").read_text()))
        self.set_floors(json.loads((path / "floors.json").read_text()))
        return self

    # ------------------------------------------------------------ the component

    def __call__(self, doc: Doc) -> Doc:
        if self.weights is None or not doc.has_annotation("DEP"):
            return doc
        candidates = self.candidates(doc)
        if not candidates:
            return doc
        cues = CueIndex(doc, self.cues)
        probabilities = self.probabilities(self.features(doc, candidates, cues))
        kept = [span for span in doc.spans.get(MENTIONS, []) if span.label_ not in TYPES]
        kept += self.decide(doc, candidates, probabilities, cues)
        doc.spans[MENTIONS] = sorted(kept, key=lambda s: s.start)
        return doc

    def probabilities(self, features: numpy.ndarray) -> numpy.ndarray:
        assert self.weights is not None and self.bias is not None
        scores = ((features - self.mean) / self.scale) @ self.weights + self.bias
        scores -= scores.max(axis=1, keepdims=True)
        exp = numpy.exp(scores)
        return exp / exp.sum(axis=1, keepdims=True)

    def decide(self, doc: Doc, candidates: list[Candidate], probabilities: numpy.ndarray,
               cues: CueIndex) -> list[Span]:
        ranked = []
        # The most probable candidate of each type per sentence of a section named for that type, and
        # per write-up: a model scoring candidates one by one cannot know that a sentence under
        # "Root cause", or the write-up as a whole, almost always states one.
        best_in_sentence: dict[tuple[int, str], tuple[float, Candidate]] = {}
        best_in_doc: dict[str, tuple[float, Candidate]] = {}
        layout: Layout = doc._.layout
        names = named_ranges(doc)
        for candidate, row in zip(candidates, probabilities):
            # What the text denies is never a finding, whatever the model says.
            if negated(candidate.span, cues, follow=False) or self.finder.denied(candidate.span):
                continue
            section_type = SECTION_TYPES.get(layout.kind_at(candidate.span.start_char) or "")
            if is_report_title(candidate.span, self.cues):
                continue  # "PIR", "Root Cause Analysis": the report, not something in it
            organisation = candidate.method not in self.rule_methods and (
                (names_an_organisation(candidate.span, names) and not self.names_a_product(candidate.span))
                or candidate.span[-1].text in self.organisation_suffixes)
            for k, label in enumerate(TYPES, start=1):
                if label == "Component" and candidate.span.root.pos_ in ("VERB", "AUX"):
                    continue  # a component is a thing: a clause never names one
                if label != "Component" and self.names_a_kind_of_component(candidate.span):
                    continue  # "DDoS" in "a DDoS scrubbing service" names the service, not an attack
                if label == "Symptom" and not (candidate.known and candidate.proposed == label) \
                        and self.names_only_a_component(candidate):
                    continue  # "the load balancers": what was hit, not how it failed
                if self.is_no_finding(candidate.span, label, cues):
                    continue
                if label == "Component" and not candidate.known and opens_with_negation(candidate.span, cues):
                    continue  # "no other products were affected": what the incident did not touch
                if organisation:
                    continue  # "a team at Initech Systems": incident_organisations decides on names like it
                if section_type not in (None, label) and not (candidate.known or is_proper(candidate.span)):
                    continue  # under "Root cause", a common-noun phrase is a root cause, not a component
                threshold = self.thresholds[label]
                probability = float(row[k])
                if self.rule_keeps(candidate, label):
                    ranked.append((max(candidate.confidence, probability), label, candidate))
                elif probability >= threshold:
                    ranked.append((above_bar(probability, threshold), label, candidate))
                if section_type == label:
                    key = (cues.sentence(candidate.span.start)[0], label)
                    if probability > best_in_sentence.get(key, (-1.0, candidate))[0]:
                        best_in_sentence[key] = (probability, candidate)
                if probability > best_in_doc.get(label, (-1.0, candidate))[0]:
                    best_in_doc[label] = (probability, candidate)
        ranked.sort(key=lambda item: (-item[0], item[2].span.start))
        taken: dict[str, SpanIndex] = {}
        found = [self.keep(item, taken, cues, layout) for item in ranked]
        # Fallbacks, only where nothing of the type was found, in this order: the most probable
        # candidate of a sentence of the type's section; the phrase the section itself states; the
        # most probable of the write-up; the phrase the causal grammar states. Never on words that
        # already are a finding of another type (a stated phrase may hold one: "an error during a
        # migration" holds the factor "during a migration").
        sentence_fallbacks = [(key, self.section_floors.get(key[1], 1.0), best) for key, best in best_in_sentence.items()]
        doc_fallbacks = [((None, label), self.doc_floors.get(label, 1.0), best) for label, best in best_in_doc.items()]
        found += self.floor_fallbacks(sentence_fallbacks, found, taken, cues, layout)
        found += self.stated_fallback(candidates, found, taken, cues, layout, by_section=True)
        found += self.floor_fallbacks(doc_fallbacks, found, taken, cues, layout)
        found += self.stated_fallback(candidates, found, taken, cues, layout, by_section=False)
        return self.one_per_bullet(doc, [span for span in found if span is not None], cues, layout)

    def one_per_bullet(self, doc: Doc, found: list[Span], cues: CueIndex, layout: Layout) -> list[Span]:
        """A bullet under "Root cause" or "Contributing factors" states one cause or one factor:
        the bullet (its first words, when it runs past a name's length) is the finding, not the
        phrases the model picked inside it ("sticky routing kept a user's requests on the wrong
        servers" is one factor, not "sticky routing ..." and "the wrong servers")."""
        bullets: list[tuple[int, int, str, Span]] = []
        for start, end in layout.bullets:
            label = SECTION_TYPES.get(layout.kind_at(start) or "")
            if label not in self.bullet_types:
                continue
            span = doc.char_span(start, end, alignment_mode="expand")
            span = self.bullet_lead(span) if span is not None else None
            if span is not None and not negated(span, cues, follow=False):
                bullets.append((start, end, label, span))
        # The bullet's other findings go too, except the things it names (components,
        # organisations): "on the wrong servers" inside a factor is no root cause of its own.
        starts = [start for start, _, _, _ in bullets]
        inside: list[list[Span]] = [[] for _ in bullets]
        kept: list[Span] = []
        for found_span in found:
            at = bisect_right(starts, found_span.start_char) - 1
            if found_span.label_ in BULLET_STATEMENT_TYPES and at >= 0 and found_span.end_char <= bullets[at][1]:
                inside[at].append(found_span)
            else:
                kept.append(found_span)
        for (_, _, label, span), in_bullet in zip(bullets, inside):
            in_bullet = [s for s in in_bullet if s.label_ == label]
            # At least the type's threshold, and never under the extractor's bar: a bullet of its
            # own section is a finding (a threshold under the bar, as a confidence, would drop it).
            probability = max([float(s._.confidence or 0.0) for s in in_bullet] + [self.thresholds[label], MIN_CONFIDENCE])
            # A taxonomy concept the bullet names stays its name ("bad configuration change" for "a
            # configuration push with a typo in one field"): the graph groups cases by concepts.
            known = sorted((s for s in in_bullet if s._.known), key=lambda s: -float(s._.confidence or 0.0))
            if known:
                kept.append(remade(known[0], span.start, span.end))
            else:
                kept.append(self.mention(Candidate(span, label, "section", None), label, probability, layout))
        return kept

    def bullet_lead(self, span: Span) -> Span | None:
        """The bullet's words, cut from the end to a name's length; None for an empty bullet. A
        bullet that opens with a sentence of a name's length, as a label ("**Data voids.** For
        queries that ..."), is named by that sentence."""
        label = bullet_label(span, self.finder.trim)
        if label is not None:
            return label
        lead = self.finder.trim(span)
        if lead is None or name_words(lead.text) <= MAX_NAME_WORDS:
            return lead
        end = lead.end
        while end > lead.start and (name_words(lead.doc[lead.start:end].text) > MAX_NAME_WORDS
                                    or lead.doc[end - 1].pos_ in BULLET_CUT_POS or lead.doc[end - 1].is_punct):
            end -= 1  # "... requests on the wrong servers" is cut to "... requests", not "... on the"
        return self.finder.trim(lead.doc[lead.start:end]) if end > lead.start else None

    def floor_fallbacks(self, fallbacks: list[tuple[tuple[int | None, str], float, tuple[float, Candidate]]],
                        found: list[Span | None], taken: dict[str, SpanIndex], cues: CueIndex,
                        layout: Layout) -> list[Span | None]:
        """The best candidate of a sentence (or of the write-up, for sentence None) above the
        type's floor, where that sentence (or write-up) has nothing of the type yet."""
        added: list[Span | None] = []
        for (sentence_start, label), floor, (probability, candidate) in fallbacks:
            kept = [s for s in found + added if s is not None]
            if probability < floor or any(s.label_ == label and sentence_start in (None, cues.sentence(s.start)[0])
                                          for s in kept) \
                    or any(s.start < candidate.span.end and candidate.span.start < s.end for s in kept):
                continue
            added.append(self.keep((0.5, label, candidate), taken, cues, layout))
        return added

    def stated_fallback(self, candidates: list[Candidate], found: list[Span | None], taken: dict[str, SpanIndex],
                        cues: CueIndex, layout: Layout, by_section: bool) -> list[Span | None]:
        """For a type nothing was found of, the first phrase its own section put in its role (the
        subject of a Root cause section's opening sentence; by_section), or else the first one the
        causal grammar did.

        A model trained on long write-ups learns that "X caused Y" often names a step of a chain,
        not the root cause; in a short report that states one cause, that sentence is the cause."""
        kept = [s for s in found if s is not None]
        added: list[Span | None] = []
        for label in self.stated_types:
            if any(s.label_ == label for s in kept):
                continue
            stated = [c for c in candidates if c.proposed == label
                      and c.method == ("parse" if by_section else "cue")
                      and (not by_section or SECTION_TYPES.get(layout.kind_at(c.span.start_char) or "") == label)
                      and not negated(c.span, cues, follow=False) and not self.finder.denied(c.span)
                      and not self.is_no_finding(c.span, label, cues)
                      and not any(s.start <= c.span.start and c.span.end <= s.end for s in kept)]
            if stated:
                # The widest phrase at the first statement: "a change to our cache system", not "change".
                first = min(stated, key=lambda c: c.span.start)
                whole = whole_phrase(first.span)
                # The rules' name stays when the phrase is theirs: "service outage" for "brought down the login service".
                same = (whole.start, whole.end) == (first.span.start, first.span.end)
                stated_as = Candidate(whole, label, "cue", first.name if same else None, first.known)
                added.append(self.keep((0.5, label, stated_as), taken, cues, layout))
        return added

    def is_no_finding(self, span: Span, label: str, cues: CueIndex) -> bool:
        """What the phrase says rules it out as this type, whatever the model scores:
        - "no data was lost", "browsers were unaffected": no symptom (a factor may be an absence:
          "no automatic rollback"); "during the outage" names the incident, not what it looked like;
        - "propagation of configuration changes was delayed": what failed, no cause;
        - "the on-call engineer was paged": how it was found, neither symptom nor cause."""
        if label == "Symptom" and (opens_with_negation(span, cues) or self.finder.denies_impact(span)
                                   or self.finder.refers_to_the_incident(span)):
            return True
        if label == "RootCause" and self.finder.is_affected(span):
            return True
        return label in ("Symptom", "RootCause") and self.finder.tells_detection(span)

    def names_a_kind_of_component(self, span: Span) -> bool:
        """The phrase only modifies a later noun that names a component: "DDoS" in "the DDoS
        scrubbing service", "certificate" in "the certificate renewal job"."""
        root = span.root
        if root.dep_ not in ("compound", "amod", "nmod") or root.head.i <= span.end - 1:
            return False
        head = root.head
        while head.dep_ == "compound" and head.head.i > head.i:
            head = head.head
        return head.pos_ in ("NOUN", "PROPN") and self.finder.head_type(head) == "Component"

    def names_only_a_component(self, candidate: Candidate) -> bool:
        """A noun phrase that the taxonomy names a component, or whose head names one, and no word
        of which says what went wrong: "the load balancers" or "the status page" may be what
        failed, but a symptom says how it failed."""
        span, root = candidate.span, candidate.span.root
        named = candidate.known and candidate.proposed == "Component"
        if root.pos_ not in ("NOUN", "PROPN") or not (named or self.finder.head_type(root) == "Component"):
            return False
        return not any(self.finder.says_what_went_wrong(token) for token in span)

    def names_a_product(self, span: Span) -> bool:
        """"Azure Cognitive Services", not "Square's services" (the company's, said of it)."""
        return ends_like_product(span, self.cues) and not any(t.tag_ == "POS" or t.lower_ in POSSESSIVE_MARKS
                                                              for t in span)

    def keep(self, item: tuple[float, str, Candidate], taken: dict[str, SpanIndex], cues: CueIndex,
             layout: Layout) -> Span | None:
        """The candidate as a mention, unless one of the same type already covers its words."""
        probability, label, candidate = item
        span = candidate.span
        index = taken.setdefault(label, SpanIndex())
        if index.overlaps(span.start, span.end):
            return None
        index.add(span.start, span.end)
        if hedged(span, cues):  # "engineers suspected X": kept below the extractor's bar, as the rules do
            probability = min(probability, HEDGED_CONFIDENCE)
        return self.mention(candidate, label, probability, layout)

    def rule_keeps(self, candidate: Candidate, label: str) -> bool:
        """A confident rule finding: by a kept method, or a taxonomy name a cause cue placed."""
        by_rule = candidate.method in self.rule_methods or (candidate.method == "cue" and candidate.known)
        return candidate.proposed == label and by_rule \
            and candidate.confidence >= self.min_rule_confidence

    def mention(self, candidate: Candidate, label: str, probability: float, layout: Layout) -> Span:
        span = candidate.span
        if candidate.name and candidate.proposed == label:
            name, known, broader = candidate.name, candidate.known, span._.get("broader")
        else:
            name, known, broader = self.finder.link(span, label)
        result = Span(span.doc, span.start, span.end, label=label, span_id=name)
        result._.confidence = probability
        result._.method = span._.method or candidate.method
        result._.section = layout.kind_at(span.start_char)
        result._.hedged = bool(span._.hedged)
        result._.known = known
        result._.broader = broader
        result._.loose_weight = span._.loose_weight
        return result

    # ------------------------------------------------------------ candidates

    def candidates(self, doc: Doc) -> list[Candidate]:
        layout: Layout = doc._.layout
        # Keyed by words and proposed role: the same words can be proposed as two types ("CoreDNS
        # version" a component by its name, a root cause by its section), and each is a candidate.
        found: dict[tuple[int, int, str | None], Candidate] = {}
        for span in doc.spans.get(MENTIONS, []):
            if span.label_ in TYPES:
                method = "loose" if span._.loose_weight else str(span._.method or "taxonomy")
                found.setdefault((span.start, span.end, span.label_), Candidate(span, span.label_, method, span.id_,
                                                                                bool(span._.known),
                                                                                float(span._.confidence or 0.0)))
        proposed = {(start, end) for start, end, _ in found}
        finder = self.finder
        for sentence in doc.sents:
            if layout.kind_at(sentence.start_char) in SKIPPED_KINDS:
                continue
            for token in sentence:
                if token.pos_ in ("NOUN", "PROPN") and token.dep_ != "compound" and finder.names_something(token):
                    for attach, method in ((True, "np"), (False, "np")):
                        span = finder.phrase(token, attach)
                        if span is not None and name_words(span.text) <= MAX_NAME_WORDS \
                                and (span.start, span.end) not in proposed:
                            found.setdefault((span.start, span.end, None), Candidate(span, None, method, None))
                elif token.pos_ in ("VERB", "AUX") and token.dep_ not in ("aux", "auxpass"):
                    # Gold names states as clauses: "lookups hung until they timed out".
                    for span in (finder.verb_phrase(token), finder.verb_phrase(token, subject=False)):
                        if span is not None and 2 <= name_words(span.text) <= MAX_NAME_WORDS \
                                and (span.start, span.end) not in proposed:
                            found.setdefault((span.start, span.end, None), Candidate(span, None, "clause", None))
        return sorted((c for c in found.values() if not in_markup(c.span)), key=lambda c: (c.span.start, c.span.end))

    # ------------------------------------------------------------ features

    def features(self, doc: Doc, candidates: list[Candidate], cues: CueIndex | None = None) -> numpy.ndarray:
        layout: Layout = doc._.layout
        cues = cues or CueIndex(doc, self.cues)
        finder = self.finder
        heads: dict[str, int] = {}
        for token in doc:
            heads[token.norm_] = heads.get(token.norm_, 0) + 1
        bullets = SpanIndex()
        for start, end in layout.bullets:
            bullets.add(start, end)
        length = max(1, len(doc.text))
        rows = []
        for candidate in candidates:
            span, root = candidate.span, candidate.span.root
            kind = layout.kind_at(span.start_char)
            vector = phrase_vector(span)
            head_vector = unit(root.vector) if root.has_vector else None
            counts = finder.heads.get(root.norm_, {})
            total = sum(counts.values()) or 1
            side = cause_side(span, cues)
            governor = root.head
            row = [
                *(vector if vector is not None else numpy.zeros(VECTOR_WIDTH)),
                *(head_vector if head_vector is not None else numpy.zeros(VECTOR_WIDTH)),
                *one_hot(kind, SECTION_KINDS),
                *one_hot(candidate.proposed, TYPES),
                *one_hot(candidate.method, METHODS),
                *one_hot(root.dep_, DEPS),
                *one_hot(root.ent_type_, ENTITY_LABELS),
                *one_hot(root.pos_, POS),
                *(counts.get(t, 0) / total for t in TYPES),
                float(candidate.known),
                float(bullets.overlaps(span.start_char, span.end_char)),
                float(layout.is_sectioned),
                float(negated(span, cues, follow=False) or finder.denied(span)),
                float(hedged(span, cues)),
                float(side == "cause"), float(side == "effect"),
                float(governor.norm_ in finder.cause_verbs), float(governor.norm_ in finder.factor_verbs),
                float(governor.norm_ in finder.symptom_verbs), float(finder.is_negated(governor)),
                name_words(span.text) / MAX_NAME_WORDS,
                sum(1 for t in span if t.text[:1].isupper()) / len(span),
                numpy.log1p(heads.get(root.norm_, 0)),
                span.start_char / length,
                float(finder.opens_section(doc[slice(*cues.sentence(span.start))])),
                float(root.norm_ in finder.generic_heads),
            ]
            rows.append(row)
        return numpy.asarray(rows, dtype="float32")


def whole_phrase(span: Span) -> Span:
    """The span's head with everything it governs ("a change to our cache system" for "change"),
    without a leading determiner, when that is still a name; else the span."""
    if span.root.pos_ not in ("NOUN", "PROPN"):
        return span  # a clause's subtree holds its subject: "a bad config took down X"
    tokens = list(span.root.subtree)
    start, end = tokens[0].i, tokens[-1].i + 1
    while start < end and span.doc[start].pos_ in ("DET", "PRON", "PUNCT"):
        start += 1
    whole = span.doc[start:end]
    if start > span.start or end < span.end or "\n" in whole.text or name_words(whole.text) > MAX_NAME_WORDS:
        return span
    return whole


NAME_LABELS = ("ORG", "PERSON", "GPE", "NORP")  # the NER's names of organisations, people and places


def named_ranges(doc: Doc) -> list[tuple[int, int]]:
    """The token ranges of the NER's names, read once per write-up: `doc.ents` builds every
    entity span anew on each call."""
    return [(entity.start, entity.end) for entity in doc.ents if entity.label_ in NAME_LABELS]


def names_an_organisation(span: Span, names: list[tuple[int, int]]) -> bool:
    """The span lies inside one of the names (named_ranges)."""
    return any(start <= span.start and span.end <= end for start, end in names)


def is_proper(span: Span) -> bool:
    return any(token.pos_ == "PROPN" for token in span)


def above_bar(probability: float, threshold: float) -> float:
    """A probability at or above its threshold as a confidence of at least 0.5, the extractor's bar."""
    return 0.5 + 0.5 * (probability - threshold) / (1 - threshold)


def one_hot(value: str | None, values: tuple[str, ...]) -> list[float]:
    return [float(value == v) for v in values]
