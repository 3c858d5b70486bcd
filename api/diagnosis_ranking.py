"""How `diagnose` scores root causes, as plain functions of what the graph returned (no I/O).

Evidence comes in as cases, each with a weight:
- cases sharing the understood symptoms: the sum over those symptoms of similarity x IDF x link
  confidence (a symptom few cases show says more than "service outage");
- the cases nearest to the analyst's text by meaning (the vector index): a k-nearest-neighbour
  vote, each neighbour weighing its cosine (to the power MEANING_POWER: above 1 the nearest count most);
- a root cause the text itself names counts as one more case of weight NAMED_CAUSE_WEIGHT;
- for an analyst's text, the taxonomy itself: the TAXONOMY_CONCEPTS root causes whose description ("cooling failure:
  data-centre cooling fails and machines overheat") is nearest to the text by meaning form one more
  case, of weight TAXONOMY_WEIGHT, crediting each by its cosine over the nearest one's. A cause
  that no other case of the graph has can still be found this way, which the cases cannot do.
Each kind is normalised to sum to 1 and the two are blended (SYMPTOM_SHARE); a case's root causes
are credited to every level of the taxonomy above them, so a group gathers its causes' evidence.

A cause's share of its group's evidence is noisy when few cases support the group, so it is
shrunk toward the cause's prior share of the group's cases in the graph, by the group's support
count n: score = group score x (n x share + m x prior) / (n + m). A rare cause that the near cases
point to keeps its share and beats a common one they do not; with little evidence the common
causes of the group lead, as they should.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

SYMPTOM_SHARE = 0.5  # of the blended weight; the rest is meaning
MEANING_POWER = 1.0  # neighbours weigh cosine ** power
SHRINKAGE = 0.5  # m: cases of support at which the observed share and the prior weigh the same
NAMED_CAUSE_WEIGHT = 0.5  # a cause named in the text, as a share of the evidence of the cases
EVIDENCE_SENTENCES = 3  # per diagnosis
NAMED_IN_TEXT = ""  # the pseudo-case of causes named in the text: it supports, but is never listed
TAXONOMY_WEIGHT = 0.5  # the taxonomy's signs, as a share of the evidence of the cases (BENCHMARKS.md)
TAXONOMY_CONCEPTS = 10  # the causes whose signs (or descriptions) are nearest to the text
BY_DESCRIPTION = " taxonomy"  # the pseudo-case of those causes: it supports, but is never listed


@dataclass(frozen=True)
class CauseLink:
    """One root-cause link of a case, placed in the taxonomy."""

    case_id: str
    chain: tuple[str, ...]  # taxonomy concepts: the most specific first, its group last
    confidence: float
    sentence: str


@dataclass(frozen=True)
class Concept:
    chain: tuple[str, ...]  # the concept itself first, its group last
    cases: int  # cases in the graph crediting it (itself or a narrower cause)

    @property
    def group(self) -> str:
        return self.chain[-1]


@dataclass(frozen=True)
class RankedCause:
    concept: str
    group: str
    broader: tuple[str, ...]  # its broader concepts, the nearest first (the group last)
    score: float
    group_score: float
    supporting: tuple[str, ...]  # case ids, strongest first
    evidence: tuple[tuple[str, str], ...]  # (case id, sentence)


def normalised(weights: Mapping[str, float]) -> dict[str, float]:
    total = sum(value for value in weights.values() if value > 0)
    return {key: value / total for key, value in weights.items() if value > 0} if total else {}


def case_weights(by_symptoms: Mapping[str, float], by_meaning: Mapping[str, float],
                 symptom_share: float = SYMPTOM_SHARE, meaning_power: float = MEANING_POWER) -> dict[str, float]:
    """Blend the two kinds of evidence; when one kind found no case, the other takes all the weight."""
    symptoms = normalised(by_symptoms)
    meaning = normalised({case: max(cosine, 0.0) ** meaning_power for case, cosine in by_meaning.items()})
    share = symptom_share if symptoms and meaning else (1.0 if symptoms else 0.0)
    blended: dict[str, float] = defaultdict(float)
    for case, weight in symptoms.items():
        blended[case] += share * weight
    for case, weight in meaning.items():
        blended[case] += (1 - share) * weight
    return dict(blended)


def credits(links: Iterable[CauseLink]) -> dict[str, dict[str, float]]:
    """case id -> concept -> the strongest link confidence crediting it (at any level)."""
    credited: dict[str, dict[str, float]] = defaultdict(dict)
    for link in links:
        for concept in link.chain:
            credited[link.case_id][concept] = max(credited[link.case_id].get(concept, 0.0), link.confidence)
    return credited


def broader_names(concepts: Mapping[str, Concept]) -> set[str]:
    """The concepts some other concept is under: groups and intermediate levels, never ranked."""
    return {name for concept in concepts.values() for name in concept.chain[1:]}


def described(similarities: Mapping[str, float], concepts: Mapping[str, Concept],
              top: int = TAXONOMY_CONCEPTS, broader: set[str] | None = None) -> list[CauseLink]:
    """The links of the taxonomy's pseudo-case: the `top` specific causes by the cosine of their
    description to the text, each credited by its cosine over the nearest one's. `broader`:
    broader_names(concepts), when the caller has it."""
    broader = broader_names(concepts) if broader is None else broader
    nearest = sorted(((cosine, name) for name, cosine in similarities.items()
                      if name in concepts and name not in broader and cosine > 0), reverse=True)[:top]
    if not nearest:
        return []
    best = nearest[0][0]
    return [CauseLink(BY_DESCRIPTION, concepts[name].chain, cosine / best, "") for cosine, name in nearest]


def rank(weights: Mapping[str, float], links: Sequence[CauseLink], concepts: Mapping[str, Concept],
         named_causes: Sequence[str] = (), shrinkage: float = SHRINKAGE,
         named_cause_weight: float = NAMED_CAUSE_WEIGHT, descriptions: Mapping[str, float] | None = None,
         taxonomy_weight: float = TAXONOMY_WEIGHT) -> list[RankedCause]:
    """Specific causes (concepts no other concept is under), best first, each with its group's score
    (a cause without a group is its own group). `descriptions`: each taxonomy cause's cosine to the
    text, for the taxonomy's pseudo-case."""
    weights = dict(weights)
    links = list(links)
    broader = broader_names(concepts)
    by_description = described(descriptions or {}, concepts, broader=broader)
    if by_description and taxonomy_weight > 0:
        weights[BY_DESCRIPTION] = taxonomy_weight * (sum(weights.values()) or 1.0)
        links += by_description
    named = [name for name in named_causes if name in concepts]
    if named:
        weights[NAMED_IN_TEXT] = named_cause_weight * (sum(weights.values()) or 1.0)
        links += [CauseLink(NAMED_IN_TEXT, concepts[name].chain, 1.0 / len(named), "") for name in named]
    credited = credits(link for link in links if link.case_id in weights)
    total = sum(weights.values()) or 1.0
    mass: dict[str, float] = defaultdict(float)
    support: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for case_id, concept_credits in credited.items():
        for concept, credit in concept_credits.items():
            mass[concept] += weights[case_id] * credit / total
            if case_id != NAMED_IN_TEXT:
                support[concept].append((weights[case_id] * credit, case_id))
    ranked = []
    for name, concept in concepts.items():
        if name in broader or mass.get(concept.group, 0.0) <= 0:
            continue  # a group (its causes are ranked), or a cause no evidence points to
        group_cases = concepts[concept.group].cases if concept.group in concepts else 0
        prior = concept.cases / group_cases if group_cases else 0.0
        supporters = sorted(support.get(name, []), key=lambda item: (-item[0], item[1]))
        group_mass, group_support = mass[concept.group], len(support.get(concept.group, [])) + bool(named)
        share = mass.get(name, 0.0) / group_mass
        score = group_mass * (group_support * share + shrinkage * prior) / (group_support + shrinkage)
        if score <= 0:
            continue
        case_ids = tuple(case_id for _, case_id in supporters if case_id != BY_DESCRIPTION)
        ranked.append(RankedCause(name, concept.group, concept.chain[1:], score, group_mass, case_ids,
                                  evidence_of(name, case_ids, links)))
    ranked.sort(key=lambda cause: (-cause.score, cause.concept))
    return ranked


def evidence_of(concept: str, case_ids: Sequence[str], links: Sequence[CauseLink]) -> tuple[tuple[str, str], ...]:
    """The sentence of the strongest link crediting `concept`, of each of the first supporting cases."""
    sentences = []
    for case_id in case_ids[:EVIDENCE_SENTENCES]:
        crediting = [link for link in links if link.case_id == case_id and concept in link.chain and link.sentence]
        if crediting:
            sentences.append((case_id, max(crediting, key=lambda link: link.confidence).sentence))
    return tuple(sentences)


def idf(shown: int, case_count: int) -> float:
    """ln(1 + N / df): the 1 keeps a symptom that every case shows above zero."""
    return math.log(1 + case_count / shown) if shown and case_count else 0.0
