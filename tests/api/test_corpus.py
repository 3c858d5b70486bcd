"""Every root field on the bundled corpus, checked against answers computed independently in Python.

The corpus's extraction evolves with the taxonomy, so these tests do not hard-code what was
extracted; they read the plain facts back (which case links to which entity, with what confidence,
and the broader links) and recompute every answer from them: filters with narrower concepts,
facets, shared root causes, related cases, diagnose scores, path lengths.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from datetime import date

import pytest

from incident_graph.schema.entity_types import ENTITY_TYPES

from .conftest import GraphQLClient, client_for

pytestmark = pytest.mark.anyio

TYPE_OF_LABEL = {"Symptom": "SYMPTOM", "RootCause": "ROOT_CAUSE", "Component": "COMPONENT",
                 "ContributingFactor": "CONTRIBUTING_FACTOR", "Organisation": "ORGANISATION"}
FILTER_KEY = {"Symptom": "symptoms", "RootCause": "rootCauses", "Component": "components",
              "ContributingFactor": "contributingFactors", "Organisation": "organisations"}


@dataclass
class Facts:
    published: dict[str, date | None] = field(default_factory=dict)
    links: dict[str, dict[tuple[str, str], float]] = field(default_factory=lambda: defaultdict(dict))
    # (label, name) -> names of its broader concepts
    broader: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    entities: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def narrower_or_self(self, label: str, name: str) -> set[str]:
        found, frontier = {name}, [name]
        while frontier:
            parent = frontier.pop()
            for (child_label, child), parents in self.broader.items():
                if child_label == label and parent in parents and child not in found:
                    found.add(child)
                    frontier.append(child)
        return found

    def newest_first(self, case_ids: set[str]) -> list[str]:
        def key(case: str) -> tuple[bool, int, str]:
            published = self.published[case]
            return published is None, -(published or date.min).toordinal(), case

        return sorted(case_ids, key=key)

    def matching(self, names_by_label: dict[str, list[str]]) -> set[str]:
        result = set(self.published)
        for label, names in names_by_label.items():
            wanted = set().union(*(self.narrower_or_self(label, name) for name in names)) if names else set()
            result &= {case for case in result if any((label, n) in self.links[case] for n in wanted)}
        return result

    def cases_with(self, label: str, name: str) -> set[str]:
        return self.matching({label: [name]})


def read_facts(driver) -> Facts:
    facts = Facts()
    for record in driver.execute_query("MATCH (c:Case) RETURN c.case_id AS id, c.published_on AS published").records:
        facts.published[record["id"]] = record["published"].to_native() if record["published"] else None
    labels = [t.label for t in ENTITY_TYPES]
    for record in driver.execute_query(
        "MATCH (c:Case)-[r]->(e) WHERE type(r) IN $types "
        "RETURN c.case_id AS id, [l IN labels(e) WHERE l IN $labels][0] AS label, e.name AS name, "
        "r.confidence AS confidence",
        types=[t.relationship for t in ENTITY_TYPES], labels=labels,
    ).records:
        facts.links[record["id"]][(record["label"], record["name"])] = record["confidence"]
    for record in driver.execute_query(
        "MATCH (n)-[:BROADER]->(b) RETURN [l IN labels(n) WHERE l IN $labels][0] AS label, n.name AS n, b.name AS b",
        labels=labels,
    ).records:
        facts.broader[(record["label"], record["n"])].add(record["b"])
    for record in driver.execute_query(
        "MATCH (e) WHERE any(l IN labels(e) WHERE l IN $labels) "
        "RETURN [l IN labels(e) WHERE l IN $labels][0] AS label, e.name AS name", labels=labels,
    ).records:
        facts.entities[record["label"]].add(record["name"])
    return facts


@pytest.fixture(scope="module")
def facts(corpus_graph) -> Facts:
    return read_facts(corpus_graph)


@pytest.fixture
async def corpus_api(corpus_graph, neo4j_settings):
    async with await client_for(corpus_graph, neo4j_settings) as http:
        yield GraphQLClient(http)


def most_linked(facts: Facts, label: str, count: int) -> list[str]:
    counter = Counter(name for links in facts.links.values() for (l, name) in links if l == label)
    return [name for name, _ in sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:count]]


def with_narrower(facts: Facts, label: str) -> list[str]:
    return sorted({b for (l, _), parents in facts.broader.items() if l == label for b in parents})


CASES = """query($f: CaseFilter, $first: Int, $after: String) { cases(filter: $f, first: $first, after: $after) {
    totalCount edges { node { id } } pageInfo { hasNextPage endCursor } } }"""
# The corpus is larger than a page (100): tests that compare whole lists read every page, and
# those that run one query per entity sample a bounded number of them.
SAMPLE = 25


async def every_case(corpus_api: GraphQLClient, variables: dict[str, object]) -> tuple[int, list[str]]:
    """totalCount and the ids of every page, in order."""
    ids: list[str] = []
    after = None
    while True:
        data = (await corpus_api.data(CASES, {**variables, "first": 100, "after": after}))["cases"]
        ids += [e["node"]["id"] for e in data["edges"]]
        if not data["pageInfo"]["hasNextPage"]:
            return data["totalCount"], ids
        after = data["pageInfo"]["endCursor"]


async def test_the_corpus_is_all_there_newest_first(corpus_api, facts):
    assert len(facts.published) >= 300
    total, ids = await every_case(corpus_api, {})
    assert total == len(facts.published)
    assert ids == facts.newest_first(set(facts.published))


async def test_organisation_from_front_matter(corpus_api, facts):
    _, ids = await every_case(corpus_api, {"f": {"organisations": ["Cloudflare"]}})
    assert {"cloudflare-2019-waf-regex", "cloudflare-2020-backbone-config", "cloudflare-leap-second-2017",
            "cloudflare-pdx04-power-2023"} <= set(ids)
    assert all(("Organisation", "Cloudflare") in facts.links[case] for case in ids)


async def test_filters_match_the_recomputed_answer(corpus_api, facts):
    filters: list[dict[str, list[str]]] = []
    for label in FILTER_KEY:
        filters += [{label: [name]} for name in most_linked(facts, label, 3)]
        filters += [{label: [name]} for name in with_narrower(facts, label)]  # broader concepts
    filters.append({"Symptom": most_linked(facts, "Symptom", 2), "RootCause": most_linked(facts, "RootCause", 4)})
    filters.append({"Component": most_linked(facts, "Component", 3),
                    "Organisation": most_linked(facts, "Organisation", 3)})
    assert with_narrower(facts, "Symptom"), "the corpus should exercise broader concepts"
    for names_by_label in filters:
        expected = facts.newest_first(facts.matching(names_by_label))
        variables = {"f": {FILTER_KEY[label]: names for label, names in names_by_label.items()}}
        total, ids = await every_case(corpus_api, variables)
        assert total == len(expected), names_by_label
        assert ids == expected, names_by_label


async def test_facets_match_the_recomputed_counts(corpus_api, facts):
    symptom = with_narrower(facts, "Symptom")[0]
    matched = facts.matching({"Symptom": [symptom]})
    data = await corpus_api.data("""query($s: String!) { cases(filter: {symptoms: [$s]}) { facets {
        symptoms { name count } rootCauses { name count } components { name count }
        contributingFactors { name count } organisations { name count } } } }""", {"s": symptom})
    for label, key in FILTER_KEY.items():
        counts = Counter(name for case in matched for (l, name) in facts.links[case] if l == label)
        expected = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        got = [(v["name"], v["count"]) for v in data["cases"]["facets"][key]]
        assert sorted(got, key=lambda item: (-item[1], item[0])) == expected, key
        assert [count for _, count in got] == sorted((count for _, count in got), reverse=True)


def sharing_oracle(facts: Facts, symptom: str) -> dict[str, dict[str, set[str]]]:
    showing = facts.cases_with("Symptom", symptom)
    answer: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for case, links in facts.links.items():
        for (label, cause) in links:
            if label != "RootCause":
                continue
            connecting = {c for c in showing if c != case and ("RootCause", cause) in facts.links[c]}
            if connecting:
                answer[case][cause] = connecting
    return answer


def sharing_order(facts: Facts, symptom: str, answer: dict[str, dict[str, set[str]]]) -> list[str]:
    """The answer's order: the strongest shared cause first (most showing cases have it; ties by
    name), then by case id within one cause; a case stands where its strongest cause lists it."""
    showing = facts.cases_with("Symptom", symptom)
    causes = {cause for shared in answer.values() for cause in shared}
    strength = {cause: sum(("RootCause", cause) in facts.links[c] for c in showing) for cause in causes}
    rank = {cause: n for n, cause in enumerate(sorted(causes, key=lambda cause: (-strength[cause], cause)))}
    return sorted(answer, key=lambda case: (min(rank[cause] for cause in answer[case]), case))


async def test_cases_sharing_root_cause_for_every_symptom(corpus_api, facts):
    query = """query($s: String!) { casesSharingRootCause(symptom: $s) {
        case { id } sharedRootCauses { rootCause { name } connectingCases { id } connectingCaseCount } } }"""
    symptoms = sorted(facts.entities["Symptom"])
    assert len(symptoms) > 10
    # The answer holds at most `first` (100) cases; these symptoms' answers are whole.
    chosen = [s for s in most_linked(facts, "Symptom", len(symptoms)) if len(sharing_oracle(facts, s)) <= 100]
    nonempty = 0
    for symptom in chosen[:SAMPLE] + chosen[-5:]:
        expected = sharing_oracle(facts, symptom)
        data = await corpus_api.data(query, {"s": symptom})
        rows = data["casesSharingRootCause"]
        got = {row["case"]["id"]: {s["rootCause"]["name"]: s["connectingCaseCount"] for s in row["sharedRootCauses"]}
               for row in rows}
        expected_counts = {case: {cause: len(c) for cause, c in causes.items()} for case, causes in expected.items()}
        assert got == expected_counts, symptom
        for row in rows:
            for shared in row["sharedRootCauses"]:
                connecting = expected[row["case"]["id"]][shared["rootCause"]["name"]]
                assert [c["id"] for c in shared["connectingCases"]] == sorted(connecting)[:20]
        assert [row["case"]["id"] for row in rows] == sharing_order(facts, symptom, expected)
        nonempty += bool(rows)
    assert nonempty > 5


async def test_related_cases_for_every_case(corpus_api, facts):
    query = "query($id: ID!) { relatedCases(id: $id, first: 100) { case { id } sharedCount shared { name } } }"
    for case in sorted(facts.links)[::max(1, len(facts.links) // (2 * SAMPLE))]:
        links = facts.links[case]
        shared = {other: set(links) & set(other_links) for other, other_links in facts.links.items() if other != case}
        expected = sorted(((other, len(s)) for other, s in shared.items() if s), key=lambda item: (-item[1], item[0]))
        expected = expected[:100]
        data = await corpus_api.data(query, {"id": case})
        assert [(r["case"]["id"], r["sharedCount"]) for r in data["relatedCases"]] == expected, case


def ancestors_or_self(facts: Facts, label: str, name: str) -> set[str]:
    found, frontier = {name}, [name]
    while frontier:
        parents = facts.broader.get((label, frontier.pop()), set()) - found
        found |= parents
        frontier += parents
    return found


async def test_diagnose_answers_are_supported_by_cases_showing_the_symptoms(corpus_api, facts):
    """The ranking's arithmetic is checked on the constructed example (test_diagnosis.py); on the
    corpus: every supporting case shows one of the symptoms (or a narrower one) or is one of the
    few nearest to the names by meaning, scores are sorted and within their group's, and each
    group is the top of its cause's broader chain."""
    from incident_graph.api.diagnosis import MEANING_POOL

    query = """query($s: [String!]!) {
        diagnose(symptoms: $s, first: 100) { rootCause { name } group { name } score groupScore
          supportingCaseCount supportingCases { id } } }"""
    symptom_sets = [[name] for name in most_linked(facts, "Symptom", 4)]
    symptom_sets += [most_linked(facts, "Symptom", 3), with_narrower(facts, "Symptom")[:2]]
    for symptoms in symptom_sets:
        names = set().union(*(facts.narrower_or_self("Symptom", symptom) for symptom in symptoms))
        showing = {case for case, links in facts.links.items() if any(l == "Symptom" and n in names for l, n in links)}
        rows = (await corpus_api.data(query, {"s": symptoms}))["diagnose"]
        assert rows, symptoms
        assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
        credited = 0
        by_meaning: set[str] = set()
        for row in rows:
            cause = row["rootCause"]["name"]
            assert 0 < row["score"] <= row["groupScore"] + 1e-9 <= 1 + 1e-9, (symptoms, cause)
            chain = ancestors_or_self(facts, "RootCause", cause)
            group = row["group"]["name"] if row["group"] else cause
            assert group in chain and not facts.broader.get(("RootCause", group)), (symptoms, cause)
            supporting = {c["id"] for c in row["supportingCases"]}
            by_meaning |= supporting - showing
            narrower = facts.narrower_or_self("RootCause", cause)
            credited += sum(any(l == "RootCause" and n in narrower for l, n in facts.links[case]) for case in supporting)
        assert len(by_meaning) <= MEANING_POOL, symptoms
        assert credited > 0, symptoms  # most support comes through the taxonomy, not placement


def bfs_distance(facts: Facts, start: str, goal: str, max_hops: int) -> int | None:
    neighbours: dict[str, set[str]] = defaultdict(set)
    for case, links in facts.links.items():
        for (label, name) in links:
            neighbours[f"Case:{case}"].add(f"{label}:{name}")
            neighbours[f"{label}:{name}"].add(f"Case:{case}")
    for (label, name), parents in facts.broader.items():
        for parent in parents:
            neighbours[f"{label}:{name}"].add(f"{label}:{parent}")
            neighbours[f"{label}:{parent}"].add(f"{label}:{name}")
    distance = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            return distance[node]
        for other in neighbours[node]:
            if other not in distance and distance[node] < max_hops:
                distance[other] = distance[node] + 1
                queue.append(other)
    return None


async def test_paths_are_shortest(corpus_api, facts):
    query = """query($from: EntityRef!, $to: EntityRef!) { path(from: $from, to: $to, maxHops: 6) {
        length nodes { id } edges { source target } } }"""
    cases = sorted(facts.published)
    pairs = [(("CASE", cases[0]), ("CASE", cases[-1])), (("CASE", cases[1]), ("CASE", cases[len(cases) // 2]))]
    pairs += [
        (("SYMPTOM", most_linked(facts, "Symptom", 1)[0]), ("ROOT_CAUSE", most_linked(facts, "RootCause", 1)[0])),
        (("ORGANISATION", most_linked(facts, "Organisation", 1)[0]),
         ("COMPONENT", most_linked(facts, "Component", 1)[0])),
    ]
    label_of = {value: key for key, value in TYPE_OF_LABEL.items()} | {"CASE": "Case"}
    for (from_type, from_name), (to_type, to_name) in pairs:
        expected = bfs_distance(facts, f"{label_of[from_type]}:{from_name}", f"{label_of[to_type]}:{to_name}", 6)
        data = await corpus_api.data(query, {"from": {"type": from_type, "name": from_name},
                                             "to": {"type": to_type, "name": to_name}})
        path = data["path"]
        assert (path["length"] if path else None) == expected
        if path:  # consecutive nodes are joined by the listed edges
            ids = [node["id"] for node in path["nodes"]]
            assert ids[0] == f"{label_of[from_type]}:{from_name}" and ids[-1] == f"{label_of[to_type]}:{to_name}"
            for (a, b), edge in zip(zip(ids, ids[1:]), path["edges"]):
                assert {edge["source"], edge["target"]} == {a, b}


async def test_subgraph_holds_the_filtered_cases_and_their_entities(corpus_api, facts):
    def size(organisation: str) -> int:  # nodes of its subgraph: at most `limit` (200) to compare whole
        cases = facts.matching({"Organisation": [organisation]})
        return len(cases) + len({entity for case in cases for entity in facts.links[case]})

    organisation = next(o for o in most_linked(facts, "Organisation", 20) if size(o) <= 200)
    data = await corpus_api.data(
        'query($o: String!) { subgraph(filter: {organisations: [$o]}, limit: 200) { '
        'nodes { id } edges { source target type } } }',
        {"o": organisation})
    cases = facts.matching({"Organisation": [organisation]})
    entities = {f"{label}:{name}" for case in cases for (label, name) in facts.links[case]}
    assert {node["id"] for node in data["subgraph"]["nodes"]} == {f"Case:{c}" for c in cases} | entities
    links = [e for e in data["subgraph"]["edges"] if e["type"] != "BROADER"]
    assert len(links) == sum(len(facts.links[case]) for case in cases)


async def test_entity_lookups_list_every_entity(corpus_api, facts):
    for label, key in FILTER_KEY.items():
        data = await corpus_api.data(f"{{ {key}(first: 1) {{ totalCount }} }}")
        assert data[key]["totalCount"] == len(facts.entities[label]), label
    name = most_linked(facts, "Component", 1)[0]
    data = await corpus_api.data(
        'query($s: String) { components(search: $s) { edges { node { name cases(first: 100) { totalCount } } } } }',
        {"s": name})
    first = data["components"]["edges"][0]["node"]
    assert first["name"] == name
    assert first["cases"]["totalCount"] == len(facts.cases_with("Component", name))


async def test_case_and_suggest_filters_on_the_corpus(corpus_api, facts):
    case_id = sorted(facts.published)[0]
    data = await corpus_api.data(
        'query($id: ID!) { case(id: $id) { id text symptoms { entity { name } evidence { start end mention } } } }',
        {"id": case_id})
    case = data["case"]
    expected = {name for (label, name) in facts.links[case_id] if label == "Symptom"}
    assert {link["entity"]["name"] for link in case["symptoms"]} == expected
    for link in case["symptoms"]:
        evidence = link["evidence"]
        if evidence["start"] is not None and evidence["mention"]:
            assert case["text"][evidence["start"]:evidence["end"]].lower() == evidence["mention"].lower()
    data = await corpus_api.data('{ suggestFilters(text: "my loss spiked after a GPU fault") { type name } }')
    suggestions = {(s["type"], s["name"]) for s in data["suggestFilters"]}
    assert {("SYMPTOM", "loss spike"), ("COMPONENT", "GPU")} <= suggestions
