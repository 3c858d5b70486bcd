"""Two writers of one case at once, as ingest workers on two machines given the same write-up (or
two versions of it): the one that commits later waits for the other and then replaces the case
whole, links included, exactly as if the two had written one after the other."""

from __future__ import annotations

import threading
import time

import pytest
from neo4j import Driver

from incident_graph.graph.case_counts import case_count_drift
from incident_graph.graph.writes import WriteOutcome, replace_cases, write_case, write_cases

from .test_writes import case_links, renamed, sample_case


def wait_until_blocked(driver: Driver, timeout_s: float = 10.0) -> bool:
    """Whether some transaction came to wait for another's lock within the time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        records = driver.execute_query(
            "SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked' RETURN count(*) AS n").records
        if records[0]["n"]:
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("before", ["absent", "stored"])
def test_a_version_written_while_another_is_uncommitted_replaces_it_whole(before, empty_graph):
    original = sample_case()  # a symptom, a root cause and a component
    if before == "stored":
        write_case(empty_graph, renamed(original, original.case_id, mentions=original.mentions[:1]))
    first = original
    second = renamed(original, original.case_id, mentions=original.mentions[2:])  # the component only
    outcomes: list[WriteOutcome] = []
    with empty_graph.session() as session:
        tx = session.begin_transaction()
        replace_cases(tx, [first], {first.case_id: first.content_hash})  # run, not yet committed
        writer = threading.Thread(target=lambda: outcomes.extend(write_cases(empty_graph, [second])))
        writer.start()
        assert wait_until_blocked(empty_graph), "the second writer never waited for the first"
        tx.commit()
    writer.join(timeout=60)
    assert [outcome.action for outcome in outcomes] == ["updated"]
    assert case_links(empty_graph) == [("sample-sdc", "INVOLVES_COMPONENT", "GPU")]
    stored = empty_graph.execute_query("MATCH (c:Case) RETURN c.content_hash AS hash").records
    assert [record["hash"] for record in stored] == [second.content_hash]
    assert case_count_drift(empty_graph) == []  # the first version's counts taken back, the second's added
