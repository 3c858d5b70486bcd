"""The GraphQL types of `diagnose`: root causes at two levels of the taxonomy, and what was understood."""

from __future__ import annotations

import strawberry

from incident_graph.api.types import Case, RootCause


@strawberry.type(description="A phrase of the input taken for one of the graph's symptoms.")
class UnderstoodSymptom:
    phrase: str = strawberry.field(description="The words given (a name, or a fragment of `text`).")
    symptom: str = strawberry.field(description="The canonical name of the graph's symptom it was taken for.")
    similarity: float = strawberry.field(
        description="1 for a symptom's name or synonym; else the cosine of the two embeddings (see `diagnose`)."
    )
    method: str = strawberry.field(
        description="`name` (given in `symptoms`), `taxonomy` (a name or synonym in `text`) or `meaning`."
    )


@strawberry.type(description="A sentence of a supporting case that states the root cause.")
class DiagnosisEvidence:
    case: Case
    sentence: str


@strawberry.type(description="A root cause the graph links to the given symptoms, with its group.")
class Diagnosis:
    root_cause: RootCause = strawberry.field(description="The specific cause, a taxonomy root cause.")
    group: RootCause | None = strawberry.field(
        description="Its broader group (e.g. `configuration error` above `bad configuration change`)."
    )
    score: float = strawberry.field(
        description="The ranking key, from 0 to 1 and at most groupScore: the group's score times the cause's "
        "share of the group's evidence, shrunk toward its prior share when few cases support the group (see `diagnose`)."
    )
    group_score: float = strawberry.field(description="The group's share of the evidence, from 0 to 1.")
    supporting_case_count: int
    supporting_cases: list[Case] = strawberry.field(description="Strongest support first (at most 20).")
    evidence: list[DiagnosisEvidence] = strawberry.field(
        description="The root-cause sentence of each of the first three supporting cases."
    )
    matched_symptoms: list[str] = strawberry.field(
        description="Which of the understood symptoms its supporting cases show."
    )
    understood_symptoms: list[UnderstoodSymptom] = strawberry.field(
        description="Every symptom the input was understood to name (the same on each diagnosis)."
    )
