"""Incident Graph: incident write-ups as a Neo4j knowledge graph with a GraphQL API."""

__version__ = "0.1.0"

from incident_graph.client import Graph, GraphQueryError  # noqa: E402  (the Python embedding API)

__all__ = ["Graph", "GraphQueryError", "__version__"]
