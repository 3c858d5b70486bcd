"""Root query fields: check the arguments, run one query (graph/queries.py), build the result types.

Nested fields of the results (a case's title, links, an entity's cases...) are not fetched here:
the types resolve them through the request's DataLoaders.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import anyio.to_thread
import strawberry
from strawberry.types.nodes import SelectedField

from incident_graph.api import diagnosis, limits
from incident_graph.api.errors import ClientError
from incident_graph.api.pagination import Window, window
from incident_graph.api.types import (
    Case,
    CaseConnection,
    CaseFilter,
    CaseSharingRootCause,
    Connection,
    EntityLabel,
    EntityRef,
    Facets,
    FilterSuggestion,
    GraphEdge,
    GraphNode,
    Info,
    NodeLabel,
    Path,
    RelatedCase,
    SharedRootCause,
    SimilarCase,
    Subgraph,
    cases_from_ids,
    edges_and_page_info,
    entity_from_map,
    facets_from,
    graph_node,
)
from incident_graph.graph import diagnosis_queries, queries
from incident_graph.schema import entity_types

TYPE_ORDER = {entity_type.label: index for index, entity_type in enumerate(entity_types.ENTITY_TYPES)}


def criteria_from(case_filter: CaseFilter | None) -> queries.CaseCriteria:
    if case_filter is None:
        return queries.CaseCriteria()
    names = []
    for entity_type in entity_types.ENTITY_TYPES:
        values = getattr(case_filter, entity_type.key)
        if values is not None:
            # An empty list names nothing, so it matches nothing, as "any of []" should.
            argument = f"filter.{entity_type.graphql_field}"
            names.append((entity_type.label, limits.value_list(values, argument)))
    if (
        case_filter.published_from and case_filter.published_to
        and case_filter.published_from > case_filter.published_to
    ):
        raise ClientError("`filter.publishedFrom` is after `filter.publishedTo`.")
    return queries.CaseCriteria(
        names=tuple(names),
        text=limits.search_text(case_filter.text, "filter.text") if case_filter.text else None,
        published_from=case_filter.published_from,
        published_to=case_filter.published_to,
    )


# ------------------------------------------------------------------ cases


async def case(info: Info, id: strawberry.ID) -> Case | None:
    record = await info.context.loaders.case.load(str(id))
    return Case(id=id) if record is not None else None


def selected_names(info: Info) -> set[str]:
    """The GraphQL names of the fields selected on this field's result, fragments included."""
    names: set[str] = set()
    pending: list[Any] = [selection for field in info.selected_fields for selection in field.selections]
    while pending:
        selection = pending.pop()
        if isinstance(selection, SelectedField):
            names.add(selection.name)
        else:  # a fragment spread or an inline fragment
            pending += selection.selections
    return names


async def cases(
    info: Info, filter: CaseFilter | None = None, first: int | None = limits.DEFAULT_PAGE_SIZE,
    after: str | None = None,
) -> CaseConnection:
    criteria, page = criteria_from(filter), window(first, after)
    reader, parameters = info.context.reader, criteria.parameters()
    wanted = selected_names(info)

    # Count, page and facets each cost a query: each runs only when the query selects it.
    async def total_count() -> int:
        if "totalCount" not in wanted:
            return 0
        row = await reader.single(queries.cases_count(criteria), **parameters)
        return row["total"] if row else 0

    async def page_ids() -> list[str]:
        if not wanted & {"edges", "pageInfo"}:
            return []
        # One extra row says whether there is a next page.
        rows = await reader.rows(queries.cases_page(criteria), **parameters, skip=page.skip, limit=page.limit + 1)
        return [row["case_id"] for row in rows]

    async def facets() -> Facets:
        rows = await reader.rows(queries.case_facets(criteria), **parameters) if "facets" in wanted else []
        return facets_from(rows)

    total, case_ids, facet_values = await asyncio.gather(total_count(), page_ids(), facets())
    edges, page_info = edges_and_page_info(cases_from_ids(case_ids[: page.limit]), page,
                                           has_next=len(case_ids) > page.limit)
    return CaseConnection(total_count=total, edges=edges, page_info=page_info, facets=facet_values)


async def cases_sharing_root_cause(
    info: Info, symptom: str, first: int | None = limits.MAX_PAGE_SIZE
) -> list[CaseSharingRootCause]:
    limit = limits.page_size(first, default=limits.MAX_PAGE_SIZE)
    rows = await info.context.reader.rows(
        queries.CASES_SHARING_ROOT_CAUSE, symptom=symptom.strip(), limit=limit,
        connecting_limit=limits.MAX_LISTED_CASES,
    )
    return [
        CaseSharingRootCause(
            case=Case(id=strawberry.ID(row["case_id"])),
            shared_root_causes=[
                SharedRootCause(
                    root_cause=entity_from_map(item["cause"]),
                    connecting_cases=cases_from_ids(item["connecting"]),
                    connecting_case_count=item["connecting_count"],
                )
                for item in sorted(row["shared"], key=lambda item: item["cause"]["name"])
            ],
        )
        for row in rows
    ]


async def related_cases(
    info: Info, id: strawberry.ID, via: list[EntityLabel] | None = None,
    first: int | None = limits.DEFAULT_PAGE_SIZE,
) -> list[RelatedCase]:
    labels = [entity_type.value for entity_type in via] if via else list(entity_types.LABELS)
    rows = await info.context.reader.rows(
        queries.RELATED_CASES, case_id=str(id), limit=limits.page_size(first),
        relationship_types=[entity_types.entity_type(label).relationship for label in labels],
    )
    return [
        RelatedCase(
            case=Case(id=strawberry.ID(row["case_id"])),
            shared_count=len(row["shared"]),
            shared=sorted_entities(row["shared"]),
        )
        for row in rows
    ]


def sorted_entities(rows: list[dict[str, Any]]) -> list[Any]:
    return [entity_from_map(entity) for entity in sorted(rows, key=lambda e: (TYPE_ORDER[e["label"]], e["name"]))]


async def similar_page(
    info: Info, page: Window, vector: list[float] | None, entity_ids: list[str], exclude: list[str]
) -> Connection[SimilarCase]:
    """One page of the cases nearest to a vector and a set of entities (graph/queries.py SIMILAR_CASES)."""
    row = await info.context.reader.single(
        queries.SIMILAR_CASES, vector=vector, entity_ids=entity_ids, exclude=exclude,
        pool=limits.SIMILAR_CASE_POOL, meaning_weight=queries.SIMILAR_MEANING_WEIGHT,
        skip=page.skip, limit=page.limit + 1,
    )
    found = row["page"] if row else []
    similar = [
        SimilarCase(case=Case(id=strawberry.ID(item["case_id"])), score=item["score"], meaning=item["meaning"],
                    shared_entity_score=item["overlap"], shared=sorted_entities(item["shared"]))
        for item in found[: page.limit]
    ]
    edges, page_info = edges_and_page_info(similar, page, has_next=len(found) > page.limit)
    return Connection(total_count=row["total"] if row else 0, edges=edges, page_info=page_info)


async def similar_cases(
    info: Info, id: strawberry.ID, first: int | None = limits.DEFAULT_PAGE_SIZE, after: str | None = None
) -> Connection[SimilarCase]:
    page = window(first, after)
    source = await info.context.reader.single(queries.SIMILARITY_SOURCE, case_id=str(id))
    if source is None:
        raise ClientError(f"`id`: there is no case with id {str(id)!r}.")
    return await similar_page(info, page, source["embedding"], source["entity_ids"], exclude=[str(id)])


def read_phrase(text: str) -> tuple[list[float] | None, list[Any]]:
    """The phrase's embedding and the taxonomy concepts it names, from the ingest pipeline."""
    try:
        # Imported on first use: the spaCy pipeline is heavy and belongs to ingest.
        from incident_graph.ingest.sentence_encoder import sentence_embedding
        from incident_graph.ingest.suggest import suggest_filters as find_filter_values
    except ImportError:
        raise ClientError("This needs the ingest pipeline, which is not installed.") from None
    vector = sentence_embedding(text)
    return (list(vector) if vector is not None else None), find_filter_values(text)


async def cases_like(
    info: Info, text: str, first: int | None = limits.DEFAULT_PAGE_SIZE, after: str | None = None
) -> Connection[SimilarCase]:
    phrase = limits.search_text(text).strip()
    if not phrase:
        raise ClientError("`text` must say something: it is empty.")
    page = window(first, after)
    vector, mentions = await anyio.to_thread.run_sync(read_phrase, phrase)
    if vector is None and not mentions:
        raise ClientError(
            "`text`: nothing to compare by. It has no content words to embed (or the sentence encoder is not "
            "installed) and it names no entity of the taxonomy."
        )
    rows = await info.context.reader.rows(
        queries.ENTITY_IDS_BY_NAME, entities=[{"label": m.type, "name": m.name} for m in mentions]
    )
    return await similar_page(info, page, vector, [row["element_id"] for row in rows], exclude=[])


async def suggest_filters(info: Info, text: str) -> list[FilterSuggestion]:
    phrase = limits.search_text(text)
    try:
        # Imported on first use: the spaCy pipeline is heavy and belongs to ingest.
        from incident_graph.ingest.symptom_reading import suggestions
    except ImportError:
        raise ClientError("suggestFilters is not available: the ingest pipeline is not installed.") from None
    # The graph's symptoms, for the words that name none by name (matched by meaning, as diagnose does).
    vocabulary = await info.context.reader.rows(diagnosis_queries.SYMPTOM_VOCABULARY, exclude=[],
                                                limit=diagnosis.MAX_VOCABULARY)
    known = [(row["name"], list(row["aliases"])) for row in vocabulary]
    mentions = await anyio.to_thread.run_sync(suggestions, phrase, known, diagnosis.SYMPTOM_THRESHOLD)
    return [
        FilterSuggestion(
            type=EntityLabel(mention.type), name=mention.name, mention=mention.mention,
            start=mention.start, end=mention.end, confidence=mention.confidence,
        )
        for mention in mentions
    ]


# ------------------------------------------------------------------ graph views


async def path(
    info: Info,
    from_: Annotated[EntityRef, strawberry.argument(name="from")],
    to: EntityRef,
    max_hops: int | None = limits.DEFAULT_HOPS,
) -> Path | None:
    hops = limits.hop_count(max_hops)
    row = await info.context.reader.single(
        queries.SHORTEST_PATH[hops],
        from_type=from_.type.value, from_name=from_.name, to_type=to.type.value, to_name=to.name,
    )
    if row is None:  # not expected: the query always returns one row
        return None
    for found, reference, argument in ((row["from_found"], from_, "from"), (row["to_found"], to, "to")):
        if not found:
            raise ClientError(f"`{argument}`: no {describe(reference)} in the graph.")
    if row["nodes"] is None:
        return None  # no connection within maxHops
    nodes_by_element = {node["element_id"]: graph_node(node) for node in row["nodes"]}
    return Path(
        length=len(row["edges"]),
        nodes=list(nodes_by_element.values()),
        edges=[graph_edge(edge, nodes_by_element) for edge in row["edges"]],
    )


def describe(reference: EntityRef) -> str:
    if reference.type is NodeLabel.CASE:
        return f"case with id {reference.name!r}"
    return f"{entity_types.entity_type(reference.type.value).title.lower()} named {reference.name!r}"


def graph_edge(edge: dict[str, Any], nodes_by_element: dict[str, GraphNode]) -> GraphEdge:
    return GraphEdge(
        source=nodes_by_element[edge["source"]].id,
        target=nodes_by_element[edge["target"]].id,
        type=edge["relationship"],
        confidence=edge["confidence"],
    )


async def subgraph(
    info: Info, filter: CaseFilter | None = None, limit: int | None = limits.DEFAULT_SUBGRAPH_CASES
) -> Subgraph:
    criteria = criteria_from(filter)
    case_limit = limits.page_size(
        limit, argument="limit", maximum=limits.MAX_SUBGRAPH_CASES, default=limits.DEFAULT_SUBGRAPH_CASES
    )
    row = await info.context.reader.single(
        queries.case_subgraph(criteria), **criteria.parameters(), limit=case_limit
    )
    if row is None:
        return Subgraph(nodes=[], edges=[])
    nodes: dict[str, GraphNode] = {}
    for case_row in row["cases"]:
        node = graph_node({"label": "Case", "name": case_row["case_id"], "title": case_row["title"]})
        nodes[node.id] = node
    entity_ids: dict[str, strawberry.ID] = {}
    edges: list[GraphEdge] = []
    for link in row["links"]:
        entity = graph_node(link["entity"])
        nodes.setdefault(entity.id, entity)
        entity_ids[link["entity"]["element_id"]] = entity.id
        edges.append(GraphEdge(source=strawberry.ID(f"Case:{link['case_id']}"), target=entity.id,
                               type=link["relationship"], confidence=link["confidence"]))
    edges += [
        GraphEdge(source=entity_ids[edge["source"]], target=entity_ids[edge["target"]],
                  type=entity_types.BROADER, confidence=None)
        for edge in row["broader_edges"]
    ]
    return Subgraph(nodes=list(nodes.values()), edges=edges)


# ------------------------------------------------------------------ entity lookups


def entity_lookup(entity_type: entity_types.EntityType) -> Any:
    """The resolver of one root lookup field (symptoms, rootCauses, ...); its GraphQL type is given
    where the field is declared (graphql_schema.py)."""

    async def lookup(
        info: Info, search: str | None = None, first: int | None = limits.DEFAULT_PAGE_SIZE,
        after: str | None = None,
    ) -> Connection[Any]:
        page = window(first, after)
        row = await info.context.reader.single(
            queries.ENTITY_SEARCH[entity_type.label],
            needle=limits.search_text(search or "", "search").strip().lower(),
            skip=page.skip, limit=page.limit + 1,
        )
        found = row["page"] if row else []
        entities = [entity_from_map(entity) for entity in found[: page.limit]]
        edges, page_info = edges_and_page_info(entities, page, has_next=len(found) > page.limit)
        return Connection(total_count=row["total"] if row else 0, edges=edges, page_info=page_info)

    return lookup
