"""The graph model as neomodel classes: what a Case and each entity hold, and their links.

The one source of the node and relationship properties: `incident-graph db init` installs the
constraints and range indexes declared here (unique_index, index), graph/ derives the property
lists it writes from these classes, and the API reads the defaults from them. Python users walk the
graph with these classes (incident_graph.Graph.case_node). Writes go through incident_graph.graph
(many cases per transaction, MERGE semantics), not through these classes.
"""

from __future__ import annotations

from typing import Any

from neomodel import (
    ArrayProperty,
    DateProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    RelationshipFrom,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
)

from incident_graph.schema.entity_types import (
    BROADER,
    COMPONENT,
    CONTRIBUTING_FACTOR,
    ENTITY_TYPES,
    ORGANISATION,
    ROOT_CAUSE,
    SYMPTOM,
    EntityType,
)


class Evidence(StructuredRel):
    """Provenance on every Case-to-entity link: why the extractor drew this edge."""

    sentence = StringProperty(required=True)
    mention = StringProperty()
    start = IntegerProperty(required=True)  # character offsets into Case.text
    end = IntegerProperty(required=True)
    method = StringProperty(required=True)  # a key of records.EVIDENCE_METHODS
    confidence = FloatProperty(required=True)
    section = StringProperty()


class Entity(StructuredNode):
    __abstract_node__ = True

    name = StringProperty(unique_index=True, required=True)  # canonical name
    aliases = ArrayProperty(StringProperty(), default=list)
    description = StringProperty(default="")
    signs = ArrayProperty(StringProperty())  # a taxonomy concept's signs (schema/taxonomy), if any
    known = StringProperty(default="taxonomy")  # taxonomy, or extracted for a new mention
    # Cases linking to it or a narrower concept; the writes keep it exact (graph/case_counts.py).
    case_count = IntegerProperty(default=0)


def entity_node_class(entity_type: EntityType) -> type[Entity]:
    """The node class of one entity type: its label, its broader and narrower concepts, its cases."""
    return type(entity_type.label, (Entity,), {
        "__module__": __name__,
        "__doc__": f"A {entity_type.title.lower()}, linked from cases by {entity_type.relationship}.",
        "broader": RelationshipTo(entity_type.label, BROADER),
        "narrower": RelationshipFrom(entity_type.label, BROADER),
        "cases": RelationshipFrom("Case", entity_type.relationship, model=Evidence),
    })


ENTITY_NODE_CLASSES: dict[str, type[Entity]] = {t.label: entity_node_class(t) for t in ENTITY_TYPES}
# Module names for imports (from incident_graph.schema.models import Symptom); the test of entity
# types checks there is one for each type.
Symptom = ENTITY_NODE_CLASSES[SYMPTOM.label]
RootCause = ENTITY_NODE_CLASSES[ROOT_CAUSE.label]
Component = ENTITY_NODE_CLASSES[COMPONENT.label]
ContributingFactor = ENTITY_NODE_CLASSES[CONTRIBUTING_FACTOR.label]
Organisation = ENTITY_NODE_CLASSES[ORGANISATION.label]


class CaseProperties(StructuredNode):
    """What a case holds; `Case` adds its links to the entities."""

    __abstract_node__ = True

    case_id = StringProperty(unique_index=True, required=True)  # stable: from file name or record id
    title = StringProperty(required=True)
    source = StringProperty(default="")  # file path or URL
    published = StringProperty()  # as written: YYYY, YYYY-MM or YYYY-MM-DD
    published_on = DateProperty(index=True)  # first day of `published`, for date ranges
    text = StringProperty(required=True)  # the write-up's text; evidence offsets point into it
    detection = StringProperty(default="")  # the Detection section as written
    detection_methods = ArrayProperty(StringProperty(), default=list)
    remediation = ArrayProperty(StringProperty(), default=list)
    lessons = StringProperty(default="")
    layout = StringProperty(default="free-form")  # sectioned or free-form
    content_hash = StringProperty(required=True, index=True)  # unchanged write-ups are skipped by it
    # Re-ingest skips a case whose write-up and pipeline are unchanged without extracting it again,
    # so the result cannot depend on what other write-ups the graph holds by then.
    input_hash = StringProperty(default="")
    extraction_model = StringProperty(default="")  # the trained spaCy pipeline it was read with, or blank
    # Unit-length mean of the content-word vectors of title and text (ingest/embedding.py); absent
    # when the pipeline has no vectors. `db init` puts a vector index on it (graph/admin.py).
    embedding = ArrayProperty(FloatProperty())
    ingested_at = DateTimeNeo4jFormatProperty()


Case = type("Case", (CaseProperties,), {
    "__module__": __name__,
    "__doc__": "One incident write-up and what was extracted from it.",
    **{t.key: RelationshipTo(ENTITY_NODE_CLASSES[t.label], t.relationship, model=Evidence) for t in ENTITY_TYPES},
})

NODE_CLASSES = (Case, *ENTITY_NODE_CLASSES.values())

EMBEDDING_DIMENSIONS = 384  # a case's sentence embedding (ingest/sentence_encoder.py: all-MiniLM-L6-v2)
# Stored for the vector index, never sent to API clients (CASES_BY_ID leaves it out).
UNREAD_CASE_PROPERTIES = ("embedding",)

# Full-text indexes span several properties (and labels), which neomodel cannot declare.
CASE_TEXT_PROPERTIES = ("title", "text", "detection", "lessons")
ENTITY_TEXT_PROPERTIES = ("name", "description")


def property_names(node_class: type[StructuredNode] | type[StructuredRel]) -> tuple[str, ...]:
    """The class's properties, in the order they are declared."""
    return tuple(node_class.defined_properties(aliases=False, rels=False))


def property_defaults(node_class: type[StructuredNode]) -> dict[str, Any]:
    """A fresh default for each property that has one (what a missing value reads as)."""
    return {name: prop.default_value() for name, prop in node_class.defined_properties(aliases=False, rels=False).items()
            if prop.has_default}
