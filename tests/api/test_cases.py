"""`case` and `cases`: fields, links with evidence, filters (broader matches narrower), facets, pages."""

from __future__ import annotations

import pytest

from incident_graph.graph.queries import lucene_all_words

from .example import CASES

pytestmark = pytest.mark.anyio

NEWEST_FIRST = [
    "llama-training-interrupts", "gpu-sdc-bytedance", "datacenter-power", "meta-sdc-fleet",
    "cloudflare-dns-outage", "gitlab-db-deletion", "undated-note",
]

CASE_IDS = """
query($filter: CaseFilter, $first: Int, $after: String) {
  cases(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { id } }
  }
}
"""


async def case_ids(api, case_filter=None, first=None, after=None) -> tuple[int, list[str]]:
    data = await api.data(CASE_IDS, {"filter": case_filter, "first": first, "after": after})
    return data["cases"]["totalCount"], [edge["node"]["id"] for edge in data["cases"]["edges"]]


async def test_case_exposes_its_fields_links_and_evidence(api):
    data = await api.data("""{
      case(id: "gpu-sdc-bytedance") {
        id title source published publishedOn text detection remediation lessons layout ingestedAt
        symptoms { entity { name type known } evidence { sentence mention start end method confidence } }
        rootCauses { entity { name } evidence { confidence } }
        components { entity { name } }
        contributingFactors { entity { name } }
        organisations { entity { name } evidence { method } }
      }
    }""")
    case = data["case"]
    assert case["id"] == "gpu-sdc-bytedance"
    assert case["title"] == "Defective GPUs silently corrupt LLM training"
    assert case["source"] == "tests/gpu-sdc-bytedance.md"
    assert (case["published"], case["publishedOn"]) == ("2024-05-01", "2024-05-01")
    assert case["detection"] == "Detected gpu-sdc-bytedance."
    assert case["remediation"] == ["step one", "step two"]
    assert case["lessons"] == "Check the hardware."
    assert case["layout"] == "free-form"
    assert case["ingestedAt"] is not None
    # Links come strongest first; evidence offsets point into the case's text.
    assert [link["entity"]["name"] for link in case["symptoms"]] == ["loss spike", "crash loop"]
    first_link = case["symptoms"][0]
    assert first_link["entity"] == {"name": "loss spike", "type": "SYMPTOM", "known": True}
    evidence = first_link["evidence"]
    assert case["text"][evidence["start"]:evidence["end"]] == "loss spike" == evidence["mention"]
    assert evidence["sentence"] == "The write-up names loss spike here."
    assert (evidence["method"], evidence["confidence"]) == ("taxonomy", 0.9)
    assert case["rootCauses"] == [{"entity": {"name": "silent data corruption"}, "evidence": {"confidence": 0.9}}]
    assert [link["entity"]["name"] for link in case["components"]] == ["GPU", "training cluster"]
    assert [link["entity"]["name"] for link in case["contributingFactors"]] == ["no hardware error signal"]
    assert case["organisations"] == [{"entity": {"name": "ByteDance"}, "evidence": {"method": "metadata"}}]


async def test_unknown_case_is_null(api):
    assert await api.data('{ case(id: "no-such-case") { id title } }') == {"case": None}


async def test_cases_without_filter_come_newest_first_undated_last(api):
    assert await case_ids(api) == (7, NEWEST_FIRST)


async def test_pages_follow_cursors_to_the_end(api):
    seen: list[str] = []
    after = None
    pages = []
    while True:
        data = await api.data(CASE_IDS, {"first": 3, "after": after})
        connection = data["cases"]
        pages.append(connection["pageInfo"])
        seen += [edge["node"]["id"] for edge in connection["edges"]]
        assert connection["pageInfo"]["endCursor"] == connection["edges"][-1]["cursor"]
        assert connection["pageInfo"]["startCursor"] == connection["edges"][0]["cursor"]
        assert connection["totalCount"] == 7
        if not connection["pageInfo"]["hasNextPage"]:
            break
        after = connection["pageInfo"]["endCursor"]
    assert seen == NEWEST_FIRST
    assert [(p["hasPreviousPage"], p["hasNextPage"]) for p in pages] == [(False, True), (True, True), (True, False)]


async def test_page_past_the_end_is_empty(api):
    data = await api.data(CASE_IDS, {"first": 7})
    data = await api.data(CASE_IDS, {"first": 7, "after": data["cases"]["pageInfo"]["endCursor"]})
    assert data["cases"]["edges"] == []
    assert data["cases"]["pageInfo"] == {
        "hasNextPage": False, "hasPreviousPage": True, "startCursor": None, "endCursor": None,
    }


@pytest.mark.parametrize(
    ("case_filter", "expected"),
    [
        # a broader concept matches its narrower ones: service outage and crash loop
        ({"symptoms": ["availability loss"]},
         ["llama-training-interrupts", "gpu-sdc-bytedance", "datacenter-power", "cloudflare-dns-outage",
          "gitlab-db-deletion"]),
        # any within a list, all across lists
        ({"symptoms": ["availability loss"], "components": ["database", "GPU"]},
         ["llama-training-interrupts", "gpu-sdc-bytedance", "datacenter-power", "gitlab-db-deletion"]),
        ({"rootCauses": ["hardware fault"]},
         ["llama-training-interrupts", "gpu-sdc-bytedance", "datacenter-power", "meta-sdc-fleet"]),
        ({"rootCauses": ["hardware fault"], "organisations": ["Meta"]},
         ["llama-training-interrupts", "meta-sdc-fleet"]),
        ({"rootCauses": ["silent data corruption"], "contributingFactors": ["no hardware error signal"]},
         ["gpu-sdc-bytedance", "meta-sdc-fleet"]),
        ({"contributingFactors": ["missing alerting"], "publishedFrom": "2018-01-01"}, ["cloudflare-dns-outage"]),
        ({"publishedFrom": "2021-01-01", "publishedTo": "2023-12-31"}, ["datacenter-power", "meta-sdc-fleet"]),
        # a month-dated case counts from the first of its month
        ({"publishedFrom": "2023-11-01", "publishedTo": "2023-11-01"}, ["datacenter-power"]),
        ({"publishedFrom": "2023-11-02", "publishedTo": "2023-11-30"}, []),
        ({"symptoms": []}, []),  # any of nothing matches nothing
        ({"symptoms": ["no such symptom"]}, []),
        ({"organisations": ["Cloudflare"], "symptoms": ["service outage"], "rootCauses": ["power failure"],
          "components": ["database"]}, ["datacenter-power"]),
    ],
)
async def test_filters(api, case_filter, expected):
    assert await case_ids(api, case_filter) == (len(expected), expected)


async def test_text_filter_needs_every_word(api):
    total, found = await case_ids(api, {"text": "training"})
    assert (total, set(found)) == (3, {"gpu-sdc-bytedance", "llama-training-interrupts", "undated-note"})
    total, found = await case_ids(api, {"text": "training power"})
    assert (total, found) == (0, [])
    total, found = await case_ids(api, {"text": "training", "organisations": ["Meta"]})
    assert (total, found) == (1, ["llama-training-interrupts"])


@pytest.mark.parametrize(
    ("text", "expected_count"),
    [
        ("trainin*", 0),  # a wildcard would match "training"; it is searched as a word
        ("cluster)", 3),  # an unbalanced parenthesis is not a syntax error
        ('"training', 3),
        ("training OR power", 0),  # OR is a word to find, not an operator
        ("title:Power", 0),  # no field syntax: "title:power" is one token no case contains
        ("((((", 7),  # no words at all: no text filter
    ],
)
async def test_text_is_data_not_lucene_syntax(api, text, expected_count):
    total, _ = await case_ids(api, {"text": text})
    assert total == expected_count


def test_lucene_escaping():
    assert lucene_all_words('GPU AND (x* "y"') == '+gpu +and +\\(x\\* +\\"y\\"'
    assert lucene_all_words("  ") is None
    assert lucene_all_words("a/b:c") == "+a\\/b\\:c"


async def test_facets_count_cases_within_the_filtered_set(api):
    data = await api.data("""{
      cases(filter: {symptoms: ["availability loss"]}) {
        totalCount
        facets {
          symptoms { name count } rootCauses { name count } components { name count }
          contributingFactors { name count } organisations { name count }
        }
      }
    }""")
    facets = {kind: [(v["name"], v["count"]) for v in values] for kind, values in data["cases"]["facets"].items()}
    assert data["cases"]["totalCount"] == 5
    assert facets == {
        "symptoms": [("service outage", 3), ("crash loop", 2), ("loss spike", 2), ("data loss", 1)],
        "rootCauses": [("configuration error", 2), ("silent data corruption", 2), ("hardware fault", 1),
                       ("power failure", 1), ("software bug", 1)],
        "components": [("GPU", 2), ("database", 2), ("training cluster", 2), ("DNS", 1)],
        "contributingFactors": [("missing alerting", 2), ("no hardware error signal", 1)],
        "organisations": [("Cloudflare", 2), ("ByteDance", 1), ("GitLab", 1), ("Meta", 1)],
    }


async def test_facets_of_everything_add_up_to_the_links(api):
    data = await api.data("{ cases { facets { organisations { name count } } } }")
    organisations = {v["name"]: v["count"] for v in data["cases"]["facets"]["organisations"]}
    expected: dict[str, int] = {}
    for _, _, links in CASES.values():
        for letter, name, _ in links:
            if letter == "o":
                expected[name] = expected.get(name, 0) + 1
    assert organisations == expected
