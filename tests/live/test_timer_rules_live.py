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
"""

from __future__ import annotations

import threading
import time
import uuid

from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic, ResourceType

from kgroup.inspectors.live.admin import enum_name
from tests.conformance.test_coordinator_classic import replay as replay_classic
from tests.conformance.test_coordinator_consumer import replay

SESSION_MS, HEARTBEAT_MS = 30_000, 12_000
LEAVE_AFTER_S = 10.0  # after the acknowledging heartbeat, before the next one (12 s)
# Fenced about 20 s after the leave if the deadline is kept, 30 s if the leave restarts it: the line between.
LINE_S = 25.0


def _group_configs(admin: AdminClient, group: str) -> None:
    resource = ConfigResource(ResourceType.GROUP, group, incremental_configs=[
        ConfigEntry("consumer.session.timeout.ms", str(SESSION_MS), incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("consumer.heartbeat.interval.ms", str(HEARTBEAT_MS), incremental_operation=AlterConfigOpType.SET)])
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
    consumer = Consumer({"bootstrap.servers": broker, "group.id": group, "group.protocol": "consumer",
                         "group.instance.id": "static-1", "enable.auto.commit": False})
    consumer.subscribe([topic])
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            consumer.poll(0.05)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        # Its heartbeat acknowledging the assignment is the last one before the leave.
        acknowledged = _wait("the static member owns its 3 partitions", 60, lambda: any(
            len(m.assignment.topic_partitions) == 3 for m in _members(admin, group)))
        time.sleep(max(0.0, acknowledged + LEAVE_AFTER_S - time.monotonic()))  # the leave's moment, not a sync
    finally:
        stop.set()
        poller.join(10)
    assert not poller.is_alive()
    left = time.monotonic()
    consumer.close()  # a static member's close: ConsumerGroupHeartbeat with member epoch -2
    parked = _members(admin, group)
    assert len(parked) == 1, "a temporary leave keeps the static member's record (and its partitions)"
    fenced = _wait("the parked static member's session expires", SESSION_MS / 1000 + 30,
                   lambda: not _members(admin, group))
    after_leave = fenced - left
    after_last_heartbeat = fenced - acknowledged
    # Kept deadline: fenced SESSION after the last heartbeat (about 20 s after the leave); restarted: 30 s.
    assert after_leave < LINE_S, (f"fenced {after_leave:.1f} s after the leave, {after_last_heartbeat:.1f} s after "
                                  "the last heartbeat: the leave restarted the session timer")
    assert after_last_heartbeat >= SESSION_MS / 1000 - 1.0, after_last_heartbeat

    # kgroup's coordinator on the same timings (request level): joined at 0, left 10 s later, fenced at 30 s.
    leave_ms = int(LEAVE_AFTER_S * 1000)
    failures = replay({
        "name": "static temporary leave, timed as on the broker", "protocol": "consumer", "topics": {"t": 3},
        "config": {"group_consumer_session_timeout_ms": SESSION_MS,
                   "group_consumer_heartbeat_interval_ms": HEARTBEAT_MS},
        "events": [
            {"id": "e1", "at_ms": 0, "kind": "heartbeat", "member_id": "M", "instance_id": "static-1",
             "member_epoch": 0, "rebalance_timeout_ms": 300000, "subscribed_topics": ["t"], "owned": {}},
            {"id": "e2", "at_ms": leave_ms, "kind": "leave", "member_id": "M", "instance_id": "static-1",
             "member_epoch": -2}],
        "expect": [
            {"after": "e2", "group": {"members": ["M"]}, "timers": {"session": {"M": SESSION_MS}}},
            {"at_ms": SESSION_MS, "group": {"members": []}}]})
    assert not failures, "\n".join(failures)


def _classic(broker: str, group: str, name: str, instance: str | None) -> Consumer:
    settings = {"bootstrap.servers": broker, "group.id": group, "group.protocol": "classic", "client.id": name,
                "partition.assignment.strategy": "range", "session.timeout.ms": 30000,
                "heartbeat.interval.ms": 1000, "enable.auto.commit": False}
    if instance:
        settings["group.instance.id"] = instance
    return Consumer(settings)


def test_a_static_member_restarting_within_its_session_timeout_takes_its_place_without_a_rebalance(
        broker: str) -> None:
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
            return len(description.members) == 2 and enum_name(description.state) == "stable" and all(
                len(m.assignment.topic_partitions) == 2 for m in description.members)
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
            return old.member_id not in ids and len(ids) == 2 and all(
                m.assignment.topic_partitions for m in description.members)
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
    failures = replay_classic({
        "name": "static member restarts within its session timeout", "protocol": "classic",
        "config": {"group_initial_rebalance_delay_ms": 0},
        "members": [{"handle": "S", "session_timeout_ms": 30000, "rebalance_timeout_ms": 30000,
                     "protocols": ["range"], "join_version": 9},
                    {"handle": "R", "instance_id": "static-r", "session_timeout_ms": 30000,
                     "rebalance_timeout_ms": 30000, "protocols": ["range"], "join_version": 9}],
        "events": [
            {"id": "e1", "at_ms": 0, "kind": "join", "member": "R", "member_id": ""},
            {"id": "e2", "at_ms": 0, "kind": "sync", "member": "R", "generation": 1, "assignments": {"R": ["t-0", "t-1"]}},
            {"id": "e3", "at_ms": 5000, "kind": "join", "member": "R", "member_id": "", "bind": "R2"},
            {"id": "e4", "at_ms": 5000, "kind": "sync", "member": "R2", "generation": 1}],
        "expect": [
            {"after": "e3", "group": {"state": "Stable", "generation": 1},
             "responses": {"e3": {"done": True, "error": "NONE", "generation": 1}}},
            {"after": "e4", "responses": {"e4": {"done": True, "error": "NONE", "assignment": ["t-0", "t-1"]}}}]},
        None)
    assert not failures, "\n".join(failures)
