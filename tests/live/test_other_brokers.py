"""The everyday commands on the two Kafka-compatible brokers a user may meet besides Apache Kafka.

Apache Kafka is the reference (every other live test runs on it). Tansu and noida-db stay for what they
still add: brokers that answer the same requests differently (Tansu lists every group as UNKNOWN and
describes no members; noida-db never expires a dead member). What each lacks is listed in docs/brokers.md
and tests/live/conftest.py (TANSU_LACKS, NOIDA_LACKS); a test needing it is not run there.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.cli.helpers import run
from tests.live.traffic import commit, committed, joined_consumer, topic_with_records


def _groups_describe_snapshot_and_reset(bootstrap: str, names: tuple[str, str], tmp_path: Path) -> None:
    topic, group = names
    topic_with_records(bootstrap, topic, [5, 3])
    commit(bootstrap, group, {(topic, 0): 4, (topic, 1): 1})

    listed = run("groups", "-b", bootstrap, "-o", "json")
    assert listed.exit_code == 0, listed.output
    assert group in {g["group"] for g in json.loads(listed.stdout)["groups"]}

    described = run("describe", group, "-b", bootstrap, "-o", "json")
    assert described.exit_code == 0, described.output
    (body,) = json.loads(described.stdout)["groups"]
    assert {(p["topic"], p["partition"]): (p["current_offset"], p["lag"]) for p in body["partitions"]} == {
        (topic, 0): (4, 1),
        (topic, 1): (1, 2),
    }

    out = tmp_path / "group.yaml"
    snap = run("snapshot", group, "-b", bootstrap, "-o", str(out))
    assert snap.exit_code == 0, snap.output
    assert yaml.safe_load(out.read_text())["cluster"]["topics"] == [{"name": topic, "partitions": 2}]

    reset = run("offsets", "reset", group, "--all-topics", "--to-earliest", "--execute", "-b", bootstrap)
    assert reset.exit_code == 0, reset.output
    assert committed(bootstrap, group, [(topic, 0), (topic, 1)]) == {(topic, 0): 0, (topic, 1): 0}


def test_tansu_lists_describes_snapshots_and_resets(tansu_broker: str, names: tuple[str, str], tmp_path: Path) -> None:
    _groups_describe_snapshot_and_reset(tansu_broker, names, tmp_path)


def test_noida_lists_describes_snapshots_and_resets(noida_broker: str, names: tuple[str, str], tmp_path: Path) -> None:
    _groups_describe_snapshot_and_reset(noida_broker, names, tmp_path)


def _describe_names_the_owner(bootstrap: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(bootstrap, topic, [3])
    consumer = joined_consumer(bootstrap, group, topic)
    member_id = consumer.memberid()
    try:
        described = run("describe", group, "-b", bootstrap, "-o", "json")
    finally:
        consumer.close()
    assert described.exit_code == 0, described.output
    (body,) = json.loads(described.stdout)["groups"]
    assert {p["consumer_id"] for p in body["partitions"]} == {member_id}


def test_noida_describe_names_the_owner(noida_broker: str, names: tuple[str, str]) -> None:
    """Tansu returns no members from DescribeGroups (docs/brokers.md), so only noida-db is asked."""
    _describe_names_the_owner(noida_broker, names)
