"""`diagnose`: root causes for symptoms given as names or in the analyst's own words.

One diagnosis is five bounded reads (graph/diagnosis_queries.py) and the ranking of
api/diagnosis_ranking.py. `run_diagnosis` is what the resolver and the leave-one-out evaluation
(api/evaluate_diagnosis.py) both call; the evaluation passes the case it left out in `exclude`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import numpy
import strawberry

from incident_graph.api import limits
from incident_graph.api.diagnosis_ranking import (
    MEANING_POWER,
    NAMED_CAUSE_WEIGHT,
    SHRINKAGE,
    SYMPTOM_SHARE,
    TAXONOMY_CONCEPTS,
    TAXONOMY_WEIGHT,
    CauseLink,
    Concept,
    RankedCause,
    case_weights,
    idf,
    rank,
)
from incident_graph.api.diagnosis_types import Diagnosis, DiagnosisEvidence, UnderstoodSymptom
from incident_graph.api.errors import ClientError
from incident_graph.api.query_slots import GraphReader
from incident_graph.api.types import Case, Info, cases_from_ids, entity_from_map
from incident_graph.graph import diagnosis_queries as queries

if TYPE_CHECKING:  # ingest is imported on first use: the spaCy pipeline is heavy
    from incident_graph.ingest.symptom_reading import Reading, UnderstoodSymptom as Understood

SYMPTOM_THRESHOLD = 0.75  # cosine at which an analyst's phrase is taken for a graph symptom
PLACEMENT_THRESHOLD = 0.75  # cosine at which an extracted root cause is placed under a taxonomy cause
SYMPTOM_POOL = 200  # cases sharing the symptoms, strongest first
MEANING_POOL = 10  # nearest cases by meaning: the k of the k-nearest-neighbour vote
MAX_VOCABULARY = 5_000  # graph symptoms a phrase is matched against (the most shown first)
MAX_CONCEPTS = 2_000  # taxonomy root causes
MAX_CAUSE_LINKS = 5_000  # root-cause links of the pooled cases


@dataclass(frozen=True)
class DiagnosisAnswer:
    understood: tuple[Understood, ...]
    named_causes: tuple[str, ...]
    causes: tuple[RankedCause, ...]
    matched: dict[str, tuple[str, ...]]  # case id -> the understood symptoms it shows
    concepts: dict[str, dict[str, Any]]  # concept name -> its entity map (for the API's RootCause)


def read_input(text: str | None, symptoms: Sequence[str] | None,
               known: list[tuple[str, list[str]]]) -> tuple[Reading, tuple[float, ...] | None]:
    """The reading of the symptoms (ingest/symptom_reading.py) and the embedding to compare cases by."""
    # Imported on first use: the spaCy pipeline is heavy and belongs to ingest.
    from incident_graph.ingest.sentence_encoder import sentence_embedding
    from incident_graph.ingest.symptom_reading import named_symptoms, read_symptoms

    if text is not None:
        return read_symptoms(text, known, SYMPTOM_THRESHOLD), sentence_embedding(text)
    # Names read as a short description too: the cases nearest to them by meaning vote beside the
    # cases showing them (leave-one-out from suggestFilters' names on train and tune-new: hit@3
    # 0.20 -> 0.23 and 0.10 -> 0.14).
    reading = named_symptoms(list(symptoms or []), known)
    understood = "; ".join(s.symptom for s in reading.symptoms)
    return reading, sentence_embedding(understood) if understood else None


def placed_links(rows: list[dict[str, Any]], concepts: dict[str, Concept]) -> list[CauseLink]:
    """Root-cause links in the taxonomy: a taxonomy cause keeps its chain; an extracted one with no
    broader concept is placed under the nearest taxonomy cause by meaning, or dropped."""
    from incident_graph.ingest.meaning_match import name_vectors
    from incident_graph.ingest.pipeline import default_pipeline

    vectors = name_vectors(default_pipeline())
    names = [(name, ()) for name, concept in concepts.items() if len(concept.chain) > 1]
    links = []
    for row in rows:
        chain = tuple(name for name in row["chain"] if name in concepts)
        if not chain:
            match = vectors.nearest(row["name"], names, PLACEMENT_THRESHOLD)
            chain = concepts[match.name].chain if match else ()
        if chain:
            links.append(CauseLink(row["case_id"], chain, row["confidence"], row["sentence"]))
    return links


def description_text(entity: dict[str, Any]) -> str:
    """What a taxonomy cause's meaning is compared by: its signs, which say what an analyst sees
    (BENCHMARKS.md, "Signs for diagnosis"), else its name and description."""
    if entity.get("signs"):
        return "; ".join(entity["signs"])
    return f"{entity['name']}: {entity['description']}" if entity.get("description") else str(entity["name"])


@lru_cache(maxsize=MAX_CONCEPTS)
def description_embedding(text: str) -> numpy.ndarray | None:
    """A taxonomy cause's name and description, embedded once per process (they change only with
    the taxonomy), kept as an array so a request stacks them without converting each again."""
    from incident_graph.ingest.sentence_encoder import sentence_embedding

    embedding = sentence_embedding(text)
    return numpy.asarray(embedding) if embedding is not None else None


def description_similarities(vector: Sequence[float] | None, concept_rows: list[dict[str, Any]]) -> dict[str, float]:
    """Each taxonomy root cause's cosine, by its description, to the text's embedding."""
    if vector is None:
        return {}
    embedded = [(row["name"], description_embedding(description_text(row["entity"]))) for row in concept_rows]
    embedded = [(name, embedding) for name, embedding in embedded if embedding is not None]
    if not embedded:
        return {}
    cosines = numpy.stack([embedding for _, embedding in embedded]) @ numpy.asarray(vector)
    return {name: float(cosine) for (name, _), cosine in zip(embedded, cosines)}


async def run_diagnosis(reader: GraphReader, text: str | None = None, symptoms: Sequence[str] | None = None,
                        exclude: Sequence[str] = (), first: int = limits.DEFAULT_DIAGNOSES) -> DiagnosisAnswer:
    excluded = list(exclude)
    vocabulary = await reader.rows(queries.SYMPTOM_VOCABULARY, exclude=excluded, limit=MAX_VOCABULARY)
    known = [(row["name"], list(row["aliases"])) for row in vocabulary]
    shown = {row["name"]: row["shown"] for row in vocabulary}
    case_count = vocabulary[0]["case_count"] if vocabulary else 0
    reading, vector = await anyio.to_thread.run_sync(read_input, text, symptoms, known)
    given = [{"name": s.symptom, "weight": s.similarity * idf(shown.get(s.symptom, 0), case_count)}
             for s in reading.symptoms]

    async def nearest_by_meaning() -> list[dict[str, Any]]:
        if vector is None:
            return []
        return await reader.rows(queries.NEAREST_CASES, vector=list(vector), exclude=excluded, pool=MEANING_POOL)

    # Three independent reads: Neo4j runs them side by side.
    by_symptoms, by_meaning, concept_rows = await asyncio.gather(
        reader.rows(queries.SYMPTOM_CASES, symptoms=[g for g in given if g["weight"] > 0],
                    exclude=excluded, pool=SYMPTOM_POOL),
        nearest_by_meaning(),
        reader.rows(queries.ROOT_CAUSE_CONCEPTS, exclude=excluded, limit=MAX_CONCEPTS),
    )
    weights = case_weights({row["case_id"]: row["weight"] for row in by_symptoms},
                           {row["case_id"]: row["meaning"] for row in by_meaning})
    concepts = {row["name"]: Concept(tuple(row["chain"]), row["cases"]) for row in concept_rows}
    cause_rows = await reader.rows(queries.CASE_CAUSES, case_ids=sorted(weights), limit=MAX_CAUSE_LINKS)
    links = await anyio.to_thread.run_sync(placed_links, cause_rows, concepts)
    # Only for the analyst's own words: measured there (BENCHMARKS.md); names keep the cases' evidence.
    similarities = await anyio.to_thread.run_sync(description_similarities, vector, concept_rows) \
        if text is not None else {}
    causes = rank(weights, links, concepts, reading.root_causes, descriptions=similarities)[:first]
    return DiagnosisAnswer(
        understood=reading.symptoms,
        named_causes=reading.root_causes,
        causes=tuple(causes),
        matched={row["case_id"]: tuple(row["matched"]) for row in by_symptoms},
        concepts={row["name"]: row["entity"] for row in concept_rows},
    )


def checked_input(text: str | None, symptoms: list[str] | None) -> tuple[str | None, list[str] | None]:
    """Exactly one of `symptoms` and `text`, each within its limits."""
    if (text is None) == (symptoms is None):
        raise ClientError("Give exactly one of `symptoms` (symptom names) and `text` (the symptoms in your own "
                          f"words), not {'both' if text is not None else 'neither'}.")
    if symptoms is not None:
        names = list(limits.value_list(symptoms, "symptoms"))
        if not names:
            raise ClientError("`symptoms` must name at least one symptom.")
        return None, names
    phrase = limits.search_text(text or "").strip()
    if not phrase:
        raise ClientError("`text` must say something: it is empty.")
    return phrase, None


DESCRIPTION = (
    "Root causes for symptoms given as names (`symptoms`) or in your own words (`text`; exactly one of the "
    "two), best first, each a taxonomy root cause with its broader group. The text is cut into fragments; "
    "the ingest pipeline reads the taxonomy's symptoms and root causes in it, and a fragment naming no known "
    f"symptom is matched by meaning to the graph's symptoms (cosine of word-vector embeddings >= {SYMPTOM_THRESHOLD}). "
    "Evidence: (a) cases showing the understood symptoms, each weighing the sum of similarity x IDF (rare "
    f"symptoms count more) x link confidence ({SYMPTOM_POOL} at most); (b) the {MEANING_POOL} cases "
    f"nearest by meaning to the text (or to the understood symptoms' names) (the vector index of sentence embeddings), each weighing its cosine{'' if MEANING_POWER == 1 else f' ** {MEANING_POWER:g}'}; each kind sums "
    f"to 1 and they are blended {SYMPTOM_SHARE:g} / {1 - SYMPTOM_SHARE:g}; root causes the text names "
    f"count as one more case weighing {NAMED_CAUSE_WEIGHT:g} of that evidence, and, for `text`, the {TAXONOMY_CONCEPTS} taxonomy "
    f"causes whose signs (how each shows, see Entity.signs; else name and description) are nearest to the text "
    f"by meaning as one more weighing {TAXONOMY_WEIGHT:g} (each "
    "credited by its cosine over the nearest one's), so a cause no other case has can still be found. A case credits its root causes and every broader concept (extracted "
    f"causes are placed under the nearest taxonomy cause, cosine >= {PLACEMENT_THRESHOLD}). groupScore is a "
    "group's share of the evidence; score is groupScore x (n x share + m x prior) / (n + m), with share the "
    "cause's part of its group's evidence, prior its share of the group's cases in the graph, n the group's "
    f"supporting cases and m = {SHRINKAGE:g}: a rare cause that the evidence points to beats a common one it does "
    "not, and with little evidence the group's common causes lead. "
    "The answer is bounded: the pools above, and `first` causes (at most 100)."
)


async def diagnose(
    info: Info, symptoms: list[str] | None = None, text: str | None = None,
    first: int | None = limits.DEFAULT_DIAGNOSES,
) -> list[Diagnosis]:
    phrase, names = checked_input(text, symptoms)
    size = limits.page_size(first, default=limits.DEFAULT_DIAGNOSES)
    answer = await run_diagnosis(info.context.reader, text=phrase, symptoms=names, first=size)
    return diagnoses_of(answer)


def diagnoses_of(answer: DiagnosisAnswer) -> list[Diagnosis]:
    understood = [UnderstoodSymptom(phrase=u.phrase, symptom=u.symptom, similarity=u.similarity, method=u.method)
                  for u in answer.understood]
    results = []
    for cause in answer.causes:
        shown = {name for case_id in cause.supporting for name in answer.matched.get(case_id, ())}
        group = answer.concepts.get(cause.group) if cause.group != cause.concept else None
        results.append(Diagnosis(
            root_cause=entity_from_map(answer.concepts[cause.concept]),
            group=entity_from_map(group) if group else None,
            score=round(cause.score, 6),
            group_score=round(cause.group_score, 6),
            supporting_case_count=len(cause.supporting),
            supporting_cases=cases_from_ids(list(cause.supporting[: limits.MAX_LISTED_CASES])),
            evidence=[DiagnosisEvidence(case=Case(id=strawberry.ID(case_id)), sentence=sentence)
                      for case_id, sentence in cause.evidence],
            matched_symptoms=[u.symptom for u in answer.understood if u.symptom in shown],
            understood_symptoms=understood,
        ))
    return results
