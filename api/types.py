"""The GraphQL types: cases, the five kinds of entity, their links with evidence, and result shapes.

Objects carry only what identifies them (a case id, an entity's node id and fields); anything
nested is fetched through the request's DataLoaders, so a response costs one query per level.
The classes are written out, not generated from schema/entity_types.py: the SDL is a contract
(tests/schema/test_entity_types.py checks them against the entity types).
"""

from __future__ import annotations

import copy
import datetime as dt
from enum import Enum
from typing import Any, Generic, TypeVar

import strawberry

from incident_graph.api.context import RequestContext
from incident_graph.api.dataloaders import CaseRecord, EntityCasesKey
from incident_graph.api.errors import ClientError
from incident_graph.api.limits import DEFAULT_PAGE_SIZE
from incident_graph.api.pagination import Window, window
from incident_graph.graph.queries import SIMILAR_MEANING_WEIGHT
from incident_graph.schema import entity_types, models
from incident_graph.schema.models import property_defaults
from incident_graph.schema.records import evidence_method_description

Info = strawberry.Info[RequestContext, None]
NodeT = TypeVar("NodeT")
EntityT = TypeVar("EntityT")


# ------------------------------------------------------------------ enums and inputs


# Named for their values (entity labels); GraphQL knows them as EntityType and NodeType, the contract's names.
@strawberry.enum(name="EntityType", description="The five kinds of entity a case links to.")
class EntityLabel(Enum):
    SYMPTOM = entity_types.SYMPTOM.label
    ROOT_CAUSE = entity_types.ROOT_CAUSE.label
    COMPONENT = entity_types.COMPONENT.label
    CONTRIBUTING_FACTOR = entity_types.CONTRIBUTING_FACTOR.label
    ORGANISATION = entity_types.ORGANISATION.label


@strawberry.enum(name="NodeType", description="What a node of the graph is: a case, or one of the five kinds of entity.")
class NodeLabel(Enum):
    CASE = "Case"
    SYMPTOM = entity_types.SYMPTOM.label
    ROOT_CAUSE = entity_types.ROOT_CAUSE.label
    COMPONENT = entity_types.COMPONENT.label
    CONTRIBUTING_FACTOR = entity_types.CONTRIBUTING_FACTOR.label
    ORGANISATION = entity_types.ORGANISATION.label


@strawberry.input(
    description=(
        "Which cases to keep. Within a list any value matches, across lists all must match; naming a "
        "broader concept also matches its narrower ones. Names are canonical entity names."
    )
)
class CaseFilter:
    symptoms: list[str] | None = None
    root_causes: list[str] | None = None
    components: list[str] | None = None
    contributing_factors: list[str] | None = None
    organisations: list[str] | None = None
    text: str | None = strawberry.field(
        default=None,
        description="Words that must all occur in the case's title, text, detection or lessons (full-text "
        "index); query syntax is not interpreted. Results are then ranked by relevance.",
    )
    published_from: dt.date | None = strawberry.field(default=None, description="Inclusive.")
    published_to: dt.date | None = strawberry.field(
        default=None, description="Inclusive. A case dated only by month or year counts from its first day."
    )


@strawberry.input(
    description="A node of the graph: an entity by type and canonical name, or a case (type CASE, name = case id)."
)
class EntityRef:
    type: NodeLabel
    name: str


# ------------------------------------------------------------------ small shared types


@strawberry.type(description="Why the extractor drew a link: where in the case's text, how, and how sure.")
class Evidence:
    sentence: str
    mention: str | None = strawberry.field(description="The text as written in the case.")
    start: int | None = strawberry.field(description="Character offset into Case.text.")
    end: int | None
    method: str = strawberry.field(description=evidence_method_description())
    confidence: float
    section: str | None


@strawberry.type
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None


@strawberry.type
class Edge(Generic[NodeT]):
    node: NodeT
    cursor: str


def edges_and_page_info(nodes: list[NodeT], page: Window, has_next: bool) -> tuple[list[Edge[NodeT]], PageInfo]:
    edges = [Edge(node=node, cursor=page.cursor(index)) for index, node in enumerate(nodes)]
    info = PageInfo(
        has_next_page=has_next,
        has_previous_page=page.skip > 0,
        start_cursor=edges[0].cursor if edges else None,
        end_cursor=edges[-1].cursor if edges else None,
    )
    return edges, info


# ------------------------------------------------------------------ entities


@strawberry.interface(
    description="Something cases link to: a symptom, root cause, component, contributing factor or organisation."
)
class Entity:
    element_id: strawberry.Private[str]
    name: str = strawberry.field(description="Canonical name.")
    aliases: list[str] = strawberry.field(description="Other ways write-ups say it.")
    description: str
    signs: list[str] = strawberry.field(
        description="How it shows before anyone knows it is the cause, in an on-call engineer's words (the "
                    "taxonomy's, so far for root causes); diagnose(text:) compares the analyst's words with them."
    )
    known: bool = strawberry.field(
        description="True for a taxonomy concept, false for a name extracted from a write-up."
    )
    type: EntityLabel

    @strawberry.field(description="Broader concepts (of the same type) this one is grouped under.")
    async def broader(self, info: Info) -> list[Entity]:
        relatives = await info.context.loaders.entity_relatives.load(self.element_id)
        return [entity_from_map(row) for row in relatives.broader]

    @strawberry.field(description="Narrower concepts grouped under this one.")
    async def narrower(self, info: Info) -> list[Entity]:
        relatives = await info.context.loaders.entity_relatives.load(self.element_id)
        return [entity_from_map(row) for row in relatives.narrower]

    @strawberry.field(description="Cases linked to this entity or to a narrower one, newest first.")
    async def cases(
        self, info: Info, first: int | None = DEFAULT_PAGE_SIZE, after: str | None = None
    ) -> EntityCaseConnection:
        page = window(first, after)
        # One extra row says whether there is a next page.
        found = await info.context.loaders.entity_cases.load(
            EntityCasesKey(self.element_id, page.skip, page.limit + 1)
        )
        nodes = [Case(id=strawberry.ID(case_id)) for case_id in found.case_ids[: page.limit]]
        edges, page_info = edges_and_page_info(nodes, page, has_next=len(found.case_ids) > page.limit)
        return EntityCaseConnection(total_count=found.total, edges=edges, page_info=page_info)


@strawberry.type
class Symptom(Entity):
    pass


@strawberry.type
class RootCause(Entity):
    pass


@strawberry.type
class Component(Entity):
    pass


@strawberry.type
class ContributingFactor(Entity):
    pass


@strawberry.type
class Organisation(Entity):
    pass


# The GraphQL object types of the entities, named as their labels (the test of entity types checks
# there is one for each type of schema/entity_types.py).
ENTITY_OBJECT_TYPES: tuple[type[Entity], ...] = (Symptom, RootCause, Component, ContributingFactor, Organisation)
ENTITY_CLASSES: dict[str, type[Entity]] = {cls.__name__: cls for cls in ENTITY_OBJECT_TYPES}


def entity_from_map(row: dict[str, Any]) -> Any:
    """An Entity from an ENTITY_MAP projection (graph/queries.py)."""
    return ENTITY_CLASSES[row["label"]](
        element_id=row["element_id"],
        name=row["name"],
        aliases=list(row["aliases"] or []),
        description=row["description"] or "",
        signs=list(row["signs"] or []),
        known=row["known"] != "extracted",
        type=EntityLabel(row["label"]),
    )


@strawberry.type(description="A link from a case to an entity, with the evidence for it.")
class Link(Generic[EntityT]):
    entity: EntityT
    evidence: Evidence


# ------------------------------------------------------------------ cases


CASE_DEFAULTS = property_defaults(models.Case)


def record_value(record: CaseRecord, name: str) -> Any:
    """One field of a Case from its stored record: neo4j.time values as Python ones, and a missing
    value as the model's default (schema/models.py). The one place a record becomes a Case."""
    value = record.get(name)
    if value is None:
        return copy.copy(CASE_DEFAULTS.get(name))  # a fresh list for a list default
    return value.to_native() if hasattr(value, "to_native") else value  # neo4j.time values


async def case_record(case: Case, info: Info) -> CaseRecord:
    record = await info.context.loaders.case.load(str(case.id))
    if record is None:
        raise ClientError(f"Case {case.id!r} does not exist (it may have just been deleted).")
    return record


# A Case is created from its id alone, so a query that selects only ids costs no record; its other
# fields share the record the request's DataLoader fetches once. Each resolver serves every field of
# its kind by the field's name (a record key, or an entity type key).
async def case_field(root: Case, info: Info) -> Any:
    return record_value(await case_record(root, info), info.python_name)


async def case_links(root: Case, info: Info) -> Any:
    label = entity_types.BY_KEY[info.python_name].label
    rows = await info.context.loaders.case_links.load(str(root.id))
    return [
        Link(entity=entity_from_map(row["entity"]), evidence=Evidence(**row["evidence"]))
        for row in rows
        if row["entity"]["label"] == label
    ]


@strawberry.type(description="One incident write-up and what was extracted from it.")
class Case:
    id: strawberry.ID = strawberry.field(description="Stable case id (file name or record id).")
    title: str = strawberry.field(resolver=case_field)
    source: str = strawberry.field(resolver=case_field, description="File path or URL of the write-up.")
    published: str | None = strawberry.field(
        resolver=case_field, description="Publication date as written: YYYY, YYYY-MM or YYYY-MM-DD.")
    published_on: dt.date | None = strawberry.field(resolver=case_field, description="First day of `published`.")
    text: str = strawberry.field(resolver=case_field, description="The write-up's text; evidence offsets point into it.")
    detection: str = strawberry.field(resolver=case_field)
    remediation: list[str] = strawberry.field(resolver=case_field)
    lessons: str = strawberry.field(resolver=case_field)
    layout: str = strawberry.field(resolver=case_field, description="sectioned or free-form.")
    ingested_at: dt.datetime | None = strawberry.field(resolver=case_field)
    symptoms: list[Link[Symptom]] = strawberry.field(resolver=case_links)
    root_causes: list[Link[RootCause]] = strawberry.field(resolver=case_links)
    components: list[Link[Component]] = strawberry.field(resolver=case_links)
    contributing_factors: list[Link[ContributingFactor]] = strawberry.field(resolver=case_links)
    organisations: list[Link[Organisation]] = strawberry.field(resolver=case_links)


def cases_from_ids(case_ids: list[str]) -> list[Case]:
    return [Case(id=strawberry.ID(case_id)) for case_id in case_ids]


@strawberry.type(description="Cases of one entity, newest first.")
class EntityCaseConnection:
    total_count: int
    page_info: PageInfo
    edges: list[Edge[Case]]


@strawberry.type
class Connection(Generic[NodeT]):
    total_count: int
    page_info: PageInfo
    edges: list[Edge[NodeT]]


@strawberry.type(description="An entity and how many cases of the filtered set link to it.")
class FacetValue:
    name: str
    count: int


@strawberry.type(description="For each entity type, its values within the filtered cases, most frequent first.")
class Facets:
    symptoms: list[FacetValue]
    root_causes: list[FacetValue]
    components: list[FacetValue]
    contributing_factors: list[FacetValue]
    organisations: list[FacetValue]


def facets_from(rows: list[dict[str, Any]]) -> Facets:
    """Facets from case_facets rows (relationship, name, count), in the rows' order."""
    values: dict[str, list[FacetValue]] = {entity_type.key: [] for entity_type in entity_types.ENTITY_TYPES}
    for row in rows:
        key = entity_types.BY_RELATIONSHIP[row["relationship"]].key
        values[key].append(FacetValue(name=row["name"], count=row["count"]))
    return Facets(**values)


@strawberry.type(description="Cases matching a filter: a page of them, how many in all, and facet counts.")
class CaseConnection:
    total_count: int = strawberry.field(description="How many cases match, in all pages.")
    edges: list[Edge[Case]]
    page_info: PageInfo
    facets: Facets


# ------------------------------------------------------------------ traversal results


@strawberry.type(description="A root cause shared with cases showing the symptom, and those cases.")
class SharedRootCause:
    root_cause: RootCause
    connecting_cases: list[Case] = strawberry.field(
        description="Cases showing the symptom that have this root cause (the first 20 by id)."
    )
    connecting_case_count: int


@strawberry.type
class CaseSharingRootCause:
    case: Case
    shared_root_causes: list[SharedRootCause]


@strawberry.type
class RelatedCase:
    case: Case
    shared_count: int = strawberry.field(
        description="How many entities it shares with the given case; the ranking key."
    )
    shared: list[Entity] = strawberry.field(description="The shared entities, by type then name.")


@strawberry.type(description="A case similar to the given case or phrase, and why.")
class SimilarCase:
    case: Case
    score: float = strawberry.field(
        description=f"The ranking key: {SIMILAR_MEANING_WEIGHT} * meaning + {1 - SIMILAR_MEANING_WEIGHT} * "
        "sharedEntityScore (a missing meaning counts 0). Candidates are the nearest cases by meaning (the vector "
        "index) and those sharing most entities."
    )
    meaning: float | None = strawberry.field(
        description="Cosine of the two embeddings (mean content-word vectors of the trained pipeline), from -1 "
        "to 1; null when either has no embedding (a pipeline without vectors): only shared entities rank it."
    )
    shared_entity_score: float = strawberry.field(
        description="Shared entities / sqrt(entities given * entities of this case), from 0 to 1."
    )
    shared: list[Entity] = strawberry.field(description="The entities it shares, by type then name.")


@strawberry.type(description="A filter value recognised in a search phrase.")
class FilterSuggestion:
    type: EntityLabel
    name: str = strawberry.field(description="Canonical name, usable in CaseFilter.")
    mention: str = strawberry.field(description="The words of the phrase that name it.")
    start: int
    end: int
    confidence: float


@strawberry.type(description="A node for a graph view.")
class GraphNode:
    id: strawberry.ID = strawberry.field(description="Type and name, e.g. `Case:gitlab-2017` or `Symptom:data loss`.")
    type: NodeLabel
    name: str = strawberry.field(description="Canonical name, or the case id for a case (as in EntityRef).")
    title: str = strawberry.field(description="What to display: the case title or the entity name.")


@strawberry.type(description="A relationship for a graph view, in its stored direction.")
class GraphEdge:
    source: strawberry.ID
    target: strawberry.ID
    type: str = strawberry.field(description="HAS_SYMPTOM, HAS_ROOT_CAUSE, ..., or BROADER.")
    confidence: float | None


@strawberry.type
class Path:
    length: int = strawberry.field(description="Number of relationships.")
    nodes: list[GraphNode]
    edges: list[GraphEdge]


@strawberry.type
class Subgraph:
    nodes: list[GraphNode]
    edges: list[GraphEdge]


def graph_node(row: dict[str, Any]) -> GraphNode:
    """From a map with label and name (and title for cases)."""
    return GraphNode(
        id=strawberry.ID(f"{row['label']}:{row['name']}"),
        type=NodeLabel(row["label"]),
        name=row["name"],
        title=row.get("title") or row["name"],
    )


# ------------------------------------------------------------------ mutation results


@strawberry.input(description="One write-up to ingest, as in the corpus's JSON Lines records.")
class DocumentInput:
    id: strawberry.ID = strawberry.field(description="Stable case id; ingesting the same id again updates the case.")
    title: str
    body: str
    source: str | None = None
    date: str | None = strawberry.field(default=None, description="YYYY, YYYY-MM or YYYY-MM-DD.")
    organisation: str | None = None


@strawberry.type
class IngestFailure:
    origin: str
    message: str


@strawberry.type
class IngestResult:
    added: list[strawberry.ID]
    updated: list[strawberry.ID]
    skipped: list[strawberry.ID]
    failed: list[IngestFailure]
