"""A first load through `neo4j-admin database import full`: the synthetic graph as CSV files, and
the offline import of them into a managed server's (stopped) database.

Neo4j's bulk importer writes the store files directly, without transactions, so it only loads an
empty database of a stopped server. The CSV headers are derived from the neomodel classes in
schema/models.py (names and types), as the writers' property lists are. Entity counts are left at 0
and recounted after the start (graph/case_counts.py stays their one home); empty strings and lists are
left out, since a CSV cell cannot tell them from a missing value (the API reads a missing property
as the model's default).

Used by benchmarks/bulk_load.py to compare with the batched writer; see BENCHMARKS.md for which
path pays when.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from neomodel import (ArrayProperty, BooleanProperty, DateProperty, DateTimeNeo4jFormatProperty, FloatProperty,
                      IntegerProperty, StructuredNode, StructuredRel)

from incident_graph.config import Settings
from incident_graph.graph import server
from incident_graph.graph.synthetic import SyntheticShape, case_rows, synthetic_concepts
from incident_graph.schema.entity_types import ENTITY_TYPES, EntityType
from incident_graph.schema.models import Case, Entity, Evidence

ARRAY_DELIMITER = "\u001f"  # never inside a name or a sentence, unlike ";"
BROADER = "BROADER"
IMPORT_COMMAND = "org.neo4j.server.startup.Neo4jAdminCommand"


def csv_type(prop: object) -> str:
    """The importer's type of a neomodel property ("" for a string)."""
    if isinstance(prop, ArrayProperty):
        inner = csv_type(prop.base_property)
        return f"{inner or 'string'}[]"
    for kind, name in ((IntegerProperty, "int"), (FloatProperty, "float"), (BooleanProperty, "boolean"),
                       (DateProperty, "date"), (DateTimeNeo4jFormatProperty, "datetime")):
        if isinstance(prop, kind):
            return name
    return ""


def header(node_class: type[StructuredNode] | type[StructuredRel], id_property: str | None = None,
           id_space: str = "") -> list[str]:
    columns = []
    for name, prop in node_class.defined_properties(aliases=False, rels=False).items():
        if name == id_property:
            columns.append(f"{name}:ID({id_space})")
        else:
            kind = csv_type(prop)
            columns.append(f"{name}:{kind}" if kind else name)
    return columns


def cell(value: object) -> str:
    if value is None or value == []:
        return ""
    if isinstance(value, (list, tuple)):
        return ARRAY_DELIMITER.join(str(item) for item in value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


@dataclass
class ImportFiles:
    nodes: list[tuple[str, Path]]  # (label, file)
    relationships: list[tuple[str, Path]]  # (type, file)
    cases: int = 0
    links: int = 0

    def arguments(self) -> list[str]:
        return ([f"--nodes={label}={path}" for label, path in self.nodes]
                + [f"--relationships={kind}={path}" for kind, path in self.relationships])


def write_synthetic_csv(shape: SyntheticShape, folder: Path, batch_size: int = 2_000,
                        progress: Callable[[int, int], None] | None = None) -> ImportFiles:
    """The shape's concepts, cases and links as the importer's CSV files in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    files = ImportFiles(nodes=[], relationships=[])
    write_concepts(shape, folder, files)
    case_file = folder / "cases.csv"
    case_columns = list(Case.defined_properties(aliases=False, rels=False))
    evidence_columns = list(Evidence.defined_properties(aliases=False, rels=False))
    link_files = {t.key: folder / f"links-{t.relationship.lower()}.csv" for t in ENTITY_TYPES}
    handles = {key: path.open("w", newline="", encoding="utf-8") for key, path in link_files.items()}
    try:
        link_writers = {key: csv.writer(handle) for key, handle in handles.items()}
        for entity_type in ENTITY_TYPES:
            link_writers[entity_type.key].writerow([":START_ID(Case)", f":END_ID({entity_type.label})",
                                                    *header(Evidence)])
        with case_file.open("w", newline="", encoding="utf-8") as handle:
            cases = csv.writer(handle)
            cases.writerow(header(Case, "case_id", "Case"))
            for batch in case_rows(shape, batch_size):
                for row in batch:
                    properties = row["properties"]
                    cases.writerow([cell(properties.get(name)) for name in case_columns])  # type: ignore[union-attr]
                    for key, links in row["links"].items():  # type: ignore[union-attr]
                        for link in links:
                            evidence = link["evidence"]
                            link_writers[key].writerow([properties["case_id"], link["name"],  # type: ignore[index]
                                                        *(cell(evidence.get(name)) for name in evidence_columns)])
                            files.links += 1
                    files.cases += 1
                if progress:
                    progress(files.cases, shape.cases)
    finally:
        for handle in handles.values():
            handle.close()
    files.nodes.append(("Case", case_file))
    files.relationships += [(t.relationship, link_files[t.key]) for t in ENTITY_TYPES]
    return files


def write_concepts(shape: SyntheticShape, folder: Path, files: ImportFiles) -> None:
    by_type: dict[str, list] = {t.label: [] for t in ENTITY_TYPES}
    for concept in synthetic_concepts(shape):
        by_type[concept.type].append(concept)
    entity_columns = list(Entity.defined_properties(aliases=False, rels=False))
    for entity_type in ENTITY_TYPES:
        nodes, broader = concept_files(folder, entity_type)
        with nodes.open("w", newline="", encoding="utf-8") as node_handle, \
                broader.open("w", newline="", encoding="utf-8") as broader_handle:
            node_writer, broader_writer = csv.writer(node_handle), csv.writer(broader_handle)
            node_writer.writerow(header(Entity, "name", entity_type.label))
            broader_writer.writerow([f":START_ID({entity_type.label})", f":END_ID({entity_type.label})"])
            for concept in by_type[entity_type.label]:
                values = {"name": concept.name, "aliases": list(concept.synonyms),
                          "description": concept.description, "signs": list(concept.signs), "known": "taxonomy",
                          "case_count": 0}
                node_writer.writerow([cell(values.get(name)) for name in entity_columns])
                if concept.broader:
                    broader_writer.writerow([concept.name, concept.broader])
        files.nodes.append((entity_type.label, nodes))
        files.relationships.append((BROADER, broader))


def concept_files(folder: Path, entity_type: EntityType) -> tuple[Path, Path]:
    return folder / f"{entity_type.label.lower()}.csv", folder / f"{entity_type.label.lower()}-broader.csv"


def import_into(settings: Settings, files: ImportFiles, extra: Iterable[str] = ()) -> str:
    """Run the offline importer into the stopped managed server's `neo4j` database (replacing it);
    its output (the importer's own report) is returned."""
    layout = server.layout_for(settings)
    if server.status(settings).running:
        raise server.ServerError(f"the server on port {settings.bolt_port} is running: the importer needs it stopped")
    java = server.check_java()
    server.resolve_classpath(layout)
    server.write_config(layout, settings)
    server.set_initial_password(layout, java, settings.password)
    return server.run_launcher(
        # The database first: each --nodes/--relationships takes every value after it as a file.
        layout, java, IMPORT_COMMAND, "database", "import", "full", "neo4j", "--overwrite-destination=true",
        f"--array-delimiter={ARRAY_DELIMITER}", "--multiline-fields=true", "--threads=2",
        f"--report-file={layout.instance / 'logs' / 'import.report'}",  # else it lands in the working folder
        *extra, *files.arguments(),
    )


def graph_shape(driver) -> dict[str, int]:
    """Nodes per label, relationships per type and the sum of the stored case counts: what two
    loads of the same shape must agree on."""
    counts: dict[str, int] = {}
    for label in ("Case", *(t.label for t in ENTITY_TYPES)):
        counts[label] = driver.execute_query(f"MATCH (n:{label}) RETURN count(n) AS n").records[0]["n"]
    for kind in (*(t.relationship for t in ENTITY_TYPES), BROADER):
        counts[kind] = driver.execute_query(f"MATCH ()-[r:{kind}]->() RETURN count(r) AS n").records[0]["n"]
    counts["sum of case_count"] = driver.execute_query(
        "MATCH (e) WHERE e.case_count IS NOT NULL RETURN sum(e.case_count) AS n").records[0]["n"]
    # The typed properties read back as the writer stores them (dates, numbers in evidence).
    counts["dated cases"] = driver.execute_query(
        "MATCH (c:Case) WHERE c.published_on IS :: DATE NOT NULL RETURN count(c) AS n").records[0]["n"]
    counts["sum of link ends"] = driver.execute_query(
        "MATCH (:Case)-[r]->() WHERE r.end IS :: INTEGER NOT NULL RETURN sum(r.end) AS n").records[0]["n"]
    return counts
