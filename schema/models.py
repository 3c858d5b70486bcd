"""The graph model as neomodel classes: what a Case and each entity hold, and their links.

Writes go through incident_graph.graph (one transaction per case, MERGE semantics); these classes
define the labels, properties and uniqueness constraints (`incident-graph db init` installs them)
and give Python users typed objects to read.
"""

from __future__ import annotations

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


class Evidence(StructuredRel):
    """Provenance on every Case-to-entity link: why the extractor drew this edge."""

    sentence = StringProperty(required=True)
    mention = StringProperty()
    start = IntegerProperty(required=True)  # character offsets into Case.text
    end = IntegerProperty(required=True)
    method = StringProperty(required=True)  # section, cue, taxonomy, new-entity, metadata
    confidence = FloatProperty(required=True)
    section = StringProperty()


class Entity(StructuredNode):
    __abstract_node__ = True

    name = StringProperty(unique_index=True, required=True)  # canonical name
    aliases = ArrayProperty(StringProperty(), default=list)
    description = StringProperty(default="")
    known = StringProperty(default="taxonomy")  # taxonomy, or extracted for a new mention


class Symptom(Entity):
    broader = RelationshipTo("Symptom", "BROADER")
    narrower = RelationshipFrom("Symptom", "BROADER")
    cases = RelationshipFrom("Case", "HAS_SYMPTOM", model=Evidence)


class RootCause(Entity):
    broader = RelationshipTo("RootCause", "BROADER")
    narrower = RelationshipFrom("RootCause", "BROADER")
    cases = RelationshipFrom("Case", "HAS_ROOT_CAUSE", model=Evidence)


class Component(Entity):
    broader = RelationshipTo("Component", "BROADER")
    narrower = RelationshipFrom("Component", "BROADER")
    cases = RelationshipFrom("Case", "INVOLVES_COMPONENT", model=Evidence)


class ContributingFactor(Entity):
    broader = RelationshipTo("ContributingFactor", "BROADER")
    narrower = RelationshipFrom("ContributingFactor", "BROADER")
    cases = RelationshipFrom("Case", "HAS_CONTRIBUTING_FACTOR", model=Evidence)


class Organisation(Entity):
    broader = RelationshipTo("Organisation", "BROADER")
    narrower = RelationshipFrom("Organisation", "BROADER")
    cases = RelationshipFrom("Case", "INVOLVES_ORGANISATION", model=Evidence)


class Case(StructuredNode):
    case_id = StringProperty(unique_index=True, required=True)  # stable: from file name or record id
    title = StringProperty(required=True)
    source = StringProperty(default="")  # file path or URL
    published = StringProperty()  # as written: YYYY, YYYY-MM or YYYY-MM-DD
    published_on = DateProperty()  # first day of `published`, for date ranges
    text = StringProperty(required=True)  # the write-up's text; evidence offsets point into it
    detection = StringProperty(default="")  # the Detection section as written
    detection_methods = ArrayProperty(StringProperty(), default=list)
    remediation = ArrayProperty(StringProperty(), default=list)
    lessons = StringProperty(default="")
    layout = StringProperty(default="free-form")  # sectioned or free-form
    content_hash = StringProperty(required=True)
    ingested_at = DateTimeNeo4jFormatProperty()

    symptoms = RelationshipTo(Symptom, "HAS_SYMPTOM", model=Evidence)
    root_causes = RelationshipTo(RootCause, "HAS_ROOT_CAUSE", model=Evidence)
    components = RelationshipTo(Component, "INVOLVES_COMPONENT", model=Evidence)
    contributing_factors = RelationshipTo(ContributingFactor, "HAS_CONTRIBUTING_FACTOR", model=Evidence)
    organisations = RelationshipTo(Organisation, "INVOLVES_ORGANISATION", model=Evidence)


NODE_CLASSES = (Case, Symptom, RootCause, Component, ContributingFactor, Organisation)
