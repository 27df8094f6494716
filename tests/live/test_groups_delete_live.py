"""`kgroup groups delete` on a real broker: a dry run deletes nothing, --execute deletes exactly the
groups asked for (their offsets read back as gone), and a group with a live member is refused."""

from __future__ import annotations

import json

from confluent_kafka import TopicPartition as KafkaTopicPartition

from tests.cli.helpers import run
from tests.live.traffic import commit, committed, joined_consumer, topic_with_records


def test_a_dry_run_deletes_nothing_and_execute_deletes_the_group(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    keep = f"{group}-keep"
    topic_with_records(broker, topic, [3])
    commit(broker, group, {(topic, 0): 2})
    commit(broker, keep, {(topic, 0): 1})

    dry = run("groups", "delete", group, "-b", broker)
    assert dry.exit_code == 0, dry.output
    assert committed(broker, group, [(topic, 0)]) == {(topic, 0): 2}
    assert "add --execute" in dry.stderr and "planned (dry run)" in dry.stdout

    done = run("groups", "delete", group, "--execute", "-b", broker, "-o", "json")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["kind"] == "group-delete" and doc["executed"] is True
    assert [(g["group"], g["committed_partitions"], g["result"]) for g in doc["groups"]] == [(group, 1, "deleted")]
    assert committed(broker, group, [(topic, 0)]).get((topic, 0), -1) < 0  # no commit (librdkafka: -1001)
    assert committed(broker, keep, [(topic, 0)]) == {(topic, 0): 1}  # only the group asked for
    listed = run("groups", "-b", broker, "-o", "json")  # `groups` without a subcommand still lists
    assert listed.exit_code == 0 and group not in {g["group"] for g in json.loads(listed.stdout)["groups"]}


def test_a_group_with_a_live_member_is_refused_and_holds_back_the_others(broker: str, names: tuple[str, str]) -> None:
    topic, busy = names
    idle = f"{busy}-idle"
    topic_with_records(broker, topic, [3])
    commit(broker, idle, {(topic, 0): 1})
    consumer = joined_consumer(broker, busy, topic)
    try:
        consumer.commit(offsets=[KafkaTopicPartition(topic, 0, 2)], asynchronous=False)
        result = run("groups", "delete", idle, busy, "--execute", "-b", broker, "-o", "json")
        idle_after = committed(broker, idle, [(topic, 0)])
        busy_after = committed(broker, busy, [(topic, 0)])
    finally:
        consumer.close()
    assert result.exit_code == 6, result.output
    doc = json.loads(result.stdout)
    assert doc["executed"] is False
    results = {g["group"]: (g["executed"], g["result"]) for g in doc["groups"]}
    assert results[busy] == (False, "refused") and results[idle][0] is False
    assert idle_after == {(topic, 0): 1} and busy_after == {(topic, 0): 2}  # all or nothing: nothing deleted
