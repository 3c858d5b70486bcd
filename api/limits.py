"""What one request may ask for: the numbers, and the checks of arguments against them.

Document-level limits (depth, aliases, tokens) are strawberry extensions that run before any
resolver; argument-level limits (page size, hops, list lengths) are checked by the resolvers with
the helpers below. Every refusal is a ClientError (api/errors.py) whose message says which limit
and by how much.
"""

from __future__ import annotations

from collections.abc import Callable

from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter, SchemaExtension

from incident_graph.api.errors import ClientError
from incident_graph.config import DEFAULT_CONCURRENT_READS  # noqa: F401  (one of the API's limits)
from incident_graph.graph.queries import MAX_PATH_HOPS

MAX_DEPTH = 12  # deep enough for case -> entity -> cases -> case -> entity, through connections
MAX_ALIASES = 15
MAX_TOKENS = 2_000
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
DEFAULT_DIAGNOSES = 10
DEFAULT_HOPS = 4
MAX_HOPS = MAX_PATH_HOPS
DEFAULT_SUBGRAPH_CASES = 50
MAX_SUBGRAPH_CASES = 200
MAX_FILTER_VALUES = 50  # names per CaseFilter list, symptoms per diagnose
MAX_TEXT_LENGTH = 500  # characters of a search phrase
SIMILAR_CASE_POOL = 100  # candidates by meaning and by shared entities each; similar cases page within them
MAX_LISTED_CASES = 20  # connecting / supporting cases listed per result (their count is exact)
MAX_DOCUMENTS = 100  # per ingestDocuments call
MAX_DOCUMENT_CHARS = 1_000_000
MAX_REQUEST_BYTES = 8_000_000  # any HTTP request body, so a batch of documents too
MAX_MCP_REQUEST_BYTES = 1_000_000  # one MCP message over HTTP (tools take names and phrases)
DEFAULT_CONCEPTS = 60  # entities of the concept graph
MAX_CONCEPTS = 150
MAX_CONCEPT_LINKS = 400  # the strongest links among them
DEFAULT_TREND_SERIES = 10  # series per page of `trends`
MAX_TREND_PERIODS = 600  # fifty years by month
DEFAULT_EXPORT_RECORDS = 200  # records per page of GET /export.jsonl
MAX_EXPORT_RECORDS = 1_000
READ_TIMEOUT_S = 30.0  # per Cypher query, enforced by Neo4j
QUERY_QUEUE_TIMEOUT_S = 60.0  # how long a query may wait for its turn before "the server is busy"


def page_size(first: int | None, argument: str = "first", maximum: int = MAX_PAGE_SIZE,
              default: int = DEFAULT_PAGE_SIZE) -> int:
    if first is None:
        return default
    if not 1 <= first <= maximum:
        raise ClientError(
            f"`{argument}` must be between 1 and {maximum} (got {first}); page through larger results."
        )
    return first


def hop_count(max_hops: int | None) -> int:
    if max_hops is None:
        return DEFAULT_HOPS
    if not 1 <= max_hops <= MAX_HOPS:
        raise ClientError(f"`maxHops` must be between 1 and {MAX_HOPS} (got {max_hops}).")
    return max_hops


def value_list(values: list[str], argument: str) -> tuple[str, ...]:
    """Strip, drop empties and duplicates, keep order; refuse over-long lists."""
    cleaned = tuple(dict.fromkeys(value.strip() for value in values if value.strip()))
    if len(cleaned) > MAX_FILTER_VALUES:
        raise ClientError(f"`{argument}` may name at most {MAX_FILTER_VALUES} values (got {len(cleaned)}).")
    return cleaned


def search_text(text: str, argument: str = "text") -> str:
    if len(text) > MAX_TEXT_LENGTH:
        raise ClientError(f"`{argument}` may be at most {MAX_TEXT_LENGTH} characters (got {len(text)}).")
    return text


def document_limits() -> list[Callable[[], SchemaExtension]]:
    """Factories, so every request gets fresh extension instances."""
    return [
        lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
        lambda: QueryDepthLimiter(max_depth=MAX_DEPTH),
        lambda: MaxAliasesLimiter(max_alias_count=MAX_ALIASES),
    ]
