"""A KIP-848 group's target, listed as its coordinator holds it, decides which partition uniform takes away
(issue 36). Recorded on Apache Kafka 4.2.1 (tests/live/test_kip848_target_order_live.py does it live): two
one-partition topics whose ids fall into bucket 11 of the coordinator's 16-bucket target map; member m was
given probe-00, then probe-07 when it subscribed to both, so ConsumerGroupDescribe listed its target as
probe-07 then probe-00; a newcomer made m over quota and Kafka's new target gave the newcomer probe-00-0, what
m was given first, where name order would have taken probe-07-0.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.cli.helpers import run_json

TOPICS = [
    {"name": "probe-00", "partitions": 1, "id": "TLAsBaCATj-bE3h-q1FbrQ"},
    {"name": "probe-07", "partitions": 1, "id": "7wh0yBTPRsGUKRbgZy8Y8w"},
]


def _fixture(path: Path, target: dict[str, list[int]]) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "schema": "kgroup/v1",
                "cluster": {"topics": TOPICS, "kafka_version": "4.2.1"},
                "groups": [
                    {
                        "group_id": "probe",
                        "protocol": "consumer",
                        "assignors": ["uniform"],
                        "generation": 3,
                        "assignment_epoch": 3,
                        "members": [{"member_id": "m", "topics": ["probe-00", "probe-07"]}],
                        "assignment": {"m": target},
                    }
                ],
            },
            sort_keys=False,
        )
    )
    return path


def test_the_member_over_quota_gives_up_the_topic_listed_last_in_its_target(tmp_path: Path) -> None:
    body = run_json(
        "simulate", str(_fixture(tmp_path / "g.yaml", {"probe-07": [0], "probe-00": [0]})), "--add-member", "n1"
    )
    assert body["results"][0]["assignment"] == {"m": ["probe-07-0"], "n1": ["probe-00-0"]}


def test_the_simulation_keeps_the_order_the_coordinator_gave_the_target_over_a_run(tmp_path: Path) -> None:
    """The same steps as a scenario: m holds probe-00, subscribes to both topics at 1 s (its next heartbeat
    carries it, within the 5 s interval, and the coordinator gives it probe-07 with computeIfAbsent, first in
    the bucket), n1 joins at 12 s. Kafka gave n1 probe-00-0; a simulation listing m's target by name gave it
    probe-07-0."""
    scenario = tmp_path / "order.yaml"
    scenario.write_text(
        yaml.safe_dump(
            {
                "schema": "kgroup/v1",
                "kind": "scenario",
                "cluster": {"topics": TOPICS, "kafka_version": "4.2.1"},
                "groups": [
                    {
                        "group_id": "probe",
                        "protocol": "classic",  # the starting group; --protocol consumer runs it on KIP-848
                        "assignors": ["range"],
                        "generation": 2,
                        "members": [{"member_id": "m", "topics": ["probe-00"]}],
                        "assignment": {"m": {"probe-00": [0]}},
                    }
                ],
                "duration": "20s",
                "events": ["subscribe m at 1s topics probe-00,probe-07", "join n1 at 12s topics probe-00,probe-07"],
            },
            sort_keys=False,
        )
    )
    (body,) = run_json("simulate", str(scenario), "--protocol", "consumer")["protocols"]
    assert body["final_assignment"] == {"m": ["probe-07-0"], "n1": ["probe-00-0"]}


def _release_scenario(path: Path, release: str) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "schema": "kgroup/v1",
                "kind": "scenario",
                "cluster": {"topics": [{**TOPICS[0], "name": "t", "partitions": 6}], "kafka_version": release},
                "groups": [
                    {
                        "group_id": "release",
                        "protocol": "classic",
                        "assignors": ["range"],
                        "generation": 2,
                        "members": [{"member_id": m, "topics": ["t"]} for m in ("a", "b", "c")],
                        "assignment": {"a": {"t": [3, 5]}, "b": {"t": [0]}, "c": {"t": [1, 2, 4]}},
                    }
                ],
                "duration": "10s",
                "events": ["join d at 1s topics t"],
            },
            sort_keys=False,
        )
    )
    return path


def test_the_simulation_follows_the_clusters_release_of_uniform(tmp_path: Path) -> None:
    """KAFKA-18688 (4.1) changed which members keep an extra partition. Kafka's own UniformAssignor on this
    group (members a, b, c as loaded, the joiner's member id d-1 last): 4.0.0 takes partition 2 from c for b,
    4.2.1 leaves it with c. A scenario on a 4.0 cluster used to get 4.2's answer."""
    expected = {
        "4.0.0": {"a": ["t-3", "t-5"], "b": ["t-0", "t-2"], "c": ["t-1"], "d": ["t-4"]},
        "4.2.1": {"a": ["t-3", "t-5"], "b": ["t-0"], "c": ["t-1", "t-2"], "d": ["t-4"]},
    }
    for release, assignment in expected.items():
        scenario = _release_scenario(tmp_path / f"{release}.yaml", release)
        (body,) = run_json("simulate", str(scenario), "--protocol", "consumer")["protocols"]
        assert body["final_assignment"] == assignment, release
