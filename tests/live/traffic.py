"""Real traffic for the live tests: topics with records, admin-style commits, a joined consumer."""

from __future__ import annotations

import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

# Session 6 s and heartbeats every 0.5 s: a dead member is noticed in seconds (Tansu's joins take
# session/2, so this also keeps them near 3 s).
CONSUMER = {
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 500,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
}


# One record per batch: Tansu's log-end offset is wrong for larger batches (docs/brokers.md). Idempotence:
# a produce retried on a loaded machine (a new partition's leader not ready yet) must neither duplicate
# nor reorder records, or offsets and timestamps would not be the ones a test wrote.
PRODUCER = {"batch.num.messages": 1, "linger.ms": 0, "enable.idempotence": True}


def topic_with_records(broker: str, topic: str, per_partition: list[int]) -> None:
    admin = AdminClient({"bootstrap.servers": broker})  # kept alive until the topic exists
    admin.create_topics([NewTopic(topic, len(per_partition))])[topic].result(10)
    producer = Producer(PRODUCER | {"bootstrap.servers": broker})
    for partition, count in enumerate(per_partition):
        for _ in range(count):
            producer.produce(topic, value=b"x", partition=partition)
    assert producer.flush(10) == 0


def commit(broker: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    """Commit explicit offsets as a consumer of `group` that never joins (an admin-style commit)."""
    consumer = Consumer({"bootstrap.servers": broker, "group.id": group, **CONSUMER})
    try:
        consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()], asynchronous=False)
    finally:
        consumer.close()


def joined_consumer(broker: str, group: str, topic: str) -> Consumer:
    """A real consumer (client.id reader-1) that has joined `group` and holds its assignment."""
    consumer = Consumer({"bootstrap.servers": broker, "group.id": group, "client.id": "reader-1", **CONSUMER})
    consumer.subscribe([topic])
    deadline = time.monotonic() + 30
    while not consumer.assignment() and time.monotonic() < deadline:
        consumer.poll(0.2)
    assert consumer.assignment(), "the consumer never got an assignment"
    return consumer


def committed(broker: str, group: str, partitions: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
    """The group's committed offsets read back as a consumer reads them (-1001 where nothing is committed)."""
    consumer = Consumer({"bootstrap.servers": broker, "group.id": group, **CONSUMER})
    try:
        found = consumer.committed([TopicPartition(t, p) for t, p in partitions], timeout=10)
    finally:
        consumer.close()
    return {(tp.topic, tp.partition): tp.offset for tp in found}
