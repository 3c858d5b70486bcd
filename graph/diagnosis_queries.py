"""The Cypher of `diagnose` (api/diagnosis.py), kept apart from graph/queries.py because it is one
feature of five queries that share one rule: every query that finds or counts cases takes `$exclude`,
case ids to leave out, and behaves as if those cases were not in the graph (the leave-one-out
evaluation relies on it); CASE_CAUSES reads the links of cases the others found. A symptom or root
cause only an excluded case links to counts no cases, and is left out too.

Every value is a parameter; every list is bounded by a `$limit` or `$pool` the caller sets.
"""

from __future__ import annotations

from incident_graph.graph.admin import CASE_EMBEDDING_INDEX
from incident_graph.graph.queries import entity_map
from incident_graph.schema.entity_types import BROADER, ROOT_CAUSE, SYMPTOM

HAS_SYMPTOM = SYMPTOM.relationship
HAS_ROOT_CAUSE = ROOT_CAUSE.relationship


def excluded_reach(relationship: str) -> str:
    """A subquery: `excluded_reach`, each concept the $exclude cases reach through `relationship` (a
    link, then broader concepts) with how many of them reach it. Read from the excluded cases, so it
    costs a few seeks: none, or one case in a leave-one-out step.

    Each entity stores the count of all its cases (graph/case_counts.py); `excluded_from` takes
    these away, so no count over the graph is needed.
    """
    return f"""CALL () {{
  UNWIND $exclude AS case_id
  MATCH (:Case {{case_id: case_id}})-[:{relationship}]->()-[:{BROADER}*0..]->(reached)
  WITH reached, count(DISTINCT case_id) AS cases
  RETURN collect({{concept: reached, cases: cases}}) AS excluded_reach
}}"""


def excluded_from(variable: str) -> str:
    """How many of the excluded cases reach the concept `variable` (after `excluded_reach`)."""
    return f"coalesce([item IN excluded_reach WHERE item.concept = {variable}][0].cases, 0)"


# How many cases the graph holds outside $exclude (Neo4j answers count(c) from its count store).
CASES_OUTSIDE_EXCLUDED = """CALL () {
  MATCH (c:Case) WITH count(c) AS all_cases
  OPTIONAL MATCH (gone:Case) WHERE gone.case_id IN $exclude
  WITH all_cases, count(gone) AS gone_cases
  RETURN all_cases - gone_cases AS case_count
}"""

# The symptoms a case shows (or a narrower one of them), with how many cases show each: the
# vocabulary phrases are matched against, and each symptom's document frequency (for its IDF).
SYMPTOM_VOCABULARY = f"""
{CASES_OUTSIDE_EXCLUDED}
{excluded_reach(HAS_SYMPTOM)}
MATCH (s:Symptom) WHERE s.case_count > 0
WITH case_count, s, s.case_count - {excluded_from("s")} AS shown WHERE shown > 0
ORDER BY shown DESC, s.name
LIMIT $limit
RETURN case_count, s.name AS name, coalesce(s.aliases, []) AS aliases, shown
"""

# Cases showing the given symptoms ($symptoms: {name, weight}; a narrower symptom counts), each
# with the sum of weight * link confidence over the symptoms it shows: the $pool strongest.
SYMPTOM_CASES = f"""
UNWIND $symptoms AS given
MATCH (:Symptom {{name: given.name}})<-[:{BROADER}*0..]-(n:Symptom)<-[link:{HAS_SYMPTOM}]-(c:Case)
WHERE NOT c.case_id IN $exclude
WITH given, c, max(coalesce(link.confidence, 1.0)) AS confidence
WITH c, sum(given.weight * confidence) AS weight, collect(given.name) AS matched
ORDER BY weight DESC, c.case_id
LIMIT $pool
RETURN c.case_id AS case_id, weight, matched
"""

# The $pool cases nearest to $vector by Neo4j's vector index (cosine, mapped back to -1..1).
# The index is asked for as many more as are excluded, so the pool is the same as without them.
NEAREST_CASES = f"""
CALL db.index.vector.queryNodes('{CASE_EMBEDDING_INDEX}', $pool + size($exclude), $vector) YIELD node, score
WHERE NOT node.case_id IN $exclude
RETURN node.case_id AS case_id, 2 * score - 1 AS meaning
ORDER BY meaning DESC, case_id
LIMIT $pool
"""

# The root-cause links of the given cases, each with the chain of its entity up the taxonomy
# (the entity first, its group last), so a case credits every level of its cause.
CASE_CAUSES = f"""
UNWIND $case_ids AS case_id
MATCH (:Case {{case_id: case_id}})-[link:{HAS_ROOT_CAUSE}]->(cause:RootCause)
MATCH chain = (cause)-[:{BROADER}*0..]->(top:RootCause) WHERE NOT (top)-[:{BROADER}]->()
RETURN case_id, cause.name AS name, coalesce(cause.known, 'taxonomy') AS known,
       coalesce(link.confidence, 1.0) AS confidence, coalesce(link.sentence, '') AS sentence,
       [n IN nodes(chain) | n.name] AS chain
ORDER BY case_id, name
LIMIT $limit
"""

# The taxonomy's root causes, each with its chain up to its group, its entity map and the number of
# cases whose root cause is it or a narrower one: what extracted causes are placed under, and the
# prior share of each cause within its group.
ROOT_CAUSE_CONCEPTS = f"""
{excluded_reach(HAS_ROOT_CAUSE)}
MATCH (r:RootCause) WHERE r.known = 'taxonomy'
MATCH chain = (r)-[:{BROADER}*0..]->(top:RootCause) WHERE NOT (top)-[:{BROADER}]->()
RETURN r.name AS name, [n IN nodes(chain) | n.name] AS chain, coalesce(r.case_count, 0) - {excluded_from("r")} AS cases,
       {entity_map("r")} AS entity
ORDER BY name
LIMIT $limit
"""

# Which of the given case ids the graph holds (the evaluation scores only those).
CASES_PRESENT = """
UNWIND $case_ids AS case_id
MATCH (c:Case {case_id: case_id})
RETURN c.case_id AS case_id
"""
