"""The constructed example graph of the API tests, written with graph/writes.py (the shape ingest
writes), so that answers can be asserted exactly:

    case                        published   organisation  symptoms (confidence)              root causes (confidence)            components               contributing factors
    gpu-sdc-bytedance           2024-05-01  ByteDance     loss spike .9, crash loop .8       silent data corruption .9           GPU, training cluster    no hardware error signal
    meta-sdc-fleet              2021-02     Meta          data loss .7                       silent data corruption .8           GPU                      no hardware error signal
    llama-training-interrupts   2024-07     Meta          crash loop .9, loss spike .5       silent data corruption .6,          GPU, training cluster
                                                                                             software bug .8
    cloudflare-dns-outage       2020-07-17  Cloudflare    service outage 1.0                 configuration error .9              DNS                      missing alerting
    gitlab-db-deletion          2017-01-31  GitLab        data loss .9, service outage .8    configuration error .7              database                 missing alerting
    datacenter-power            2023-11     Cloudflare    service outage .9                  power failure 1.0,                  database
                                                                                             hardware fault .4
    undated-note                (none)      (none)        loss spike .5                      software bug .5                     training cluster

Taxonomy: symptoms "service outage" and "crash loop" are narrower than "availability loss";
root causes "silent data corruption" and "power failure" are narrower than "hardware fault".
"""

from __future__ import annotations

from neo4j import Driver

from incident_graph.graph.admin import reset_data
from incident_graph.graph.writes import sync_taxonomy, write_case
from incident_graph.schema.records import ExtractedCase, Mention
from incident_graph.schema.taxonomy import Concept

TAXONOMY = [
    Concept("availability loss", "Symptom", description="Group: the service cannot be used."),
    Concept("service outage", "Symptom", synonyms=("downtime", "went down"), broader="availability loss"),
    Concept("crash loop", "Symptom", synonyms=("boot loop",), broader="availability loss"),
    Concept("loss spike", "Symptom", synonyms=("loss spiked",)),
    Concept("data loss", "Symptom"),
    Concept("hardware fault", "RootCause", description="Group: hardware misbehaves."),
    Concept("silent data corruption", "RootCause", synonyms=("SDC",), broader="hardware fault",
            signs=("wrong results with no error in any log", "the loss jumps on one job and not on the others")),
    Concept("power failure", "RootCause", broader="hardware fault"),
    Concept("configuration error", "RootCause"),
    Concept("software bug", "RootCause"),
    Concept("GPU", "Component"),
    Concept("DNS", "Component"),
    Concept("database", "Component"),
    Concept("training cluster", "Component"),
    Concept("no hardware error signal", "ContributingFactor"),
    Concept("missing alerting", "ContributingFactor"),
    Concept("ByteDance", "Organisation"),
    Concept("Meta", "Organisation"),
    Concept("Cloudflare", "Organisation"),
    Concept("GitLab", "Organisation"),
]

LABEL = {
    "s": "Symptom", "r": "RootCause", "c": "Component", "f": "ContributingFactor", "o": "Organisation",
}

# case id -> (published, title, [(type letter, name, confidence)])
CASES: dict[str, tuple[str | None, str, list[tuple[str, str, float]]]] = {
    "gpu-sdc-bytedance": ("2024-05-01", "Defective GPUs silently corrupt LLM training", [
        ("o", "ByteDance", 1.0), ("s", "loss spike", 0.9), ("s", "crash loop", 0.8),
        ("r", "silent data corruption", 0.9), ("c", "GPU", 0.9), ("c", "training cluster", 0.7),
        ("f", "no hardware error signal", 0.8)]),
    "meta-sdc-fleet": ("2021-02", "Silent data corruption across a server fleet", [
        ("o", "Meta", 1.0), ("s", "data loss", 0.7), ("r", "silent data corruption", 0.8), ("c", "GPU", 0.6),
        ("f", "no hardware error signal", 0.9)]),
    "llama-training-interrupts": ("2024-07", "Training interruptions on a large GPU cluster", [
        ("o", "Meta", 1.0), ("s", "crash loop", 0.9), ("s", "loss spike", 0.5),
        ("r", "silent data corruption", 0.6), ("r", "software bug", 0.8), ("c", "GPU", 0.9),
        ("c", "training cluster", 0.9)]),
    "cloudflare-dns-outage": ("2020-07-17", "A backbone configuration error takes DNS down", [
        ("o", "Cloudflare", 1.0), ("s", "service outage", 1.0), ("r", "configuration error", 0.9),
        ("c", "DNS", 0.9), ("f", "missing alerting", 0.6)]),
    "gitlab-db-deletion": ("2017-01-31", "Production database deleted by mistake", [
        ("o", "GitLab", 1.0), ("s", "data loss", 0.9), ("s", "service outage", 0.8),
        ("r", "configuration error", 0.7), ("c", "database", 0.9), ("f", "missing alerting", 0.7)]),
    "datacenter-power": ("2023-11", "Power loss in a data centre stops the database", [
        ("o", "Cloudflare", 1.0), ("s", "service outage", 0.9), ("r", "power failure", 1.0),
        ("r", "hardware fault", 0.4), ("c", "database", 0.8)]),
    "undated-note": (None, "A note about a loss spike", [
        ("s", "loss spike", 0.5), ("r", "software bug", 0.5), ("c", "training cluster", 0.6)]),
}


def example_case(case_id: str) -> ExtractedCase:
    """Each link's evidence is a generated sentence of the case's text, with exact offsets."""
    published, title, links = CASES[case_id]
    sentences = [f"The write-up names {name} here." for _, name, _ in links]
    text = f"{title}. " + " ".join(sentences)
    mentions = []
    for (letter, name, confidence), sentence in zip(links, sentences):
        sentence_start = text.index(sentence)
        start = sentence_start + sentence.index(name)
        mentions.append(Mention(
            type=LABEL[letter], name=name, mention=name, sentence=sentence, start=start, end=start + len(name),
            confidence=confidence, method="metadata" if letter == "o" else "taxonomy", section="",
        ))
    return ExtractedCase(case_id=case_id, title=title, source=f"tests/{case_id}.md", text=text,
                         published=published, detection=f"Detected {case_id}.", remediation=("step one", "step two"),
                         lessons="Check the hardware." if "sdc" in case_id else "", mentions=tuple(mentions))


def load_example(driver: Driver) -> None:
    reset_data(driver)
    sync_taxonomy(driver, TAXONOMY)
    for case_id in CASES:
        write_case(driver, example_case(case_id))
