"""`kgroup groups` and `kgroup describe` against a real broker, with real produce and commit traffic."""

from __future__ import annotations

import json
import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.cli.helpers import run

# broker.md §3.3: session 6 s and heartbeats every 0.5 s keep Tansu's joins near 3 s.
CONSUMER = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 500, "enable.auto.commit": False,
            "auto.offset.reset": "earliest"}


def _topic_with_records(broker: str, topic: str, per_partition: list[int]) -> None:
    admin = AdminClient({"bootstrap.servers": broker})  # kept alive until the topic exists
    admin.create_topics([NewTopic(topic, len(per_partition))])[topic].result(10)
    # One record per batch: Tansu's log-end offset is wrong for larger batches (broker.md §1).
    producer = Producer({"bootstrap.servers": broker, "batch.num.messages": 1, "linger.ms": 0})
    for partition, count in enumerate(per_partition):
        for _ in range(count):
            producer.produce(topic, value=b"x", partition=partition)
    assert producer.flush(10) == 0


def _commit(broker: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    """Commit explicit offsets as a consumer of `group` that never joins (an admin-style commit)."""
    consumer = Consumer({"bootstrap.servers": broker, "group.id": group, **CONSUMER})
    try:
        consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()], asynchronous=False)
    finally:
        consumer.close()


def _joined_consumer(broker: str, group: str, topic: str) -> Consumer:
    """A real consumer (client.id reader-1) that has joined `group` and holds its assignment."""
    consumer = Consumer({"bootstrap.servers": broker, "group.id": group, "client.id": "reader-1", **CONSUMER})
    consumer.subscribe([topic])
    deadline = time.monotonic() + 30
    while not consumer.assignment() and time.monotonic() < deadline:
        consumer.poll(0.2)
    assert consumer.assignment(), "the consumer never got an assignment"
    return consumer


def _describe(broker: str, *args: str) -> dict:
    result = run("describe", *args, "-b", broker, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_describe_an_empty_group_shows_kafkas_columns_and_lag(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    _topic_with_records(broker, topic, [5, 4, 3])
    _commit(broker, group, {(topic, 1): 1, (topic, 2): 3})

    doc = _describe(broker, group)

    (body,) = doc["groups"]
    rows = {(p["topic"], p["partition"]): p for p in body["partitions"]}
    # Partition 0 was never committed and nobody owns it: Kafka's tool leaves it out, and so does kgroup.
    assert set(rows) == {(topic, 1), (topic, 2)}
    assert (rows[(topic, 1)]["current_offset"], rows[(topic, 1)]["log_end_offset"], rows[(topic, 1)]["lag"]) == (1, 4, 3)
    assert (rows[(topic, 2)]["current_offset"], rows[(topic, 2)]["log_end_offset"], rows[(topic, 2)]["lag"]) == (3, 3, 0)
    assert rows[(topic, 1)]["log_start_offset"] == 0
    assert rows[(topic, 1)]["consumer_id"] is None
    assert body["total_lag"] == 3
    assert body["members"] == 0
    assert "no active members" in body["notes"]


def test_describe_table_prints_dashes_for_missing_values(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    _topic_with_records(broker, topic, [2])
    _commit(broker, group, {(topic, 0): 1})

    result = run("describe", group, "-b", broker)

    assert result.exit_code == 0, result.output
    header, row = [line.split() for line in result.stdout.splitlines()[1:3]]
    assert header == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-START-OFFSET", "LOG-END-OFFSET", "LAG",
                      "CONSUMER-ID", "HOST", "CLIENT-ID", "FLAGS"]
    assert row == [group, topic, "0", "1", "0", "2", "1", "-", "-", "-", "-"]


def test_groups_lists_the_group_with_its_total_lag(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    _topic_with_records(broker, topic, [6, 6])
    _commit(broker, group, {(topic, 0): 2, (topic, 1): 5})

    result = run("groups", "-b", broker, "-r", f"^{group}$", "-o", "json")

    assert result.exit_code == 0, result.output
    (listed,) = json.loads(result.stdout)["groups"]
    assert (listed["group"], listed["total_lag"]) == (group, 4 + 1)


def test_a_live_consumer_is_shown_as_the_partitions_owner(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    _topic_with_records(broker, topic, [3])
    consumer = _joined_consumer(broker, group, topic)
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, 2)], asynchronous=False)
        doc = _describe(broker, group)
    finally:
        consumer.close()
    (row,) = doc["groups"][0]["partitions"]
    assert (row["current_offset"], row["lag"]) == (2, 1)


@pytest.mark.needs_broker("describe-members")
def test_describe_names_the_member_that_owns_each_partition(describing_broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    _topic_with_records(describing_broker, topic, [3])
    consumer = _joined_consumer(describing_broker, group, topic)
    try:
        member_id = consumer.memberid()
        doc = _describe(describing_broker, group)
    finally:
        consumer.close()
    (row,) = doc["groups"][0]["partitions"]
    assert row["client_id"] == "reader-1"
    assert row["consumer_id"] == member_id


def test_an_unreachable_broker_is_one_line_and_exit_code_4() -> None:
    with __import__("socket").socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connections are refused
        started = time.monotonic()
        result = run("groups", "-b", f"127.0.0.1:{port}", "--timeout", "2")
        elapsed = time.monotonic() - started
    assert result.exit_code == 4
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "refused" in lines[0].lower()
    assert result.stdout == ""
    assert elapsed < 10  # the --timeout bounds it (generously: not a timing assertion, a hang guard)
