"""The neomodel classes are the one list of node properties: what reads and writes use is in them."""

from __future__ import annotations

from incident_graph.api import types
from incident_graph.graph.writes import case_properties
from incident_graph.schema import models
from incident_graph.schema.records import ExtractedCase


def test_the_api_case_reads_properties_of_the_model():
    read = [field.python_name for field in types.Case.__strawberry_definition__.fields  # type: ignore[attr-defined]
            if field.base_resolver is not None and field.base_resolver.wrapped_func is types.case_field]
    assert read and set(read) <= set(models.property_names(models.Case))


def test_a_written_case_has_every_property_of_the_model():
    case = ExtractedCase(case_id="c", title="A title", source="s.md", text="Text.", published="2024-05")
    properties = case_properties(case)
    assert list(properties) == list(models.property_names(models.Case))
    assert properties["published_on"].isoformat() == "2024-05-01"


def test_defaults_come_from_the_model():
    defaults = models.property_defaults(models.Case)
    assert defaults["layout"] == "free-form" and defaults["remediation"] == []
    assert defaults["remediation"] is not models.property_defaults(models.Case)["remediation"]  # fresh each time
