"""`kgroup offsets delete` on real brokers: a dry run changes nothing, --execute removes exactly the
partitions asked for (`describe` no longer shows them), an active group subscribed to the topic is
refused, and a broker without OffsetDelete (API 47) is told apart.

Apache Kafka is the reference. noida-db also offers OffsetDelete v0 (kept: a Kafka-compatible broker a user
may meet); Tansu 0.6.0 does not, so the refusal path runs on it. An active group's subscribed topic is
refused by kgroup from the members' subscriptions before anything is sent, as Kafka's broker would refuse
it (GroupCoordinator.deleteOffsets: GROUP_SUBSCRIBED_TO_TOPIC); noida-db itself would delete it.
"""

from __future__ import annotations

import json

import pytest
from confluent_kafka import TopicPartition as KafkaTopicPartition

from tests.cli.helpers import run
from tests.live.traffic import commit, committed, joined_consumer, topic_with_records

NONE = -1001  # what a consumer reads where nothing is committed (librdkafka's OFFSET_INVALID)


def _deletes_an_empty_groups_offsets(bootstrap: str, names: tuple[str, str]) -> None:
    topic, group = names
    other = f"{topic}-kept"
    topic_with_records(bootstrap, topic, [5, 5])
    topic_with_records(bootstrap, other, [5])
    commit(bootstrap, group, {(topic, 0): 4, (topic, 1): 2, (other, 0): 3})
    before = {(topic, 0): 4, (topic, 1): 2, (other, 0): 3}

    dry = run("offsets", "delete", group, "--topic", topic, "-b", bootstrap, "-o", "json")
    assert dry.exit_code == 0, dry.output
    doc = json.loads(dry.stdout)
    assert doc["kind"] == "offset-delete" and doc["executed"] is False
    assert [(p["topic"], p["partition"], p["current_offset"], p["status"]) for p in doc["groups"][0]["partitions"]] == [
        (topic, 0, 4, None),
        (topic, 1, 2, None),
    ]
    assert "add --execute" in dry.stderr
    assert committed(bootstrap, group, list(before)) == before  # the dry run changed nothing

    done = run("offsets", "delete", group, "--topic", topic, "--execute", "-b", bootstrap, "-o", "json")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["executed"] is True and doc["groups"][0]["result"] == "deleted"
    assert {(p["topic"], p["partition"]): p["status"] for p in doc["groups"][0]["partitions"]} == {
        (topic, 0): "deleted",
        (topic, 1): "deleted",
    }
    assert committed(bootstrap, group, list(before)) == {(topic, 0): NONE, (topic, 1): NONE, (other, 0): 3}
    described = run("describe", group, "-b", bootstrap, "-o", "json")
    assert described.exit_code == 0, described.output
    rows = {(p["topic"], p["partition"]) for g in json.loads(described.stdout)["groups"] for p in g["partitions"]}
    assert rows == {(other, 0)}  # the deleted partitions are gone from the group


def test_apache_kafka_deletes_an_empty_groups_offsets(broker: str, names: tuple[str, str]) -> None:
    _deletes_an_empty_groups_offsets(broker, names)


def test_noida_deletes_an_empty_groups_offsets(noida_broker: str, names: tuple[str, str]) -> None:
    _deletes_an_empty_groups_offsets(noida_broker, names)


def test_an_active_group_subscribed_to_the_topic_is_refused(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    unsubscribed = f"{topic}-old"
    topic_with_records(broker, topic, [5])
    topic_with_records(broker, unsubscribed, [5])
    consumer = joined_consumer(broker, group, topic)
    try:
        consumer.commit(
            offsets=[KafkaTopicPartition(topic, 0, 3), KafkaTopicPartition(unsubscribed, 0, 2)], asynchronous=False
        )
        whole = run(
            "offsets",
            "delete",
            group,
            "--topic",
            topic,
            "--topic",
            unsubscribed,
            "--execute",
            "-b",
            broker,
            "-o",
            "json",
        )
        after_whole = committed(broker, group, [(topic, 0), (unsubscribed, 0)])
        partial = run(
            "offsets",
            "delete",
            group,
            "--topic",
            topic,
            "--topic",
            unsubscribed,
            "--execute",
            "--allow-partial",
            "-b",
            broker,
            "-o",
            "json",
        )
        after_partial = committed(broker, group, [(topic, 0), (unsubscribed, 0)])
    finally:
        consumer.close()
    assert whole.exit_code == 6, whole.output
    doc = json.loads(whole.stdout)
    statuses = {p["topic"]: (p["refused"] is not None, p["status"]) for p in doc["groups"][0]["partitions"]}
    assert doc["executed"] is False and statuses == {topic: (True, "refused"), unsubscribed: (False, "not deleted")}
    assert "GROUP_SUBSCRIBED_TO_TOPIC" in whole.stderr
    assert after_whole == {(topic, 0): 3, (unsubscribed, 0): 2}  # all or nothing: nothing deleted

    assert partial.exit_code == 6, partial.output  # still a refusal: the subscribed topic keeps its offset
    doc = json.loads(partial.stdout)
    statuses = {p["topic"]: p["status"] for p in doc["groups"][0]["partitions"]}
    assert doc["executed"] is False and statuses == {topic: "refused", unsubscribed: "deleted"}
    assert after_partial == {(topic, 0): 3, (unsubscribed, 0): NONE}


def test_a_broker_without_offset_delete_is_named_and_nothing_changes(tansu_broker: str, names: tuple[str, str]) -> None:
    """Apache Kafka offers OffsetDelete (API 47) since 2.4; Tansu 0.6.0 does not, so the refusal path runs there."""
    broker = tansu_broker
    from kgroup.inspectors.live.wire.describe_groups import probe_api_versions
    from kgroup.inspectors.live.wire.offset_delete import offers_offset_delete

    if offers_offset_delete(probe_api_versions({"bootstrap.servers": broker}, 5)):
        pytest.skip("this Tansu offers OffsetDelete: the refusal path needs a broker without it")
    topic, group = names
    topic_with_records(broker, topic, [3])
    commit(broker, group, {(topic, 0): 2})
    dry = run("offsets", "delete", group, "--topic", topic, "-b", broker)
    assert dry.exit_code == 0 and "does not offer OffsetDelete (API 47" in dry.stderr, dry.output
    done = run("offsets", "delete", group, "--topic", topic, "--execute", "-b", broker)
    assert done.exit_code == 1 and "does not offer OffsetDelete (API 47" in done.stderr, done.output
    assert committed(broker, group, [(topic, 0)]) == {(topic, 0): 2}
