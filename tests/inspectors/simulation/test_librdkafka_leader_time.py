"""The what-if's note on librdkafka's own leader time (kgroup.assignors.client.librdkafka.leader_time).

librdkafka's `areSubscriptionsIdentical` compares each member's list of potential partitions with the
previous member's by a linear scan (rd_kafka_topic_partition_list_cmp), the i-th element found after i + 1
comparisons. Counted by hand below; the note appears only where a librdkafka leader runs cooperative-sticky
over one subscription and the check takes seconds.
"""

from __future__ import annotations

from typing import Any

import yaml

from kgroup.assignors.client.librdkafka.leader_time import NS_PER_COMPARISON, comparisons, identical_check_seconds
from kgroup.assignors.model import Cluster, Member, Topic
from kgroup.inspectors.fixtures.group_file import load_fixture_text
from kgroup.inspectors.simulation.whatif_run import simulate


def test_comparisons_counted_by_hand() -> None:
    # two neighbour pairs; each scans 1 + 2 + 3 + 4 elements of the other list
    assert comparisons(3, 4) == 20
    assert comparisons(1, 10_000) == 0  # a lone member is compared with nobody
    assert comparisons(1_000, 10_000) == 999 * 50_005_000


def test_the_check_stops_at_once_when_subscriptions_differ() -> None:
    cluster = Cluster((Topic("a", 100), Topic("b", 100)))
    assert identical_check_seconds(cluster, [Member("m1", ("a",)), Member("m2", ("a", "b"))]) is None
    # a topic that does not exist has no partitions to compare: the lists are the same
    same = identical_check_seconds(cluster, [Member("m1", ("a", "gone")), Member("m2", ("a",))])
    assert same is not None and same[1] == 100


def _big_group(members: int, partitions: int) -> Any:
    doc = {
        "schema": "kgroup/v1",
        "cluster": {"topics": [{"name": "t", "partitions": partitions}]},
        "groups": [
            {
                "group_id": "g",
                "assignors": ["cooperative-sticky"],
                "client": "librdkafka",
                "members": [{"member_id": f"m{i:04}", "topics": ["t"]} for i in range(members)],
            }
        ],
    }
    return load_fixture_text(yaml.safe_dump(doc), "big.yaml")


def _notes(fixture: Any, client: str, assignor: str = "cooperative-sticky") -> list[str]:
    result = simulate(fixture, None, [assignor], ["newcomer"], [], [], [], client=client)
    return [w for w in result.warnings if "librdkafka's leader" in w]


def test_a_large_librdkafka_group_is_told_how_long_its_leader_computes() -> None:
    fixture = _big_group(400, 3_000)
    (note,) = _notes(fixture, "librdkafka")
    expected_s = 400 * 3_000 * 3_001 // 2 * NS_PER_COMPARISON / 1e9  # 401 members after the join
    assert f"for at least {expected_s:.0f} s" in note
    assert "401 members' 3,000 potential partitions" in note


def test_no_note_for_java_leaders_other_assignors_or_small_groups() -> None:
    assert _notes(_big_group(400, 3_000), "java") == []
    assert _notes(_big_group(400, 3_000), "librdkafka", "range") == []
    assert _notes(_big_group(30, 300), "librdkafka") == []
