"""Coordinator rules in doubt, settled on Apache Kafka itself (issue 36), each also replayed on kgroup's
coordinator with the same timings.

KIP-848: a static member's temporary leave (member epoch -2, what a static consumer's close() sends): does the
coordinator keep the session deadline of the member's last real heartbeat, or restart it at the leave?
Reading Kafka's GroupMetadataManager.consumerGroupLeave → consumerGroupStaticMemberGroupLeave, nothing
reschedules the session timer, so the deadline stays at the last heartbeat plus the session timeout; an
earlier reading concluded the opposite. kgroup's coordinator follows the first reading. Here the broker
decides, with timings chosen so the two readings differ by about ten seconds: the group's heartbeat interval
is 12 s and its session timeout 30 s (group configs, KIP-848), and the member leaves about 10 s after its
last heartbeat (the one acknowledging its assignment), before its next one is due.

The same timings are then replayed on kgroup's coordinator (request level): its fence time must fall on
the broker's side of the line.

Classic: a static member restarts within its session timeout (JoinGroup with an empty member id and a known
group.instance.id while the group is Stable; KIP-345: a static member's close sends no LeaveGroup). Kafka's
GroupMetadataManager.classicGroupJoinNewStaticMember → updateStaticMemberThenRebalanceOrCompleteJoin replaces
the member: a new member id, the same generation, no rebalance, and its SyncGroup returns the old
partitions; FENCED_INSTANCE_ID is only for the old member id.

Classic: a member stuck in a long join (it heartbeats but never rejoins) is removed when the join phase's
rebalance timeout, the group's largest, runs out: not at its own rebalance timeout, not at its session timeout.

max.poll.interval.ms: a consumer that does not poll in time leaves at once (classic: LeaveGroup from librdkafka;
KIP-848: Kafka's Java consumer's leave heartbeat with epoch -1), and the broker rebalances then, not at a
session timeout. Each measured on the broker and replayed on kgroup's coordinator within TOLERANCE_S.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic, ResourceType

from kgroup.assignors.coordinator.classic.client import ClientConfig
from kgroup.assignors.coordinator.classic.scenario import GROUP_ID, ClassicScenario
from kgroup.assignors.coordinator.consumer.coordinator import ConsumerConfig
from kgroup.assignors.coordinator.consumer.simulation import ConsumerSimulation
from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.live.admin import enum_name
from kgroup.inspectors.live.wire.consumer_group_describe import describe_consumer_groups
from kgroup.inspectors.live.wire.codec import string
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from tests.conformance.test_coordinator_classic import replay as replay_classic
from tests.conformance.test_coordinator_consumer import replay
from tests.live.java_consumers import JavaConsumers, compiled

SESSION_MS, HEARTBEAT_MS = 30_000, 12_000
LEAVE_AFTER_S = 10.0  # after the acknowledging heartbeat, before the next one (12 s)
# Fenced about 20 s after the leave if the deadline is kept, 30 s if the leave restarts it: the line between.
LINE_S = 25.0


def _group_configs(admin: AdminClient, group: str, configs: dict[str, int] | None = None) -> None:
    """Set a KIP-848 group's own configs (default: SESSION_MS and HEARTBEAT_MS)."""
    given = configs or {"consumer.session.timeout.ms": SESSION_MS, "consumer.heartbeat.interval.ms": HEARTBEAT_MS}
    entries = [ConfigEntry(k, str(v), incremental_operation=AlterConfigOpType.SET) for k, v in given.items()]
    resource = ConfigResource(ResourceType.GROUP, group, incremental_configs=entries)
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(30)


def _members(admin: AdminClient, group: str) -> list:
    return list(admin.describe_consumer_groups([group])[group].result(30).members)


def _wait(what: str, timeout_s: float, condition) -> float:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return time.monotonic()
        time.sleep(0.1)  # between two describes
    raise AssertionError(f"{what}: not within {timeout_s} s")


def test_a_static_members_temporary_leave_keeps_its_last_heartbeats_session_deadline(broker: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker})
    topic, group = f"timer-{uuid.uuid4().hex[:6]}", f"static-leave-{uuid.uuid4().hex[:6]}"
    for future in admin.create_topics([NewTopic(topic, 3)]).values():
        future.result(30)
    _group_configs(admin, group)
    consumer = Consumer(
        {
            "bootstrap.servers": broker,
            "group.id": group,
            "group.protocol": "consumer",
            "group.instance.id": "static-1",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            consumer.poll(0.05)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        # Its heartbeat acknowledging the assignment is the last one before the leave.
        acknowledged = _wait(
            "the static member owns its 3 partitions",
            60,
            lambda: any(len(m.assignment.topic_partitions) == 3 for m in _members(admin, group)),
        )
        time.sleep(max(0.0, acknowledged + LEAVE_AFTER_S - time.monotonic()))  # the leave's moment, not a sync
    finally:
        stop.set()
        poller.join(10)
    assert not poller.is_alive()
    left = time.monotonic()
    consumer.close()  # a static member's close: ConsumerGroupHeartbeat with member epoch -2
    parked = _members(admin, group)
    assert len(parked) == 1, "a temporary leave keeps the static member's record (and its partitions)"
    fenced = _wait(
        "the parked static member's session expires", SESSION_MS / 1000 + 30, lambda: not _members(admin, group)
    )
    after_leave = fenced - left
    after_last_heartbeat = fenced - acknowledged
    # Kept deadline: fenced SESSION after the last heartbeat (about 20 s after the leave); restarted: 30 s.
    assert after_leave < LINE_S, (
        f"fenced {after_leave:.1f} s after the leave, {after_last_heartbeat:.1f} s after "
        "the last heartbeat: the leave restarted the session timer"
    )
    assert after_last_heartbeat >= SESSION_MS / 1000 - 1.0, after_last_heartbeat

    # kgroup's coordinator on the same timings (request level): joined at 0, left 10 s later, fenced at 30 s.
    leave_ms = int(LEAVE_AFTER_S * 1000)
    failures = replay(
        {
            "name": "static temporary leave, timed as on the broker",
            "protocol": "consumer",
            "topics": {"t": 3},
            "config": {
                "group_consumer_session_timeout_ms": SESSION_MS,
                "group_consumer_heartbeat_interval_ms": HEARTBEAT_MS,
            },
            "events": [
                {
                    "id": "e1",
                    "at_ms": 0,
                    "kind": "heartbeat",
                    "member_id": "M",
                    "instance_id": "static-1",
                    "member_epoch": 0,
                    "rebalance_timeout_ms": 300000,
                    "subscribed_topics": ["t"],
                    "owned": {},
                },
                {
                    "id": "e2",
                    "at_ms": leave_ms,
                    "kind": "leave",
                    "member_id": "M",
                    "instance_id": "static-1",
                    "member_epoch": -2,
                },
            ],
            "expect": [
                {"after": "e2", "group": {"members": ["M"]}, "timers": {"session": {"M": SESSION_MS}}},
                {"at_ms": SESSION_MS, "group": {"members": []}},
            ],
        }
    )
    assert not failures, "\n".join(failures)


def _classic(broker: str, group: str, name: str, instance: str | None) -> Consumer:
    settings = {
        "bootstrap.servers": broker,
        "group.id": group,
        "group.protocol": "classic",
        "client.id": name,
        "partition.assignment.strategy": "range",
        "session.timeout.ms": 30000,
        "heartbeat.interval.ms": 1000,
        "enable.auto.commit": False,
    }
    if instance:
        settings["group.instance.id"] = instance
    return Consumer(settings)


def test_a_static_member_restarting_within_its_session_timeout_takes_its_place_without_a_rebalance(broker: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker})
    topic, group = f"timer-{uuid.uuid4().hex[:6]}", f"static-restart-{uuid.uuid4().hex[:6]}"
    for future in admin.create_topics([NewTopic(topic, 4)]).values():
        future.result(30)
    stable = _classic(broker, group, "stays", None)
    restarting = _classic(broker, group, "restarts", "static-r")
    polling = [stable, restarting]
    lock, stop = threading.Lock(), threading.Event()
    revoked: list[str] = []

    def poll() -> None:
        while not stop.is_set():
            with lock:
                for consumer in polling:
                    consumer.poll(0.02)
            time.sleep(0.01)

    stable.subscribe([topic], on_revoke=lambda _c, parts: revoked.extend(str(p.partition) for p in parts))
    restarting.subscribe([topic])
    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:

        def settled() -> bool:
            description = admin.describe_consumer_groups([group])[group].result(30)
            return (
                len(description.members) == 2
                and enum_name(description.state) == "stable"
                and all(len(m.assignment.topic_partitions) == 2 for m in description.members)
            )

        _wait("both members own 2 partitions", 90, settled)
        before = admin.describe_consumer_groups([group])[group].result(30)
        (old,) = [m for m in before.members if m.group_instance_id == "static-r"]
        held = sorted(tp.partition for tp in old.assignment.topic_partitions)
        revoked.clear()
        with lock:
            polling.remove(restarting)
            restarting.close()  # KIP-345: no LeaveGroup for a static member; the coordinator keeps its place
            replacement = _classic(broker, group, "restarts", "static-r")
            replacement.subscribe([topic])
            polling.append(replacement)

        def replaced() -> bool:
            description = admin.describe_consumer_groups([group])[group].result(30)
            ids = {m.member_id for m in description.members}
            return (
                old.member_id not in ids
                and len(ids) == 2
                and all(m.assignment.topic_partitions for m in description.members)
            )

        _wait("the restarted static member is in the group under a new member id", 60, replaced)
        time.sleep(3 * 1.0)  # three heartbeat intervals: a rebalance would have reached the other member by now
        after = admin.describe_consumer_groups([group])[group].result(30)
        (new,) = [m for m in after.members if m.group_instance_id == "static-r"]
        assert new.member_id != old.member_id
        assert sorted(tp.partition for tp in new.assignment.topic_partitions) == held
        assert revoked == [], f"the other member was rebalanced: it revoked {revoked}"
        assert enum_name(after.state) == "stable"
    finally:
        stop.set()
        poller.join(10)
        for consumer in polling:
            consumer.close()

    # kgroup's coordinator, request level: the same generation, NONE, and the old partitions from SyncGroup.
    failures = replay_classic(
        {
            "name": "static member restarts within its session timeout",
            "protocol": "classic",
            "config": {"group_initial_rebalance_delay_ms": 0},
            "members": [
                {
                    "handle": "S",
                    "session_timeout_ms": 30000,
                    "rebalance_timeout_ms": 30000,
                    "protocols": ["range"],
                    "join_version": 9,
                },
                {
                    "handle": "R",
                    "instance_id": "static-r",
                    "session_timeout_ms": 30000,
                    "rebalance_timeout_ms": 30000,
                    "protocols": ["range"],
                    "join_version": 9,
                },
            ],
            "events": [
                {"id": "e1", "at_ms": 0, "kind": "join", "member": "R", "member_id": ""},
                {
                    "id": "e2",
                    "at_ms": 0,
                    "kind": "sync",
                    "member": "R",
                    "generation": 1,
                    "assignments": {"R": ["t-0", "t-1"]},
                },
                {"id": "e3", "at_ms": 5000, "kind": "join", "member": "R", "member_id": "", "bind": "R2"},
                {"id": "e4", "at_ms": 5000, "kind": "sync", "member": "R2", "generation": 1},
            ],
            "expect": [
                {
                    "after": "e3",
                    "group": {"state": "Stable", "generation": 1},
                    "responses": {"e3": {"done": True, "error": "NONE", "generation": 1}},
                },
                {"after": "e4", "responses": {"e4": {"done": True, "error": "NONE", "assignment": ["t-0", "t-1"]}}},
            ],
        },
        None,
    )
    assert not failures, "\n".join(failures)


# -- classic: a member stuck in a long join is removed when the join phase's rebalance timeout ends ---------------
#
# GroupMetadataManager.prepareRebalance arms the join timer at the group's rebalance timeout, the largest
# rebalance.timeout.ms of its members (ClassicGroup.rebalanceTimeoutMs); when it fires,
# completeClassicGroupJoin removes every dynamic member that has not rejoined (notYetRejoinedMembers) and
# answers the others. A member whose application is stuck (a long onPartitionsRevoked) keeps heartbeating from
# its heartbeat thread, and each heartbeat resets its session timer (REBALANCE_IN_PROGRESS is still a
# heartbeat), so a session-timeout reading removes it never, or 30 s after its last heartbeat; its own
# rebalance timeout would say 4 s. The two requests are sent by kgroup's own wire client, so the timings are
# the test's: X (rebalance timeout 4 s) never rejoins, Y (10 s) joins and waits.

STUCK_SESSION_MS, STUCK_X_REBALANCE_MS, STUCK_Y_REBALANCE_MS = 30_000, 4_000, 10_000
# Scheduling on a loaded 2-core machine (the request's send, the describe, the broker's timer thread): well
# below the 6 s between the group's rebalance timeout and X's own, and the 20 s to its session timeout.
TOLERANCE_S = 2.5

API_JOIN_GROUP, API_HEARTBEAT, API_SYNC_GROUP = 11, 12, 14
ERROR_NAMES = {
    0: "NONE",
    22: "ILLEGAL_GENERATION",
    25: "UNKNOWN_MEMBER_ID",
    27: "REBALANCE_IN_PROGRESS",
    79: "MEMBER_ID_REQUIRED",
}


def _bytes(data: bytes) -> bytes:
    return struct.pack(">i", len(data)) + data


class RawClassicMember:
    """One classic member on its own connection, speaking JoinGroup v5, SyncGroup v3 and Heartbeat v3
    (non-flexible versions) through kgroup's wire transport: nothing in between decides when a request goes."""

    def __init__(self, broker: str, group: str, name: str, session_ms: int, rebalance_ms: int, topic: str) -> None:
        self.connection = Connection(broker, {"client.id": name}, Deadline(600))
        self.group, self.session_ms, self.rebalance_ms, self.topic = group, session_ms, rebalance_ms, topic
        self.member_id, self.generation = "", -1

    def join(self) -> dict[str, Any]:
        # ConsumerProtocolSubscription v0: the topics, no user data
        metadata = struct.pack(">h", 0) + struct.pack(">i", 1) + string(self.topic) + struct.pack(">i", -1)
        body = (
            string(self.group)
            + struct.pack(">ii", self.session_ms, self.rebalance_ms)
            + string(self.member_id)
            + string(None)
            + string("consumer")
            + struct.pack(">i", 1)
            + string("range")
            + _bytes(metadata)
        )
        r = self.connection.request(API_JOIN_GROUP, 5, body, False, "JoinGroup v5")
        r.i32("throttle")
        error = ERROR_NAMES.get(r.i16("error"), "OTHER")
        generation = r.i32("generation")
        r.string("protocol name", nullable=True)
        leader = r.string("leader")
        member_id = r.string("member id") or ""
        members = []
        for _ in range(r.array_len("members", False)):
            members.append(r.string("member id"))
            r.string("instance id", nullable=True)
            r.bytes_("metadata")
        self.member_id = member_id
        if error == "NONE":
            self.generation = generation
        return {"error": error, "generation": generation, "leader": leader, "member_id": member_id, "members": members}

    def sync(self, assignment: dict[str, list[int]]) -> str:
        entries = b""
        for member, partitions in assignment.items():
            data = (
                struct.pack(">h", 0)
                + struct.pack(">i", 1)
                + string(self.topic)
                + struct.pack(">i", len(partitions))
                + b"".join(struct.pack(">i", p) for p in partitions)
                + struct.pack(">i", -1)
            )
            entries += string(member) + _bytes(data)
        body = (
            string(self.group)
            + struct.pack(">i", self.generation)
            + string(self.member_id)
            + string(None)
            + struct.pack(">i", len(assignment))
            + entries
        )
        r = self.connection.request(API_SYNC_GROUP, 3, body, False, "SyncGroup v3")
        r.i32("throttle")
        return ERROR_NAMES.get(r.i16("error"), "OTHER")

    def heartbeat(self) -> str:
        body = string(self.group) + struct.pack(">i", self.generation) + string(self.member_id) + string(None)
        r = self.connection.request(API_HEARTBEAT, 3, body, False, "Heartbeat v3")
        r.i32("throttle")
        return ERROR_NAMES.get(r.i16("error"), "OTHER")

    def close(self) -> None:
        self.connection.close()


def _kgroup_stuck_join_ms(y_joins_at: int) -> tuple[int, list[str]]:
    """kgroup's coordinator, request level, on the broker's timings: when Y's JoinGroup is answered (ms after
    it was sent), and what it checked on the way (X heartbeating through the join phase, then gone)."""
    members = [
        {
            "handle": "X",
            "session_timeout_ms": STUCK_SESSION_MS,
            "rebalance_timeout_ms": STUCK_X_REBALANCE_MS,
            "protocols": ["range"],
            "join_version": 5,
        },
        {
            "handle": "Y",
            "session_timeout_ms": STUCK_SESSION_MS,
            "rebalance_timeout_ms": STUCK_Y_REBALANCE_MS,
            "protocols": ["range"],
            "join_version": 5,
        },
    ]
    events = [
        {"id": "x1", "at_ms": 0, "kind": "join", "member": "X", "member_id": "", "bind": "X"},
        {"id": "x2", "at_ms": 0, "kind": "join", "member": "X", "member_id": "X"},
        {"id": "xs", "at_ms": 0, "kind": "sync", "member": "X", "generation": 1, "assignments": {"X": ["t-0"]}},
        {"id": "y1", "at_ms": y_joins_at, "kind": "join", "member": "Y", "member_id": "", "bind": "Y"},
        {"id": "y2", "at_ms": y_joins_at, "kind": "join", "member": "Y", "member_id": "Y"},
    ]
    horizon = y_joins_at + STUCK_SESSION_MS + 10_000
    events += [
        {"id": f"h{t}", "at_ms": t, "kind": "heartbeat", "member": "X", "generation": 1}
        for t in range(1000, horizon, 1000)
    ]
    run = ClassicScenario.from_spec({"members": members, "config": {"group_initial_rebalance_delay_ms": 0}}, None)
    seen: list[str] = []
    for instant in range(0, horizon, 100):
        run.advance_to(instant)
        for event in (e for e in events if e["at_ms"] == instant):
            run.apply(event)
            if event["kind"] == "heartbeat":
                seen.append(str(run.responses[event["id"]]))
        answer = run.responses.get("y2")
        if answer is not None and answer.done:  # type: ignore[union-attr]
            run.apply({"id": "after", "at_ms": instant, "kind": "heartbeat", "member": "X", "generation": 1})
            seen.append(str(run.responses["after"]))
            group = run.coordinator.groups[GROUP_ID]
            assert (answer.error, answer.generation, set(group.members)) == (  # type: ignore[union-attr]
                "NONE",
                2,
                {run.member_id("Y")},
            ), (answer, group.members)
            return instant - y_joins_at, seen
    raise AssertionError("kgroup never answered Y's JoinGroup")


def test_a_member_stuck_in_a_long_join_is_removed_at_the_groups_rebalance_timeout_not_its_session(broker: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker})
    topic, group = f"timer-{uuid.uuid4().hex[:6]}", f"stuck-join-{uuid.uuid4().hex[:6]}"
    for future in admin.create_topics([NewTopic(topic, 2)]).values():
        future.result(30)
    x = RawClassicMember(broker, group, "stuck", STUCK_SESSION_MS, STUCK_X_REBALANCE_MS, topic)
    y = RawClassicMember(broker, group, "joins", STUCK_SESSION_MS, STUCK_Y_REBALANCE_MS, topic)
    try:
        assert x.join()["error"] == "MEMBER_ID_REQUIRED"  # KIP-394
        first = x.join()
        assert (first["error"], first["generation"], first["leader"]) == ("NONE", 1, x.member_id), first
        assert x.sync({x.member_id: [0, 1]}) == "NONE"
        assert y.join()["error"] == "MEMBER_ID_REQUIRED"
        answer: dict[str, Any] = {}

        def join_y() -> None:
            answer.update(y.join())
            answer["at"] = time.monotonic()

        joining = threading.Thread(target=join_y, daemon=True)
        sent = time.monotonic()
        joining.start()
        heartbeats: list[str] = []
        # X's heartbeat thread goes on (every second); its application never sends the JoinGroup.
        while joining.is_alive() and time.monotonic() - sent < STUCK_SESSION_MS / 1000 + 15:
            time.sleep(1.0)
            heartbeats.append(x.heartbeat())
        joining.join(5)
        assert "at" in answer, "Y's JoinGroup was not answered"
        after_x_gone = x.heartbeat()
    finally:
        x.close()
        y.close()
    broker_s = answer["at"] - sent
    kgroup_ms, kgroup_heartbeats = _kgroup_stuck_join_ms(2_000)
    print(
        f"\nstuck join: the broker answered Y {broker_s:.2f} s after its JoinGroup, kgroup {kgroup_ms / 1000:.2f} s; "
        f"group rebalance timeout {STUCK_Y_REBALANCE_MS / 1000:g} s, X's own {STUCK_X_REBALANCE_MS / 1000:g} s, "
        f"session {STUCK_SESSION_MS / 1000:g} s"
    )
    assert (answer["error"], answer["generation"], answer["leader"], answer["members"]) == (
        "NONE",
        2,
        y.member_id,
        [y.member_id],
    ), answer
    assert "REBALANCE_IN_PROGRESS" in heartbeats and after_x_gone == "UNKNOWN_MEMBER_ID", (heartbeats, after_x_gone)
    assert "REBALANCE_IN_PROGRESS" in kgroup_heartbeats and kgroup_heartbeats[-1] == "UNKNOWN_MEMBER_ID"
    assert abs(broker_s - kgroup_ms / 1000) <= TOLERANCE_S, (broker_s, kgroup_ms)
    assert abs(broker_s - STUCK_Y_REBALANCE_MS / 1000) <= TOLERANCE_S, broker_s


# -- max.poll.interval.ms: a consumer that does not poll in time leaves the group, and the broker rebalances at once --
#
# Classic: librdkafka's max.poll.interval.ms check (as Java's HeartbeatThread → maybeLeaveGroup("consumer poll
# timeout has expired.")) sends LeaveGroup; GroupMetadataManager.classicGroupLeave removes the member and
# prepares a rebalance at once, which the other member joins at its next heartbeat. Its heartbeats go on while
# the application does not poll, so a reading where only the session timeout removes it says never (or 6 s
# after its last heartbeat, not 8 s after its last poll). KIP-848: the member leaves with a heartbeat of epoch
# -1 (AbstractMembershipManager.transitionToSendingLeaveGroup), and consumerGroupLeave → consumerGroupFenceMember
# removes it and bumps the group epoch at once, not at the 30 s session timeout the group is given here.

POLL_MS, POLL_SESSION_MS, POLL_HEARTBEAT_MS = 8_000, 6_000, 1_000
KIP848_SESSION_MS = 30_000
STALL_AT_MS = 2_000  # where kgroup's replay puts the last poll


class Poller:
    """Polls each consumer in turn from one thread, remembering when each poll() last returned."""

    def __init__(self, consumers: dict[str, Consumer]) -> None:
        self.consumers, self.last_poll = dict(consumers), {name: 0.0 for name in consumers}
        self.lock, self.stop = threading.Lock(), threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            with self.lock:
                for name, consumer in self.consumers.items():
                    consumer.poll(0.02)
                    self.last_poll[name] = time.monotonic()
            time.sleep(0.01)

    def stall(self, name: str) -> float:
        """The application stops calling poll() on `name`; when its last poll returned."""
        with self.lock:
            del self.consumers[name]
            return self.last_poll[name]

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        assert not self.thread.is_alive()


def _kgroup_classic_poll_leave(topic: str) -> tuple[int, int, int, list[str]]:
    """`kgroup simulate` of the same timings: (rebalance start, end, generation) after the stall, and a's final."""
    scenario = {
        "schema": "kgroup/v1",
        "kind": "scenario",
        "description": "b stops polling (max.poll.interval.ms)",
        "cluster": {"topics": [{"name": topic, "partitions": 4}]},
        "groups": [
            {
                "group_id": "g",
                "protocol": "classic",
                "assignors": ["range"],
                "generation": 1,
                "members": [{"member_id": "a", "topics": [topic]}, {"member_id": "b", "topics": [topic]}],
                "assignment": {"a": {topic: [0, 1]}, "b": {topic: [2, 3]}},
            }
        ],
        "broker": {"group.initial.rebalance.delay.ms": "0s", "group.min.session.timeout.ms": "1s"},
        "clients": {
            "default": {
                "session.timeout.ms": f"{POLL_SESSION_MS}ms",
                "heartbeat.interval.ms": f"{POLL_HEARTBEAT_MS}ms",
                "max.poll.interval.ms": f"{POLL_MS}ms",
                "partition.assignment.strategy": ["range"],
            }
        },
        "duration": "30s",
        "events": [f"slow-poll b at {STALL_AT_MS}ms processing 60s"],
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "poll-leave.yaml"
        path.write_text(yaml.safe_dump(scenario))
        out = subprocess.run(
            [str(Path(sys.executable).parent / "kgroup"), "simulate", str(path), "-o", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    body = json.loads(out.stdout)
    (rebalance,) = body["rebalances"]
    return (
        rebalance["start_ms"] - STALL_AT_MS,
        rebalance["end_ms"] - STALL_AT_MS,
        rebalance["generation"],
        sorted(body["final_assignment"]["a"]),
    )


def test_a_classic_consumer_that_does_not_poll_in_time_leaves_and_the_group_rebalances_at_once(broker: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker})
    topic, group = f"timer-{uuid.uuid4().hex[:6]}", f"poll-leave-{uuid.uuid4().hex[:6]}"
    for future in admin.create_topics([NewTopic(topic, 4)]).values():
        future.result(30)
    settings = {
        "bootstrap.servers": broker,
        "group.id": group,
        "group.protocol": "classic",
        "partition.assignment.strategy": "range",
        "session.timeout.ms": POLL_SESSION_MS,
        "heartbeat.interval.ms": POLL_HEARTBEAT_MS,
        "max.poll.interval.ms": POLL_MS,
        "enable.auto.commit": False,
    }
    a, b = Consumer({**settings, "client.id": "a"}), Consumer({**settings, "client.id": "b"})
    a.subscribe([topic])
    b.subscribe([topic])
    poller = Poller({"a": a, "b": b})
    try:

        def description() -> Any:
            return admin.describe_consumer_groups([group])[group].result(30)

        _wait(
            "both members own 2 partitions",
            90,
            lambda: (
                lambda d: (
                    len(d.members) == 2
                    and enum_name(d.state) == "stable"
                    and all(len(m.assignment.topic_partitions) == 2 for m in d.members)
                )
            )(description()),
        )
        (b_id,) = [m.member_id for m in description().members if m.client_id == "b"]
        stalled = poller.stall("b")
        left = _wait(
            "b leaves the group", POLL_MS / 1000 + 30, lambda: b_id not in {m.member_id for m in description().members}
        )
        settled = _wait(
            "a owns all 4 partitions",
            30,
            lambda: (
                lambda d: (
                    enum_name(d.state) == "stable" and [len(m.assignment.topic_partitions) for m in d.members] == [4]
                )
            )(description()),
        )
    finally:
        poller.close()
        a.close()
        b.close()
    broker_left, broker_settled = left - stalled, settled - stalled
    kgroup_start, kgroup_end, generation, a_final = _kgroup_classic_poll_leave(topic)
    print(
        f"\nclassic poll timeout: b left the broker's group {broker_left:.2f} s after its last poll, the group was "
        f"Stable again at {broker_settled:.2f} s; kgroup: rebalance {kgroup_start / 1000:.2f}-{kgroup_end / 1000:.2f} "
        f"s (generation {generation}); max.poll.interval.ms {POLL_MS / 1000:g} s, session {POLL_SESSION_MS / 1000:g} s"
    )
    assert broker_left >= POLL_MS / 1000 - 0.5, (
        f"removed {broker_left:.2f} s after its last poll: before the poll timeout"
    )
    assert abs(broker_left - kgroup_start / 1000) <= TOLERANCE_S, (broker_left, kgroup_start)
    assert abs(broker_settled - kgroup_end / 1000) <= TOLERANCE_S, (broker_settled, kgroup_end)
    assert generation == 2 and a_final == [f"{topic}-{p}" for p in range(4)], (generation, a_final)


def _kgroup_kip848_poll_leave(topic: str, epoch: int, owned: dict[str, list[int]]) -> tuple[int, int, set[str]]:
    """kgroup's KIP-848 simulation on the broker's timings and starting group: when b's poll timeout bumps the
    group epoch (ms after its last poll), to what, and who is left."""
    sim = ConsumerSimulation.create(
        {topic: 4}, ConsumerConfig(session_timeout_ms=KIP848_SESSION_MS, heartbeat_interval_ms=POLL_HEARTBEAT_MS), "g"
    )
    for handle in ("a", "b"):
        sim.add_client(handle, ClientConfig(max_poll_interval_ms=POLL_MS), [topic])
    sim.load(
        epoch,
        {h: [TopicPartition(topic, p) for p in ps] for h, ps in owned.items()},
        heartbeat_phase={"a": 0, "b": POLL_HEARTBEAT_MS // 2},
    )
    sim.at(STALL_AT_MS, sim.process, sim.clients["b"], 60_000)
    sim.run_until(STALL_AT_MS + KIP848_SESSION_MS + 10_000)
    bump = next(b for b in sim.bumps if b.at_ms >= STALL_AT_MS)
    group = sim.coordinator.groups["g"]
    return bump.at_ms - STALL_AT_MS, bump.group_epoch, set(group.members)


def test_a_kip848_consumer_that_does_not_poll_in_time_leaves_with_epoch_minus_one_at_once(
    broker: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Kafka's Java consumer: librdkafka 2.16.0 under KIP-848 sends no leave heartbeat on its poll timeout
    (measured here: removed at 8 s + the group's 30 s session timeout), so it is not the client that settles
    what AbstractMembershipManager does."""
    admin = AdminClient({"bootstrap.servers": broker})
    topic, group = f"timer-{uuid.uuid4().hex[:6]}", f"poll-leave-848-{uuid.uuid4().hex[:6]}"
    for future in admin.create_topics([NewTopic(topic, 4)]).values():
        future.result(30)
    _group_configs(
        admin,
        group,
        {"consumer.session.timeout.ms": KIP848_SESSION_MS, "consumer.heartbeat.interval.ms": POLL_HEARTBEAT_MS},
    )
    settings = {
        "group.protocol": "consumer",
        "max.poll.interval.ms": str(POLL_MS),
        "enable.auto.commit": "false",
        "auto.offset.reset": "earliest",
    }
    java = JavaConsumers(broker, group, {topic: 4}, "", compiled(tmp_path_factory), tmp_path, settings)

    def described() -> Any:
        return describe_consumer_groups({"bootstrap.servers": broker}, [group], 30)[group]

    try:
        java.join("a", (topic,))
        java.join("b", (topic,))
        _wait(
            "both members own 2 partitions",
            120,
            lambda: (lambda g: g.state == "Stable" and sorted(len(m.assignment) for m in g.members) == [2, 2])(
                described()
            ),
        )
        before = described()
        ids = {m.client_id: m.member_id for m in before.members}
        owned = {m.client_id: sorted(partition for _, partition in m.assignment) for m in before.members}
        stalled = time.monotonic()  # b's thread sees the command within its 100 ms poll
        java._send({"op": "stall", "name": "b", "ms": 2 * POLL_MS + 10_000})
        left = _wait(
            "b leaves the group",
            KIP848_SESSION_MS / 1000 + 30,
            lambda: ids["b"] not in {m.member_id for m in described().members},
        )
        after = described()
    finally:
        java.close()
    broker_left = left - stalled
    kgroup_left, kgroup_epoch, kgroup_members = _kgroup_kip848_poll_leave(topic, before.group_epoch or 0, owned)
    print(
        f"\nKIP-848 poll timeout (Java): b left the broker's group {broker_left:.2f} s after its last poll (group "
        f"epoch {before.group_epoch} -> {after.group_epoch}); kgroup {kgroup_left / 1000:.2f} s (epoch {kgroup_epoch}); "
        f"max.poll.interval.ms {POLL_MS / 1000:g} s, group session {KIP848_SESSION_MS / 1000:g} s"
    )
    assert broker_left >= POLL_MS / 1000 - 0.5, f"left {broker_left:.2f} s after its last poll: before the poll timeout"
    # at once: a member that only went silent would be fenced at its 30 s session timeout instead
    assert abs(broker_left - kgroup_left / 1000) <= TOLERANCE_S, (broker_left, kgroup_left)
    assert after.group_epoch is not None and before.group_epoch is not None
    assert after.group_epoch == before.group_epoch + 1 == kgroup_epoch, (before.group_epoch, after.group_epoch)
    assert kgroup_members == {"a"} and [m.member_id for m in after.members] == [ids["a"]]


SUBSCRIBE_HEARTBEAT_MS = 5_000
# A client that waits for its next heartbeat sends a new subscription 0-5 s after subscribe(), below this one
# time in 3.3; three changes all below it, one time in 37. An expedited one takes milliseconds (plus a
# loaded 2-core machine's scheduling).
EXPEDITED_S = 1.5


def _kgroup_subscribe_lag_ms(client: str) -> int:
    """kgroup's KIP-848 simulation: c2 (heartbeats at 2.5 s, 7.5 s, ...) subscribes to a second topic at 6 s;
    how long until the group epoch bumps."""
    sim = ConsumerSimulation.create(
        {"a": 2, "b": 2}, ConsumerConfig(heartbeat_interval_ms=SUBSCRIBE_HEARTBEAT_MS), "g", client
    )
    sim.add_client("c1", ClientConfig(), ["a", "b"])
    sim.add_client("c2", ClientConfig(), ["a"])
    owned = {
        "c1": [TopicPartition("a", 0), TopicPartition("b", 0), TopicPartition("b", 1)],
        "c2": [TopicPartition("a", 1)],
    }
    sim.load(2, owned, heartbeat_phase={"c1": 0, "c2": SUBSCRIBE_HEARTBEAT_MS // 2})
    sim.at(6_000, sim.subscribe, sim.clients["c2"], ["a", "b"])
    sim.run_until(20_000)
    return next(b.at_ms for b in sim.bumps if b.at_ms >= 6_000) - 6_000


def test_a_librdkafka_kip848_consumer_sends_a_new_subscription_at_once_not_with_its_next_heartbeat(broker: str) -> None:
    """Kafka's Java consumer sends a new subscription with its next heartbeat (AbstractMembershipManager.
    onSubscriptionUpdated; tests/live/scenarios/consumer-protocol-subscribe); librdkafka expedites the
    heartbeat. With the group's heartbeat interval at 5 s, three subscription changes of a librdkafka member
    each bump the group epoch within EXPEDITED_S on Apache Kafka; kgroup simulates a librdkafka group so (the
    bump at the subscribe) and a Java one at the member's next heartbeat (1.5 s later here, hand-worked)."""
    admin = AdminClient({"bootstrap.servers": broker})
    run = uuid.uuid4().hex[:6]
    topic_a, topic_b, group = f"sub-a-{run}", f"sub-b-{run}", f"subscribe-848-{run}"
    for future in admin.create_topics([NewTopic(topic_a, 2), NewTopic(topic_b, 2)]).values():
        future.result(30)
    _group_configs(admin, group, {"consumer.heartbeat.interval.ms": SUBSCRIBE_HEARTBEAT_MS})

    def consumer(name: str) -> Consumer:
        return Consumer(
            {"bootstrap.servers": broker, "group.id": group, "client.id": name, "group.protocol": "consumer"}
        )

    c1, c2 = consumer("c1"), consumer("c2")
    stop = threading.Event()

    def pump() -> None:
        while not stop.is_set():
            c1.poll(0.05)

    def described() -> tuple[str, int, int]:
        found = describe_consumer_groups({"bootstrap.servers": broker}, [group], 10)[group]
        return found.state, found.group_epoch, len(found.members)

    def stable_past(epoch: int) -> Any:
        def check() -> bool:
            c2.poll(0.05)
            state, now, members = described()
            return state == "Stable" and now > epoch and members == 2

        return check

    pumping = threading.Thread(target=pump, daemon=True)
    try:
        c1.subscribe([topic_a, topic_b])
        c2.subscribe([topic_a])
        pumping.start()
        _wait("the two members' group settled", 90, stable_past(0))
        lags = []
        for topics in ([topic_a, topic_b], [topic_a], [topic_a, topic_b]):
            _, epoch, _ = described()
            started = time.monotonic()
            c2.subscribe(topics)
            while True:  # polled, never slept through
                assert time.monotonic() - started < 30, f"no epoch bump within 30 s of subscribe({topics})"
                c2.poll(0.01)
                if described()[1] > epoch:
                    lags.append(time.monotonic() - started)
                    break
            _wait(f"the group settled after subscribe({topics})", 90, stable_past(epoch))
    finally:
        stop.set()
        if pumping.is_alive():
            pumping.join(10)
        c1.close()
        c2.close()
    assert all(lag < EXPEDITED_S for lag in lags), f"epoch bumps {lags} s after subscribe(), interval 5 s"
    assert _kgroup_subscribe_lag_ms("librdkafka") == 0
    assert _kgroup_subscribe_lag_ms("java") == 1_500
