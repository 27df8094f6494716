"""Share groups (KIP-932) on a real Apache Kafka broker: `kgroup describe -o json` against what Kafka's own
Admin client reads of the same group (Admin.describeShareGroups, Admin.listShareGroupOffsets), field by field.

The members are Kafka's Java KafkaShareConsumer, two in one JVM (tests/live/java/ShareDriver.java), which
read every record of a three-partition topic, acknowledge them and stop polling while staying members; then
three more records are written, which nobody reads: the share-partition lag (KIP-1226) the broker reports.
The session broker (Kafka 4.2.1) runs share groups without settings: formatting at the release's latest
metadata version finalizes share.version=1 (`kafka-features.sh describe`).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from tests.cli.helpers import run_process
from tests.kafka import jars
from tests.live.java_consumers import JVM_FLAGS
from tests.live.traffic import PRODUCER, commit, topic_with_records

DRIVER_SOURCE = Path(__file__).parent / "java" / "ShareDriver.java"
WAIT_S = 90  # a loaded 2-core machine: a JVM, two share consumers joining, a share coordinator loading


class ShareDriver:
    """The driver's JVM; its stdout events on a queue, read by a thread."""

    def __init__(self, classes: Path, log_path: Path) -> None:
        self.log = log_path.open("w")
        self.process = subprocess.Popen(
            ["java", *JVM_FLAGS, "-cp", f"{classes}:{jars.classpath()}", "ShareDriver"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=jars.java_env(),
        )
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.expect(lambda e: e["event"] == "ready", "the driver's JVM to start")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.events.put(json.loads(line))

    def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def expect(self, match: Any, what: str, timeout_s: float = WAIT_S) -> dict[str, Any]:
        end = time.monotonic() + timeout_s
        while (left := end - time.monotonic()) > 0:
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                break
            if event["event"] == "error":
                pytest.fail(f"the share driver failed: {event}")
            if match(event):
                return event
        pytest.fail(f"no {what} within {timeout_s} s (driver log: {self.log.name})")

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send(op="quit")
                self.process.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(timeout=30)
        self.log.close()


_COMPILED: list[Path] = []  # ShareDriver's classes, compiled once per session for every module's `driver`


@pytest.fixture
def driver(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Iterator[ShareDriver]:
    from tests.live.conftest import require_kafka

    require_kafka()
    if not _COMPILED:
        _COMPILED.append(_compiled(tmp_path_factory.mktemp("share-driver")))
    one = ShareDriver(_COMPILED[0], tmp_path / "share-driver.log")
    try:
        yield one
    finally:
        one.close()


def _compiled(classes: Path) -> Path:
    compiled = subprocess.run(
        ["javac", "-nowarn", "-d", str(classes), "-cp", jars.classpath(), str(DRIVER_SOURCE)],
        capture_output=True,
        text=True,
        timeout=180,
        env=jars.java_env(),
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    return classes


def _kafka_reading(driver: ShareDriver, broker: str, group: str, n: int) -> dict[str, Any]:
    driver.send(op="describe", id=str(n), bootstrap=broker, groups=[group])
    return driver.expect(lambda e: e["event"] == "described" and e["id"] == str(n), "Admin reading")["groups"][group]


def _kgroup_reading(body: dict[str, Any]) -> dict[str, Any]:
    """kgroup's body in the shape of the driver's Admin reading (ShareDriver.describe)."""
    return {
        "state": body["state"],
        "group_epoch": body["group_epoch"],
        "assignment_epoch": body["target_assignment_epoch"],
        "coordinator": body["coordinator"],
        "members": [
            {
                "member_id": m["member_id"],
                "rack": m["rack"],
                "client_id": m["client_id"],
                "host": m["host"],
                "member_epoch": m["member_epoch"],
                "assignment": [[p["topic"], p["partition"]] for p in m["assignment"]],
            }
            for m in body["share_members"]
        ],
        "offsets": [
            {k: p[k] for k in ("topic", "partition", "start_offset", "leader_epoch", "lag")} for p in body["partitions"]
        ],
    }


def two_members_then_unread_records(driver: ShareDriver, broker: str, topic: str, group: str) -> set[str]:
    """A topic of 6, 4 and 5 records read by two share consumers that acknowledge everything and stay members
    without polling; then 3 records on partition 0 that nobody reads (the share-partition lag, KIP-1226). The
    members' client ids."""
    topic_with_records(broker, topic, [6, 4, 5])
    # share.auto.offset.reset is `latest` by default (GroupConfig): the records already written are to be read.
    driver.send(
        op="config", id="config", bootstrap=broker, group=group, configs={"share.auto.offset.reset": "earliest"}
    )
    driver.expect(lambda e: e["event"] == "configured", "group config set")
    totals = {"m1": 0, "m2": 0}
    for name in totals:
        driver.send(op="join", name=name, bootstrap=broker, group=group, topics=[topic], config={})
    while sum(totals.values()) < 15:
        event = driver.expect(lambda e: e["event"] == "consumed", "records consumed")
        totals[event["name"]] = event["total"]
    assert sum(totals.values()) == 15, totals  # each record delivered once: all acknowledged, none redelivered
    for name in totals:  # acknowledge the last poll's records and stop reading, staying a member
        driver.send(op="pause", name=name)
    for _ in totals:
        driver.expect(lambda e: e["event"] == "paused", "a consumer paused")
    producer = Producer(PRODUCER | {"bootstrap.servers": broker})
    for _ in range(3):
        producer.produce(topic, value=b"unread", partition=0)
    assert producer.flush(10) == 0
    return set(totals)


def test_describe_share_group_equals_kafkas_admin(broker: str, driver: ShareDriver) -> None:
    suffix = uuid.uuid4().hex[:8]
    topic, group = f"share-orders-{suffix}", f"share-group-{suffix}"
    members = two_members_then_unread_records(driver, broker, topic, group)

    # The share coordinator writes a share-partition's state when it is ready: equal Admin readings before and
    # after kgroup's mean kgroup read the same state.
    end, attempt = time.monotonic() + WAIT_S, 0
    while True:
        attempt += 1
        before = _kafka_reading(driver, broker, group, 2 * attempt)
        result = run_process("describe", group, "-b", broker, "--timeout", "30", "-o", "json")
        assert result.returncode == 0, result.stderr
        body = json.loads(result.stdout)["groups"][0]
        after = _kafka_reading(driver, broker, group, 2 * attempt + 1)
        settled = (
            before == after
            and before["state"] == "Stable"
            and len(before["members"]) == 2
            and sum(o["lag"] or 0 for o in before["offsets"]) == 3
        )
        if settled or time.monotonic() > end:
            break
        time.sleep(1)
    assert settled, f"Kafka's Admin did not read a settled group within {WAIT_S} s: {before} then {after}"
    assert body["type"] == "share" and body["group"] == group and body["assignor"] == "simple"
    mine = _kgroup_reading(body)
    for key in ("state", "group_epoch", "assignment_epoch", "coordinator", "members", "offsets"):
        assert mine[key] == before[key], key
    assert {m["client_id"] for m in body["share_members"]} == members
    assert all(m["subscribed_topics"] == [topic] for m in body["share_members"])  # Admin does not return them
    assigned = {(p["topic"], p["partition"]) for m in body["share_members"] for p in m["assignment"]}
    assert assigned == {(topic, p) for p in range(3)}  # the simple assignor spreads every partition
    assert [(o["partition"], o["lag"]) for o in body["partitions"] if o["lag"]] == [(0, 3)]
    assert body["total_lag"] == 3

    # A consumer group named alongside is described as before, in the order named.
    consumers = f"classic-{suffix}"
    commit(broker, consumers, {(topic, 1): 2})
    both = run_process("describe", consumers, group, "-b", broker, "-o", "json")
    assert both.returncode == 0, both.stderr
    bodies = json.loads(both.stdout)["groups"]
    assert [(b["group"], b["type"]) for b in bodies] == [(consumers, "classic"), (group, "share")]
    assert [(p["partition"], p["current_offset"], p["lag"]) for p in bodies[0]["partitions"]] == [(1, 2, 2)]

    # kafka-share-groups.sh's columns (ShareGroupCommand.printMembers, printStates with --verbose).
    members = run_process("describe", group, "--members", "--verbose", "-b", broker)
    assert members.returncode == 0, members.stderr
    assert members.stdout.split("\n")[0].split() == [
        "GROUP",
        "CONSUMER-ID",
        "HOST",
        "CLIENT-ID",
        "#PARTITIONS",
        "MEMBER-EPOCH",
        "ASSIGNMENT",
    ]
    state = run_process("describe", group, "--state", "--verbose", "-b", broker)
    assert state.returncode == 0, state.stderr
    assert state.stdout.split("\n")[0].split() == [
        "GROUP",
        "COORDINATOR",
        "(ID)",
        "STATE",
        "GROUP-EPOCH",
        "ASSIGNMENT-EPOCH",
        "#MEMBERS",
    ]
    assert state.stdout.split("\n")[1].split()[3] == "Stable"

    # `groups` reads the share group as describe does: its members, assignor, coordinator and total lag.
    listed = run_process("groups", "--type", "share", "-b", broker, "-o", "json")
    assert listed.returncode == 0, listed.stderr
    entry = next(g for g in json.loads(listed.stdout)["groups"] if g["group"] == group)
    assert (entry["type"], entry["state"], entry["members"], entry["assignor"], entry["total_lag"]) == (
        "share",
        "Stable",
        2,
        "simple",
        3,
    )
    assert entry["coordinator"] == before["coordinator"]
