"""casesSharingRootCause, relatedCases, path and subgraph on the constructed example (diagnose: test_diagnosis.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.anyio

SHARING = """
query($symptom: String!) {
  casesSharingRootCause(symptom: $symptom) {
    case { id }
    sharedRootCauses { rootCause { name } connectingCases { id } connectingCaseCount }
  }
}
"""


def sharing_summary(data):
    return [
        (row["case"]["id"], [(shared["rootCause"]["name"], [c["id"] for c in shared["connectingCases"]],
                              shared["connectingCaseCount"]) for shared in row["sharedRootCauses"]])
        for row in data["casesSharingRootCause"]
    ]


async def test_cases_sharing_a_root_cause_with_a_symptom(api):
    data = await api.data(SHARING, {"symptom": "loss spike"})
    # Two of the cases showing it have silent data corruption, one has a software bug: the cases of
    # the stronger cause come first, by id; then the software bug's case not listed yet.
    assert sharing_summary(data) == [
        ("gpu-sdc-bytedance", [("silent data corruption", ["llama-training-interrupts"], 1)]),
        ("llama-training-interrupts", [("silent data corruption", ["gpu-sdc-bytedance"], 1),
                                       ("software bug", ["undated-note"], 1)]),
        ("meta-sdc-fleet", [("silent data corruption", ["gpu-sdc-bytedance", "llama-training-interrupts"], 2)]),
        ("undated-note", [("software bug", ["llama-training-interrupts"], 1)]),
    ]


async def test_sharing_follows_broader_symptoms_and_never_pairs_a_case_with_itself(api):
    data = await api.data(SHARING, {"symptom": "availability loss"})
    # datacenter-power is alone with power failure and hardware fault, so it shares nothing.
    assert sharing_summary(data) == [
        ("cloudflare-dns-outage", [("configuration error", ["gitlab-db-deletion"], 1)]),
        ("gitlab-db-deletion", [("configuration error", ["cloudflare-dns-outage"], 1)]),
        ("gpu-sdc-bytedance", [("silent data corruption", ["llama-training-interrupts"], 1)]),
        ("llama-training-interrupts", [("silent data corruption", ["gpu-sdc-bytedance"], 1)]),
        ("meta-sdc-fleet", [("silent data corruption", ["gpu-sdc-bytedance", "llama-training-interrupts"], 2)]),
        ("undated-note", [("software bug", ["llama-training-interrupts"], 1)]),
    ]


async def test_sharing_with_an_unknown_symptom_is_empty(api):
    assert await api.data(SHARING, {"symptom": "no such symptom"}) == {"casesSharingRootCause": []}


RELATED = """
query($id: ID!, $via: [EntityType!], $first: Int) {
  relatedCases(id: $id, via: $via, first: $first) { case { id } sharedCount shared { __typename name type } }
}
"""


async def test_related_cases_ranked_by_shared_entities(api):
    data = await api.data(RELATED, {"id": "gpu-sdc-bytedance"})
    assert [(r["case"]["id"], r["sharedCount"], [(e["__typename"], e["name"]) for e in r["shared"]])
            for r in data["relatedCases"]] == [
        ("llama-training-interrupts", 5, [("Symptom", "crash loop"), ("Symptom", "loss spike"),
                                          ("RootCause", "silent data corruption"), ("Component", "GPU"),
                                          ("Component", "training cluster")]),
        ("meta-sdc-fleet", 3, [("RootCause", "silent data corruption"), ("Component", "GPU"),
                               ("ContributingFactor", "no hardware error signal")]),
        ("undated-note", 2, [("Symptom", "loss spike"), ("Component", "training cluster")]),
    ]


async def test_related_cases_via_chosen_types_and_first(api):
    data = await api.data(RELATED, {"id": "gpu-sdc-bytedance", "via": ["ROOT_CAUSE", "CONTRIBUTING_FACTOR"]})
    assert [(r["case"]["id"], r["sharedCount"]) for r in data["relatedCases"]] == [
        ("meta-sdc-fleet", 2), ("llama-training-interrupts", 1),
    ]
    assert data["relatedCases"][0]["shared"][1] == {
        "__typename": "ContributingFactor", "name": "no hardware error signal", "type": "CONTRIBUTING_FACTOR",
    }
    data = await api.data(RELATED, {"id": "gpu-sdc-bytedance", "first": 1})
    assert [r["case"]["id"] for r in data["relatedCases"]] == ["llama-training-interrupts"]
    assert await api.data(RELATED, {"id": "no-such-case"}) == {"relatedCases": []}


PATH = """
query($from: EntityRef!, $to: EntityRef!, $maxHops: Int) {
  path(from: $from, to: $to, maxHops: $maxHops) {
    length nodes { id type name title } edges { source target type confidence }
  }
}
"""


async def test_path_between_entities(api):
    data = await api.data(PATH, {"from": {"type": "CONTRIBUTING_FACTOR", "name": "missing alerting"},
                                 "to": {"type": "ORGANISATION", "name": "GitLab"}})
    assert data["path"] == {
        "length": 2,
        "nodes": [
            {"id": "ContributingFactor:missing alerting", "type": "CONTRIBUTING_FACTOR",
             "name": "missing alerting", "title": "missing alerting"},
            {"id": "Case:gitlab-db-deletion", "type": "CASE", "name": "gitlab-db-deletion",
             "title": "Production database deleted by mistake"},
            {"id": "Organisation:GitLab", "type": "ORGANISATION", "name": "GitLab", "title": "GitLab"},
        ],
        "edges": [  # in their stored direction, case to entity
            {"source": "Case:gitlab-db-deletion", "target": "ContributingFactor:missing alerting",
             "type": "HAS_CONTRIBUTING_FACTOR", "confidence": 0.7},
            {"source": "Case:gitlab-db-deletion", "target": "Organisation:GitLab",
             "type": "INVOLVES_ORGANISATION", "confidence": 1.0},
        ],
    }


async def test_path_from_a_case_goes_through_broader_concepts_within_max_hops(api):
    variables = {"from": {"type": "CASE", "name": "gpu-sdc-bytedance"}, "to": {"type": "COMPONENT", "name": "DNS"}}
    assert await api.data(PATH, variables) == {"path": None}  # 5 hops needed, default maxHops is 4
    data = await api.data(PATH, {**variables, "maxHops": 5})
    assert data["path"]["length"] == 5
    assert [node["id"] for node in data["path"]["nodes"]] == [
        "Case:gpu-sdc-bytedance", "Symptom:crash loop", "Symptom:availability loss", "Symptom:service outage",
        "Case:cloudflare-dns-outage", "Component:DNS",
    ]
    assert [edge["type"] for edge in data["path"]["edges"]] == [
        "HAS_SYMPTOM", "BROADER", "BROADER", "HAS_SYMPTOM", "INVOLVES_COMPONENT",
    ]


async def test_path_to_itself_and_to_unknown_nodes(api):
    same = {"type": "CASE", "name": "undated-note"}
    data = await api.data(PATH, {"from": same, "to": same})
    assert data["path"] == {"length": 0, "edges": [], "nodes": [
        {"id": "Case:undated-note", "type": "CASE", "name": "undated-note", "title": "A note about a loss spike"}]}
    message = await api.error(PATH, {"from": {"type": "CASE", "name": "nope"}, "to": same})
    assert message == "`from`: no case with id 'nope' in the graph."
    message = await api.error(PATH, {"from": same, "to": {"type": "ROOT_CAUSE", "name": "gremlins"}})
    assert message == "`to`: no root cause named 'gremlins' in the graph."


SUBGRAPH = """
query($filter: CaseFilter, $limit: Int) {
  subgraph(filter: $filter, limit: $limit) { nodes { id type title } edges { source target type confidence } }
}
"""


async def test_subgraph_of_filtered_cases(api):
    data = await api.data(SUBGRAPH, {"filter": {"organisations": ["Cloudflare"]}})
    nodes = {node["id"] for node in data["subgraph"]["nodes"]}
    assert nodes == {
        "Case:datacenter-power", "Case:cloudflare-dns-outage", "Organisation:Cloudflare", "Symptom:service outage",
        "RootCause:power failure", "RootCause:hardware fault", "RootCause:configuration error", "Component:DNS",
        "Component:database", "ContributingFactor:missing alerting",
    }
    edges = {(e["source"], e["target"], e["type"]) for e in data["subgraph"]["edges"]}
    assert ("Case:datacenter-power", "RootCause:power failure", "HAS_ROOT_CAUSE") in edges
    assert ("RootCause:power failure", "RootCause:hardware fault", "BROADER") in edges
    assert len(edges) == 11  # 10 case links and one broader link
    assert {e["source"] for e in data["subgraph"]["edges"]} <= nodes
    assert {e["target"] for e in data["subgraph"]["edges"]} <= nodes


async def test_subgraph_limit_keeps_the_first_cases(api):
    data = await api.data(SUBGRAPH, {"filter": {"rootCauses": ["hardware fault"]}, "limit": 2})
    cases = [node["id"] for node in data["subgraph"]["nodes"] if node["type"] == "CASE"]
    assert cases == ["Case:llama-training-interrupts", "Case:gpu-sdc-bytedance"]
    data = await api.data(SUBGRAPH, {"filter": {"symptoms": ["no such symptom"]}})
    assert data["subgraph"] == {"nodes": [], "edges": []}
