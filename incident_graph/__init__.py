"""Incident Graph: incident write-ups as a Neo4j knowledge graph with a GraphQL API."""

__version__ = "0.1.0"
