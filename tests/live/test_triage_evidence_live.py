"""`kgroup triage` on real consumers and producers: no alarm on a healthy auto-committing consumer, whatever
its commit interval and however few the polls; an alarm on a consumer that stopped (closed, or alive and
paused) while its lag grows. Issue 39: two polls of a healthy consumer used to say WARN."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from tests.cli.helpers import run_process
from tests.live.traffic import PRODUCER, topic_with_records

ALARMS = {"WARN", "STOP", "STALL", "REWIND"}


def _produce(broker: str, topic: str, partitions: int, stop: threading.Event) -> None:
    producer = Producer(PRODUCER | {"bootstrap.servers": broker})
    i = 0
    while not stop.is_set():
        producer.produce(topic, value=b"z", partition=i % partitions)
        producer.poll(0)
        i += 1
        stop.wait(0.02)  # about 50 records/s across the topic
    producer.flush(10)


@contextmanager
def _traffic(broker: str, topic: str, partitions: int) -> Iterator[None]:
    stop = threading.Event()
    thread = threading.Thread(target=_produce, args=(broker, topic, partitions, stop), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(20)


@contextmanager
def _auto_committing(
    broker: str, group: str, topic: str, commit_ms: int, paused: threading.Event | None = None
) -> Iterator[Consumer]:
    """A real consumer with enable.auto.commit, polling all the time in a thread until the block ends. When
    `paused` is set it pauses its partitions: still a member (it polls and heartbeats), consuming nothing."""
    consumer = Consumer(
        {
            "bootstrap.servers": broker,
            "group.id": group,
            "enable.auto.commit": True,
            "auto.commit.interval.ms": commit_ms,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 500,
        }
    )
    done, did_pause, assigned = threading.Event(), threading.Event(), threading.Event()
    # the callback runs in the pump thread (inside poll): the test's thread never calls into the consumer
    consumer.subscribe([topic], on_assign=lambda _consumer, partitions: partitions and assigned.set())

    def pump() -> None:
        while not done.is_set():
            consumer.poll(0.1)
            if paused is not None and paused.is_set() and not did_pause.is_set() and consumer.assignment():
                consumer.pause(consumer.assignment())
                did_pause.set()

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    try:
        assert assigned.wait(60), "the consumer never got an assignment"  # a loaded 2-core machine joins slowly
        yield consumer
    finally:
        done.set()
        thread.join(10)
        consumer.close()


def _wait_for_commits(broker: str, group: str, topic: str, partitions: int, timeout_s: float = 60) -> None:
    """The group has committed every partition once: triage then sees a consumer at work, not one starting."""
    peek = Consumer({"bootstrap.servers": broker, "group.id": group, "enable.auto.commit": False})
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            got = peek.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)
            if all(tp.offset >= 0 for tp in got):
                return
            time.sleep(0.2)
    finally:
        peek.close()
    raise AssertionError("the consumer never committed")


def _triage(broker: str, group: str, *args: str) -> tuple[int, dict, str]:
    done = run_process("triage", "-b", broker, "--group", group, *args, "-o", "json")
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


# (auto.commit.interval.ms, --samples, --interval): commit intervals from 0.5 to 5 s, polls shorter and
# longer than them, from 2 polls up
HEALTHY = [(500, 2, "1s"), (1000, 4, "250ms"), (2000, 2, "500ms"), (5000, 2, "1s"), (5000, 3, "2s"), (3000, 2, "5s")]


@pytest.mark.parametrize(("commit_ms", "samples", "interval"), HEALTHY)
def test_triage_never_alarms_on_a_healthy_auto_committing_consumer(
    broker: str, names: tuple[str, str], commit_ms: int, samples: int, interval: str
) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 5, 5])
    with _traffic(broker, topic, 3), _auto_committing(broker, group, topic, commit_ms):
        _wait_for_commits(broker, group, topic, 3)
        runs = [
            _triage(broker, group, "--samples", str(samples), "--interval", interval, "--max-wait", "40s")
            for _ in range(2)
        ]
    for code, doc, stderr in runs:
        statuses = {(p["partition"], p["status"]) for p in doc["partitions"]}
        assert code == 0 and not {s for _, s in statuses} & ALARMS, (commit_ms, samples, interval, statuses, stderr)
        assert len(doc["partitions"]) == 3 and doc["samples"] >= samples
        # not a terminal: stderr says what triage waits for before the first poll
        assert stderr.startswith(f"triage: polling {samples} times every {interval}"), stderr
        for undecided in doc["undecided"]:  # when it stays undecided it says why and what to run
            assert undecided["waiting_for"] and "not enough samples" in stderr and "kgroup triage" in stderr


def test_triage_alarms_on_a_closed_consumer_whose_lag_grows(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 5, 5])
    with _traffic(broker, topic, 3):
        with _auto_committing(broker, group, topic, 500):
            _wait_for_commits(broker, group, topic, 3)
        time.sleep(1)  # closed: its last commit is in, and records keep coming
        code, doc, stderr = _triage(broker, group, "--samples", "2", "--interval", "1s")
    assert code == 3, stderr
    assert {p["status"] for p in doc["partitions"]} == {"STOP"} and doc["samples"] == 2  # decided at once


def test_triage_alarms_on_a_paused_member_once_its_offset_stays_put_too_long(
    broker: str, names: tuple[str, str]
) -> None:
    """Alive (a member, heartbeating) but consuming nothing: two polls cannot tell it from a consumer between
    two commits; polling on past twice the commit interval can, and then it is STOP."""
    topic, group = names
    topic_with_records(broker, topic, [5, 5, 5])
    paused = threading.Event()
    with _traffic(broker, topic, 3), _auto_committing(broker, group, topic, 1000, paused):
        _wait_for_commits(broker, group, topic, 3)
        paused.set()
        time.sleep(2)  # the last auto-commit of what it had read is in
        code, doc, stderr = _triage(broker, group, "--samples", "2", "--interval", "1s", "--max-wait", "60s")
    statuses = {p["status"] for p in doc["partitions"]}
    assert code == 3 and statuses == {"STOP"}, (statuses, stderr)
    assert doc["samples"] > 2 and "UNDECIDED after 2 polls" in stderr  # it polled on, and said why
    assert all(p["member_id"] for p in doc["partitions"])  # a member owned them all along
