"""Every read query of the API, as Cypher text plus parameters.

User input only ever reaches Neo4j as a parameter. Labels, relationship types and hop counts cannot
be parameters in Cypher, so the few statements that need them are built here from the closed sets
in schema.entity_types and from a bounded integer range, never from request text.

Conventions: queries return plain maps (never nodes), cases by `case_id`, entities as
ENTITY_MAP projections (whose `element_id` lets a later batched query find the node again within
the same request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from incident_graph.graph.admin import CASE_EMBEDDING_INDEX, CASE_TEXT_INDEX
from incident_graph.schema.entity_types import (
    BROADER,
    BY_LABEL,
    COMPONENT,
    ENTITY_TYPES,
    LABELS,
    RELATIONSHIPS,
    EntityType,
)
from incident_graph.schema.models import UNREAD_CASE_PROPERTIES, Case, property_names

MAX_PATH_HOPS = 6  # statements exist for 1..MAX_PATH_HOPS; the API caps maxHops to this

# `-[:A|B|C]->` and `['A', 'B']` fragments, from the closed sets only.
CASE_LINK_TYPES = "|".join(RELATIONSHIPS)
PATH_LINK_TYPES = f"{CASE_LINK_TYPES}|{BROADER}"
COMPONENT_RELATIONSHIP = COMPONENT.relationship
ENTITY_LABELS_LIST = "[" + ", ".join(f"'{label}'" for label in LABELS) + "]"


def entity_map(variable: str) -> str:
    """A map projection of an entity node; `label` is its entity label from the closed set."""
    return (
        f"{{element_id: elementId({variable}), "
        f"label: [label IN labels({variable}) WHERE label IN {ENTITY_LABELS_LIST}][0], "
        f"name: {variable}.name, aliases: coalesce({variable}.aliases, []), "
        f"description: coalesce({variable}.description, ''), signs: coalesce({variable}.signs, []), "
        f"known: coalesce({variable}.known, 'taxonomy')}}"
    )


EVIDENCE_MAP = (
    "{sentence: coalesce(link.sentence, ''), mention: link.mention, start: link.start, end: link.end, "
    "method: coalesce(link.method, ''), confidence: coalesce(link.confidence, 1.0), section: link.section}"
)

# Newest first; cases without a date go last; the id makes the order total (stable cursors).
CASE_ORDER = "c.published_on IS NULL, c.published_on DESC, c.case_id"

# ------------------------------------------------------------------ cases by id, and their links

# Every property of the model (schema/models.py Case): the API builds its Case from this record.
CASES_BY_ID = f"""
UNWIND $case_ids AS case_id
MATCH (c:Case {{case_id: case_id}})
RETURN c {{{", ".join(f".{name}" for name in property_names(Case) if name not in UNREAD_CASE_PROPERTIES)}}} AS case
"""

CASE_LINKS = f"""
UNWIND $case_ids AS case_id
MATCH (:Case {{case_id: case_id}})-[link:{CASE_LINK_TYPES}]->(entity)
RETURN case_id, {entity_map("entity")} AS entity, {EVIDENCE_MAP} AS evidence
ORDER BY case_id, evidence.confidence DESC, entity.name
"""

# ------------------------------------------------------------------ entities

ENTITY_RELATIVES = f"""
UNWIND $element_ids AS element_id
MATCH (e) WHERE elementId(e) = element_id
RETURN element_id,
       COLLECT {{ MATCH (e)-[:{BROADER}]->(b) RETURN {entity_map("b")} AS b ORDER BY b.name }} AS broader,
       COLLECT {{ MATCH (e)<-[:{BROADER}]-(n) RETURN {entity_map("n")} AS n ORDER BY n.name }} AS narrower
"""

# The cases of an entity include those of its narrower concepts, as a filter on it would.
ENTITY_CASES = f"""
UNWIND $requests AS request
MATCH (e) WHERE elementId(e) = request.element_id
CALL (e) {{
  MATCH (e)<-[:{BROADER}*0..]-(concept)<-[:{CASE_LINK_TYPES}]-(c:Case)
  WITH DISTINCT c
  ORDER BY {CASE_ORDER}
  RETURN collect(c.case_id) AS case_ids
}}
RETURN request.element_id AS element_id, request.skip AS skip, request.limit AS limit,
       size(case_ids) AS total, case_ids[request.skip..request.skip + request.limit] AS page
"""


def _entity_search(entity_type: EntityType) -> str:
    # Exact names first, then names that start with the search, then the rest; `known` taxonomy
    # concepts and extracted ones alike. CONTAINS keeps search literal (no query syntax).
    return f"""
MATCH (e:{entity_type.label})
WHERE $needle = '' OR toLower(e.name) CONTAINS $needle
   OR any(alias IN coalesce(e.aliases, []) WHERE toLower(alias) CONTAINS $needle)
WITH e, CASE WHEN toLower(e.name) = $needle THEN 0
             WHEN toLower(e.name) STARTS WITH $needle THEN 1
             WHEN toLower(e.name) CONTAINS $needle THEN 2 ELSE 3 END AS rank
ORDER BY rank, toLower(e.name), e.name
WITH collect(e) AS found
RETURN size(found) AS total, [e IN found[$skip..$skip + $limit] | {entity_map("e")}] AS page
"""


ENTITY_SEARCH: dict[str, str] = {entity_type.label: _entity_search(entity_type) for entity_type in ENTITY_TYPES}

# ------------------------------------------------------------------ case filters


@dataclass(frozen=True)
class CaseCriteria:
    """What a CaseFilter asks for, in graph terms.

    names: (entity label, canonical names) for each entity type the filter names; a case matches
    when, for every pair, it links to one of the names or to a concept narrower than one of them.
    text: the user's words; every word must occur in the case (full-text index `case_text`).
    """

    names: tuple[tuple[str, tuple[str, ...]], ...] = ()
    text: str | None = None
    published_from: date | None = None
    published_to: date | None = None

    @property
    def shape(self) -> tuple[tuple[str, ...], bool, bool, bool]:
        """What the Cypher text depends on: which parts are present, never their values."""
        return (
            tuple(label for label, _ in self.names),
            lucene_all_words(self.text or "") is not None,
            self.published_from is not None,
            self.published_to is not None,
        )

    def parameters(self) -> dict[str, object]:
        parameters: dict[str, object] = {
            f"{BY_LABEL[label].key}_names": list(names) for label, names in self.names
        }
        text_query = lucene_all_words(self.text or "")
        if text_query is not None:
            parameters["text_query"] = text_query
        if self.published_from is not None:
            parameters["published_from"] = self.published_from
        if self.published_to is not None:
            parameters["published_to"] = self.published_to
        return parameters


LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def lucene_all_words(text: str) -> str | None:
    """A Lucene query requiring every word of `text`, with all query syntax escaped.

    User input is data: `gpu AND (x` must search for those words, not run Lucene operators. Words
    are lower-cased so AND/OR/NOT lose their operator meaning; punctuation-only words are dropped.
    """
    words = [word.lower() for word in text.split() if re.search(r"\w", word)]
    if not words:
        return None
    return " ".join("+" + LUCENE_SPECIAL.sub(r"\\\1", word) for word in words)


@lru_cache(maxsize=256)
def _case_match(shape: tuple[tuple[str, ...], bool, bool, bool]) -> str:
    """Cypher that leaves one row per matching case, with `c` the case and `score` its relevance."""
    labels, has_text, has_from, has_to = shape
    lines: list[str] = []
    concept_sets: list[tuple[EntityType, str]] = []
    for label in labels:
        entity_type = BY_LABEL[label]
        concepts = f"{entity_type.key}_concepts"
        # Expand named concepts to everything narrower (taxonomy-sized, cheap) once per request.
        lines.append(
            f"CALL () {{ MATCH (root:{label}) WHERE root.name IN ${entity_type.key}_names "
            f"MATCH (concept:{label})-[:{BROADER}*0..]->(root) "
            f"RETURN collect(DISTINCT concept) AS {concepts} }}"
        )
        concept_sets.append((entity_type, concepts))
    carried = "".join(f", {concepts}" for _, concepts in concept_sets)
    if has_text:
        lines.append(f"CALL db.index.fulltext.queryNodes('{CASE_TEXT_INDEX}', $text_query) YIELD node, score")
        lines.append(f"WITH node AS c, score{carried}")
        checks = concept_sets
    elif len(concept_sets) == 1:
        # Walking from the named concepts to their cases beats scanning cases.
        entity_type, concepts = concept_sets[0]
        lines.append(f"UNWIND {concepts} AS anchor MATCH (anchor)<-[:{entity_type.relationship}]-(c:Case)")
        lines.append("WITH DISTINCT c, 1.0 AS score")
        checks = []
    elif concept_sets:
        # Several types named: walk from the one with the fewest cases (the named concepts' stored
        # case counts, graph/case_counts.py), chosen per request, and check the others on each case.
        reaches = [
            f"[reduce(cases = 0, root IN [concept IN {concepts} WHERE concept.name IN ${entity_type.key}_names] "
            f"| cases + coalesce(root.case_count, 0)), {concepts}]"
            for entity_type, concepts in concept_sets
        ]
        lines.append(f"WITH *, reduce(fewest = {reaches[0]}, pair IN [{', '.join(reaches[1:])}] "
                     "| CASE WHEN pair[0] < fewest[0] THEN pair ELSE fewest END)[1] AS anchors")
        # Every link from a case to an entity of the anchor's type is that type's relationship.
        lines.append("UNWIND anchors AS anchor MATCH (anchor)<--(c:Case)")
        lines.append(f"WITH DISTINCT c, 1.0 AS score{carried}")
        checks = concept_sets
    else:
        lines.append("MATCH (c:Case)")
        lines.append("WITH c, 1.0 AS score")
        checks = []
    conditions = []
    if has_from:
        conditions.append("c.published_on >= $published_from")
    if has_to:
        conditions.append("c.published_on <= $published_to")
    conditions += [
        f"EXISTS {{ MATCH (c)-[:{entity_type.relationship}]->(linked) WHERE linked IN {concepts} }}"
        for entity_type, concepts in checks
    ]
    if conditions:
        in_scope = "".join(f", {concepts}" for _, concepts in checks)
        lines.append(f"WITH c, score{in_scope} WHERE " + " AND ".join(conditions))
    lines.append("WITH c, score")
    return "\n".join(lines)


def cases_page(criteria: CaseCriteria) -> str:
    """Parameters: the criteria's, plus `skip` and `limit`. Rows: case_id, best first."""
    return (
        _case_match(criteria.shape)
        + f"\nORDER BY score DESC, {CASE_ORDER}\nSKIP $skip LIMIT $limit\nRETURN c.case_id AS case_id"
    )


def cases_count(criteria: CaseCriteria) -> str:
    return _case_match(criteria.shape) + "\nRETURN count(c) AS total"


def case_facets(criteria: CaseCriteria) -> str:
    """Rows: relationship, name, count (cases within the filtered set linking to that entity)."""
    return (
        _case_match(criteria.shape)
        + f"\nMATCH (c)-[link:{CASE_LINK_TYPES}]->(entity)"
        + "\nRETURN type(link) AS relationship, entity.name AS name, count(c) AS count"
        + "\nORDER BY count DESC, name"
    )


def case_subgraph(criteria: CaseCriteria) -> str:
    """Parameters: the criteria's, plus `limit` (cases). One row with the cases, links and broader edges."""
    return (
        _case_match(criteria.shape)
        + f"\nORDER BY score DESC, {CASE_ORDER}\nLIMIT $limit"
        + f"\nOPTIONAL MATCH (c)-[link:{CASE_LINK_TYPES}]->(entity)"
        + "\nWITH collect(DISTINCT {case_id: c.case_id, title: c.title}) AS cases,"
        + f"\n     collect(CASE WHEN entity IS NULL THEN NULL ELSE {{case_id: c.case_id, relationship: type(link),"
        + f"\n             confidence: link.confidence, entity: {entity_map('entity')}}} END) AS links,"
        + "\n     collect(DISTINCT entity) AS entities"
        + "\nRETURN cases, links, COLLECT {"
        + "\n  UNWIND entities AS narrower"
        + f"\n  MATCH (narrower)-[:{BROADER}]->(broader) WHERE broader IN entities"
        + "\n  RETURN {source: elementId(narrower), target: elementId(broader)} AS edge"
        + "\n} AS broader_edges"
    )


# ------------------------------------------------------------------ traversals

# Cases that share a root cause with a case showing the symptom (or a narrower one). A pair needs
# two different cases: a case does not "share" a root cause with itself.
# On a large graph nearly every case shares some cause with a common symptom, so the answer is
# ranked by a key that lets the query stop early: the strongest shared cause first (the one most
# cases showing the symptom have; ties by name), and within one cause its cases by id. Steps:
#   per_cause: for each root cause of a showing case, how many showing cases have it and the
#              first few of their ids (sorted, so the listed connecting cases are the first by id);
#   ranked:    walking the causes strongest first, each cause's first `limit` cases by id, until
#              `limit` distinct cases are found: the causes after that are never read;
#   then the details of those few: which causes, how many connecting cases (minus the case itself).
CASES_SHARING_ROOT_CAUSE = f"""
MATCH (root:Symptom {{name: $symptom}})
MATCH (symptom:Symptom)-[:{BROADER}*0..]->(root)
WITH collect(DISTINCT symptom) AS concepts
CALL (concepts) {{
  UNWIND concepts AS symptom
  MATCH (symptom)<-[:HAS_SYMPTOM]-(showing:Case)
  WITH DISTINCT showing
  MATCH (showing)-[:HAS_ROOT_CAUSE]->(cause:RootCause)
  WITH cause, showing.case_id AS showing_id ORDER BY showing_id
  WITH cause, count(*) AS showing_count, collect(showing_id)[..$connecting_limit + 1] AS first_showing
  ORDER BY showing_count DESC, cause.name
  RETURN collect({{cause: cause, showing_count: showing_count, first_showing: first_showing}}) AS per_cause
}}
CALL (per_cause) {{
  CALL () {{ MATCH (any_case:Case) RETURN count(any_case) AS case_total }}  // from the count store
  UNWIND range(0, size(per_cause) - 1) AS strength_rank
  WITH case_total, per_cause[strength_rank] AS info
  WITH info.cause AS cause, info.showing_count AS showing_count, info.first_showing[0] AS first_id, case_total
  WITH cause, showing_count, first_id, case_total, COUNT {{ (cause)<-[:HAS_ROOT_CAUSE]-() }} AS degree
  CALL (cause, showing_count, first_id, degree, case_total) {{
    // A cause of many cases: walk all cases in id order (the index gives it) until the page is
    // full, about limit * case_total / degree of them; else sort the cause's own cases.
    WITH * WHERE degree * degree > $limit * case_total
    MATCH (other:Case) USING INDEX other:Case(case_id)
    WHERE other.case_id >= '' AND (showing_count > 1 OR first_id <> other.case_id)
      AND EXISTS {{ (other)-[:HAS_ROOT_CAUSE]->(cause) }}
    RETURN other ORDER BY other.case_id LIMIT $limit
    UNION ALL
    WITH * WHERE degree * degree <= $limit * case_total
    MATCH (cause)<-[:HAS_ROOT_CAUSE]-(other:Case)
    WHERE showing_count > 1 OR first_id <> other.case_id
    RETURN other ORDER BY other.case_id LIMIT $limit
  }}
  WITH DISTINCT other
  LIMIT $limit
  RETURN collect(other) AS ranked
}}
UNWIND range(0, size(ranked) - 1) AS position
WITH ranked[position] AS other, position, per_cause, concepts
WITH other, position, per_cause,
     EXISTS {{ MATCH (other)-[:HAS_SYMPTOM]->(shown) WHERE shown IN concepts }} AS other_shows_symptom
MATCH (other)-[:HAS_ROOT_CAUSE]->(cause:RootCause)
WITH other, position, other_shows_symptom, cause, [info IN per_cause WHERE info.cause = cause][0] AS info
WHERE info IS NOT NULL
WITH other, position, cause,
     info.showing_count - CASE WHEN other_shows_symptom THEN 1 ELSE 0 END AS connecting_count,
     [id IN info.first_showing WHERE id <> other.case_id][..$connecting_limit] AS connecting
WHERE connecting_count > 0
WITH other, position, collect({{cause: {entity_map("cause")}, connecting_count: connecting_count,
                                connecting: connecting}}) AS shared
RETURN other.case_id AS case_id, shared
ORDER BY position
"""

# Cases ranked by how many entities (of the chosen types) they share with this one.
RELATED_CASES = f"""
MATCH (c:Case {{case_id: $case_id}})-[link:{CASE_LINK_TYPES}]->(shared)
WHERE type(link) IN $relationship_types
MATCH (shared)<-[other_link]-(other:Case)
WHERE other <> c AND type(other_link) = type(link)
WITH other, collect(DISTINCT shared) AS shared
ORDER BY size(shared) DESC, other.case_id
LIMIT $limit
RETURN other.case_id AS case_id, [e IN shared | {entity_map("e")}] AS shared
ORDER BY size(shared) DESC, case_id
"""

# score(cause) = mean over the asked symptoms s of
#   sum over cases c showing s and the cause of confidence(c->s) * confidence(c->cause) / |cases showing s|
# i.e. the confidence-weighted share of each symptom's cases that name this root cause. A broader
# symptom stands for its narrower ones. Supporting cases come strongest contribution first.
DIAGNOSE = f"""
UNWIND $symptoms AS symptom_name
MATCH (root:Symptom {{name: symptom_name}})
MATCH (symptom:Symptom)-[:{BROADER}*0..]->(root)
MATCH (symptom)<-[symptom_link:HAS_SYMPTOM]-(c:Case)
WITH symptom_name, c, max(coalesce(symptom_link.confidence, 1.0)) AS symptom_weight
WITH symptom_name, collect({{case: c, weight: symptom_weight}}) AS showing
WITH symptom_name, showing, size(showing) AS showing_count
UNWIND showing AS item
WITH symptom_name, showing_count, item.case AS c, item.weight AS symptom_weight
MATCH (c)-[cause_link:HAS_ROOT_CAUSE]->(cause:RootCause)
WITH cause, c,
     sum(symptom_weight * coalesce(cause_link.confidence, 1.0) / showing_count) AS contribution,
     collect(symptom_name) AS matched
WITH cause, sum(contribution) / $symptom_count AS score, count(c) AS support,
     collect({{case_id: c.case_id, contribution: contribution}}) AS supporting,
     collect(matched) AS matched_lists
ORDER BY score DESC, cause.name
LIMIT $limit
RETURN {entity_map("cause")} AS cause, score, support,
       COLLECT {{
         UNWIND supporting AS s
         RETURN s.case_id AS id ORDER BY s.contribution DESC, s.case_id LIMIT $support_limit
       }} AS supporting,
       reduce(names = [], m IN matched_lists | names + [name IN m WHERE NOT name IN names]) AS matched
ORDER BY score DESC, cause.name
"""


def _node_by_reference(prefix: str) -> str:
    """One node from ($<prefix>_type, $<prefix>_name): a case by id or an entity by name."""
    branches = [f"MATCH (n:Case {{case_id: ${prefix}_name}}) WHERE ${prefix}_type = 'Case' RETURN n"]
    branches += [
        f"MATCH (n:{label} {{name: ${prefix}_name}}) WHERE ${prefix}_type = '{label}' RETURN n" for label in LABELS
    ]
    return "head(COLLECT { " + " UNION ".join(branches) + " })"


PATH_NODE_MAP = (
    "{element_id: elementId(n), label: CASE WHEN n:Case THEN 'Case' ELSE "
    f"[label IN labels(n) WHERE label IN {ENTITY_LABELS_LIST}][0] END, "
    "name: CASE WHEN n:Case THEN n.case_id ELSE n.name END, "
    "title: CASE WHEN n:Case THEN n.title ELSE n.name END}"
)


def _shortest_path(max_hops: int) -> str:
    return f"""
WITH {_node_by_reference("from")} AS a, {_node_by_reference("to")} AS b
OPTIONAL MATCH p = SHORTEST 1 (a)-[:{PATH_LINK_TYPES}]-{{0,{max_hops}}}(b)
RETURN a IS NOT NULL AS from_found, b IS NOT NULL AS to_found,
       [n IN nodes(p) | {PATH_NODE_MAP}] AS nodes,
       [r IN relationships(p) | {{source: elementId(startNode(r)), target: elementId(endNode(r)),
                                  relationship: type(r), confidence: r.confidence}}] AS edges
"""


# Quantifier bounds cannot be parameters: one statement per allowed hop count.
SHORTEST_PATH: dict[int, str] = {hops: _shortest_path(hops) for hops in range(1, MAX_PATH_HOPS + 1)}


# ------------------------------------------------------------------ counts and trends


def group_counts(criteria: CaseCriteria, entity_type: EntityType) -> str:
    """Parameters: the criteria's, plus `skip` and `limit`. One row: group_count (entities of the
    type linked from the filtered cases) and page, [{entity, count}] most cases first."""
    return (
        _case_match(criteria.shape)
        + f"\nMATCH (c)-[:{entity_type.relationship}]->(entity:{entity_type.label})"
        + "\nWITH entity, count(DISTINCT c) AS count"
        + "\nORDER BY count DESC, entity.name"
        + f"\nWITH collect({{entity: {entity_map('entity')}, count: count}}) AS groups"
        + "\nRETURN size(groups) AS group_count, groups[$skip..$skip + $limit] AS page"
    )


# A period is [year, month]; with $monthly false every month is 1, so a period is a year.
PERIOD_OF_DAY = "[day.year, CASE WHEN $monthly THEN day.month ELSE 1 END]"


def cases_per_period(criteria: CaseCriteria) -> str:
    """Parameters: the criteria's, plus `monthly`. Rows: period ([year, month], null for undated
    cases) and count, over the filtered cases."""
    return (
        _case_match(criteria.shape)
        + "\nWITH c.published_on AS day"
        + f"\nWITH CASE WHEN day IS NULL THEN NULL ELSE {PERIOD_OF_DAY} END AS period, count(*) AS count"
        + "\nRETURN period, count ORDER BY period"
    )


def trend_series(criteria: CaseCriteria, entity_type: EntityType) -> str:
    """Parameters: the criteria's, plus `monthly`, `skip` and `limit`. One row: series_count and page,
    [{entity, total, buckets: [{period, count}]}] most dated cases first."""
    return (
        _case_match(criteria.shape)
        + "\nWITH c, c.published_on AS day WHERE day IS NOT NULL"
        + f"\nMATCH (c)-[:{entity_type.relationship}]->(entity:{entity_type.label})"
        + f"\nWITH entity, {PERIOD_OF_DAY} AS period, count(DISTINCT c) AS count"
        + "\nWITH entity, collect({period: period, count: count}) AS buckets, sum(count) AS total"
        + "\nORDER BY total DESC, entity.name"
        + f"\nWITH collect({{entity: {entity_map('entity')}, total: total, buckets: buckets}}) AS series"
        + "\nRETURN size(series) AS series_count, series[$skip..$skip + $limit] AS page"
    )


# ------------------------------------------------------------------ stack review

# Each asked name to the component it names: its canonical name or an alias, case-insensitive
# (the name first). Rows in the order asked; `component` (and `method`, name or alias) is null for a
# name the graph lacks.
STACK_COMPONENTS = f"""
UNWIND range(0, size($names) - 1) AS position
WITH position, $names[position] AS asked, toLower($names[position]) AS needle
WITH position, asked, needle, head(COLLECT {{
  MATCH (c:Component)
  WHERE toLower(c.name) = needle OR any(alias IN coalesce(c.aliases, []) WHERE toLower(alias) = needle)
  RETURN c ORDER BY CASE WHEN toLower(c.name) = needle THEN 0 ELSE 1 END, c.name
}}) AS c
RETURN asked, CASE WHEN c IS NULL THEN NULL ELSE {entity_map("c")} END AS component,
       CASE WHEN c IS NULL THEN NULL WHEN toLower(c.name) = needle THEN 'name' ELSE 'alias' END AS method
ORDER BY position
"""

# The components a name the graph does not know is matched against by meaning: names, aliases and
# entity maps, those most cases involve first (at most $limit).
COMPONENT_VOCABULARY = f"""
MATCH (c:Component)
WITH c, COUNT {{ (c)<-[:{COMPONENT_RELATIONSHIP}]-(:Case) }} AS cases
ORDER BY cases DESC, c.name
LIMIT $limit
RETURN c.name AS name, coalesce(c.aliases, []) AS aliases, {entity_map("c")} AS component
"""

# The cases involving the named components ($components, canonical names), their broader concepts
# or their narrower ones; `via` says which of the named components led to each case.
STACK_CASES = f"""
UNWIND $components AS component_name
MATCH (asked:Component {{name: component_name}})
CALL (asked) {{
  MATCH (asked)-[:{BROADER}*0..]->(concept:Component) RETURN concept
  UNION
  MATCH (concept:Component)-[:{BROADER}*1..]->(asked) RETURN concept
}}
MATCH (concept)<-[:{COMPONENT_RELATIONSHIP}]-(c:Case)
WITH c, collect(DISTINCT asked.name) AS via
"""


def stack_findings(entity_type: EntityType) -> str:
    """Parameters: components, skip, limit, case_limit. One row: total and page, the entities of the
    type linked from the stack's cases, most cases first, then most recent; each with its first
    `case_limit` cases (newest first) and the evidence of the link."""
    return (
        STACK_CASES
        + f"MATCH (c)-[link:{entity_type.relationship}]->(finding:{entity_type.label})"
        + f"\nWITH finding, c, via, link ORDER BY {CASE_ORDER}"
        + "\nWITH finding, count(c) AS case_count, max(c.published_on) AS latest,"
        + f"\n     collect({{case_id: c.case_id, via: via, evidence: {EVIDENCE_MAP}}}) AS cases"
        + "\nORDER BY case_count DESC, latest IS NULL, latest DESC, finding.name"
        + f"\nWITH collect({{finding: {entity_map('finding')}, case_count: case_count, latest: latest,"
        + "\n                cases: cases[..$case_limit]}) AS findings"
        + "\nRETURN size(findings) AS total, findings[$skip..$skip + $limit] AS page"
    )


# Parameters: components, skip, limit. One row: how many cases, and a page of those with lessons, newest first.
STACK_LESSONS = (
    STACK_CASES
    + f"ORDER BY {CASE_ORDER}"
    + "\nWITH collect({case_id: c.case_id, via: via, lessons: coalesce(c.lessons, '')}) AS cases"
    + "\nWITH size(cases) AS case_count, [item IN cases WHERE item.lessons <> ''] AS with_lessons"
    + "\nRETURN case_count, size(with_lessons) AS total, with_lessons[$skip..$skip + $limit] AS page"
)


# ------------------------------------------------------------------ concept graph


def concept_graph(criteria: CaseCriteria) -> str:
    """Parameters: the criteria's, plus `limit` (entities) and `link_limit`. One row: case_count,
    concepts [{entity, count}] most cases first, links [{source, target, shared}] (element ids),
    the pairs of those entities linked from the same cases, most shared first."""
    return (
        _case_match(criteria.shape)
        + "\nWITH collect(c) AS cases"
        + "\nCALL (cases) {"
        + f"\n  UNWIND cases AS c MATCH (c)-[:{CASE_LINK_TYPES}]->(entity)"
        + "\n  WITH entity, count(DISTINCT c) AS count ORDER BY count DESC, entity.name LIMIT $limit"
        + "\n  RETURN collect({entity: entity, count: count}) AS top"
        + "\n}"
        + "\nWITH cases, top, [item IN top | item.entity] AS entities"
        + "\nCALL (cases, entities) {"
        + f"\n  UNWIND cases AS c MATCH (a)<-[:{CASE_LINK_TYPES}]-(c)-[:{CASE_LINK_TYPES}]->(b)"
        + "\n  WHERE elementId(a) < elementId(b) AND a IN entities AND b IN entities"
        + "\n  WITH a, b, count(DISTINCT c) AS shared ORDER BY shared DESC, a.name, b.name LIMIT $link_limit"
        + "\n  RETURN collect({source: elementId(a), target: elementId(b), shared: shared}) AS links"
        + "\n}"
        + f"\nRETURN size(cases) AS case_count, [item IN top | {{entity: {entity_map('item.entity')}, count: item.count}}] AS concepts, links"
    )
# ------------------------------------------------------------------ similar cases

SIMILAR_MEANING_WEIGHT = 0.5  # of the embeddings' cosine in a similar case's score; the rest is shared entities

# What a case is compared by: its embedding (null without vectors) and the entities it links to.
SIMILARITY_SOURCE = f"""
MATCH (c:Case {{case_id: $case_id}})
RETURN c.embedding AS embedding,
       COLLECT {{ MATCH (c)-[:{CASE_LINK_TYPES}]->(e) RETURN elementId(e) }} AS entity_ids
"""

# The entities a search phrase names, by (label, canonical name), as element ids.
ENTITY_IDS_BY_NAME = f"""
UNWIND $entities AS ref
CALL (ref) {{
  {" UNION ".join(f"MATCH (e:{label} {{name: ref.name}}) WHERE ref.label = '{label}' RETURN e" for label in LABELS)}
}}
RETURN DISTINCT elementId(e) AS element_id
"""

# Cases similar to a vector ($vector, may be null) and a set of entities ($entity_ids), apart from
# the $exclude ids. Candidates: the $pool nearest by the vector index and the $pool sharing most
# entities. Each gets meaning = the cosine of the embeddings (null without one), overlap = shared
# entities / sqrt(|given| * |its own|), and score = $meaning_weight * meaning + (1 - $meaning_weight)
# * overlap (a missing meaning counts 0). Rows: total (candidates) and the $skip/$limit page.
SIMILAR_CASES = f"""
CALL () {{
  WITH $vector AS vector WHERE vector IS NOT NULL
  CALL db.index.vector.queryNodes('{CASE_EMBEDDING_INDEX}', $pool + size($exclude), vector) YIELD node
  RETURN collect(node) AS by_meaning
}}
CALL () {{
  UNWIND $entity_ids AS element_id
  MATCH (e) WHERE elementId(e) = element_id
  MATCH (e)<-[:{CASE_LINK_TYPES}]-(other:Case)
  WITH other, count(DISTINCT e) AS shared_count
  ORDER BY shared_count DESC, other.case_id
  LIMIT $pool + size($exclude)
  RETURN collect(other) AS by_entities
}}
UNWIND by_meaning + by_entities AS other
WITH DISTINCT other
WHERE NOT other.case_id IN $exclude
WITH other,
     CASE WHEN $vector IS NULL OR other.embedding IS NULL THEN NULL
          ELSE 2 * vector.similarity.cosine(other.embedding, $vector) - 1 END AS meaning,
     COLLECT {{ MATCH (other)-[:{CASE_LINK_TYPES}]->(e) WHERE elementId(e) IN $entity_ids
               RETURN {entity_map("e")} AS e ORDER BY e.name }} AS shared,
     COUNT {{ (other)-[:{CASE_LINK_TYPES}]->() }} AS own_count
WITH other, meaning, shared,
     CASE WHEN size(shared) = 0 THEN 0.0 ELSE size(shared) / sqrt(toFloat(size($entity_ids)) * own_count) END AS overlap
WITH other, meaning, shared, overlap,
     $meaning_weight * coalesce(meaning, 0.0) + (1 - $meaning_weight) * overlap AS score
ORDER BY score DESC, other.case_id
WITH collect({{case_id: other.case_id, meaning: meaning, overlap: overlap, score: score, shared: shared}}) AS ranked
RETURN size(ranked) AS total, ranked[$skip..$skip + $limit] AS page
"""
