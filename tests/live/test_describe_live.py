"""`kgroup groups` and `kgroup describe` against a real broker, with real produce and commit traffic."""

from __future__ import annotations

import json
import re
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.cli.helpers import run
from tests.live.traffic import CONSUMER, PRODUCER, commit, joined_consumer, topic_with_records


def _describe(broker: str, *args: str) -> dict:
    result = run("describe", *args, "-b", broker, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_describe_an_empty_group_shows_kafkas_columns_and_lag(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 4, 3])
    commit(broker, group, {(topic, 1): 1, (topic, 2): 3})

    doc = _describe(broker, group)

    (body,) = doc["groups"]
    rows = {(p["topic"], p["partition"]): p for p in body["partitions"]}
    # Partition 0 was never committed and nobody owns it: Kafka's tool leaves it out, and so does kgroup.
    assert set(rows) == {(topic, 1), (topic, 2)}
    assert (rows[(topic, 1)]["current_offset"], rows[(topic, 1)]["log_end_offset"], rows[(topic, 1)]["lag"]) == (
        1,
        4,
        3,
    )
    assert (rows[(topic, 2)]["current_offset"], rows[(topic, 2)]["log_end_offset"], rows[(topic, 2)]["lag"]) == (
        3,
        3,
        0,
    )
    assert rows[(topic, 1)]["log_start_offset"] == 0
    assert rows[(topic, 1)]["consumer_id"] is None
    assert body["total_lag"] == 3
    assert body["members"] == 0
    assert "no active members" in body["notes"]


def test_describe_table_prints_dashes_for_missing_values(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [2])
    commit(broker, group, {(topic, 0): 1})

    result = run("describe", group, "-b", broker)

    assert result.exit_code == 0, result.output
    header, row = [line.split() for line in result.stdout.splitlines()[1:3]]
    assert header == [
        "GROUP",
        "TOPIC",
        "PARTITION",
        "CURRENT-OFFSET",
        "LOG-START-OFFSET",
        "LOG-END-OFFSET",
        "LAG",
        "LEAD",
        "CONSUMER-ID",
        "HOST",
        "CLIENT-ID",
        "FLAGS",
    ]
    assert row == [group, topic, "0", "1", "0", "2", "1", "1", "-", "-", "-", "-"]


def test_groups_lists_the_group_with_its_total_lag(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [6, 6])
    commit(broker, group, {(topic, 0): 2, (topic, 1): 5})

    result = run("groups", "-b", broker, "-r", f"^{group}$", "-o", "json")

    assert result.exit_code == 0, result.output
    (listed,) = json.loads(result.stdout)["groups"]
    assert (listed["group"], listed["total_lag"]) == (group, 4 + 1)


def test_a_live_consumer_is_shown_as_the_partitions_owner(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [3])
    consumer = joined_consumer(broker, group, topic)
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, 2)], asynchronous=False)
        doc = _describe(broker, group)
    finally:
        consumer.close()
    (row,) = doc["groups"][0]["partitions"]
    assert (row["current_offset"], row["lag"]) == (2, 1)


def test_describe_names_the_member_that_owns_each_partition(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [3])
    consumer = joined_consumer(broker, group, topic)
    try:
        member_id = consumer.memberid()
        doc = _describe(broker, group)
    finally:
        consumer.close()
    (row,) = doc["groups"][0]["partitions"]
    assert row["client_id"] == "reader-1"
    assert row["consumer_id"] == member_id


def test_members_verbose_prints_each_members_assignment_as_kafka_does(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [1, 1, 1])
    consumer = joined_consumer(broker, group, topic)
    try:
        member_id = consumer.memberid()
        table = run("describe", group, "--members", "--verbose", "-b", broker)
        doc = _describe(broker, group)
    finally:
        consumer.close()
    assert table.exit_code == 0, table.output
    header, row = table.stdout.splitlines()
    assert header.split()[-4:] == ["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
    # a classic group: no epochs and no target assignment, printed `-` as Kafka's tool prints them
    assert row.split()[1] == member_id and row.split()[-4:] == ["-", f"{topic}:0,1,2", "-", "-"]
    (member,) = doc["groups"][0]["member_lag"]
    assert member["assignment"] == [{"topic": topic, "partition": p} for p in range(3)]
    assert member["target_assignment"] is None


def test_verbose_offsets_insert_leader_epoch_after_partition(broker: str, names: tuple[str, str]) -> None:
    """Apache Kafka keeps a commit's leader epoch and OffsetFetch returns it (OffsetCommitRequest v6+,
    KIP-320), so the column shows the 7 committed here, as kafka-consumer-groups.sh --verbose does."""
    topic, group = names
    topic_with_records(broker, topic, [3])
    consumer = Consumer({"bootstrap.servers": broker, "group.id": group, **CONSUMER})
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, 2, leader_epoch=7)], asynchronous=False)
    finally:
        consumer.close()

    result = run("describe", group, "--verbose", "-b", broker)

    assert result.exit_code == 0, result.output
    header, row = result.stdout.splitlines()[1:3]
    assert header.split()[:5] == ["GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET"]
    assert row.split()[:5] == [group, topic, "0", "7", "2"]


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


def test_time_lag_is_now_minus_the_timestamp_of_the_first_unread_record(broker: str, names: tuple[str, str]) -> None:
    """Records stamped ten and five minutes ago: a commit at offset 1 has the second one unread, so its time
    lag is five minutes plus however long the test took; a caught-up partition is 0."""
    topic, group = names
    admin = AdminClient({"bootstrap.servers": broker})  # kept alive until the topic exists
    admin.create_topics([NewTopic(topic, 2)])[topic].result(10)
    now = int(time.time() * 1000)
    producer = Producer(PRODUCER | {"bootstrap.servers": broker})
    for partition in (0, 1):
        for minutes_ago in (10, 5, 1):
            producer.produce(topic, value=b"x", partition=partition, timestamp=now - minutes_ago * 60_000)
    assert producer.flush(10) == 0
    commit(broker, group, {(topic, 0): 1, (topic, 1): 3})

    started = time.time()
    doc = _describe(broker, group, "--time-lag")
    table = run("describe", group, "--time-lag", "-b", broker)
    took_ms = int((time.time() - started) * 1000) + 1

    (body,) = doc["groups"]
    rows = {p["partition"]: p for p in body["partitions"]}
    assert 5 * 60_000 <= rows[0]["time_lag_ms"] <= 5 * 60_000 + (started * 1000 - now) + took_ms
    assert rows[1]["time_lag_ms"] == 0
    assert body["max_time_lag_ms"] == rows[0]["time_lag_ms"]
    assert table.exit_code == 0, table.output
    header, first = [line.split() for line in table.stdout.splitlines()[1:3]]
    assert header[7] == "TIME-LAG" and re.fullmatch(r"5m\d\ds", first[7])


def test_a_member_shows_the_time_lag_of_its_worst_partition(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    admin = AdminClient({"bootstrap.servers": broker})  # kept alive until the topic exists
    admin.create_topics([NewTopic(topic, 1)])[topic].result(10)
    now = int(time.time() * 1000)
    producer = Producer(PRODUCER | {"bootstrap.servers": broker})
    for minutes_ago in (10, 5, 1):
        producer.produce(topic, value=b"x", partition=0, timestamp=now - minutes_ago * 60_000)
    assert producer.flush(10) == 0
    consumer = joined_consumer(broker, group, topic)
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, 1)], asynchronous=False)
        member_id = consumer.memberid()
        doc = _describe(broker, group, "--members", "--time-lag")
    finally:
        consumer.close()
    (member,) = doc["groups"][0]["member_lag"]
    assert member["member_id"] == member_id
    assert 5 * 60_000 <= member["max_time_lag_ms"] < 10 * 60_000  # the record 5 minutes old is the first unread


def test_without_time_lag_the_document_has_no_time_lag_keys(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [2])
    commit(broker, group, {(topic, 0): 1})
    (body,) = _describe(broker, group)["groups"]
    assert "max_time_lag_ms" not in body and "time_lag_ms" not in body["partitions"][0]


def test_regex_and_all_groups_choose_groups_and_only_with_lag_keeps_the_lagging(
    broker: str, names: tuple[str, str]
) -> None:
    topic, group = names
    topic_with_records(broker, topic, [4, 4, 0])
    lagging, caught_up, other = f"{group}-lagging", f"{group}-caught-up", f"other-{group}"
    commit(broker, lagging, {(topic, 0): 1, (topic, 1): 4})
    commit(broker, caught_up, {(topic, 0): 4, (topic, 1): 4})
    commit(broker, other, {(topic, 0): 0})

    by_regex = _describe(broker, "-r", f"^{group}-")
    assert {b["group"] for b in by_regex["groups"]} == {lagging, caught_up}

    everything = _describe(broker, "--all-groups", "--only-with-lag")
    chosen = {b["group"]: b for b in everything["groups"] if group in b["group"]}
    assert set(chosen) == {lagging, other}  # caught-up has no lagging partition, so it is left out
    assert [(p["partition"], p["lag"]) for p in chosen[lagging]["partitions"]] == [(0, 3)]
    assert chosen[lagging]["total_lag"] == 3  # the group's numbers stay whole


def test_describe_needs_groups_to_describe(broker: str) -> None:
    result = run("describe", "-b", broker)
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "--all-groups" in result.stderr
    none = run("describe", "-r", "^no-such-group-anywhere$", "-b", broker, "-o", "json")
    assert none.exit_code == 0 and json.loads(none.stdout)["groups"] == []
    assert "no group matched" in none.stderr


def test_describe_topic_shows_every_group_reading_it_and_only_its_partitions(
    broker: str, names: tuple[str, str]
) -> None:
    topic, group = names
    other_topic = f"{topic}-other"
    topic_with_records(broker, topic, [4, 4])
    topic_with_records(broker, other_topic, [4])
    commit(broker, f"{group}-a", {(topic, 0): 1, (other_topic, 0): 2})
    commit(broker, f"{group}-b", {(topic, 1): 3})
    commit(broker, f"{group}-c", {(other_topic, 0): 1})

    result = run("describe", "--topic", topic, "-b", broker, "-o", "json")

    assert result.exit_code == 0, result.output
    mine = {
        g["group"]: [(p["topic"], p["partition"]) for p in g["partitions"]]
        for g in json.loads(result.stdout)["groups"]
        if g["group"].startswith(group)
    }
    assert mine == {f"{group}-a": [(topic, 0)], f"{group}-b": [(topic, 1)]}
    missing = run("describe", "--topic", f"{topic}-none", "-b", broker)
    assert missing.exit_code == 5 and "does not exist" in missing.stderr
