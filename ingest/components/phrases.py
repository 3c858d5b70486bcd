"""incident_phrases: entities the taxonomy does not name, read off the dependency parse.

Candidate phrases are noun phrases of the parse (a head with its modifiers and one prepositional
attachment, coordinated items split), never a list. Their role comes from

1. causal structure (ingest/patterns/phrases.toml): "X caused Y", "Y was caused by X", "due to X",
   "because X", "the root cause was X", "made worse by X", "X failed";
2. the section they are in (Symptoms, Root cause, Impact, ...), for phrases whose head the
   taxonomy uses for that type;
3. the taxonomy's own heads: a phrase headed like the taxonomy's components ("the Consul cluster",
   "the Enom platform") is a component wherever it is.

Each phrase is then linked to the nearest taxonomy concept of its type when the trained
pipeline's vectors and a shared content word agree, else it stays a new entity placed under its
nearest concept (span._.broader). Negated phrases are dropped, hedged ones get a low confidence.
Without a parse (blank English) the component does nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy
from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from incident_graph.ingest.components.cues import CueIndex, Cues, first_conjunct, hedged, negated
from incident_graph.ingest.components.new_entities import normalised_name
from incident_graph.ingest.components.spans import (LEADING_FILLER, MAX_NAME_WORDS, MENTIONS, SKIPPED_KINDS,
                                                    SpanIndex, name_words, remade, time_label_end)
from incident_graph.ingest.sections import ENTITY_SECTIONS, Layout

NOUN_POS = {"NOUN", "PROPN"}
SUBJECTS = {"nsubj", "nsubjpass", "csubj"}
OBJECTS = {"dobj", "obj", "attr", "oprd"}
MODIFIER_DEPS = {"compound", "amod", "nummod", "nmod", "poss", "det", "quantmod", "npadvmod", "case", "advmod", "neg"}
ATTACHED_PREPS = {"of", "in", "on", "for", "from", "with", "at", "during", "between", "behind", "inside", "within"}
ASIDE_KINDS = {"remediation", "lessons"}  # sections that mention things in passing
CAUSATIVE_VERBS = {"make", "cause"}  # verbs whose caused clause is the effect
COPULAR = {"be", "turn", "prove", "appear", "seem", "remain", "become"}


@Language.factory(
    "incident_phrases",
    default_config={"rules": {}, "cues": {},
                    "confidence": {"cue": 0.8, "section": 0.75, "product": 0.75, "head": 0.6, "hedged": 0.45,
                                   "absence": 0.7, "inability": 0.7},
                    "link_threshold": 0.8, "broader_threshold": 0.55},
)
def make_phrase_finder(nlp: Language, name: str, rules: dict[str, Any], cues: dict[str, Any],
                       confidence: dict[str, float], link_threshold: float,
                       broader_threshold: float) -> "PhraseFinder":
    return PhraseFinder(nlp, rules, cues, confidence, link_threshold, broader_threshold)


def is_name_word(token: Token) -> bool:
    """A word of a product's name: capitalised or with a digit ("CloudFront", "S3", "EC2")."""
    return token.pos_ in ("PROPN", "NOUN", "NUM", "X") and (token.text[:1].isupper() or any(c.isdigit() for c in token.text))


SEPARATORS = {"-", "–", "—", ":", "|", "/"}


def separated(doc: Doc, start: int, end: int, keep: int) -> tuple[int, int]:
    """[start, end) cut at a spaced separator, on the side of token `keep`: titles such as "RCA -
    Azure Cognitive Services - West Europe" run names together that the parser may join."""
    for i in range(start, end):
        if doc[i].text in SEPARATORS and doc[i].whitespace_ and i > 0 and doc[i - 1].whitespace_:
            if i < keep:
                start = i + 1
            elif i > keep:
                return start, i
    return start, end


def denying_determiner(noun: Token) -> Token | None:
    """The "no" of "no integrity check", if the noun has one."""
    return next((c for c in noun.children if c.dep_ == "det" and c.lower_ == "no"), None)


# A phrase ending in one of these stops mid-way.
DANGLING_POS = ("AUX", "ADP", "PART", "DET", "CCONJ", "SCONJ")
CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}  # the auxiliary the tokenizer split from "n't"
VERB_PARTICLES = ("back", "down", "out", "up", "off", "away")  # "went down", "fell back": part of the verb
# Prepositions that open a when or why ("went down after the deploy"), never what a verb needs.
ADJUNCT_PREPOSITIONS = {"after", "before", "during", "since", "until", "following", "amid", "within", "for",
                        "throughout", "despite", "because", "due", "as", "like", "than", "by", "per"}
TIME_NOUNS = {"morning", "afternoon", "evening", "night", "day", "week", "weekend", "month", "year", "hour",
              "minute", "second", "moment", "time"}


def has_ability_modal(verb: Token) -> bool:
    """"can" or "could" on the verb: "could not post", "could read"."""
    return any(c.dep_ == "aux" and c.norm_ in ("can", "could") for c in verb.children)


def relative_antecedent(verb: Token) -> Token | None:
    """The noun a relative clause's pronoun subject stands for: "servers" in "the servers that
    were offline"; None when the verb heads no such clause, or an aside ("the site, which was
    down, ...") that says something else about a thing already named."""
    if verb.dep_ != "relcl" or verb.head.pos_ not in NOUN_POS:
        return None
    pronouns = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in RELATIVE_PRONOUNS]
    if not pronouns or pronouns[0].i == 0 or verb.doc[pronouns[0].i - 1].is_punct:
        return None
    return verb.head


def subjects_of(verb: Token, deps: tuple[str, ...]) -> list[Token]:
    """The verb's subjects; a colon between one and the verb makes what precedes it a label
    ("Acme, 12 May 2019: a hurried migration caused an outage"), and the subject is what the
    parser hangs after the colon, if anything."""
    subjects = []
    for child in (c for c in verb.children if c.dep_ in deps):
        colons = [i for i in range(child.i + 1, verb.i) if verb.doc[i].text == ":"]
        if not colons:
            subjects.append(child)
            continue
        subjects += [c for c in child.children if c.i > colons[-1] and c.dep_ in ("appos", "conj") and c.pos_ in NOUN_POS]
    return subjects


def is_verb_particle(token: Token, verb: Token) -> bool:
    """"down" in "went down" or "was down": a particle, or an adverb the parser tags as a preposition,
    that ends a verb phrase whole."""
    return token.dep_ == "prt" or (token.dep_ == "advmod" and token.head.i == verb.i)


def clause_verb(span: Span) -> Token:
    """The verb of the clause the phrase is, or is the subject of: "stayed" for "the servers" in
    "the servers stayed up"."""
    return span.root.head if span.root.dep_ in ("nsubj", "nsubjpass") else span.root


DEFINITE_DETERMINERS = {"the", "this", "that", "these", "those"}
RANKING_WORDS = {"own", "whole", "entire", "same", "first", "second", "third", "last", "latest"}
RELATIVE_PRONOUNS = {"that", "which", "who"}


class PhraseFinder:
    def __init__(self, nlp: Language, rules: dict[str, Any], cues: dict[str, Any], confidence: dict[str, float],
                 link_threshold: float, broader_threshold: float) -> None:
        self.vocab = nlp.vocab
        self.rules = rules
        self.cues = Cues.from_config(cues)
        self.confidence = confidence
        self.link_threshold = link_threshold
        self.broader_threshold = broader_threshold
        self.cause_verbs = set(rules.get("cause_verbs", []))
        self.effect_preps = set(rules.get("effect_preps", []))
        self.passive_cause_verbs = set(rules.get("passive_cause_verbs", []))
        self.cause_markers = [tuple(marker) for marker in rules.get("cause_markers", [])]
        self.cause_nouns = set(rules.get("cause_nouns", []))
        self.factor_nouns = set(rules.get("factor_nouns", []))
        self.factor_verbs = set(rules.get("factor_verbs", []))
        self.symptom_verbs: dict[str, str] = dict(rules.get("symptom_verbs", {}))
        self.symptom_particles: dict[str, list[str]] = dict(rules.get("symptom_particles", {}))
        self.symptom_states: dict[str, str] = dict(rules.get("symptom_states", {}))
        self.negated_symptom_verbs: dict[str, str] = dict(rules.get("negated_symptom_verbs", {}))
        self.negated_symptom_particles: dict[str, list[str]] = dict(rules.get("negated_symptom_particles", {}))
        self.symptom_ends: dict[str, str] = dict(rules.get("symptom_ends", {}))
        self.attempt_verbs = set(rules.get("attempt_verbs", []))
        # The words that say how something failed ("crash", "start failure"), not what failed: the
        # failure verbs and states and every failure's name. (Not the verbs whose negation is a
        # failure: "process" and "access" also name things.)
        failures = [*self.symptom_verbs, *self.symptom_states,
                    *self.symptom_verbs.values(), *self.symptom_states.values(), *self.negated_symptom_verbs.values()]
        self.failure_words = {word for failure in failures for word in failure.split()}
        self.safeguard_verbs = set(rules.get("safeguard_verbs", []))
        self.lack_verbs = set(rules.get("lack_verbs", []))
        self.absence_governors = set(rules.get("absence_governors", []))
        self.denying_subjects = set(rules.get("denying_subjects", []))
        self.working_verbs = set(rules.get("working_verbs", []))
        self.disabling_verbs = set(rules.get("disabling_verbs", []))
        self.detection_verbs = set(rules.get("detection_verbs", []))
        self.safeguard_nouns = set(rules.get("safeguard_nouns", []))
        self.onset_verbs = set(rules.get("onset_verbs", []))
        self.onset_marks = set(rules.get("onset_marks", []))
        self.incident_nouns = set(rules.get("incident_nouns", []))
        self.incident_names = set(rules.get("incident_names", []))
        denials = [tuple(phrase.split()) for phrase in rules.get("impact_denials", [])]
        self.denied_states = {words[0] for words in denials if len(words) == 1}
        self.denied_continuations = {words for words in denials if len(words) == 2}
        self.effect_nouns = set(rules.get("effect_nouns", []))
        self.blame_words = set(rules.get("blame_words", []))
        self.finding_verbs = set(rules.get("finding_verbs", []))
        self.response_words = set(rules.get("response_words", []))
        self.generic_heads = set(rules.get("generic_heads", []))
        self.max_words = int(rules.get("max_content_words", 7))
        self.max_clause_words = int(rules.get("max_clause_words", 4))
        self.quantifiers = set(rules.get("quantifiers", []))
        self.part_nouns = set(rules.get("part_nouns", []))
        self.affected_people = set(rules.get("affected_people", []))
        self.experience_verbs = set(rules.get("experience_verbs", []))
        self.product_vendors = set(rules.get("product_vendors", []))
        self.corporate_words = set(rules.get("corporate_words", []))
        self.cause_particles: dict[str, list[str]] = dict(rules.get("cause_particles", {}))
        self.caused_failures: dict[str, str] = dict(rules.get("caused_failures", {}))
        self.heads: dict[str, dict[str, int]] = {}  # head lemma -> type -> taxonomy phrases with that head
        self.concepts: list[dict[str, str]] = []  # {"type", "name", "broader", "text"}
        self._matrix: dict[str, tuple[list[dict[str, str]], numpy.ndarray]] | None = None

    # ------------------------------------------------------------ initialisation from the taxonomy

    def set_taxonomy(self, heads: dict[str, dict[str, int]], concepts: list[dict[str, str]]) -> None:
        self.heads = heads
        self.concepts = concepts
        self._matrix = None

    def to_disk(self, path: Path, exclude: Iterable[str] = ()) -> None:
        path.mkdir(parents=True, exist_ok=True)
        (path / "taxonomy.json").write_text(json.dumps({"heads": self.heads, "concepts": self.concepts}, sort_keys=True))

    def from_disk(self, path: Path, exclude: Iterable[str] = ()) -> "PhraseFinder":
        data = json.loads((path / "taxonomy.json").read_text())
        self.set_taxonomy(data["heads"], data["concepts"])
        return self

    # ------------------------------------------------------------ the component

    def __call__(self, doc: Doc) -> Doc:
        if not doc.has_annotation("DEP"):
            return doc
        layout: Layout = doc._.layout
        mentions = [self.widened(mention) for mention in doc.spans.get(MENTIONS, [])]
        taken: dict[str, SpanIndex] = {}
        for mention in mentions:
            taken.setdefault(mention.label_, SpanIndex()).add(mention.start, mention.end)
        cues = CueIndex(doc, self.cues)
        found: list[Span] = []
        for sentence in doc.sents:
            kind = layout.kind_at(sentence.start_char)
            if kind in SKIPPED_KINDS or kind == "timeline" or not sentence.text.strip():
                continue
            for span, role, method in self.sentence_phrases(sentence, kind):
                index = taken.setdefault(role, SpanIndex())
                if index.overlaps(span.start, span.end) or negated(span, cues, follow=False) or self.denied(span) \
                        or name_words(span.text) > MAX_NAME_WORDS:
                    continue
                score = self.confidence[method]
                if hedged(span, cues):
                    score = min(score, self.confidence["hedged"])
                found.append(self.entity_span(span, role, method, score, kind))
                index.add(span.start, span.end)
        doc.spans[MENTIONS] = sorted(mentions + found, key=lambda s: s.start)
        return doc

    def sentence_phrases(self, sentence: Span, kind: str) -> Iterator[tuple[Span, str, str]]:
        yield from ((span, "Component", "product") for span in self.product_names(sentence))
        yield from self.causal_phrases(sentence)
        yield from self.failure_phrases(sentence)
        if kind not in ASIDE_KINDS:  # "we will add a canary" is a plan; what was missing is told elsewhere
            yield from ((span, "ContributingFactor", "absence") for span in self.absence_phrases(sentence))
        section_role = ENTITY_SECTIONS.get(kind)
        if section_role in ("RootCause", "ContributingFactor") and self.opens_section(sentence):
            yield from ((span, section_role, "section") for span in self.lead_phrases(sentence))
        for head in self.noun_heads(sentence):
            head_type = self.head_type(head)
            if head_type is None:
                continue
            if section_role is not None and head_type == section_role:
                yield from ((span, section_role, "section") for span in self.phrases(head))
            elif head_type == "Component" and kind not in ASIDE_KINDS:
                yield from ((span, "Component", "head") for span in self.phrases(head, attach=False)
                            if self.is_named(span))

    def product_names(self, sentence: Span) -> Iterator[Span]:
        """A vendor's name leading capitalised words: "Amazon CloudFront", "AWS Lambda"."""
        doc = sentence.doc
        i = sentence.start
        while i < sentence.end:
            token = doc[i]
            if token.lower_ not in self.product_vendors or not token.text[:1].isupper():
                i += 1
                continue
            end = i + 1
            while end < sentence.end and is_name_word(doc[end]):
                end += 1
            rest = {t.lower_ for t in doc[i + 1:end]}
            if end > i + 1 and not rest <= self.corporate_words and name_words(doc[i:end].text) <= MAX_NAME_WORDS:
                yield doc[i:end]
            i = end

    def opens_section(self, sentence: Span) -> bool:
        """The first sentence of its section (or of a bullet): where a section states its subject."""
        doc = sentence.doc
        layout: Layout = doc._.layout
        # The text before the sentence, back to its last character other than a space or tab, read
        # from the tokens just before it (doc.text would join every token of the write-up).
        first, before = sentence.start, ""
        while first > 0 and not before:
            first = max(0, first - 8)
            before = doc[first:sentence.start].text.rstrip(" \t")
        last = doc[first].idx + len(before) - 1 if before else 0
        return before.endswith("\n") or layout.kind_at(max(0, last)) != layout.kind_at(sentence.start_char)

    def lead_phrases(self, sentence: Span) -> list[Span]:
        """What a section's opening sentence is about: "A bug in X ..." -> its subject; "X was ..."
        -> X; "It was X" / "The cause was X" -> X."""
        root = sentence.root
        subjects = subjects_of(root, ("nsubj", "nsubjpass"))
        if root.norm_ in COPULAR and (not subjects or subjects[0].pos_ == "PRON" or self.noun_role(subjects[0])):
            complements = [c for c in root.children if c.dep_ in ("attr", "acomp", "oprd")]
            return [span for c in complements for span in self.phrases(c)]
        if root.pos_ in NOUN_POS:  # a fragment: "Reordered BGP policy terms."
            return self.phrases(root)
        return [span for c in subjects if c.pos_ in NOUN_POS for span in self.phrases(c)]

    # ------------------------------------------------------------ widening mentions

    def widened(self, mention: Span) -> Span:
        """A mention grown to its phrase in the parse ("outage" -> "full outage of the Heroku API",
        "went down" -> "the sites went down"), when that phrase is still a name."""
        if mention.label_ == "Organisation" or mention._.method == "metadata":
            return mention
        root = mention.root
        while root.dep_ in ("compound", "amod") and root.head.pos_ in NOUN_POS and root.head.i > root.i:
            root = root.head  # "faulty configuration" inside "faulty configuration change"
        if root.pos_ in NOUN_POS:
            grown = self.phrase(root)
        elif root.pos_ in ("VERB", "ADJ", "AUX"):
            grown = self.predicate_phrase(root if root.pos_ != "ADJ" else root.head)
        else:
            grown = None
        if grown is not None and name_words(grown.text) > MAX_NAME_WORDS and root.pos_ not in NOUN_POS:
            # "the trading app was down for the whole US trading day on ...": what was down, not when
            grown = self.predicate_phrase(root if root.pos_ != "ADJ" else root.head, complements=False)
        end = mention.end
        while end > mention.start + 1 and mention.doc[end - 1].pos_ in DANGLING_POS:
            end -= 1  # a taxonomy form's "for" in "was down for" is no part of what was down
        if grown is None or grown.start > mention.start or grown.end < end or len(grown) == len(mention) \
                or name_words(grown.text) > MAX_NAME_WORDS or "\n" in grown.text:
            return mention
        return remade(mention, grown.start, grown.end)

    def predicate_phrase(self, verb: Token, complements: bool = True) -> Span | None:
        """A predicate with what it is said of: its subject, or in a relative clause the noun the
        pronoun stands for ("the name servers that were offline")."""
        span = self.verb_phrase(verb, complements=complements)
        antecedent = relative_antecedent(verb)
        if span is None or antecedent is None:
            return span
        return self.trim(verb.doc[min(self.phrase_start(antecedent), span.start):span.end])

    def verb_phrase(self, verb: Token, subject: bool = True, complements: bool = True) -> Span | None:
        """Subject, verb, particles and object: "API and Dashboard requests began failing"; without
        `complements`, a copula's prepositional phrases are left out ("was down [for the day]")."""
        tokens = [verb]
        copular_deps = ("attr", "acomp", "prep") if complements else ("attr", "acomp")
        for child in verb.children:
            if child.dep_ in ("nsubj", "nsubjpass") and child.pos_ not in ("PRON", "DET", "PUNCT"):
                if subject:
                    tokens += self.modifiers(child) + [child]
            elif child.dep_ in copular_deps and child.i > verb.i and verb.norm_ in COPULAR:
                tokens += [t for t in child.subtree if t.dep_ != "punct"][:6]
            elif child.dep_ in ("aux", "auxpass", "neg", "prt", "acomp", "advmod") and child.i > verb.i - 4:
                tokens.append(child)
            elif child.dep_ in ("dobj", "xcomp") and child.i > verb.i:
                # The whole object, or just its head and modifiers: a cut subtree ("caused stable
                # base VM images to be") reads as nonsense.
                subtree = [t for t in child.subtree if t.dep_ != "punct"]
                tokens += subtree if len(subtree) <= 6 else self.modifiers(child) + [child]
        start, end = min(t.i for t in tokens), max(t.i for t in tokens) + 1
        if any(t.is_sent_start for t in verb.doc[start + 1:end]):
            return None  # a parse reaching across sentences
        span = self.trim(verb.doc[start:end])
        if span is None or span[-1].pos_ in DANGLING_POS and not is_verb_particle(span[-1], verb) \
                or (span[-1].i == verb.i and verb.norm_ in self.cause_verbs):
            return None  # "the process caused", "made builds start to": the phrase stops mid-way
        return span

    # ------------------------------------------------------------ causal structure

    def causal_phrases(self, sentence: Span) -> Iterator[tuple[Span, str, str]]:
        for token in sentence:
            norm = token.norm_
            if token.pos_ in ("VERB", "AUX") and not self.is_negated(token):
                passive = any(child.dep_ in ("auxpass", "nsubjpass") for child in token.children)
                if passive and norm in self.passive_cause_verbs | self.factor_verbs:
                    role = "ContributingFactor" if norm in self.factor_verbs else "RootCause"
                    for agent in (c for c in token.children if c.dep_ == "agent"):
                        yield from self.argument_phrases(agent, role)
                    if role == "RootCause":
                        yield from self.effect_phrases(token, passive=True)
                elif not passive and (norm in self.cause_verbs and self.has_cause_particle(token)
                                      and not self.only_failed(token) or self.causative(token)):
                    for subject in subjects_of(token, ("nsubj", "csubj")):
                        yield from ((span, "RootCause", "cue") for span in self.phrases(subject))
                    yield from self.effect_phrases(token, passive=False)
                elif not passive and norm in self.factor_verbs:
                    for subject in subjects_of(token, ("nsubj",)):
                        yield from ((span, "ContributingFactor", "cue") for span in self.phrases(subject))
                elif norm == "make" and any(c.lower_ in ("worse", "harder", "longer") for c in token.subtree):
                    for agent in (c for c in token.children if c.dep_ in ("agent", "nsubj")):
                        yield from self.argument_phrases(agent, "ContributingFactor") if agent.dep_ == "agent" \
                            else ((span, "ContributingFactor", "cue") for span in self.phrases(agent))
                if norm in COPULAR:
                    yield from self.copular_phrases(token)
                if norm in self.onset_verbs:
                    yield from ((span, "RootCause", "cue") for span in self.onset_triggers(token))
                if norm in self.finding_verbs or norm == "turn" and any(c.lower_ == "out" for c in token.children):
                    yield from ((span, "RootCause", "cue") for span in self.findings(token))
            if token.lower_ == "because" and token.dep_ == "mark" and not self.is_negated(token.head):
                clause = self.clause_span(token.head, skip=token)
                if clause is not None:
                    # "because the servers had no monitoring": a missing safeguard is a factor
                    missing = any(a.start >= clause.start and a.end <= clause.end for a in self.absence_phrases(clause))
                    role = "ContributingFactor" if missing else self.reason_role(token.head.head)
                    yield clause, role, "cue"
            marker = self.marker_at(sentence, token)
            if marker is not None:
                yield from self.argument_phrases(marker, self.reason_role(token.head))

    def reason_role(self, explained: Token) -> str:
        """A reason explains the incident (a root cause) or the response to it (a factor: "recovery
        took four hours because ...", "the delay in the rollback was due to ...")."""
        words = [explained] + [c for c in explained.children if c.dep_ in ("nsubj", "nsubjpass")]
        words += [o for w in list(words) for p in w.children if p.dep_ == "prep" for o in p.children if o.dep_ == "pobj"]
        made_worse = explained.norm_ in self.factor_verbs  # "the effect was amplified because ..."
        return "ContributingFactor" if made_worse or any(w.norm_ in self.response_words for w in words) else "RootCause"

    def findings(self, verb: Token) -> Iterator[Span]:
        """"Engineers found that the connection pool was too small": the clause found, unless it
        tells a failure ("monitoring showed that requests failed" is a symptom)."""
        for clause in (c for c in verb.children if c.dep_ == "ccomp" and c.pos_ in ("VERB", "AUX")):
            if not any(m.dep_ == "mark" and m.lower_ == "that" for m in clause.children) \
                    or self.failed_clause(clause) is not None or self.is_negated(verb):
                continue
            span = self.verb_phrase(clause)
            if span is not None and 2 <= name_words(span.text) <= MAX_NAME_WORDS:
                yield span

    def onset_triggers(self, verb: Token) -> Iterator[Span]:
        """"The outage began when an engineer applied a firewall rule" -> "engineer applied a
        firewall rule": the clause that set off the incident."""
        if not any(c.dep_ in ("nsubj", "nsubjpass") and c.norm_ in self.incident_nouns for c in verb.children):
            return
        for clause in (c for c in verb.children if c.dep_ == "advcl" and c.pos_ in ("VERB", "AUX")):
            # The parser makes "when" an adverb of the clause, "after" its marker.
            if any(m.dep_ in ("mark", "advmod") and m.lower_ in self.onset_marks for m in clause.children):
                span = self.verb_phrase(clause)
                if span is not None and span[0].lower_ in self.onset_marks:
                    span = self.trim(span[1:])
                if span is not None and 2 <= name_words(span.text) <= MAX_NAME_WORDS:
                    yield span

    @staticmethod
    def causative(verb: Token) -> bool:
        """"X made Y fail": "make" with a caused clause."""
        return verb.norm_ == "make" and any(c.dep_ in ("ccomp", "xcomp") and c.pos_ in ("VERB", "AUX")
                                             for c in verb.children)

    def only_failed(self, verb: Token) -> bool:
        """A verb that is a failure as well as a cause, with no object: "the servers crashed" says
        what failed; "the bug crashed the servers" names a cause."""
        return verb.norm_ in self.symptom_verbs and not any(c.dep_ == "dobj" for c in verb.children)

    def has_cause_particle(self, verb: Token) -> bool:
        particles = self.cause_particles.get(verb.norm_)
        return not particles or any(c.lower_ in particles for c in verb.children)

    def is_named(self, span: Span) -> bool:
        """A component phrase names a thing: a proper noun, or a head with a noun or compound
        modifier ("the Consul cluster", "back-end cluster"), not a bare generic noun."""
        return any(t.pos_ == "PROPN" for t in span) or any(
            t.dep_ == "compound" and t.head.i == span.root.i for t in span)

    def copular_phrases(self, verb: Token) -> Iterator[tuple[Span, str, str]]:
        """"The root cause was X", "a contributing factor was X", "X was the trigger"."""
        subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
        complements = [c for c in verb.children if c.dep_ in ("attr", "acomp", "oprd")]
        for xcomp in (c for c in verb.children if c.dep_ == "xcomp"):
            complements += [c for c in xcomp.children if c.dep_ in ("attr", "acomp", "oprd")]
        for subject in subjects:
            role = self.noun_role(subject)
            if role:
                for complement in complements:
                    if complement.pos_ in NOUN_POS or complement.pos_ in ("ADJ", "VERB"):
                        yield from ((span, role, "cue") for span in self.phrases(complement))
        for complement in complements:
            role = self.noun_role(complement)
            if role:
                for subject in subjects:
                    if self.noun_role(subject) is None:
                        yield from ((span, role, "cue") for span in self.phrases(subject))
            elif complement.norm_ in self.effect_nouns:  # "the failures were the result of a bad index"
                for prep in (c for c in complement.children if c.dep_ == "prep" and c.lower_ == "of"):
                    yield from self.argument_phrases(prep, "RootCause")
        # "a stale DNS record was to blame", "the parser was at fault"
        blamed = any(c.dep_ == "xcomp" and c.norm_ in self.blame_words for c in verb.children) or any(
            c.dep_ == "prep" and c.lower_ == "at" and any(o.norm_ in self.blame_words for o in c.children)
            for c in verb.children)
        if blamed:
            for subject in subjects:
                yield from ((span, "RootCause", "cue") for span in self.phrases(subject))

    def noun_role(self, token: Token) -> str | None:
        if token.norm_ in self.cause_nouns and not any(c.norm_ in ("contributing",) for c in token.children):
            return "RootCause"
        if token.norm_ in self.factor_nouns:
            return "ContributingFactor"
        return None

    def effect_phrases(self, verb: Token, passive: bool) -> Iterator[tuple[Span, str, str]]:
        targets: list[Token] = []
        for child in verb.children:
            if passive and child.dep_ == "nsubjpass":
                targets.append(child)
            elif not passive and child.dep_ in ("dobj", "obj"):
                targets.append(child)
            elif child.dep_ in ("prep", "prt") and child.lower_ in self.effect_preps:
                targets += [c for c in child.children if c.dep_ in ("pobj", "pcomp")]
        for target in targets:
            for span in self.phrases(target):
                # An effect told as a clause ("led to leaking machines") is a symptom whatever its verb;
                # a generic head is one when its modifiers say what ("elevated build queue times").
                specific = span.root.norm_ not in self.generic_heads or self.content_words(span) >= 3
                failure = self.caused_failures.get(verb.norm_) if not passive else None
                if failure is not None and span.root.pos_ != "VERB":
                    # "took down Facebook and Instagram", "corrupted user sessions": what was done to
                    # the object, with the verb, is the symptom, named by the object and the failure.
                    outage = self.trim(verb.doc[verb.i:span.end])
                    if outage is not None and name_words(outage.text) <= self.max_words:
                        name = f"{self.whole_of(span.root).norm_} {failure}"
                        yield Span(verb.doc, outage.start, outage.end, label="Symptom", span_id=name), "Symptom", "cue"
                elif span.root.pos_ == "VERB" or (self.head_type(span.root) in ("Symptom", None) and specific):
                    yield span, "Symptom", "cue"
        if not passive and verb.norm_ in CAUSATIVE_VERBS:
            # "a configuration change made builds start to fail", "caused the routers to crash": the
            # caused clause is the symptom.
            for clause in (c for c in verb.children if c.dep_ in ("ccomp", "xcomp") and c.pos_ in ("VERB", "AUX")):
                span = self.clause_span(clause)
                if span is not None:
                    yield span, "Symptom", "cue"

    def argument_phrases(self, marker: Token, role: str) -> Iterator[tuple[Span, str, str]]:
        """The object of a preposition or marker: a noun phrase, or a clause ("due to running out")."""
        for child in marker.children:
            if child.dep_ == "pobj":
                yield from ((self.with_participle(span), role, "cue") for span in self.phrases(child))
            elif child.dep_ == "pcomp":
                clause = self.clause_span(child)
                if clause is not None:
                    yield clause, role, "cue"

    def with_participle(self, span: Span) -> Span:
        """A cause's noun phrase with the participle clause that says what it did: "caused by illegal
        sites being created automatically", "due to a disk left full", when that is still a name."""
        head = span.root
        clause = next((c for c in head.children if c.dep_ == "acl" and c.tag_ in ("VBG", "VBN") and c.i >= span.end), None)
        if clause is None:
            return span
        end = max(t.i for t in clause.subtree if t.dep_ != "punct") + 1
        grown = self.trim(span.doc[span.start:end])
        if grown is None or name_words(grown.text) > self.max_words or "\n" in grown.text \
                or any(t.is_sent_start for t in span.doc[span.start + 1:end]):
            return span
        return grown

    def marker_at(self, sentence: Span, token: Token) -> Token | None:
        """The last word of a cause marker ("due to", "as a result of") starting at token."""
        for marker in self.cause_markers:
            end = token.i + len(marker)
            if end <= sentence.end and all(sentence.doc[token.i + k].norm_ == word or
                                           sentence.doc[token.i + k].lower_ == word for k, word in enumerate(marker)):
                last = sentence.doc[end - 1]
                if any(c.dep_ in ("pobj", "pcomp") for c in last.children):
                    return last
        return None

    def failure_phrases(self, sentence: Span) -> Iterator[tuple[Span, str, str]]:
        """What failed, as a symptom: "requests failed", "the site went down", "the computer began
        resetting itself", "the status site was unavailable", "the mobile apps could not connect"."""
        for token in sentence:
            if token.pos_ not in ("VERB", "AUX"):
                continue
            inability = self.inability_clause(token)
            if inability is not None:
                yield inability, "Symptom", "inability"
                continue
            yield from ((span, "Symptom", "cue") for span in self.experienced(token))
            found = self.failed_clause(token)
            if found is None:
                refusal = self.thing_could_not(token)
                if refusal is not None:
                    yield refusal, "Symptom", "cue"
                continue
            if any(c.dep_ == "xcomp" and self.inability_clause(c) for c in token.children):
                continue  # "merchants failed to receive payouts": the inability is the symptom
            subject, end, noun = found
            whole = self.whole_of(subject)  # "30% of payment attempts failed" is about the attempts
            if whole.norm_ in self.generic_heads or subject.norm_ in LEADING_FILLER:
                continue
            start = self.phrase_start(whole)
            if token.dep_ == "conj" and subject.head.i == token.head.i and token.head.i > subject.i:
                start = token.i  # "the database ran out of disk and stopped answering": the second failure alone
            patient = self.failed_object(token, end) if not self.is_negated(token) else None
            if patient is not None and self.head_type(whole) in ("RootCause", "ContributingFactor"):
                start = token.i  # "a bug in the driver crashed the storage servers": the cause is no part of it
            if end - start <= self.max_words + 2:
                name = f"{(patient or whole).norm_} {noun}"  # "the cluster lost quorum": "quorum loss"
                yield Span(sentence.doc, start, end, label="Symptom", span_id=name), "Symptom", "cue"

    def experienced(self, verb: Token) -> list[Span]:
        """What the service's users saw, got or reported, when it is a kind of failure: "customers
        started reporting errors throughout the UI", "users saw 502s"; not "customers received
        their orders" (no symptom is named by "order")."""
        if verb.lemma_.lower() not in self.experience_verbs or self.is_negated(verb):
            return []
        governor = verb.head if verb.dep_ == "xcomp" else verb  # "started reporting"
        subjects = [c for c in governor.children if c.dep_ == "nsubj"]
        if not subjects or self.whole_of(subjects[0]).norm_ not in self.affected_people:
            return []
        if any(c.dep_ in ("ccomp", "xcomp") for c in verb.children):
            return []  # "customers saw API calls slow down": the failure rule reads that clause
        objects = [c for c in verb.children if c.dep_ == "dobj" and c.pos_ in NOUN_POS]
        failures = [o for o in objects if o.like_num or o.norm_[:3].isdigit()
                    or self.heads.get(o.norm_, {}).get("Symptom", 0) > 0]
        return [span for o in failures for span in self.phrases(o)]

    def thing_could_not(self, verb: Token) -> Span | None:
        """What a system could not or would not do: "the app would not install", "the database
        could not keep up". Not what people could not do (the inability rule's), nor a safeguard
        that did not work (a factor), nor what would not have happened."""
        if verb.pos_ != "VERB" or verb.norm_ in COPULAR or not self.is_negated(verb) \
                or verb.norm_ in self.safeguard_verbs or verb.norm_ in self.detection_verbs:
            return None
        auxiliaries = {c.norm_ for c in verb.children if c.dep_ == "aux"}
        if not auxiliaries & {"can", "could", "would", "will"} or "have" in auxiliaries:
            return None
        subjects = [c for c in verb.children if c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN")]
        if not subjects:
            return None
        whole = self.whole_of(subjects[0])
        if whole.norm_ in self.generic_heads or whole.norm_ in self.affected_people \
                or self.head_type(whole) in ("RootCause", "ContributingFactor"):
            return None
        span = self.verb_phrase(verb)
        return span if span is not None and span.start <= whole.i and name_words(span.text) <= MAX_NAME_WORDS else None

    def failed_object(self, verb: Token, end: int) -> Token | None:
        """What a failure verb did something to, when it has an object: "the storage servers" that
        a bug crashed, the "quorum" a cluster lost, the "writes" a database refused."""
        objects = [c for c in verb.children if c.dep_ == "dobj" and c.pos_ in NOUN_POS and c.i < end]
        if not objects or objects[0].norm_ in self.generic_heads:
            return None
        return self.whole_of(objects[0])

    def absence_phrases(self, sentence: Span) -> Iterator[Span]:
        """A safeguard that was missing: "no eviction policy" (in "the cache had no eviction
        policy"), "queue depth was not monitored", "nothing verified the replica", "engineers
        lacked access to the console"."""
        for token in sentence:
            if token.pos_ in NOUN_POS and self.is_absent(token):
                phrase = self.phrase(token)
                no = denying_determiner(token)
                if phrase is not None and no is not None and no.i <= phrase.start:
                    span = self.trim_end(sentence.doc[no.i:phrase.end])
                    # "pods had no network" is a symptom, "there was no basis" nothing: an absent
                    # safeguard is a thing the taxonomy's factors are made of (a check, a canary).
                    if span is not None and name_words(span.text) <= MAX_NAME_WORDS \
                            and self.names_a_safeguard(token):
                        yield span
            elif token.pos_ == "VERB" and self.switched_off_safeguard(token) is not None:
                span = self.verb_phrase(token)
                if span is not None and 2 <= name_words(span.text) <= MAX_NAME_WORDS:
                    yield span
            elif token.pos_ == "VERB" and self.is_missing_safeguard(token):
                span = self.verb_phrase(token)
                denier = [c for c in token.children if c.dep_ == "nsubj" and c.lower_ in self.denying_subjects]
                if denier:  # verb_phrase leaves pronoun subjects out; "nothing" is the point
                    end = max([span.end if span is not None else token.i + 1]
                              + [t.i + 1 for c in token.children if c.dep_ == "ccomp" for t in c.subtree])
                    span = self.trim_end(sentence.doc[denier[0].i:end])
                # "we did not detect it" says too little: what was missed, or who missed it, is named
                said = denier or any(c.dep_ in ("nsubj", "nsubjpass", "dobj") and c.pos_ in NOUN_POS
                                     for c in token.children)
                if said and span is not None and span.start <= token.i < span.end \
                        and 2 <= name_words(span.text) <= MAX_NAME_WORDS:
                    yield span

    def names_a_safeguard(self, noun: Token) -> bool:
        """The noun, or a word that modifies it, names a safeguard: "no canary", and "no validation
        step" or "no approval gate", whose head alone ("step") could be anything."""
        return self.mostly_factor_head(noun) or self.safeguard_modified(noun)

    def safeguard_modified(self, noun: Token) -> bool:
        return any(c.dep_ in ("compound", "amod") and c.norm_ in self.safeguard_nouns for c in noun.children)

    def mostly_factor_head(self, noun: Token) -> bool:
        """Some of the taxonomy's factors have this head, and no more of its symptoms ("check",
        "canary", "limit"; not "timeout" or "network": "the pods had no network" is a symptom)."""
        counts = self.heads.get(noun.norm_, {})
        factor = counts.get("ContributingFactor", 0)
        return factor > 0 and factor >= counts.get("Symptom", 0)

    def is_absent(self, noun: Token) -> bool:
        """"no X" where X is something that could have been in place."""
        if denying_determiner(noun) is None:
            return False
        if noun.norm_ in self.generic_heads and not self.safeguard_modified(noun):
            return False  # "no step" says nothing; "no validation step" does
        governor = noun.head
        if noun.dep_ == "pobj":
            return governor.lower_ in self.absence_governors
        if noun.dep_ == "attr" and governor.norm_ == "be":
            return any(c.dep_ == "expl" for c in governor.children)  # "there was no canary"
        if noun.dep_ in ("dobj", "nsubj"):
            return governor.norm_ in self.absence_governors and not self.is_negated(governor)
        return False

    def switched_off_safeguard(self, verb: Token) -> Token | None:
        """The safeguard a passive or perfect verb of switching off names: "alert" in "the lag
        alert had been muted", "check" in "someone had disabled the check"; None otherwise."""
        if verb.norm_ not in self.disabling_verbs or verb.tag_ != "VBN" or self.is_negated(verb):
            return None
        passive = any(c.dep_ == "auxpass" for c in verb.children)
        perfect = any(c.dep_ == "aux" and c.norm_ == "have" for c in verb.children)
        role = "nsubjpass" if passive else "dobj" if perfect else None
        return next((c for c in verb.children if c.dep_ == role and c.norm_ in self.safeguard_nouns), None)

    def is_missing_safeguard(self, verb: Token) -> bool:
        if verb.norm_ in self.lack_verbs:
            return not self.is_negated(verb)
        if verb.norm_ not in self.safeguard_verbs or any(c.dep_ == "prt" for c in verb.children):
            return False  # "customers could not check out" is a symptom
        return self.is_negated(verb) or self.has_denying_subject(verb)

    def trim_end(self, span: Span) -> Span | None:
        """The span without trailing punctuation or a dangling word; None when nothing is left."""
        end = span.end
        while end > span.start and (span.doc[end - 1].is_punct or span.doc[end - 1].pos_ in DANGLING_POS):
            end -= 1
        return span.doc[span.start:end] if end > span.start + 1 else None

    def failed_clause(self, verb: Token) -> tuple[Token, int, str] | None:
        """(subject, end of the clause, what went wrong) when the verb says something failed."""
        negated = self.is_negated(verb)
        noun = self.negated_symptom_verbs.get(verb.norm_) if negated else self.symptom_verbs.get(verb.norm_)
        if not negated and verb.pos_ == "VERB":
            # "the queue ground to a halt", "the site slowed to a crawl": the end it came to
            ends = [o for c in verb.children if c.dep_ == "prep" and c.lower_ == "to"
                    for o in c.children if o.dep_ == "pobj" and o.lower_ in self.symptom_ends]
            if ends:
                return self.clause_subject(verb, ends[0].i + 1, self.symptom_ends[ends[0].lower_])
        end = verb.i + 1
        action = verb  # the verb whose object says what failed
        if noun is None and not negated and verb.norm_ in COPULAR:
            states = [c for c in verb.children if c.dep_ in ("acomp", "advmod", "attr") and c.i > verb.i
                      and c.lower_ in self.symptom_states]
            if states:
                noun, end = self.symptom_states[states[0].lower_], states[0].i + 1
        if noun is None:
            return None
        if negated or verb.norm_ in self.symptom_verbs:
            if not negated and verb.pos_ != "VERB":
                return None
            # A failure told with a particle needs it: "went down"; "would not come back up", while
            # "help did not come" says nothing failed.
            particles = (self.negated_symptom_particles if negated else self.symptom_particles).get(verb.norm_)
            # "stopped processing invoices" is parsed at times as "stopped [processing invoices]"
            misparsed = [g for c in verb.children if c.dep_ == "dobj" for g in c.children
                         if g.dep_ in ("compound", "amod") and g.i == verb.i + 1] if not negated else []
            if particles and not any(c.lower_ in particles for c in [*verb.children, *misparsed]):
                return None
            end = max([end - 1] + [c.i for c in verb.children if c.dep_ == "prt" or (particles and c.lower_ in particles)]) + 1
            attempted = [c for c in verb.children if c.dep_ == "xcomp" and c.pos_ == "VERB" and c.i == verb.i + 2
                         and verb.norm_ in self.attempt_verbs and not negated]
            if attempted:  # "the cluster failed to elect a leader": what it failed to do
                action = attempted[0]
                end = max([action.i] + [c.i for c in action.children if c.dep_ == "prt"]) + 1
                # "refused to start" fails as "did not start" does: the same name, "start failure"
                noun = self.negated_symptom_verbs.get(action.norm_, noun)
        # "refusing writes", "lost quorum"; "stopped accepting orders": the object of the verb's particle
        objects = [c for t in (action, verb.doc[end - 1]) for c in t.children
                   if c.dep_ == "dobj" and c.i >= end and c.pos_ in NOUN_POS]
        if objects and objects[0].i - end < 3:
            end = objects[0].i + 1
        return self.clause_subject(verb, end, noun)

    @staticmethod
    def clause_subject(verb: Token, end: int, noun: str) -> tuple[Token, int, str] | None:
        """(subject, end, noun) with the subject of the failing verb: its own, the antecedent of
        its relative pronoun, or the one of the verb it hangs from; None without one."""
        antecedent = relative_antecedent(verb)
        subjects = [antecedent] if antecedent is not None else [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
        if not subjects and verb.dep_ in ("xcomp", "conj") and verb.head.pos_ in ("VERB", "AUX"):
            subjects = [c for c in verb.head.children if c.dep_ in ("nsubj", "nsubjpass")]  # "began resetting"
        if not subjects and verb.dep_ == "ccomp" and verb.head.pos_ == "VERB":
            # "customers saw API calls slow down": the parser makes what failed the object of "saw"
            subjects = [c for c in verb.head.children if c.dep_ == "dobj" and c.i < verb.i]
        subjects = [c for c in subjects if c.pos_ in NOUN_POS or c.pos_ == "VERB" and c.dep_ == "nsubj"]
        return (subjects[0], end, noun) if subjects else None

    def inability_clause(self, verb: Token) -> Span | None:
        """What the service's users could not do: "customers could not place orders", "users were
        unable to log in", "merchants failed to receive payouts". Any action counts when the people
        who could not do it are the ones the service is for (`affected_people`); "engineers could
        not reproduce the bug" is no symptom."""
        if verb.pos_ != "VERB" or verb.norm_ in COPULAR:
            return None
        governor = self.inability_governor(verb)
        # active only: "customers could not be reached" says nothing they tried to do
        subjects = [c for c in governor.children if c.dep_ == "nsubj"] if governor is not None else []
        if governor is not None and not subjects and governor.dep_ == "conj" and governor.head.pos_ == "VERB":
            # "users could read their projects but could not post": the subject of the first verb
            subjects = [c for c in governor.head.children if c.dep_ == "nsubj"]
        if not subjects or self.whole_of(subjects[0]).norm_ not in self.affected_people:
            return None
        end = max([verb.i] + [c.i for c in verb.children if c.dep_ == "prt"]) + 1
        objects = [c for c in verb.children if c.dep_ == "dobj" and c.pos_ in NOUN_POS and c.i >= end]
        if objects and self.phrase_start(objects[0]) - end < 2:
            end = objects[0].i + 1  # "could not load the CircleCI web interface"
        subject = self.whole_of(subjects[0])
        start = self.phrase_start(subject)  # "[a large share of] users could not reach websites"
        borrowed = subjects[0].head.i != governor.i  # the subject of the verb it is joined to
        if name_words(verb.doc[start:end].text) > MAX_NAME_WORDS or borrowed:
            # too long with its subject, or the subject stands far off: from the words that deny
            # it, "were unable to complete checkout", "could not dependably log in", "but could not post"
            start = min([governor.i, verb.i] + [c.i for c in verb.children if c.dep_ in ("aux", "neg")])
        listed = self.listed_actions(verb)
        if listed and listed[-1].i >= end and name_words(verb.doc[start:listed[-1].i + 1].text) <= MAX_NAME_WORDS:
            end = listed[-1].i + 1  # "could not post, edit or change anything": every action listed
        # named the same however it is said: "customers unable to place order"
        done = [verb] + [c for c in verb.children if c.dep_ == "prt"] + [
            w for o in objects[:1] if o.i < end for w in self.modifiers(o) + [o]
            if w.i == o.i or w.dep_ in ("compound", "amod") and w.pos_ in ("NOUN", "ADJ")]
        name = " ".join([subject.norm_, "unable to"] + [t.norm_ for t in sorted(done, key=lambda t: t.i)])
        return Span(verb.doc, start, end, label="Symptom", span_id=name)

    @staticmethod
    def listed_actions(verb: Token) -> list[Token]:
        """The words of the actions joined to the verb ("post, edit or change anything"), in order;
        empty when a joined verb has a subject of its own ("and new connections failed")."""
        joined, frontier = [], [verb]
        while frontier:
            frontier = [c for t in frontier for c in t.children if c.dep_ == "conj" and c.pos_ in ("VERB", "NOUN")]
            joined += frontier
        if any(c.dep_ in ("nsubj", "nsubjpass") for t in joined for c in t.children):
            return []
        # what they could not do, not when: "retrieve their diagrams [during that time]"
        adjuncts = {w.i for t in joined for c in t.children if PhraseFinder.is_adjunct(c) for w in c.subtree}
        return sorted((w for t in joined for w in t.subtree if w.i not in adjuncts and not w.is_punct),
                      key=lambda w: w.i)

    def inability_governor(self, verb: Token) -> Token | None:
        """The word whose subject could not do the verb: the verb itself in "could not place", "were"
        in "were unable to log in" or "were not able to", "failed" in "failed to receive"."""
        if verb.dep_ == "xcomp" and verb.head.lower_ == "unable":
            return verb.head.head
        if verb.dep_ == "xcomp" and verb.head.lower_ == "able" and \
                (self.is_negated(verb.head) or self.is_negated(verb.head.head)):
            return verb.head.head
        if verb.dep_ == "xcomp" and verb.head.norm_ == "fail" and not self.is_negated(verb.head):
            return verb.head
        if self.is_negated(verb) and has_ability_modal(verb):
            return verb
        return None

    # ------------------------------------------------------------ phrases

    def noun_heads(self, sentence: Span) -> Iterator[Token]:
        for token in sentence:
            if token.pos_ in NOUN_POS and token.dep_ != "compound" and token.norm_ not in self.generic_heads:
                yield token

    def phrases(self, head: Token, attach: bool = True) -> list[Span]:
        """The head's noun phrase, and one per coordinated item ("X, Y and Z")."""
        heads = [head] + [c for c in head.conjuncts if c.i > head.i]
        spans = []
        for item in heads:
            span = self.phrase(item, attach)
            if span is not None:
                spans.append(span)
        return spans

    def phrase(self, head: Token, attach: bool = True) -> Span | None:
        if head.pos_ == "VERB":
            return self.clause_span(head)
        if head.pos_ not in NOUN_POS and head.pos_ not in ("ADJ", "NUM", "PRON"):
            return None
        if head.pos_ == "PRON" or head.norm_ in self.generic_heads and not self.modifiers(head):
            return None
        tokens = self.modifiers(head) + [head]
        if attach:
            for prep in (c for c in head.children if c.dep_ == "prep" and c.lower_ in ATTACHED_PREPS):
                objects = [c for c in prep.children if c.dep_ == "pobj"]
                if objects:
                    tokens += [prep] + self.modifiers(objects[0]) + [objects[0]]
                break
        start, end = separated(head.doc, min(t.i for t in tokens), max(t.i for t in tokens) + 1, head.i)
        span = self.trim(head.doc[start:end])
        if span is None:
            return None
        if name_words(span.text) > self.max_words:
            span = self.trim(head.doc[min(t.i for t in self.modifiers(head) + [head]):head.i + 1])
        return span

    def modifiers(self, head: Token) -> list[Token]:
        found = []
        for child in head.children:
            if child.dep_ in MODIFIER_DEPS and child.i < head.i:
                found += [t for t in child.subtree if t.dep_ not in ("punct",)]
        return found

    def phrase_start(self, head: Token) -> int:
        modifiers = self.modifiers(head)
        start = min([t.i for t in modifiers] + [head.i])
        while start < head.i and head.doc[start].lower_ in LEADING_FILLER:
            start += 1
        return start

    def clause_span(self, verb: Token, skip: Token | None = None) -> Span | None:
        """A short clause as a phrase ("the certificate had expired"); None when too long."""
        # Tokens are made anew on each access, so they are compared by position, never by identity.
        # A clause inside it is another statement, and so is a verb joined to it ("and never turned
        # back on"), with all its words.
        nested = {t.i for c in verb.subtree if c.i != verb.i and c.dep_ in ("advcl", "relcl", "ccomp", "conj")
                  for t in c.subtree}
        nested |= {c.i for c in verb.children if c.dep_ == "cc" and c.i > verb.i}
        tokens = [t for t in verb.subtree if (skip is None or t.i != skip.i) and t.dep_ not in ("mark", "punct")
                  and t.i not in nested]
        if not tokens:
            return None
        span = self.trim(verb.doc[min(t.i for t in tokens):max(t.i for t in tokens) + 1])
        if span is not None and name_words(span.text) > self.max_clause_words:
            # too long with its when and why: "the policy had been disabled [during a migration
            # two weeks earlier]" says what went wrong without them
            adjuncts = {t.i for c in verb.children if c.i > verb.i and self.is_adjunct(c) for t in c.subtree}
            kept = [t for t in tokens if t.i not in adjuncts]
            span = self.trim(verb.doc[min(t.i for t in kept):max(t.i for t in kept) + 1]) if kept else None
        if span is None or not 2 <= name_words(span.text) <= self.max_clause_words:
            return None
        return span

    @staticmethod
    def is_adjunct(child: Token) -> bool:
        """A verb's when or why, never what it needs: "during a migration", "two weeks earlier"."""
        if child.dep_ == "prep":
            return child.lower_ in ADJUNCT_PREPOSITIONS
        return child.dep_ in ("npadvmod", "advmod") and (
            child.lower_ in ("earlier", "later", "ago", "before", "previously") or child.ent_type_ in ("DATE", "TIME"))

    def trim(self, span: Span) -> Span | None:
        doc, start, end = span.doc, span.start, span.end
        while start < end:  # until nothing more goes: "A year earlier, on 29 February 2012, Azure ..." has two labels
            first = time_label_end(doc[start:end])
            while first < end and (doc[first].is_punct or doc[first].is_space or doc[first].lower_ in LEADING_FILLER
                                   or doc[first].lower_ in self.quantifiers or doc[first].dep_ in ("cc", "prep", "mark")
                                   or doc[first].lower_ == "than"):  # "[more] than 500,000 sessions"
                first += 1
            if first == start:
                break
            start = first
        while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space or doc[end - 1].dep_ in ("cc", "prep")):
            end -= 1
        if end <= start or all(t.is_stop or t.like_num or t.is_punct for t in doc[start:end]):
            return None
        return doc[start:end]

    @staticmethod
    def content_words(tokens: Iterable[Token]) -> int:
        return sum(1 for t in tokens if not (t.is_stop or t.is_punct or t.is_space))

    @staticmethod
    def is_negated(token: Token) -> bool:
        return any(child.dep_ == "neg" for child in token.children)

    def denied(self, span: Span) -> bool:
        """"X was not the cause", "no data was lost": a negated verb governing the phrase (or the
        first item of the list the phrase is in: "it was not a power cut or a cooling fault")."""
        root = first_conjunct(span.root)
        return root.dep_ in SUBJECTS | OBJECTS and self.is_negated(root.head)

    def is_affected(self, span: Span) -> bool:
        """The phrase only says what a failure happened to: "configuration changes" in "propagation
        of configuration changes was delayed" (what was delayed is the propagation; nothing says a
        change was bad). It modifies the subject of a failure clause whose verb has no object."""
        token = span.root
        while token.dep_ in ("pobj", "prep", "compound", "amod", "nmod", "poss", "conj") and token.head.i != token.i:
            token = token.head
        if token.i == span.root.i or token.dep_ not in ("nsubj", "nsubjpass"):
            return False
        verb = token.head
        return self.failed_clause(verb) is not None and not any(c.dep_ == "dobj" for c in verb.children)

    def tells_detection(self, span: Span) -> bool:
        """"The on-call engineer was paged by the error-rate alert", "we were notified": the clause
        says how the incident was found (unless denied: "nobody was paged" is a missing safeguard)."""
        verb = clause_verb(span)
        return verb.pos_ == "VERB" and verb.norm_ in self.detection_verbs and not self.is_negated(verb) \
            and not self.has_denying_subject(verb)

    def denies_impact(self, span: Span) -> bool:
        """"Web browsers were almost entirely unaffected", "the servers stayed up", "traffic kept
        flowing": the phrase, or the clause whose subject it is, says something came through."""
        verb = clause_verb(span)
        if verb.pos_ not in ("VERB", "AUX"):
            return False
        # Once per verb and write-up: a hostile write-up hangs thousands of candidates on one verb.
        known = span.doc.user_data.setdefault("incident_denied_impact", {})
        if verb.i not in known:
            known[verb.i] = self.verb_denies_impact(verb)
        return known[verb.i]

    def verb_denies_impact(self, verb: Token) -> bool:
        if self.still_could(verb) or self.subject_denies(verb):
            return True
        complements = [c for c in verb.children if c.dep_ in ("acomp", "oprd", "advmod", "prt", "xcomp")]
        return any(c.lower_ in self.denied_states
                   or ((verb.lemma_.lower(), c.lemma_.lower()) in self.denied_continuations
                       and not any(g.lower_ in ("out", "down") for g in c.children))  # "kept running out of memory"
                   for c in complements)

    def subject_denies(self, verb: Token) -> bool:
        """"Nobody lost any data", "no email was lost", "none of the nodes crashed": a denying subject
        of a failure says it did not happen (but "nobody could log in" and "nothing worked" are
        failures: `working_verbs`)."""
        if has_ability_modal(verb) or self.is_negated(verb) or verb.lemma_.lower() in self.working_verbs:
            return False
        return self.has_denying_subject(verb, no_determiner=True)

    def has_denying_subject(self, verb: Token, no_determiner: bool = False) -> bool:
        """A subject that denies what the verb says ("nobody", "none"; with `no_determiner`, also
        one that "no" determines: "no email was lost")."""
        return any(c.dep_ in ("nsubj", "nsubjpass") and (
            c.lower_ in self.denying_subjects
            or no_determiner and any(d.dep_ == "det" and d.lower_ == "no" for d in c.children))
            for c in verb.children)

    def still_could(self, verb: Token) -> bool:
        """What could still be done, set against what could not: "users could read their projects
        but could not post"."""
        return not self.is_negated(verb) and has_ability_modal(verb) \
            and any(c.dep_ == "conj" and self.is_negated(c) for c in verb.children)

    def refers_to_the_incident(self, span: Span) -> bool:
        """"the outage", "this incident", "its most serious outage": a definite incident word that no
        modifier narrows names the incident the write-up is about, not one of its symptoms."""
        root = span.root
        if root.norm_ not in self.incident_names or root.pos_ not in NOUN_POS:
            return False
        definite = False
        for child in root.children:
            if child.dep_ == "poss" or child.dep_ == "det" and child.lower_ in DEFINITE_DETERMINERS:
                definite = True
            elif child.dep_ == "amod" and (child.tag_ == "JJS" or child.lower_ in RANKING_WORDS
                                           or any(c.lower_ in ("most", "least") for c in child.children)):
                continue  # "the worst outage", "its most serious outage", "its own outage"
            elif child.dep_ not in ("punct", "det", "relcl", "acl", "npadvmod"):  # "our worst outage this year"
                return False  # "the API outage", "the outage of the API": it says which part failed
        return definite

    def names_something(self, token: Token) -> bool:
        """A generic head ("update", "change") names something only with a modifier that says what:
        "a routine update to the storage layer", not "the update"."""
        return token.norm_ not in self.generic_heads or any(c.dep_ in ("amod", "compound", "nmod") for c in token.children)

    def says_what_went_wrong(self, token: Token) -> bool:
        """A word of failure: a taxonomy symptom's head ("errors", "latency"), a verb or state of
        failure ("failed", "unavailable") or a negation."""
        norm = token.norm_
        return self.head_type(token) == "Symptom" or norm in self.symptom_verbs or token.lower_ in self.symptom_states \
            or norm in self.symptom_states or token.dep_ == "neg"

    def head_type(self, token: Token) -> str | None:
        counts = self.heads.get(token.norm_)
        if not counts:
            return None
        best = max(counts, key=counts.__getitem__)
        return best if counts[best] * 3 >= 2 * sum(counts.values()) else None

    # ------------------------------------------------------------ linking

    def entity_span(self, span: Span, role: str, method: str, score: float, kind: str) -> Span:
        name, known, broader = self.link(span, role)
        if span.id_ and not known:
            name = span.id_  # a failure phrase's own name ("request failure")
        result = Span(span.doc, span.start, span.end, label=role, span_id=name)
        result._.confidence = score
        result._.method = {"head": "parse", "section": "parse", "product": "product", "absence": "absence",
                            "inability": "inability"}.get(method, "cue")
        result._.section = kind
        result._.hedged = score <= self.confidence["hedged"]
        result._.known = known
        result._.broader = broader
        return result

    def link(self, span: Span, role: str) -> tuple[str, bool, str | None]:
        """(name, known, broader): the nearest concept's name when close enough, else the phrase's
        own normalised name under its nearest concept."""
        own = self.core_name(span)
        vector = phrase_vector(span)
        concepts, matrix = self.matrix(role)
        if vector is None or matrix.size == 0:
            return own, False, None
        scores = matrix @ vector
        best = int(numpy.argmax(scores))
        concept = concepts[best]
        # An organisation's name shared is no evidence: "Google services" is not Google Cloud Storage.
        words = {t.norm_ for t in span if not (t.is_stop or t.is_punct or t.ent_type_ == "ORG")}
        if scores[best] >= self.link_threshold and self.shares_what_it_names(words, set(concept["lemmas"].split())):
            return concept["name"], True, None
        if scores[best] >= self.broader_threshold:
            return own, False, concept["broader"] or concept["name"]
        return own, False, None

    def shares_what_it_names(self, words: set[str], concept: set[str]) -> bool:
        """A shared word is evidence of the same concept, unless all the phrase shares is how things
        fail while the concept also names what failed: "the desktop software refused to start"
        shares "start" with "VM start failure", yet no VM failed to start."""
        shared = words & concept
        return bool(shared) and (bool(shared - self.failure_words) or concept <= self.failure_words)

    def core_name(self, span: Span) -> str:
        """A new entity's name: the phrase's nucleus, its head with the words before it and an "of"
        phrase, or a clause's subject, negation, verb and complement ("the two production
        services used by outside users went down" -> "production services went down"). The
        mention keeps the whole phrase; the name groups cases."""
        root = span.root
        if root.pos_ in NOUN_POS:
            # "no kill switch" is a factor, "kill switch" a component: a denying "no" stays.
            no = denying_determiner(root)
            words = ([no] if no is not None else []) + self.modifiers(root) + [root]
            for prep in (c for c in root.children if c.dep_ == "prep" and c.lower_ == "of"):
                words += [prep] + [w for o in prep.children if o.dep_ == "pobj" for w in self.modifiers(o) + [o]]
        elif root.pos_ in ("VERB", "AUX", "ADJ"):
            words = [root]
            for child in root.children:
                if child.dep_ in ("nsubj", "nsubjpass") and (child.pos_ != "PRON" or child.lower_ in self.denying_subjects):
                    subject = self.whole_of(child)
                    words += self.modifiers(subject) + [subject]
                elif child.dep_ in ("neg", "preconj", "prt", "acomp", "attr", "auxpass") or \
                        child.dep_ == "advmod" and child.lower_ in VERB_PARTICLES or \
                        child.dep_ == "dobj" and child.pos_ in NOUN_POS:
                    words += ([child] if child.dep_ != "dobj" else self.modifiers(child) + [child])
                elif child.dep_ == "aux" and any(c.dep_ == "auxpass" and c.lower_ in ("been", "being") for c in root.children):
                    words.append(child)  # "load planning had been skipped", not "... been skipped"
                elif child.dep_ == "aux" and child.i < root.i and self.is_negated(root):
                    words.append(child)  # "the alert did not fire", not "the alert not fire"
                elif child.dep_ == "xcomp" and child.pos_ == "VERB" and 0 < child.i - root.i <= 3:
                    # "the resolver kept serving a stale copy", not "resolver kept"
                    words += [child] + [c for c in child.children if c.dep_ in ("aux", "auxpass", "prt") and c.i > root.i]
                    words += [w for o in child.children if o.dep_ == "dobj" and o.pos_ in NOUN_POS
                              for w in self.modifiers(o) + [o]]
            words += self.prepositional_complement(root)
        else:
            words = list(span)
        words = sorted({w.i: w for w in words if span.start <= w.i < span.end and not w.is_punct}.values(),
                       key=lambda w: w.i)
        while words and words[0].lower_ not in ("no", *self.denying_subjects) and (
                words[0].lower_ in LEADING_FILLER or words[0].lower_ in self.quantifiers
                or words[0].pos_ in ("DET", "PRON")):
            words = words[1:]
        if self.content_words(words) < 2 <= self.content_words(span):
            return normalised_name(span)  # "change" alone says less than "change to the cache"
        last = words[-1]  # a noun's lemma ("gpus" -> "gpu"); a verb keeps its form ("not encrypted")
        parts = [w.norm_ if w.dep_ == "neg" else CONTRACTED.get(w.lower_, w.lower_) for w in words[:-1]]  # "ca n't": "can not"
        parts.append(last.norm_ if last.pos_ in NOUN_POS else last.lower_)
        return " ".join(parts).strip(" .,;:")

    def whole_of(self, subject: Token) -> Token:
        """What a part or an amount is of: "attempts" in "30% of payment attempts failed" or "half
        of the API requests timed out", so the name says what failed, not how much of it."""
        if not (subject.like_num or {subject.norm_, subject.lower_} & self.part_nouns
                or subject.lower_ in self.quantifiers):
            return subject
        of = [o for c in subject.children if c.dep_ == "prep" and c.lower_ == "of"
              for o in c.children if o.dep_ == "pobj" and o.pos_ in NOUN_POS]
        return of[0] if of else subject

    def prepositional_complement(self, verb: Token) -> list[Token]:
        """The phrase a verb with no object is incomplete without, when it follows the verb:
        "depended on the control plane", "fell back to a low default", "ran out of memory"."""
        if verb.pos_ not in ("VERB", "ADJ") or any(c.dep_ in ("dobj", "attr", "acomp", "ccomp", "xcomp")
                                                  for c in verb.children):
            return []
        heads = [verb] + [c for c in verb.children if c.i > verb.i and c.dep_ in ("prt", "advmod")
                          and c.lower_ in VERB_PARTICLES]
        preps = sorted((c for head in heads for c in head.children if c.dep_ == "prep" and c.i > verb.i),
                       key=lambda c: c.i)
        if not preps or preps[0].i - verb.i > 3 or preps[0].lower_ in ADJUNCT_PREPOSITIONS:
            return []
        chain = [preps[0]]  # "ran out of memory": "of" hangs from "out"
        while not any(o.dep_ == "pobj" for o in chain[-1].children) and \
                any(c.dep_ == "prep" for c in chain[-1].children):
            chain.append(next(c for c in chain[-1].children if c.dep_ == "prep"))
        objects = [o for o in chain[-1].children if o.dep_ == "pobj" and o.pos_ in NOUN_POS]
        if not objects:
            return []
        phrase = self.modifiers(objects[0]) + [objects[0]]
        if any(t.ent_type_ in ("DATE", "TIME") or t.like_num or t.lower_ in TIME_NOUNS for t in phrase):
            return []  # "failed at 06:25 UTC", "began in the evening": when, not what
        return chain + phrase

    def matrix(self, role: str) -> tuple[list[dict[str, str]], numpy.ndarray]:
        if self._matrix is None:
            self._matrix = {}
            for label in {c["type"] for c in self.concepts}:
                rows, vectors = [], []
                for concept in (c for c in self.concepts if c["type"] == label):
                    vector = text_vector(self.vocab, concept["text"])
                    if vector is not None:
                        rows.append(concept)
                        vectors.append(vector)
                self._matrix[label] = (rows, numpy.array(vectors) if vectors else numpy.zeros((0, 0)))
        return self._matrix.get(role, ([], numpy.zeros((0, 0))))


def phrase_vector(span: Span) -> numpy.ndarray | None:
    vectors = [t.vector for t in span if t.has_vector and not (t.is_stop or t.is_punct)]
    return unit(numpy.mean(vectors, axis=0)) if vectors else None


def text_vector(vocab: Any, text: str) -> numpy.ndarray | None:
    vectors = [vocab[word].vector for word in text.split() if vocab.has_vector(word)]
    return unit(numpy.mean(vectors, axis=0)) if vectors else None


def unit(vector: numpy.ndarray) -> numpy.ndarray | None:
    norm = float(numpy.linalg.norm(vector))
    return vector / norm if norm else None
