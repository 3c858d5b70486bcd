"""The five kinds of entity a case links to, and the names each layer uses for them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EntityType:
    label: str  # Neo4j label and taxonomy `type`
    relationship: str  # relationship type from Case
    key: str  # key in extraction JSON and gold files

    @property
    def title(self) -> str:
        return {
            "Symptom": "Symptom",
            "RootCause": "Root cause",
            "Component": "Component",
            "ContributingFactor": "Contributing factor",
            "Organisation": "Organisation",
        }[self.label]


SYMPTOM = EntityType("Symptom", "HAS_SYMPTOM", "symptoms")
ROOT_CAUSE = EntityType("RootCause", "HAS_ROOT_CAUSE", "root_causes")
COMPONENT = EntityType("Component", "INVOLVES_COMPONENT", "components")
CONTRIBUTING_FACTOR = EntityType("ContributingFactor", "HAS_CONTRIBUTING_FACTOR", "contributing_factors")
ORGANISATION = EntityType("Organisation", "INVOLVES_ORGANISATION", "organisations")

ENTITY_TYPES: tuple[EntityType, ...] = (ORGANISATION, SYMPTOM, ROOT_CAUSE, COMPONENT, CONTRIBUTING_FACTOR)
BY_LABEL: dict[str, EntityType] = {entity_type.label: entity_type for entity_type in ENTITY_TYPES}
BY_KEY: dict[str, EntityType] = {entity_type.key: entity_type for entity_type in ENTITY_TYPES}
LABELS: tuple[str, ...] = tuple(BY_LABEL)
BROADER = "BROADER"


def entity_type(label: str) -> EntityType:
    try:
        return BY_LABEL[label]
    except KeyError:
        raise ValueError(f"unknown entity type {label!r}; expected one of {', '.join(LABELS)}") from None
