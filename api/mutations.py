"""Mutations: present only on a server started with a token, and each needs that token as a bearer token."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
import strawberry

from incident_graph.api import limits
from incident_graph.api.errors import GRAPH_UNAVAILABLE, GRAPH_UNAVAILABLE_MESSAGE, ClientError
from incident_graph.api.types import DocumentInput, IngestFailure, IngestResult, Info
from incident_graph.graph.errors import GraphUnavailable
from incident_graph.graph.writes import delete_case

T = TypeVar("T")


def require_write_access(info: Info) -> None:
    if not info.context.writes.allowed:
        raise ClientError(info.context.writes.refusal, info.context.writes.code)


async def writing(write: Callable[..., T], *arguments: Any) -> T:
    """Run a write in a worker thread; an unreachable Neo4j is said plainly, as for reads."""
    try:
        return await anyio.to_thread.run_sync(write, *arguments)
    except GraphUnavailable as error:
        raise ClientError(GRAPH_UNAVAILABLE_MESSAGE, GRAPH_UNAVAILABLE) from error


def check_documents(documents: list[DocumentInput]) -> None:
    if len(documents) > limits.MAX_DOCUMENTS:
        raise ClientError(
            f"`documents` may hold at most {limits.MAX_DOCUMENTS} write-ups per call (got {len(documents)})."
        )
    for index, document in enumerate(documents):
        if len(document.body) > limits.MAX_DOCUMENT_CHARS:
            raise ClientError(
                f"`documents[{index}].body` is {len(document.body)} characters; "
                f"the limit is {limits.MAX_DOCUMENT_CHARS}."
            )


def record_from(document: DocumentInput) -> dict[str, object]:
    """The corpus's JSON Lines record shape, which ingest reads."""
    return {
        "id": str(document.id),
        "title": document.title,
        "body": document.body,
        "source": document.source or "",
        "date": document.date,
        "organisation": document.organisation,
    }


@strawberry.type(description="Writes; present only when the server was started with a token (bearer auth).")
class Mutation:
    @strawberry.mutation(description="Extract and store write-ups; a known id with changed content is updated.")
    async def ingest_documents(self, info: Info, documents: list[DocumentInput]) -> IngestResult:
        require_write_access(info)
        check_documents(documents)
        try:
            from incident_graph.ingest.ingestion import ingest_records
        except ImportError:
            raise ClientError("ingestDocuments is not available: the ingest pipeline is not installed.") from None
        summary = await writing(ingest_records, info.context.driver, [record_from(document) for document in documents])
        return IngestResult(
            added=[strawberry.ID(case_id) for case_id in summary.added],
            updated=[strawberry.ID(case_id) for case_id in summary.updated],
            skipped=[strawberry.ID(case_id) for case_id in summary.skipped],
            failed=[IngestFailure(origin=str(failure.origin), message=failure.message) for failure in summary.failed],
        )

    @strawberry.mutation(description="Delete a case and its links; true when it existed.")
    async def delete_case(self, info: Info, id: strawberry.ID) -> bool:
        require_write_access(info)
        return await writing(delete_case, info.context.driver, str(id))
