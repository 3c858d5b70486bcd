"""Leave-one-out evaluation of `diagnose`, the way an analyst uses it.

On a graph that holds the bundled corpus, for each gold case of the chosen sets: leave the case
out (run_diagnosis's `exclude`, which behaves as if it were absent), diagnose its gold
`analyst_symptoms` text exactly as the API does, and count a hit@k when one of the top k causes,
or a broader concept of it, is one of the case's gold `root_cause_concepts`. The group-level hit
asks whether the group of a gold concept is among the top k groups (by group score). The constant
baseline always answers the k causes (and groups) most cases of the graph have, with the case left
out the same way.

Sets: `old` (the first corpus, whose gold predates analyst_symptoms: the text is its gold symptom
names joined, the gold concepts its gold root-cause names), `train`, `tune-new`, `dev-new` and
`holdout` (new-topic write-ups; dev-new was frozen before any tuning, holdout written after it and
never tuned on: ingest/evaluate.py). Gold is read here only, never by diagnosis.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio.to_thread

from incident_graph.api.diagnosis import MAX_CONCEPTS, MAX_VOCABULARY, SYMPTOM_THRESHOLD, run_diagnosis
from incident_graph.api.diagnosis_ranking import Concept, RankedCause, broader_names
from incident_graph.api.query_slots import GraphReader
from incident_graph.graph import diagnosis_queries as queries
from incident_graph.schema.entity_types import SYMPTOM

KS = (1, 3)


@dataclass(frozen=True)
class GoldCase:
    case_id: str
    set: str
    text: str
    concepts: frozenset[str]


def first_form(concept: object) -> str:
    """A gold concept is a list of forms (the canonical name first) or, in older files, one name."""
    return str(concept[0] if isinstance(concept, list) else concept)


def gold_case(data: dict[str, object]) -> GoldCase | None:
    if "analyst_symptoms" in data:
        split = str(data["split"])
        concepts = frozenset(map(str, data.get("root_cause_concepts") or []))  # type: ignore[call-overload]
        text = str(data["analyst_symptoms"])
    else:
        split = "old"
        symptoms = data.get("symptoms") or []
        concepts = frozenset(first_form(c) for c in data.get("root_causes") or [])  # type: ignore[union-attr]
        text = "; ".join(first_form(s) for s in symptoms)  # type: ignore[union-attr]
    if not text.strip() or not concepts:
        return None
    return GoldCase(str(data["id"]), split, text, concepts)


def gold_cases(folder: Path, sets: Sequence[str]) -> list[GoldCase]:
    found = (gold_case(json.loads(path.read_text(encoding="utf-8"))) for path in sorted(folder.glob("*.json")))
    return [case for case in found if case is not None and case.set in sets]


def cause_hit(causes: Sequence[RankedCause], gold: frozenset[str]) -> bool:
    return any(cause.concept in gold or gold & set(cause.broader) for cause in causes)


def gold_groups(gold: frozenset[str], concepts: dict[str, Concept]) -> set[str]:
    return {concepts[name].group if name in concepts else name for name in gold}


def top_groups(causes: Sequence[RankedCause]) -> list[str]:
    best: dict[str, float] = {}
    for cause in causes:
        best.setdefault(cause.group, cause.group_score)
    return sorted(best, key=lambda group: (-best[group], group))


def constant_answer(concepts: dict[str, Concept], k: int) -> list[RankedCause]:
    """The k specific causes most cases have: the baseline."""
    broader = broader_names(concepts)
    common = sorted((name for name, c in concepts.items() if name not in broader and c.cases),
                    key=lambda name: (-concepts[name].cases, name))[:k]
    return [RankedCause(name, concepts[name].group, concepts[name].chain[1:], float(concepts[name].cases),
                        float(concepts[concepts[name].group].cases if concepts[name].group in concepts else 0),
                        (), ()) for name in common]


@dataclass
class Tally:
    cases: int = 0
    hits: dict[str, int] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)  # of each diagnosis, as the API runs it

    def add(self, key: str, hit: bool) -> None:
        self.hits[key] = self.hits.get(key, 0) + int(hit)

    def as_json(self) -> dict[str, object]:
        rates = {key: round(count / self.cases, 3) if self.cases else 0.0 for key, count in sorted(self.hits.items())}
        return {"cases": self.cases, **rates, "latency_ms": latency_ms(self.seconds)}


def latency_ms(seconds: list[float]) -> dict[str, float]:
    """Median and 99th percentile (nearest rank) of the diagnoses' wall time, in milliseconds."""
    if not seconds:
        return {}
    ordered = sorted(seconds)
    rank = max(0, math.ceil(0.99 * len(ordered)) - 1)
    return {"p50": round(ordered[len(ordered) // 2] * 1000, 1), "p99": round(ordered[rank] * 1000, 1)}


def score(tally: Tally, prefix: str, causes: Sequence[RankedCause], case: GoldCase,
          concepts: dict[str, Concept]) -> None:
    groups, wanted = top_groups(causes), gold_groups(case.concepts, concepts)
    for k in KS:
        tally.add(f"{prefix}hit@{k}", cause_hit(causes[:k], case.concepts))
        tally.add(f"{prefix}group_hit@{k}", bool(wanted & set(groups[:k])))


async def suggested_names(reader: GraphReader, text: str, exclude: list[str]) -> list[str]:
    """The symptom names suggestFilters reads in `text`, as an analyst would pass them to diagnose."""
    from incident_graph.ingest.symptom_reading import suggestions

    vocabulary = await reader.rows(queries.SYMPTOM_VOCABULARY, exclude=exclude, limit=MAX_VOCABULARY)
    known = [(row["name"], list(row["aliases"])) for row in vocabulary]
    found = await anyio.to_thread.run_sync(suggestions, text, known, SYMPTOM_THRESHOLD)
    return list(dict.fromkeys(m.name for m in found if m.type == SYMPTOM.label))


async def evaluate(reader: GraphReader, cases: Sequence[GoldCase],
                   progress: Callable[[int, int], None] = lambda done, total: None,
                   via_names: bool = False) -> dict[str, dict[str, object]]:
    """Per set: the hit rates of diagnosis and of the constant baseline (`baseline_` keys). With
    `via_names`, each text goes through suggestFilters first and its symptom names are diagnosed."""
    present = {row["case_id"] for row in await reader.rows(queries.CASES_PRESENT, case_ids=[c.case_id for c in cases])}
    tallies = {name: Tally() for name in dict.fromkeys(case.set for case in cases)}
    for done, case in enumerate((c for c in cases if c.case_id in present), start=1):
        started = time.perf_counter()
        if via_names:
            names = await suggested_names(reader, case.text, [case.case_id])
            causes = (await run_diagnosis(reader, symptoms=names, exclude=[case.case_id], first=max(KS) * 10)).causes \
                if names else ()
        else:
            causes = (await run_diagnosis(reader, text=case.text, exclude=[case.case_id], first=max(KS) * 10)).causes
        tallies[case.set].seconds.append(time.perf_counter() - started)
        rows = await reader.rows(queries.ROOT_CAUSE_CONCEPTS, exclude=[case.case_id], limit=MAX_CONCEPTS)
        concepts = {row["name"]: Concept(tuple(row["chain"]), row["cases"]) for row in rows}
        tally = tallies[case.set]
        tally.cases += 1
        score(tally, "", causes, case, concepts)
        score(tally, "baseline_", constant_answer(concepts, max(KS) * 10), case, concepts)
        progress(done, len(present))
    return {name: tally.as_json() for name, tally in tallies.items() if tally.cases}
