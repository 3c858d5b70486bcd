"""The graph as GraphML (for Gephi, yEd or networkx), written from the records of a snapshot.

Nodes are the cases (`Case:<id>`) and the entities (`<Label>:<name>`); edges are the links from
cases to entities, with their evidence, and the broader links between entities. Written element by
element as the snapshot's records arrive, so a large graph streams.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from incident_graph.graph.snapshot import CASE_KIND, ENTITY_KIND
from incident_graph.schema.entity_types import BROADER, BY_LABEL

# (id, for, attr.name, attr.type): the attributes every node or edge may carry.
NODE_KEYS = (("kind", "string"), ("name", "string"), ("title", "string"), ("published", "string"),
             ("known", "string"), ("description", "string"))
EDGE_KEYS = (("type", "string"), ("confidence", "double"), ("method", "string"), ("sentence", "string"))

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
    + "".join(f'  <key id="{name}" for="node" attr.name="{name}" attr.type="{kind}"/>\n' for name, kind in NODE_KEYS)
    + "".join(f'  <key id="{name}" for="edge" attr.name="{name}" attr.type="{kind}"/>\n' for name, kind in EDGE_KEYS)
    + '  <graph id="incident-graph" edgedefault="directed">\n'
)
FOOTER = "  </graph>\n</graphml>\n"


def entity_node_id(label: str, name: str) -> str:
    return f"{label}:{name}"


def case_node_id(case_id: str) -> str:
    return f"Case:{case_id}"


def data_elements(values: dict[str, Any]) -> str:
    return "".join(f'<data key="{key}">{escape(str(value))}</data>' for key, value in values.items()
                   if value is not None and value != "")


def node_element(node_id: str, values: dict[str, Any]) -> str:
    return f"    <node id={quoteattr(node_id)}>{data_elements(values)}</node>\n"


def edge_element(source: str, target: str, values: dict[str, Any]) -> str:
    return f"    <edge source={quoteattr(source)} target={quoteattr(target)}>{data_elements(values)}</edge>\n"


def record_elements(record: dict[str, Any]) -> Iterator[str]:
    properties = record.get("properties", {})
    if record["kind"] == ENTITY_KIND:
        label, name = record["label"], properties["name"]
        yield node_element(entity_node_id(label, name), {
            "kind": label, "name": name, "known": properties.get("known"),
            "description": properties.get("description"),
        })
        for broader in record["broader"]:
            yield edge_element(entity_node_id(label, name), entity_node_id(label, broader), {"type": BROADER})
    elif record["kind"] == CASE_KIND:
        case_id = case_node_id(properties["case_id"])
        yield node_element(case_id, {"kind": "Case", "name": properties["case_id"],
                                     "title": properties.get("title"), "published": properties.get("published")})
        for link in record["links"]:
            evidence = link["evidence"]
            yield edge_element(case_id, entity_node_id(link["label"], link["name"]), {
                "type": BY_LABEL[link["label"]].relationship, "confidence": evidence.get("confidence"),
                "method": evidence.get("method"), "sentence": evidence.get("sentence"),
            })


def graphml_chunks(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    """The GraphML document, a piece per record."""
    yield HEADER
    for record in records:
        yield from record_elements(record)
    yield FOOTER
