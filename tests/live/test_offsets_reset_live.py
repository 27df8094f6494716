"""`kgroup offsets reset` on a real broker: a dry run changes nothing, --execute changes exactly the plan
(read back from the broker), groups with live members are refused, and the CSV plan round-trips."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kgroup.assignors.model import TopicPartition
from kgroup.assignors.offsets.reset_plan import PlannedOffset
from kgroup.inspectors.live.connection_settings import ConnectionSettings
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.offsets.live_reset import GroupPlan, apply_reset
from tests.cli.helpers import run
from tests.live.traffic import PRODUCER, commit, committed, joined_consumer, topic_with_records


def _plan(result) -> dict[tuple[str, int], int]:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    (body,) = json.loads(result.stdout)["groups"]
    return {(p["topic"], p["partition"]): p["new_offset"] for p in body["partitions"]}


def test_a_dry_run_prints_the_plan_and_changes_nothing(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 3])
    commit(broker, group, {(topic, 0): 4, (topic, 1): 1})

    result = run("offsets", "reset", group, "--topic", topic, "--to-earliest", "-b", broker)

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:4] == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]
    assert [line.split()[:4] for line in lines[1:]] == [[group, topic, "0", "0"], [group, topic, "1", "0"]]
    assert "dry run" in result.stderr
    assert committed(broker, group, [(topic, 0), (topic, 1)]) == {(topic, 0): 4, (topic, 1): 1}


def test_execute_applies_the_plan_and_it_reads_back(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 3, 2])
    commit(broker, group, {(topic, 0): 4, (topic, 1): 1, (topic, 2): 2})

    result = run("offsets", "reset", group, "--all-topics", "--shift-by", "-2", "--execute", "-b", broker, "-o", "json")

    # 4-2 = 2; 1-2 = -1 is clamped to the log start 0; 2-2 = 0
    assert _plan(result) == {(topic, 0): 2, (topic, 1): 0, (topic, 2): 0}
    statuses = {p["status"] for p in json.loads(result.stdout)["groups"][0]["partitions"]}
    assert statuses == {"applied"}
    assert committed(broker, group, [(topic, 0), (topic, 1), (topic, 2)]) == {
        (topic, 0): 2,
        (topic, 1): 0,
        (topic, 2): 0,
    }


def test_to_offset_is_clamped_and_only_the_named_partitions_move(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 3, 2])
    commit(broker, group, {(topic, 0): 1, (topic, 1): 1, (topic, 2): 1})

    result = run(
        "offsets",
        "reset",
        group,
        "--topic",
        f"{topic}:0,1",
        "--to-offset",
        "4",
        "--execute",
        "-b",
        broker,
        "-o",
        "json",
    )

    assert _plan(result) == {(topic, 0): 4, (topic, 1): 3}  # partition 1 ends at 3
    assert committed(broker, group, [(topic, 0), (topic, 1), (topic, 2)]) == {
        (topic, 0): 4,
        (topic, 1): 3,
        (topic, 2): 1,
    }


def test_the_exported_plan_round_trips_through_from_file(broker: str, names: tuple[str, str], tmp_path: Path) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 3])
    commit(broker, group, {(topic, 0): 1, (topic, 1): 1})

    exported = run("offsets", "reset", group, "--all-topics", "--to-latest", "--export", "-b", broker)
    assert exported.exit_code == 0, exported.output
    assert exported.stdout == f"{topic},0,5\n{topic},1,3\n"
    plan = tmp_path / "plan.csv"
    plan.write_text(exported.stdout)

    applied = run("offsets", "reset", group, "--from-file", str(plan), "--execute", "-b", broker, "-o", "json")

    assert _plan(applied) == {(topic, 0): 5, (topic, 1): 3}
    assert committed(broker, group, [(topic, 0), (topic, 1)]) == {(topic, 0): 5, (topic, 1): 3}


def test_a_group_with_a_live_member_is_refused_and_left_alone(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [4])
    consumer = joined_consumer(broker, group, topic)
    try:
        consumer.commit(offsets=[KafkaTopicPartition(topic, 0, 3)], asynchronous=False)
        result = run("offsets", "reset", group, "--all-topics", "--to-earliest", "--execute", "-b", broker)
        assert result.exit_code == 6, result.output
        assert "the group has 1 active member(s)" in result.stderr
        assert committed(broker, group, [(topic, 0)]) == {(topic, 0): 3}
    finally:
        consumer.close()


def test_the_broker_refusing_some_partitions_is_reported_per_partition(broker: str, names: tuple[str, str]) -> None:
    """The broker's own check (UNKNOWN_MEMBER_ID for a group with a live member, Kafka's
    `ClassicGroup.validateOffsetCommit`) surfaces per partition; kgroup's refusal normally comes first, so the plan is handed to apply_reset directly."""
    topic, group = names
    topic_with_records(broker, topic, [4, 4])
    consumer = joined_consumer(broker, group, topic)
    try:
        admin = LiveAdmin(ConnectionSettings(broker), 10)
        plan = GroupPlan(
            group,
            "empty",
            None,
            (PlannedOffset(TopicPartition(topic, 0), None, 1), PlannedOffset(TopicPartition(topic, 1), None, 2)),
        )
        (outcome,) = apply_reset(admin, [plan])
    finally:
        consumer.close()
    assert outcome.applied == []
    assert set(outcome.failed) == {TopicPartition(topic, 0), TopicPartition(topic, 1)}
    assert all("Unknown member" in why for why in outcome.failed.values()), outcome.failed


def test_to_datetime_finds_the_first_record_at_or_after_the_time(broker: str, names: tuple[str, str]) -> None:
    """Records stamped 3, 2 and 1 hours ago. Not 1970: noida-db's retention deletes records older than its
    retention within seconds (seen: the log start jumped to 3 about 10 s after producing), which made this
    test fail whenever the cleaner ran between the produce and the lookup."""
    topic, group = names
    topic_with_records(broker, topic, [0])
    first = (int(time.time()) - 3 * 3600) * 1000
    producer = Producer(PRODUCER | {"bootstrap.servers": broker})
    for stamp in (first, first + 3_600_000, first + 7_200_000):
        producer.produce(topic, value=b"x", partition=0, timestamp=stamp)
        producer.flush(10)
    commit(broker, group, {(topic, 0): 3})
    _wait_until_indexed(broker, topic, first + 1_800_000)

    def plan(when_ms: int) -> dict[tuple[str, int], int]:
        when = datetime.fromtimestamp(when_ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000")
        return _plan(
            run("offsets", "reset", group, "--topic", topic, "--to-datetime", when, "-b", broker, "-o", "json")
        )

    assert plan(first + 1_800_000) == {(topic, 0): 1}  # half-way between the first two: the second record
    assert plan(first - 3_600_000) == {(topic, 0): 0}
    assert plan(first + 3 * 3_600_000) == {(topic, 0): 3}  # nothing after: the log end


def _wait_until_indexed(broker: str, topic: str, at_ms: int) -> None:
    """noida-db may answer a time lookup from an index it fills after the produce is acknowledged: setup waits
    (10 s at most) until the broker itself finds the second record; kgroup's plan is then asserted as before."""
    admin = LiveAdmin(ConnectionSettings(broker), 5)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if admin.offsets_for_time([TopicPartition(topic, 0)], at_ms).get(TopicPartition(topic, 0)) == 1:
            return
        time.sleep(0.2)


def test_unknown_topics_and_missing_scopes_are_one_line_errors(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [1])
    commit(broker, group, {(topic, 0): 1})

    unknown = run("offsets", "reset", group, "--topic", "no-such-topic", "--to-earliest", "-b", broker)
    assert unknown.exit_code == 5
    assert unknown.stderr == "kgroup: error: topic 'no-such-topic' does not exist (--topic)\n"

    beyond = run("offsets", "reset", group, "--topic", f"{topic}:3", "--to-earliest", "-b", broker)
    assert beyond.exit_code == 2
    assert "has 1 partition(s)" in beyond.stderr and beyond.stdout == ""

    no_scope = run("offsets", "reset", group, "--to-earliest", "-b", broker)
    assert no_scope.exit_code == 2 and "--all-topics or --topic" in no_scope.stderr


def test_several_groups_are_reset_all_or_nothing(broker: str, names: tuple[str, str]) -> None:
    """One group is refused (a live member): by default the other is left alone too; --allow-partial
    applies it. `executed` is true only for what was applied; the refused group is never offered --execute."""
    topic, busy = names
    idle = f"{busy}-idle"
    topic_with_records(broker, topic, [6])
    commit(broker, idle, {(topic, 0): 5})
    consumer = joined_consumer(broker, busy, topic)
    try:
        consumer.commit(offsets=[KafkaTopicPartition(topic, 0, 3)], asynchronous=False)
        dry = run("offsets", "reset", idle, busy, "--all-topics", "--to-earliest", "-b", broker)
        whole = run(
            "offsets", "reset", idle, busy, "--all-topics", "--to-earliest", "--execute", "-b", broker, "-o", "json"
        )
        untouched = committed(broker, idle, [(topic, 0)])
        table = run("offsets", "reset", idle, busy, "--all-topics", "--to-earliest", "--execute", "-b", broker)
        after_table = committed(broker, idle, [(topic, 0)])
        partial = run(
            "offsets",
            "reset",
            idle,
            busy,
            "--all-topics",
            "--to-earliest",
            "--execute",
            "--allow-partial",
            "-b",
            broker,
            "-o",
            "json",
        )
        busy_after = committed(broker, busy, [(topic, 0)])
    finally:
        consumer.close()

    assert dry.exit_code == 6 and "add --execute to apply this plan" not in dry.stderr
    assert "--allow-partial" in dry.stderr

    assert whole.exit_code == 6, whole.output
    assert untouched == {(topic, 0): 5}  # nothing changed: the idle group was held back
    doc = json.loads(whole.stdout)
    assert doc["executed"] is False
    results = {g["group"]: (g["executed"], g["result"]) for g in doc["groups"]}
    assert results[busy] == (False, "refused") and results[idle][0] is False
    assert results[idle][1].startswith("not applied") and busy in results[idle][1]
    statuses = {g["group"]: {p["status"] for p in g["partitions"]} for g in doc["groups"]}
    assert statuses[idle] <= {"not applied"} and statuses[busy] == {"refused"}  # the refused plan is shown too

    assert table.exit_code == 6 and after_table == {(topic, 0): 5}
    rows = {line.split()[0]: line for line in table.stdout.splitlines() if line.split()[:1] in ([idle], [busy])}
    assert "refused" in rows[busy] and "not applied" in rows[idle]  # the per-group result table

    assert partial.exit_code == 6, partial.output
    doc = json.loads(partial.stdout)
    results = {g["group"]: (g["executed"], g["result"]) for g in doc["groups"]}
    assert results == {idle: (True, "applied"), busy: (False, "refused")} and doc["executed"] is False
    assert committed(broker, idle, [(topic, 0)]) == {(topic, 0): 0} and busy_after == {(topic, 0): 3}


def test_to_group_copies_another_groups_commits(broker: str, names: tuple[str, str]) -> None:
    """rpk's `group seek --to-group`: the other group's committed offsets, on its committed partitions."""
    topic, group = names
    source = f"{group}-source"
    topic_with_records(broker, topic, [6, 6, 6])
    commit(broker, source, {(topic, 0): 5, (topic, 1): 2})
    commit(broker, group, {(topic, 0): 1, (topic, 2): 3})

    dry = run("offsets", "reset", group, "--to-group", source, "-b", broker, "-o", "json")
    assert _plan(dry) == {(topic, 0): 5, (topic, 1): 2}
    assert committed(broker, group, [(topic, 0)]) == {(topic, 0): 1}
    scoped = run("offsets", "reset", group, "--to-group", source, "--topic", f"{topic}:1", "-b", broker, "-o", "json")
    assert _plan(scoped) == {(topic, 1): 2}

    applied = run("offsets", "reset", group, "--to-group", source, "--execute", "-b", broker, "-o", "json")
    assert _plan(applied) == {(topic, 0): 5, (topic, 1): 2} and json.loads(applied.stdout)["executed"] is True
    assert committed(broker, group, [(topic, 0), (topic, 1), (topic, 2)]) == {
        (topic, 0): 5,
        (topic, 1): 2,
        (topic, 2): 3,
    }
    itself = run("offsets", "reset", group, "--to-group", group, "-b", broker)
    assert itself.exit_code == 2 and "--to-group" in itself.stderr
