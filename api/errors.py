"""How the API says no, and whose fault it is.

Every GraphQL error leaves with `extensions.code`, Apollo's names where they fit, so a program can
tell a refused request from a failing server: BAD_USER_INPUT (an argument or variable refused),
GRAPHQL_PARSE_FAILED and GRAPHQL_VALIDATION_FAILED (the document refused, limits included),
UNAUTHENTICATED and FORBIDDEN (writes), INTERNAL_SERVER_ERROR (anything unexpected, masked: the
client sees a fixed sentence, the log gets the details), and three of our own: SERVER_BUSY (a
query waited too long for its turn), QUERY_TIMED_OUT and GRAPH_UNAVAILABLE.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphql import GraphQLError
from strawberry.extensions import ParserCache, SchemaExtension

BAD_USER_INPUT = "BAD_USER_INPUT"
GRAPHQL_PARSE_FAILED = "GRAPHQL_PARSE_FAILED"
GRAPHQL_VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED"
UNAUTHENTICATED = "UNAUTHENTICATED"
FORBIDDEN = "FORBIDDEN"
INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR"
SERVER_BUSY = "SERVER_BUSY"
QUERY_TIMED_OUT = "QUERY_TIMED_OUT"
GRAPH_UNAVAILABLE = "GRAPH_UNAVAILABLE"

MASKED_MESSAGE = "Internal error while answering this query; the server log has the details."
GRAPH_UNAVAILABLE_MESSAGE = "The graph database is not reachable right now; try again shortly."
MAX_MESSAGE_CHARS = 300  # an error quoting a 100 kB argument back says so in a few lines


class ClientError(Exception):
    """An answer the API gives on purpose: its message is written for the client and shown as is,
    its code says why (a refused argument unless told otherwise)."""

    def __init__(self, message: str, code: str = BAD_USER_INPUT) -> None:
        super().__init__(message)
        self.code = code


def is_refusal(error: GraphQLError) -> bool:
    """Expected: a refused document, argument or variable (graphql-core's own errors carry no
    original exception, or graphql-core's), or one of ours. Anything else is a failure."""
    return error.original_error is None or isinstance(error.original_error, (ClientError, GraphQLError))


def shortened(message: str) -> str:
    """The start and end of an over-long message, with how much was left out."""
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return f"{message[:200]} [... {len(message) - 260:,} characters left out ...] {message[-60:]}"


def coded(error: GraphQLError, code: str) -> GraphQLError:
    error.message = shortened(error.message)
    error.extensions = {**(error.extensions or {}), "code": code}
    return error


def masked(error: GraphQLError) -> GraphQLError:
    return GraphQLError(MASKED_MESSAGE, nodes=error.nodes, source=error.source, positions=error.positions,
                        path=error.path)


class ErrorCodes(SchemaExtension):
    """After each operation: every error gets its code, unexpected ones are masked, and long
    messages are cut (graphql-core quotes a bad literal argument whole; a huge one must not be
    echoed whole). The schema logs the errors as they were, before this runs."""

    executed = False

    def on_execute(self) -> Iterator[None]:
        self.executed = True
        yield

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if result is not None and result.errors:
            result.errors = [self.answered(error) for error in result.errors]

    def answered(self, error: GraphQLError) -> GraphQLError:
        if isinstance(error.original_error, ClientError):
            code = error.original_error.code
        elif self.execution_context.graphql_document is None:
            code = GRAPHQL_PARSE_FAILED
        elif not self.executed:
            code = GRAPHQL_VALIDATION_FAILED
        elif is_refusal(error):  # graphql-core refusing a variable or an argument's value
            code = BAD_USER_INPUT
        else:
            error, code = masked(error), INTERNAL_SERVER_ERROR
        return coded(error, code)


class CodedParserCache(ParserCache):
    """strawberry's ParserCache, whose syntax errors (the token limit's too) carry their code: it
    parses while its hook is entered, so the error leaves the operation before ErrorCodes sees a result."""

    def on_parse(self) -> Iterator[None]:
        try:
            yield from super().on_parse()
        except GraphQLError as error:
            raise coded(error, GRAPHQL_PARSE_FAILED) from None
