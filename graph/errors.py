"""What can go wrong in the graph, in graph/'s own words: the one place that reads neo4j.exceptions.

Callers (ingest, the API) catch these few classes; the driver's error is each one's __cause__.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    ConstraintError,
    DatabaseUnavailable,
    IncompleteCommit,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOut"

# No server to talk to: unreachable, gone mid-session, no connection free in time, or a database
# that is starting or stopping. IncompleteCommit is a ServiceUnavailable too.
UNAVAILABLE = (ServiceUnavailable, SessionExpired, ConnectionAcquisitionTimeoutError, DatabaseUnavailable)


class GraphError(Exception):
    """Neo4j refused a query or a write; the message is its code and message."""


class GraphUnavailable(GraphError):
    """Neo4j cannot be reached, refused our credentials, or went away during the work."""

    def __init__(self, message: str, maybe_committed: bool = False) -> None:
        super().__init__(message)
        # The connection dropped during a commit, so the write may have landed (a rerun settles it).
        self.maybe_committed = maybe_committed


class QueryTimedOut(GraphError):
    """Neo4j stopped a query that ran past its transaction timeout."""


class ConstraintViolated(GraphError):
    """A write would break a uniqueness constraint of the model."""


@contextmanager
def graph_errors() -> Iterator[None]:
    """Run driver calls; their errors come out as the classes above."""
    try:
        yield
    except UNAVAILABLE as error:
        raise GraphUnavailable(f"Neo4j unavailable ({type(error).__name__})",
                               maybe_committed=isinstance(error, IncompleteCommit)) from error
    except ConstraintError as error:
        raise ConstraintViolated(f"{error.code}: {error.message}") from error
    except Neo4jError as error:
        if (error.code or "").startswith(TIMED_OUT):
            raise QueryTimedOut(f"{error.code}: {error.message}") from error
        raise GraphError(f"{error.code}: {error.message}") from error
