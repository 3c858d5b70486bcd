"""Every layer knows every entity type of schema/entity_types.py, by the names derived from it.

What is derived needs no check; these are the places written out by hand, on purpose: the GraphQL
classes (the SDL is a contract), the neomodel classes' module names, the taxonomy data, the
section headings of sections.toml and the synthetic graph's shapes. A sixth entity type added to
entity_types.py alone fails here, naming what is missing.
"""

from __future__ import annotations

import dataclasses
import tomllib
from importlib import resources

from graphql import build_schema as parse_sdl

from incident_graph.api import types
from incident_graph.api.graphql_schema import build_schema
from incident_graph.graph.synthetic import DEFAULT_ENTITY_SHAPES
from incident_graph.ingest.pattern_files import normalise_heading
from incident_graph.schema import models
from incident_graph.schema.entity_types import ENTITY_TYPES, LABELS
from incident_graph.schema.taxonomy import load_taxonomy


def test_the_graphql_enums_have_a_value_per_type():
    assert {member.name: member.value for member in types.EntityLabel} == {t.graphql_enum: t.label for t in ENTITY_TYPES}
    assert {member.name: member.value for member in types.NodeLabel} == {
        "CASE": "Case", **{t.graphql_enum: t.label for t in ENTITY_TYPES}}


def test_the_graphql_schema_has_an_object_type_and_fields_per_type():
    assert set(types.ENTITY_CLASSES) == set(LABELS)
    schema = parse_sdl(build_schema(writable=True).as_str())
    for t in ENTITY_TYPES:
        assert t.label in schema.type_map, t.label
        for holder in ("Case", "CaseFilter", "Facets", "Query"):
            assert t.graphql_field in schema.type_map[holder].fields, (holder, t.graphql_field)  # type: ignore[union-attr]
    case_fields = {field.name for field in dataclasses.fields(types.CaseFilter)}
    assert {t.key for t in ENTITY_TYPES} <= case_fields


def test_the_neomodel_classes_have_a_class_and_a_link_per_type():
    assert set(models.ENTITY_NODE_CLASSES) == set(LABELS)
    links = models.Case.defined_properties(aliases=False, rels=True, properties=False)
    for t in ENTITY_TYPES:
        assert getattr(models, t.label) is models.ENTITY_NODE_CLASSES[t.label], f"models.{t.label}"
        assert links[t.key].definition["relation_type"] == t.relationship


def test_the_taxonomy_has_concepts_of_every_type():
    taxonomy = load_taxonomy()
    assert {t.label for t in ENTITY_TYPES if not taxonomy.of_type(t.label)} == set()


def test_each_section_kind_and_heading_is_in_sections_toml():
    text = resources.files("incident_graph.ingest").joinpath("patterns", "sections.toml").read_text(encoding="utf-8")
    sections = tomllib.loads(text)["sections"]
    for t in ENTITY_TYPES:
        if t.section is None:
            continue
        assert t.section in sections, t.section
        # A JSON record's section is composed under this heading; reading it back must find the section.
        assert normalise_heading(t.heading or "") in {normalise_heading(v) for v in sections[t.section]}, t.heading


def test_the_synthetic_graph_has_a_shape_per_type():
    assert set(DEFAULT_ENTITY_SHAPES) == {t.key for t in ENTITY_TYPES}
