"""Per-request DataLoaders: every nested field is fetched in one batched query per level of the
response, never one query per parent object (no N+1)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from strawberry.dataloader import DataLoader

from incident_graph.api.query_slots import GraphReader
from incident_graph.graph import queries

CaseRecord = dict[str, Any]
LinkRow = dict[str, Any]  # {case_id, entity: ENTITY_MAP, evidence: EVIDENCE_MAP}


class SharedLoader(DataLoader):
    """A DataLoader whose cached answers survive a cancelled caller. graphql-core cancels the
    sibling fields of a field that failed, and cancelling a task cancels the future it awaits:
    a future shared with other fields would then fail them with CancelledError, which escapes the
    executor as a server error (found by tests/api/test_property_based.py)."""

    def load(self, key: Any) -> Any:
        return asyncio.shield(super().load(key))


@dataclass(frozen=True)
class EntityCasesKey:
    element_id: str
    skip: int
    limit: int


@dataclass(frozen=True)
class EntityCasesPage:
    total: int
    case_ids: list[str]


@dataclass(frozen=True)
class Relatives:
    broader: list[dict[str, Any]]
    narrower: list[dict[str, Any]]


@dataclass
class Loaders:
    case: DataLoader[str, CaseRecord | None]
    case_links: DataLoader[str, list[LinkRow]]
    entity_relatives: DataLoader[str, Relatives]
    entity_cases: DataLoader[EntityCasesKey, EntityCasesPage]


def create_loaders(reader: GraphReader) -> Loaders:
    async def load_cases(case_ids: list[str]) -> Sequence[CaseRecord | None]:
        rows = await reader.rows(queries.CASES_BY_ID, case_ids=case_ids)
        by_id = {row["case"]["case_id"]: row["case"] for row in rows}
        return [by_id.get(case_id) for case_id in case_ids]

    async def load_case_links(case_ids: list[str]) -> Sequence[list[LinkRow]]:
        rows = await reader.rows(queries.CASE_LINKS, case_ids=case_ids)
        by_case: dict[str, list[LinkRow]] = defaultdict(list)
        for row in rows:
            by_case[row["case_id"]].append(row)
        return [by_case.get(case_id, []) for case_id in case_ids]

    async def load_relatives(element_ids: list[str]) -> Sequence[Relatives]:
        rows = await reader.rows(queries.ENTITY_RELATIVES, element_ids=element_ids)
        by_id = {row["element_id"]: Relatives(row["broader"], row["narrower"]) for row in rows}
        return [by_id.get(element_id, Relatives([], [])) for element_id in element_ids]

    async def load_entity_cases(keys: list[EntityCasesKey]) -> Sequence[EntityCasesPage]:
        requests = [{"element_id": k.element_id, "skip": k.skip, "limit": k.limit} for k in keys]
        rows = await reader.rows(queries.ENTITY_CASES, requests=requests)
        by_key = {
            EntityCasesKey(row["element_id"], row["skip"], row["limit"]): EntityCasesPage(row["total"], row["page"])
            for row in rows
        }
        return [by_key.get(key, EntityCasesPage(0, [])) for key in keys]

    return Loaders(
        case=SharedLoader(load_fn=load_cases),
        case_links=SharedLoader(load_fn=load_case_links),
        entity_relatives=SharedLoader(load_fn=load_relatives),
        entity_cases=SharedLoader(load_fn=load_entity_cases),
    )
