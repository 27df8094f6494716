"""`kgroup snapshot` and live what-ifs (`kgroup simulate --bootstrap-server --group`) on real brokers."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.cli.helpers import run
from tests.live.traffic import commit, joined_consumer, topic_with_records


def test_snapshot_of_an_empty_group_keeps_its_offsets_and_replays_as_a_fixture(
    broker: str, names: tuple[str, str], tmp_path: Path
) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 4, 3])
    commit(broker, group, {(topic, 0): 2, (topic, 2): 3})
    out = tmp_path / "group.yaml"

    result = run("snapshot", group, "-b", broker, "-o", str(out))

    assert result.exit_code == 0, result.output
    doc = yaml.safe_load(out.read_text())
    assert doc["schema"] == "kgroup/v1"
    assert doc["cluster"]["topics"] == [{"name": topic, "partitions": 3}]
    (body,) = doc["groups"]
    assert body["group_id"] == group and body["members"] == []
    assert body["offsets"] == {
        f"{topic}-0": {"committed": 2, "log_start": 0, "log_end": 5},
        f"{topic}-2": {"committed": 3, "log_start": 0, "log_end": 3},
    }
    # The fixture replays: a consumer joining the empty group would get every partition.
    replay = run("simulate", str(out), "--add-member", f"c1={topic}", "-o", "json")
    assert replay.exit_code == 0, replay.output
    (first,) = json.loads(replay.stdout)["results"]
    assert first["assignment"] == {"c1": [f"{topic}-0", f"{topic}-1", f"{topic}-2"]}


def test_snapshot_writes_nothing_when_the_broker_cannot_be_reached(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        out = tmp_path / "group.yaml"
        result = run("snapshot", "g", "-b", f"127.0.0.1:{port}", "--timeout", "2", "-o", str(out))
    assert result.exit_code == 4
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_snapshot_and_live_what_if_of_a_group_with_a_real_member(
    broker: str, names: tuple[str, str], tmp_path: Path
) -> None:
    topic, group = names
    topic_with_records(broker, topic, [1, 1, 1, 1])
    consumer = joined_consumer(broker, group, topic)
    try:
        member_id = consumer.memberid()
        out = tmp_path / "group.yaml"
        snap = run("snapshot", group, "-b", broker, "-o", str(out))
        plan = tmp_path / "plan.yaml"
        what_if = run(
            "simulate", "-b", broker, "--group", group, "--add-member", "c2", "-o", "json", "--save-plan", str(plan)
        )
        # No --client: the member is librdkafka (its bytes say so), so the librdkafka port explains.
        why = run("explain", "-b", broker, "--group", group, f"{topic}-1", "--add-member", "c2", "-o", "json")
    finally:
        consumer.close()

    assert snap.exit_code == 0, snap.output
    (body,) = yaml.safe_load(out.read_text())["groups"]
    (member,) = body["members"]
    assert member["member_id"] == member_id and member["client_id"] == "reader-1"
    # Read from the member's ConsumerProtocol subscription (DescribeGroups metadata), not inferred.
    assert member["topics"] == [topic] and "inferred" not in member
    assert body["assignment"] == {member_id: {topic: "0-3"}}  # a run of partitions, in the range notation
    assert body["assignors"] == ["range"]

    assert what_if.exit_code == 0, what_if.output
    (result,) = json.loads(what_if.stdout)["results"]
    # Kafka's range: members sorted by id ("c2" < "reader-1-..."), each takes a contiguous half.
    assert result["assignment"] == {member_id: [f"{topic}-2", f"{topic}-3"], "c2": [f"{topic}-0", f"{topic}-1"]}
    # The live what-if saved as a plan gates offline, after the consumer is gone: half the partitions move.
    gate = run("check", str(plan), "--max-imbalance", "0", "--max-moves", "1")
    assert gate.exit_code == 3, gate.output
    assert f"{plan} {group} (range, planned): max-moves: expected <= 1, actual 2" in gate.stderr

    # The live explanation runs the same path: 4 = 2x2 + 0, and partition 1 is in c2's run.
    assert why.exit_code == 0, why.output
    explained = json.loads(why.stdout)
    assert explained["client"] == "librdkafka"
    (item,) = explained["results"][0]["explanations"]
    assert (item["partition"], item["before"], item["after"]) == (f"{topic}-1", member_id, "c2")
    (step,) = item["steps"]
    # librdkafka's member order (member ids as bytes: "c2" < "reader-1-..."), then Java's arithmetic.
    assert step["rule"] == "range" and step["inputs"]["members"] == ["c2", member_id]
    assert (step["inputs"]["quota"], step["inputs"]["extra"], step["inputs"]["position"]) == (2, 0, 0)
    assert "librdkafka's order" in step["why"] and f"{topic}-1 is the 2nd partition" in step["why"]


def test_a_live_what_if_needs_the_group(broker: str) -> None:
    result = run("simulate", "-b", broker, "--add-member", "c2")
    assert result.exit_code == 2
    assert "--group" in result.stderr


def test_describe_of_a_snapshot_equals_describe_of_the_live_group(
    broker: str, names: tuple[str, str], tmp_path: Path
) -> None:
    """A live group saved as a fixture and described offline shows what describe showed live."""
    topic, group = names
    topic_with_records(broker, topic, [5, 4, 3])
    commit(broker, group, {(topic, 0): 2, (topic, 1): 4})
    out = tmp_path / "group.yaml"
    assert run("snapshot", group, "-b", broker, "-o", str(out)).exit_code == 0

    live = run("describe", group, "-b", broker, "-o", "json")
    offline = run("describe", "--fixture", str(out), "-o", "json")

    assert live.exit_code == 0 and offline.exit_code == 0, live.output + offline.output
    columns = (
        "topic",
        "partition",
        "current_offset",
        "log_start_offset",
        "log_end_offset",
        "lag",
        "flags",
        "consumer_id",
    )
    (live_body,), (offline_body,) = json.loads(live.stdout)["groups"], json.loads(offline.stdout)["groups"]
    assert [{c: p[c] for c in columns} for p in offline_body["partitions"]] == [
        {c: p[c] for c in columns} for p in live_body["partitions"]
    ]
    assert offline_body["total_lag"] == live_body["total_lag"] == 3
