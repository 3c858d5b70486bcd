"""Fit the entity classifier (ingest/components/entity_classifier.py) on the gold write-ups.

`incident-graph train-classifier` runs this: the pipeline (without weights) reads the write-ups of
the fitting splits (train and tune-new), every candidate phrase is labelled with the type of the
gold concept it matches (the relaxed match the evaluation uses), and a multinomial logistic
regression is fitted. Each type's threshold and floors are chosen where they give the best F1 end
to end on out-of-fold probabilities: the write-ups are cut into folds by a hash of their id, and
each fold is scored by weights fitted without it, so the settings are chosen on every write-up
without being chosen on the weights' own training data. The final weights are fitted on all of
them. The result is a small data file, ingest/models/entity_classifier.npz, that build_pipeline
loads. dev, dev-new and holdout are never read here.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy
from spacy.tokens import Doc, Span

from incident_graph.ingest.components.cues import CueIndex
from incident_graph.ingest.components.entity_classifier import CLASSES, TYPES, Candidate, EntityClassifier
from incident_graph.ingest.components.spans import MIN_CONFIDENCE
from incident_graph.ingest.components.tokens import make_doc
from incident_graph.ingest.corpus import FIT_SPLITS
from incident_graph.ingest.readers import WriteUp, read_paths
from incident_graph.ingest.relaxed_match import Score, Words, concept_forms, matches_concept, score_items, words
from incident_graph.schema.entity_types import BY_LABEL

CLASSIFIER_PIPE = "incident_entity_classifier"


@dataclass
class LabelledDoc:
    case_id: str
    doc: Doc
    candidates: list[Candidate]
    features: numpy.ndarray
    labels: numpy.ndarray  # class index per candidate
    gold: dict[str, list[list[Words]]]  # type label -> concepts


def weights_file() -> Path:
    return Path(__file__).resolve().parent / "models" / "entity_classifier.npz"


def gold_concepts(record: dict[str, object]) -> dict[str, list[list[Words]]]:
    return {label: [concept_forms(c) for c in record.get(BY_LABEL[label].key, []) or []]  # type: ignore[union-attr]
            for label in TYPES}


def label_of(candidate: Candidate, gold: dict[str, list[list[Words]]]) -> int:
    texts = [candidate.span.text, candidate.name or ""]
    for k, label in enumerate(TYPES, start=1):
        if any(matches_concept(texts, concept) for concept in gold[label]):
            return k
    return 0


def labelled_docs(nlp, records: list[dict[str, object]], writeups: dict[str, WriteUp],
                  progress: Callable[[str], None] = lambda _: None) -> list[LabelledDoc]:
    classifier: EntityClassifier = nlp.get_pipe(CLASSIFIER_PIPE)
    texts = [(r, writeups[str(r["id"])]) for r in records if str(r["id"]) in writeups]
    docs = []
    with nlp.select_pipes(disable=[CLASSIFIER_PIPE]):
        for (record, writeup), doc in zip(texts, nlp.pipe(make_doc(nlp, w.text) for _, w in texts)):
            candidates = classifier.candidates(doc)
            gold = gold_concepts(record)
            features = classifier.features(doc, candidates) if candidates else numpy.zeros((0, 1), "float32")
            labels = numpy.array([label_of(c, gold) for c in candidates], dtype="int64")
            docs.append(LabelledDoc(str(record["id"]), doc, candidates, features, labels, gold))
            progress(f"read {record['id']}")
    return docs


def fit(features: numpy.ndarray, labels: numpy.ndarray, l2: float = 3e-2, steps: int = 400,
        rate: float = 0.05, seed: int = 0) -> dict[str, numpy.ndarray]:
    """Multinomial logistic regression by full-batch Adam on standardised features."""
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-3
    x = (features - mean) / scale
    n, d = x.shape
    k = len(CLASSES)
    target = numpy.eye(k, dtype="float32")[labels]
    rng = numpy.random.default_rng(seed)
    weights = rng.normal(0, 0.01, (d, k)).astype("float32")
    bias = numpy.zeros(k, dtype="float32")
    moments = [numpy.zeros_like(weights), numpy.zeros_like(weights), numpy.zeros_like(bias), numpy.zeros_like(bias)]
    for step in range(1, steps + 1):
        scores = x @ weights + bias
        scores -= scores.max(axis=1, keepdims=True)
        probabilities = numpy.exp(scores)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        error = (probabilities - target) / n
        grad_w = x.T @ error + l2 * weights
        grad_b = error.sum(axis=0)
        for i, (param, grad) in enumerate(((weights, grad_w), (bias, grad_b))):
            m, v = moments[2 * i], moments[2 * i + 1]
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            param -= rate * (m / (1 - 0.9 ** step)) / (numpy.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    return {"weights": weights, "bias": bias, "mean": mean.astype("float32"), "scale": scale.astype("float32")}


THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)
SECTION_FLOORS = (0.03, 0.06, 0.1, 0.15, 1.0)  # 1.0: off
# A write-up's fallback stays well above noise: about one report in four states no root cause at all.
DOCUMENT_FLOORS = (0.05, 0.1, 1.0)


FOLDS = 5


def fold_of(case_id: str, folds: int) -> int:
    """A write-up's fold, by a hash of its id: the same folds on every machine and run."""
    return int(hashlib.sha256(case_id.encode("utf-8")).hexdigest(), 16) % folds


def stacked(docs: list[LabelledDoc]) -> tuple[numpy.ndarray, numpy.ndarray]:
    scored = [d for d in docs if len(d.candidates)]
    return numpy.concatenate([d.features for d in scored]), numpy.concatenate([d.labels for d in scored])


def out_of_fold_probabilities(classifier: EntityClassifier, docs: list[LabelledDoc], folds: int,
                              progress: Callable[[str], None] = lambda _: None) -> list[numpy.ndarray | None]:
    """Each write-up's candidate probabilities from weights fitted on the other folds only."""
    probabilities: list[numpy.ndarray | None] = [None] * len(docs)
    fold_of_doc = [fold_of(d.case_id, folds) for d in docs]
    for fold in range(folds):
        progress(f"fitting without fold {fold + 1} of {folds}")
        held = [i for i, d in enumerate(docs) if fold_of_doc[i] == fold and len(d.candidates)]
        rest = [d for i, d in enumerate(docs) if fold_of_doc[i] != fold]
        if not held or not rest:
            continue
        classifier.set_weights(fit(*stacked(rest)))
        for i in held:
            probabilities[i] = classifier.probabilities(docs[i].features)
    return probabilities


Setting = tuple[float, float, float]  # threshold, section floor, write-up floor


def choose_thresholds(classifier: EntityClassifier, docs: list[LabelledDoc],
                      probabilities: list[numpy.ndarray | None],
                      progress: Callable[[str], None] = lambda _: None) -> dict[str, object]:
    """Per type, the threshold and the section and write-up floors (see EntityClassifier.decide) with
    the best relaxed F1 over the docs, decided as the pipeline decides on the given probabilities.

    A grid where the four types share each setting, one pass per setting scoring all four. The
    types do meet in a decision (a fallback never takes words another type holds, a bullet keeps
    only its own type's statement), so the F1 reported is that of the chosen settings decided
    together. (A further pass over each type's settings with the others at their choice changed
    nothing on the corpus and tripled the time; see BENCHMARKS.md.)"""
    cues = [CueIndex(d.doc, classifier.cues) for d in docs]
    grid = [s for s in itertools.product(THRESHOLDS, SECTION_FLOORS, DOCUMENT_FLOORS)
            # a write-up's floor above its sections' one adds nothing
            if not (s[2] < 1.0 and s[1] < 1.0 and s[2] > s[1])]
    best: dict[str, tuple[float, Setting]] = {label: (-1.0, (0.5, 1.0, 1.0)) for label in TYPES}
    for number, setting in enumerate(grid, start=1):
        progress(f"choosing thresholds: shared setting {number} of {len(grid)}")
        for label, f1 in decided_f1(classifier, docs, probabilities, cues, {label: setting for label in TYPES}).items():
            if f1 > best[label][0]:
                best[label] = (f1, setting)
    chosen = {label: setting for label, (_, setting) in best.items()}
    scores = decided_f1(classifier, docs, probabilities, cues, chosen)
    return {
        "thresholds": {label: setting[0] for label, setting in chosen.items()},
        "floors": {"section": {label: setting[1] for label, setting in chosen.items()},
                   "document": {label: setting[2] for label, setting in chosen.items()}},
        "out_of_fold_f1": {label: round(f1, 3) for label, f1 in scores.items()},
    }


def decided_f1(classifier: EntityClassifier, docs: list[LabelledDoc], probabilities: list[numpy.ndarray | None],
               cues: list[CueIndex], settings: dict[str, Setting]) -> dict[str, float]:
    """Each type's relaxed F1 over the docs when the classifier decides with these settings."""
    classifier.thresholds.update({label: setting[0] for label, setting in settings.items()})
    classifier.set_floors({"section": {label: setting[1] for label, setting in settings.items()},
                           "document": {label: setting[2] for label, setting in settings.items()}})
    scores = {label: Score() for label in TYPES}
    for doc, rows, cue_index in zip(docs, probabilities, cues):
        spans = classifier.decide(doc.doc, doc.candidates, rows, cue_index) if rows is not None else []
        spans = [s for s in spans if float(s._.confidence or 0.0) >= MIN_CONFIDENCE]  # what the extractor keeps
        for label in TYPES:
            items = [[words(text) for text in item] for item in strongest_by_name([s for s in spans if s.label_ == label])]
            scores[label].add(score_items(items, doc.gold[label]))
    return {label: score.f1 for label, score in scores.items()}


def strongest_by_name(spans: list[Span]) -> list[list[str]]:
    """As the extractor reports them: one item per name, with its most confident mention."""
    strongest: dict[str, Span] = {}
    for span in spans:
        current = strongest.get(span.id_)
        if current is None or float(span._.confidence or 0) > float(current._.confidence or 0):
            strongest[span.id_] = span
    return [[name, span.text] for name, span in strongest.items()]


def train(nlp, cases_dir: Path, gold_dir: Path, splits: tuple[str, ...] = FIT_SPLITS, folds: int = FOLDS,
          out: Path | None = None, progress: Callable[[str], None] = lambda _: None) -> dict[str, object]:
    if folds < 2:
        raise ValueError(f"folds must be at least 2, not {folds}")
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(gold_dir.glob("*.json"))]
    writeups = {w.case_id: w for w in read_paths([cases_dir]) if isinstance(w, WriteUp)}
    docs = labelled_docs(nlp, [r for r in records if r.get("split") in splits], writeups, progress)
    if not any(len(d.candidates) for d in docs):
        raise ValueError(f"no write-up of the splits {', '.join(splits)} in {gold_dir} gave a candidate to fit on")
    classifier: EntityClassifier = nlp.get_pipe(CLASSIFIER_PIPE)
    probabilities = out_of_fold_probabilities(classifier, docs, folds, progress)
    decision = choose_thresholds(classifier, docs, probabilities, progress)
    progress("fitting the shipped weights on every write-up")
    features, labels = stacked(docs)
    weights = fit(features, labels)
    out = out or weights_file()
    out.parent.mkdir(parents=True, exist_ok=True)
    numpy.savez_compressed(out, **weights, thresholds=json.dumps(decision["thresholds"]),
                           floors=json.dumps(decision["floors"]))
    return {"documents": len(docs), "splits": list(splits), "folds": folds, "candidates": int(len(labels)),
            "positives": {label: int((labels == k).sum()) for k, label in enumerate(TYPES, start=1)},
            **decision, "file": str(out)}


def load_weights(path: Path) -> dict[str, object] | None:
    if not path.is_file():
        return None
    with numpy.load(path) as data:
        weights: dict[str, object] = {key: data[key] for key in ("weights", "bias", "mean", "scale")}
        weights["thresholds"] = json.loads(str(data["thresholds"]))
        weights["floors"] = json.loads(str(data["floors"])) if "floors" in data.files else {}
    return weights
