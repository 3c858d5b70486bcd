"""Load the taxonomy data files (schema/taxonomy/*.toml) into concepts. See taxonomy/README.md."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from incident_graph.schema.entity_types import LABELS


class TaxonomyError(ValueError):
    """A taxonomy file is malformed; the message names the file and the concept."""


@dataclass(frozen=True)
class Concept:
    name: str
    type: str
    synonyms: tuple[str, ...] = ()
    broader: str | None = None
    also: tuple[str, ...] = ()
    description: str = ""
    signs: tuple[str, ...] = ()  # how it shows before anyone knows it is the cause (diagnosis reads them)

    @property
    def roles(self) -> tuple[str, ...]:
        return (self.type, *(role for role in self.also if role != self.type))


@dataclass
class Taxonomy:
    concepts: list[Concept] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_key = {(c.type, c.name): c for c in self.concepts}

    def get(self, label: str, name: str) -> Concept | None:
        return self._by_key.get((label, name))

    def of_type(self, label: str) -> list[Concept]:
        return [concept for concept in self.concepts if concept.type == label]


def default_taxonomy_dir() -> Path:
    return Path(str(resources.files("incident_graph.schema").joinpath("taxonomy")))


def load_taxonomy(folder: Path | None = None) -> Taxonomy:
    folder = folder or default_taxonomy_dir()
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise TaxonomyError(f"{folder}: no taxonomy files (*.toml)")
    merged: dict[str, Concept] = {}
    for path in files:
        for concept in read_concepts(path):
            merged[concept.name.lower()] = merge(merged.get(concept.name.lower()), concept, path)
    concepts = list(merged.values())
    check_broader(concepts)
    return Taxonomy(concepts)


def read_concepts(path: Path) -> list[Concept]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise TaxonomyError(f"{path}: not valid TOML: {error}") from None
    tables = data.get("concept", [])
    if not isinstance(tables, list):
        raise TaxonomyError(f"{path}: expected [[concept]] tables")
    return [concept_from(table, path, index) for index, table in enumerate(tables, start=1)]


def concept_from(table: dict[str, object], path: Path, index: int) -> Concept:
    where = f"{path}: concept #{index}"
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TaxonomyError(f"{where}: field 'name' is missing or empty")
    where = f"{path}: concept {name!r}"
    label = table.get("type")
    if label not in LABELS:
        raise TaxonomyError(f"{where}: field 'type' is {label!r}; expected one of {', '.join(LABELS)}")
    also = tuple(table.get("also", ()))  # type: ignore[arg-type]
    for role in also:
        if role not in LABELS:
            raise TaxonomyError(f"{where}: field 'also' names unknown type {role!r}")
    synonyms, signs = strings(table, "synonyms", where), strings(table, "signs", where)
    broader = table.get("broader")
    if broader is not None and not isinstance(broader, str):
        raise TaxonomyError(f"{where}: field 'broader' must be a string")
    return Concept(
        name=name.strip(),
        type=str(label),
        synonyms=synonyms,
        broader=broader.strip() if broader else None,
        also=also,
        description=str(table.get("description", "")).strip(),
        signs=signs,
    )


def strings(table: dict[str, object], field_name: str, where: str) -> tuple[str, ...]:
    """A field holding a list of strings, stripped, blanks and repeats dropped."""
    values = table.get(field_name, [])
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        raise TaxonomyError(f"{where}: field {field_name!r} must be a list of strings")
    return tuple(dict.fromkeys(value.strip() for value in values if value.strip()))


def merge(existing: Concept | None, incoming: Concept, path: Path) -> Concept:
    if existing is None:
        return incoming
    if existing.type != incoming.type:
        raise TaxonomyError(
            f"{path}: concept {incoming.name!r} is a {incoming.type} here and a {existing.type} elsewhere"
        )
    return replace(
        existing,
        synonyms=tuple(dict.fromkeys(existing.synonyms + incoming.synonyms)),
        also=tuple(dict.fromkeys(existing.also + incoming.also)),
        broader=existing.broader or incoming.broader,
        description=existing.description or incoming.description,
        signs=tuple(dict.fromkeys(existing.signs + incoming.signs)),
    )


def check_broader(concepts: list[Concept]) -> None:
    known = {(c.type, c.name) for c in concepts}
    for concept in concepts:
        if concept.broader and (concept.type, concept.broader) not in known:
            raise TaxonomyError(
                f"concept {concept.name!r}: broader concept {concept.broader!r} is not a {concept.type} "
                "in the taxonomy"
            )
