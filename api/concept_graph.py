"""The resolver and types of `conceptGraph`: the filtered cases' entities as a graph a person can read.

The `limit` entities most of the filtered cases link to are the nodes, sized by their cases; two are
joined when some case links to both, weighted by how many (at most MAX_CONCEPT_LINKS links, the
strongest). The page's concept view draws it (api/static/library/concept-graph.js).
"""

from __future__ import annotations

import strawberry

from incident_graph.api import limits
from incident_graph.api.resolvers import criteria_from
from incident_graph.api.types import CaseFilter, Entity, Info, entity_from_map
from incident_graph.graph import queries


@strawberry.type(description="An entity of the filtered cases and how many of them link to it.")
class ConceptNode:
    id: strawberry.ID = strawberry.field(description="`<Label>:<name>`, as ConceptLink names it.")
    entity: Entity
    count: int


@strawberry.type(description="Two entities linked from the same cases, and how many cases those are.")
class ConceptLink:
    source: strawberry.ID
    target: strawberry.ID
    shared_cases: int


@strawberry.type(description="The entities most of the filtered cases link to, joined by the cases they share.")
class ConceptGraph:
    case_count: int = strawberry.field(description="How many cases match the filter.")
    concepts: list[ConceptNode]
    links: list[ConceptLink]


def concept_id(entity: dict[str, str]) -> strawberry.ID:
    return strawberry.ID(f"{entity['label']}:{entity['name']}")


async def concept_graph(
    info: Info, filter: CaseFilter | None = None, limit: int | None = limits.DEFAULT_CONCEPTS,
) -> ConceptGraph:
    criteria = criteria_from(filter)
    concept_limit = limits.page_size(limit, argument="limit", maximum=limits.MAX_CONCEPTS,
                                     default=limits.DEFAULT_CONCEPTS)
    row = await info.context.reader.single(queries.concept_graph(criteria), **criteria.parameters(),
                                           limit=concept_limit, link_limit=limits.MAX_CONCEPT_LINKS)
    if row is None:
        return ConceptGraph(case_count=0, concepts=[], links=[])
    ids = {item["entity"]["element_id"]: concept_id(item["entity"]) for item in row["concepts"]}
    return ConceptGraph(
        case_count=row["case_count"],
        concepts=[ConceptNode(id=ids[item["entity"]["element_id"]], entity=entity_from_map(item["entity"]),
                              count=item["count"]) for item in row["concepts"]],
        links=[ConceptLink(source=ids[link["source"]], target=ids[link["target"]], shared_cases=link["shared"])
               for link in row["links"]],
    )
