"""The five kinds of entity a case links to, and the names each layer uses for them.

The one list of entity types: every per-type map in Python (graph labels and relationships,
extraction keys, section kinds, GraphQL names, the page's list) is derived from ENTITY_TYPES. The
GraphQL classes are written out (the SDL is a contract) and a test checks them against this list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class EntityType:
    label: str  # Neo4j label, taxonomy `type`, GraphQL object type
    relationship: str  # relationship type from Case
    key: str  # key in extraction JSON and gold files; Case, CaseFilter and Facets field (camel case in GraphQL)
    title: str  # what people read: "Root cause"
    section: str | None  # the section kind (ingest/patterns/sections.toml) whose items are of this type
    heading: str | None  # the heading ingest writes for that section when it composes a JSON record

    @property
    def plural(self) -> str:
        return f"{self.title}s"

    @property
    def graphql_enum(self) -> str:
        """Its value name in the GraphQL enums EntityType and NodeType: ROOT_CAUSE."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.label).upper()

    @property
    def graphql_field(self) -> str:
        """Its field name in GraphQL (Case, CaseFilter, Facets, the root lookups): rootCauses."""
        first, *rest = self.key.split("_")
        return first + "".join(word.title() for word in rest)


SYMPTOM = EntityType("Symptom", "HAS_SYMPTOM", "symptoms", "Symptom", "symptoms", "Symptoms")
ROOT_CAUSE = EntityType("RootCause", "HAS_ROOT_CAUSE", "root_causes", "Root cause", "root_cause", "Root cause")
COMPONENT = EntityType("Component", "INVOLVES_COMPONENT", "components", "Component", "component", "Component")
CONTRIBUTING_FACTOR = EntityType("ContributingFactor", "HAS_CONTRIBUTING_FACTOR", "contributing_factors",
                                 "Contributing factor", "contributing_factor", "Contributing factor")
ORGANISATION = EntityType("Organisation", "INVOLVES_ORGANISATION", "organisations", "Organisation", None, None)

# The order of extraction JSON, summaries and shared-entity lists: who, then what happened and why.
ENTITY_TYPES: tuple[EntityType, ...] = (ORGANISATION, SYMPTOM, ROOT_CAUSE, COMPONENT, CONTRIBUTING_FACTOR)
BY_LABEL: dict[str, EntityType] = {entity_type.label: entity_type for entity_type in ENTITY_TYPES}
BY_KEY: dict[str, EntityType] = {entity_type.key: entity_type for entity_type in ENTITY_TYPES}
BY_RELATIONSHIP: dict[str, EntityType] = {entity_type.relationship: entity_type for entity_type in ENTITY_TYPES}
LABELS: tuple[str, ...] = tuple(BY_LABEL)
RELATIONSHIPS: tuple[str, ...] = tuple(BY_RELATIONSHIP)
BROADER = "BROADER"


def entity_type(label: str) -> EntityType:
    try:
        return BY_LABEL[label]
    except KeyError:
        raise ValueError(f"unknown entity type {label!r}; expected one of {', '.join(LABELS)}") from None
