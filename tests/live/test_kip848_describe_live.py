"""KIP-848 (`group.protocol=consumer`) groups on a real Apache Kafka broker: `groups`, `describe` and
`snapshot` against what Kafka's own Admin.describeConsumerGroups reads (through the Java driver's JVM).

The members are real: librdkafka consumers (confluent-kafka, polled on a pump thread so they heartbeat,
take and give up partitions) and Kafka's Java consumers, in one group, with the coordinator's `uniform` or
`range` assignor, racks on some members and a static member. A group is settled when Kafka's admin reads it
Stable with every member at the target assignment's epoch owning exactly its target.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic

from kgroup.inspectors.fixtures.group_file import load_fixture
from tests.cli.helpers import run, run_process
from tests.kafka.secured import ALICE_PREFIX, SecuredKafka
from tests.kafka import jars
from tests.live.java_consumers import JavaConsumers, compiled
from tests.live.traffic import joined_consumer, topic_with_records

SETTLE_TIMEOUT_S = 120  # a loaded 2-core machine, other engineers' tests alongside: generous, never a sleep
# A KIP-848 Java consumer refuses partition.assignment.strategy, session.timeout.ms and heartbeat.interval.ms
# (the coordinator owns them: group.consumer.*); the test broker heartbeats every 0.5 s.
JAVA_SETTINGS = {"group.protocol": "consumer", "enable.auto.commit": "false", "auto.offset.reset": "earliest"}


class Pump:
    """librdkafka consumers of the consumer protocol, polled on one thread; a held consumer is not polled, so it
    keeps heartbeating (librdkafka's background thread) but never acts on a new assignment: it cannot revoke."""

    def __init__(self, broker: str, group: str) -> None:
        self.broker, self.group = broker, group
        self.consumers: dict[str, Consumer] = {}
        self.held: set[str] = set()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def join(
        self,
        name: str,
        topics: list[str],
        assignor: str,
        rack: str | None = None,
        instance: str | None = None,
        classic: bool = False,
    ) -> None:
        config: dict[str, Any] = {
            "bootstrap.servers": self.broker,
            "group.id": self.group,
            "client.id": name,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
        if classic:  # a classic member joining the consumer-protocol group (KIP-848's upgrade path)
            config |= {
                "group.protocol": "classic",
                "partition.assignment.strategy": "cooperative-sticky",
                "session.timeout.ms": 6000,
                "heartbeat.interval.ms": 500,
            }
        else:
            config |= {"group.protocol": "consumer", "group.remote.assignor": assignor}
        if rack:
            config["client.rack"] = rack
        if instance:
            config["group.instance.id"] = instance
        consumer = Consumer(config)
        consumer.subscribe(topics)
        with self.lock:
            self.consumers[name] = consumer

    def _run(self) -> None:
        while not self.stopping.is_set():
            with self.lock:
                for name, consumer in self.consumers.items():
                    if name not in self.held:
                        consumer.poll(0.02)
            time.sleep(0.01)  # lets join/close take the lock

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(10)
        with self.lock:
            for consumer in self.consumers.values():
                consumer.close()
            self.consumers.clear()


@pytest.fixture
def java(
    broker: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, names: tuple[str, str]
) -> Iterator[JavaConsumers]:
    """The Java driver: Kafka's consumers and Kafka's own admin describe, in one JVM."""
    consumers = JavaConsumers(broker, names[1], {}, "", compiled(tmp_path_factory), tmp_path, dict(JAVA_SETTINGS))
    try:
        yield consumers
    finally:
        consumers.close()


def _topics(broker: str, sizes: dict[str, int]) -> None:
    admin = AdminClient({"bootstrap.servers": broker})
    for topic, future in admin.create_topics([NewTopic(t, n) for t, n in sizes.items()]).items():
        future.result(30)


def _kafka_topic_ids(broker: str, topics: list[str]) -> dict[str, str]:
    """Each topic's id as the cluster's metadata gives it, in Kafka's text form: URL-safe base64, unpadded."""
    from confluent_kafka import TopicCollection

    admin = AdminClient({"bootstrap.servers": broker})
    ids = {}
    for topic, future in admin.describe_topics(TopicCollection(topics)).items():
        uid = future.result(30).topic_id
        raw = b"".join(
            half.to_bytes(8, "big", signed=True)
            for half in (uid.get_most_significant_bits(), uid.get_least_significant_bits())
        )
        ids[topic] = base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
    return ids


def _settled(java: JavaConsumers, group: str, members: int, partitions: int) -> dict[str, Any]:
    """Kafka's reading of the group once it is Stable with `members` members, every one at the target
    assignment's epoch and owning its target, and `partitions` partitions assigned."""
    deadline, seen = time.monotonic() + SETTLE_TIMEOUT_S, None
    while time.monotonic() < deadline:
        seen = java.describe([group])[group]
        ms = seen["members"]
        if (
            seen["state"] == "Stable"
            and len(ms) == members
            and sum(len(m["assignment"]) for m in ms) == partitions
            and all(
                m["member_epoch"] == seen["target_assignment_epoch"]
                and sorted(m["assignment"]) == sorted(m["target_assignment"])
                for m in ms
            )
        ):
            return seen
        time.sleep(0.2)  # between two reads of the condition
    raise AssertionError(f"group {group} did not settle in {SETTLE_TIMEOUT_S} s: {seen}")


def _describe(broker: str, group: str) -> dict[str, Any]:
    result = run("describe", group, "--members", "-b", broker, "-o", "json", "--timeout", "30")
    assert result.exit_code == 0, result.output
    (body,) = json.loads(result.stdout)["groups"]
    return body


def _listed(parts: list[list[Any]]) -> list[dict[str, Any]]:
    return [{"topic": t, "partition": p} for t, p in sorted((t, p) for t, p in parts)]


def _type(member: dict[str, Any]) -> str | None:
    """Kafka's MemberDescription.upgraded as ConsumerGroupDescribe v1's member type (None from a broker
    that speaks only v0, which has no MemberType; KIP-1099)."""
    return {True: "consumer", False: "classic", None: None}[member["upgraded"]]


def _assert_equals_kafkas(body: dict[str, Any], kafka: dict[str, Any]) -> None:
    """kgroup's describe JSON against Admin.describeConsumerGroups, field by field."""
    assert (body["type"], body["state"], body["assignor"]) == ("consumer", kafka["state"], kafka["assignor"])
    assert (body["group_epoch"], body["target_assignment_epoch"]) == (
        kafka["group_epoch"],
        kafka["target_assignment_epoch"],
    )
    ours = {m["member_id"]: m for m in body["member_lag"]}
    assert set(ours) == {m["member_id"] for m in kafka["members"]}
    for theirs in kafka["members"]:
        mine = ours[theirs["member_id"]]
        assert (mine["current_epoch"], mine["target_epoch"]) == (
            theirs["member_epoch"],
            kafka["target_assignment_epoch"],
        )
        assert mine["assignment"] == _listed(theirs["assignment"]), theirs["member_id"]
        assert mine["target_assignment"] == _listed(theirs["target_assignment"] or []), theirs["member_id"]
        assert (mine["instance_id"], mine["client_id"], mine["host"]) == (
            theirs["instance_id"],
            theirs["client_id"],
            theirs["host"],
        )
        assert mine["member_type"] == _type(theirs)
        owned = {(p["topic"], p["partition"]) for p in mine["assignment"]}
        target = {(p["topic"], p["partition"]) for p in mine["target_assignment"]}
        assert mine["reconciling"] == (owned != target or theirs["member_epoch"] < kafka["target_assignment_epoch"])
        assert mine["partitions_to_revoke"] == _listed([list(tp) for tp in owned - target])
        assert mine["partitions_awaited"] == _listed([list(tp) for tp in target - owned])


@pytest.mark.parametrize("assignor", ["uniform", "range"])
def test_describe_equals_kafkas_admin_for_librdkafka_and_java_members(
    broker: str, names: tuple[str, str], java: JavaConsumers, assignor: str
) -> None:
    topic, group = names
    sizes = {f"{topic}-a": 7, f"{topic}-b": 3}
    a, b = sizes
    _topics(broker, sizes)
    pump = Pump(broker, group)
    try:
        java.settings = {**JAVA_SETTINGS, "group.remote.assignor": assignor}
        pump.join("rdk-rack", [a, b], assignor, rack="rack-1")
        pump.join("rdk-static", [a], assignor, instance="static-rdk")
        java.join("java-rack", (a, b), client_id="java-rack")
        java.settings = {**java.settings, "client.rack": "rack-2"}
        java.join("java-static", (a,), instance_id="static-java", client_id="java-static")
        kafka = _settled(java, group, 4, sum(sizes.values()))

        body = _describe(broker, group)
        table = run("describe", group, "--members", "--verbose", "-b", broker, "--timeout", "30")
        state = run("describe", group, "--state", "--verbose", "-b", broker, "--timeout", "30")
    finally:
        pump.close()

    _assert_equals_kafkas(body, kafka)
    assert body["assignor"] == assignor and body["notes"] == []
    racks = {m["client_id"]: m["rack"] for m in body["member_lag"]}
    # Kafka 4.0's Java consumer does not send client.rack in ConsumerGroupHeartbeat (4.1's
    # ConsumerHeartbeatRequestManager does), so its coordinator has no rack for it.
    java_rack = "rack-2" if tuple(map(int, jars.version().split(".")[:2])) >= (4, 1) else None
    assert racks == {"rdk-rack": "rack-1", "rdk-static": None, "java-rack": None, "java-static": java_rack}
    subscribed = {m["client_id"]: sorted(m["subscribed_topics"]) for m in body["member_lag"]}
    assert subscribed == {"rdk-rack": [a, b], "rdk-static": [a], "java-rack": [a, b], "java-static": [a]}
    assert all(m["reconciling"] is False for m in body["member_lag"])

    assert table.exit_code == 0, table.output
    header, *rows = [line.split() for line in table.stdout.splitlines()]
    assert header[-5:] == ["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT", "RECONCILING"]
    epoch = str(kafka["target_assignment_epoch"])
    assert [(row[-5], row[-3], row[-1]) for row in rows] == [(epoch, epoch, "-")] * 4
    assert state.exit_code == 0, state.output
    header, row = [line.split() for line in state.stdout.splitlines()]
    assert header[-3:] == ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"]
    assert row[-4:] == ["Stable", str(kafka["group_epoch"]), epoch, "4"]


def test_a_member_that_has_not_revoked_is_reconciling_and_its_successor_awaits(
    broker: str, names: tuple[str, str], java: JavaConsumers
) -> None:
    """A librdkafka member that stops polling keeps heartbeating but never acknowledges what its new target
    takes away: Kafka holds it at its old epoch (UNREVOKED_PARTITIONS) and the newcomer waits for those
    partitions (UNRELEASED_PARTITIONS). kgroup shows both, as Kafka's admin reads them. Which partitions
    ConsumerGroupDescribe lists for the held member changed in 4.3 (ConsumerGroupMember.
    asConsumerGroupDescribeMember): before, only those it keeps; from 4.3, those pending revocation too, which
    kgroup then says it must still revoke."""
    pending_listed = tuple(map(int, jars.version().split(".")[:2])) >= (4, 3)
    topic, group = names
    _topics(broker, {topic: 6})
    pump = Pump(broker, group)
    try:
        pump.join("first", [topic], "uniform")
        _settled(java, group, 1, 6)
        pump.held.add("first")
        pump.join("second", [topic], "uniform")
        deadline, kafka = time.monotonic() + SETTLE_TIMEOUT_S, None
        # Until the coordinator holds `first` back, revoking, and `second` is at the target epoch, awaiting what
        # `first` holds: it gets there at its first heartbeat after the target (CurrentAssignmentBuilder, to
        # UNRELEASED_PARTITIONS), a moment after the target itself, and from then on nothing moves.
        while time.monotonic() < deadline:
            kafka = java.describe([group])[group]
            members = {m["client_id"]: m for m in kafka["members"]}
            if (
                set(members) == {"first", "second"}
                and members["second"]["target_assignment"]
                and members["second"]["member_epoch"] == kafka["target_assignment_epoch"]
                and members["first"]["member_epoch"] < kafka["target_assignment_epoch"]
                and members["first"]["target_assignment"]
                and (
                    set(map(tuple, members["first"]["assignment"]))
                    > set(map(tuple, members["first"]["target_assignment"]))
                    if pending_listed
                    else sorted(members["first"]["assignment"]) == sorted(members["first"]["target_assignment"])
                )
            ):
                break
            time.sleep(0.2)  # between two reads of the condition
        else:
            raise AssertionError(f"the coordinator never held the first member back: {kafka}")
        body = _describe(broker, group)
        again = java.describe([group])[group]
        table = run("describe", group, "--members", "--verbose", "-b", broker, "--timeout", "30")
    finally:
        pump.close()

    assert again == kafka, "the group moved while it was read; the test must hold it still"
    _assert_equals_kafkas(body, kafka)
    assert body["state"] == "Reconciling"
    by_client = {m["client_id"]: m for m in body["member_lag"]}
    first, second = by_client["first"], by_client["second"]
    target_epoch = body["target_assignment_epoch"]
    assert first["reconciling"] and first["current_epoch"] < target_epoch and first["partitions_awaited"] == []
    held = {m["client_id"]: m for m in kafka["members"]}["first"]  # as Kafka's own admin client describes it
    pending = sorted(set(map(tuple, held["assignment"])) - set(map(tuple, held["target_assignment"])))
    assert [(p["topic"], p["partition"]) for p in first["partitions_to_revoke"]] == (pending if pending_listed else [])
    assert len(pending) == (3 if pending_listed else 0)  # it held all 6; its target keeps 3
    assert (
        second["reconciling"]
        and second["assignment"] == []
        and second["partitions_awaited"] == second["target_assignment"] != []
    )
    assert table.exit_code == 0, table.output
    marks = {row.split()[3]: row.split(None, 11)[-1] for row in table.stdout.splitlines()[1:]}
    awaited = ",".join(str(p["partition"]) for p in second["partitions_awaited"])
    revoking = f"revoke {topic}:{','.join(str(p) for _, p in pending)} " if pending_listed else ""
    assert marks["first"] == f"yes: {revoking}epoch {first['current_epoch']} < {target_epoch}"
    assert marks["second"] == f"yes: await {topic}:{awaited}"


def test_groups_lists_type_and_protocol_and_filters_by_type(
    broker: str, names: tuple[str, str], java: JavaConsumers
) -> None:
    topic, group = names
    classic_group = f"{group}-classic"
    _topics(broker, {topic: 2})
    pump = Pump(broker, group)
    classic = joined_consumer(broker, classic_group, topic)
    try:
        pump.join("one", [topic], "uniform")
        _settled(java, group, 1, 2)
        listed = run("groups", "-b", broker, "-r", f"^{group}", "-o", "json", "--timeout", "30")
        table = run("groups", "-b", broker, "-r", f"^{group}", "--timeout", "30")
        consumers_only = run("groups", "-b", broker, "-r", f"^{group}", "--type", "consumer", "-o", "json")
        classic_only = run("groups", "-b", broker, "-r", f"^{group}", "--type", "classic", "-o", "json")
        stable = run("groups", "-b", broker, "-r", f"^{group}", "--state", "stable", "-o", "json")
    finally:
        pump.close()
        classic.close()
    bad = run("groups", "-b", broker, "--type", "dynamic")

    assert listed.exit_code == 0, listed.output
    rows = {
        g["group"]: (g["type"], g["protocol"], g["state"], g["members"]) for g in json.loads(listed.stdout)["groups"]
    }
    assert rows == {group: ("consumer", "consumer", "Stable", 1), classic_group: ("classic", "consumer", "Stable", 1)}
    header, *lines = [line.split() for line in table.stdout.splitlines()]
    assert header[:4] == ["GROUP", "TYPE", "PROTOCOL", "STATE"]
    assert sorted(line[:4] for line in lines) == sorted(
        [[group, "consumer", "consumer", "Stable"], [classic_group, "classic", "consumer", "Stable"]]
    )
    assert [g["group"] for g in json.loads(consumers_only.stdout)["groups"]] == [group]
    assert [g["group"] for g in json.loads(classic_only.stdout)["groups"]] == [classic_group]
    assert {g["group"] for g in json.loads(stable.stdout)["groups"]} == {group, classic_group}
    assert bad.exit_code == 2 and bad.stdout == ""
    assert bad.stderr.strip().count("\n") == 0 and "'dynamic'" in bad.stderr and "--type" in bad.stderr


def test_snapshot_keeps_every_kip848_field_and_loads_back(
    broker: str, names: tuple[str, str], java: JavaConsumers, tmp_path: Path
) -> None:
    topic, group = names
    sizes = {topic: 5, f"{topic}-x": 2}
    _topics(broker, sizes)
    pump = Pump(broker, group)
    out = tmp_path / "group.yaml"
    try:
        pump.join("rdk", list(sizes), "range", rack="rack-1", instance="static-1")
        java.settings = {**JAVA_SETTINGS, "group.remote.assignor": "range"}
        java.join("jvm", (topic,), client_id="jvm")
        kafka = _settled(java, group, 2, 7)
        snap = run("snapshot", group, "-b", broker, "-o", str(out), "--timeout", "30")
        live = _describe(broker, group)
    finally:
        pump.close()

    assert snap.exit_code == 0, snap.output
    doc = yaml.safe_load(out.read_text())
    assert doc["cluster"]["kafka_version"] == ".".join(jars.version().split(".")[:2])  # the broker's release
    # Kafka's topic ids (the uniform assignor's tie-breaker), as Kafka's Uuid.toString writes them
    assert {t["name"]: t["id"] for t in doc["cluster"]["topics"]} == _kafka_topic_ids(broker, list(sizes))
    (body,) = doc["groups"]
    assert (body["protocol"], body["generation"], body["assignment_epoch"]) == (
        "consumer",
        kafka["group_epoch"],
        kafka["target_assignment_epoch"],
    )
    members = {m["member_id"]: m for m in body["members"]}
    assert set(members) == {m["member_id"] for m in kafka["members"]}
    for theirs in kafka["members"]:
        saved = members[theirs["member_id"]]
        assert (saved["generation"], saved.get("member_type")) == (theirs["member_epoch"], _type(theirs))
        assert saved.get("instance_id") == theirs["instance_id"]

    fixture = load_fixture(str(out))
    group_model = fixture.group(group)
    assert fixture.cluster.kafka_version == doc["cluster"]["kafka_version"]
    assert (group_model.generation, group_model.assignment_epoch) == (
        kafka["group_epoch"],
        kafka["target_assignment_epoch"],
    )
    for theirs in kafka["members"]:
        member = group_model.member(theirs["member_id"])
        assert member is not None
        assert sorted(member.owned) == sorted(tuple(tp) for tp in theirs["assignment"])
        assert sorted(group_model.assignment.partitions_of(member.member_id)) == sorted(
            tuple(tp) for tp in theirs["target_assignment"]
        )
        assert (member.generation, member.member_type, member.instance_id) == (
            theirs["member_epoch"],
            _type(theirs),
            theirs["instance_id"],
        )
    assert {m.client_id: m.rack for m in group_model.members} == {"rdk": "rack-1", "jvm": None}

    offline = run("describe", "--fixture", str(out), "--members", "-o", "json")
    assert offline.exit_code == 0, offline.output
    (offline_body,) = json.loads(offline.stdout)["groups"]
    keys = ("group_epoch", "target_assignment_epoch", "state", "assignor", "type")
    assert {k: offline_body[k] for k in keys} == {k: live[k] for k in keys}
    member_keys = (
        "member_id",
        "instance_id",
        "client_id",
        "rack",
        "current_epoch",
        "target_epoch",
        "assignment",
        "target_assignment",
        "member_type",
        "subscribed_regex",
        "reconciling",
    )
    assert sorted([{k: m[k] for k in member_keys} for m in offline_body["member_lag"]], key=str) == sorted(
        [{k: m[k] for k in member_keys} for m in live["member_lag"]], key=str
    )


def test_a_regex_subscription_is_shown_and_resolved(
    broker: str, names: tuple[str, str], java: JavaConsumers, tmp_path: Path
) -> None:
    """librdkafka sends a `^`-prefixed subscription as the member's regex (KIP-848's SubscribedTopicRegex),
    each regex in parentheses, joined by `|` (librdkafka 2.16); the coordinator
    resolves it, and kgroup keeps it and the topics it matched."""
    topic, group = names
    sizes = {f"{topic}-r1": 2, f"{topic}-r2": 1}
    _topics(broker, sizes)
    pump = Pump(broker, group)
    out = tmp_path / "regex.yaml"
    try:
        pump.join("by-regex", [f"^{topic}-r.*"], "uniform")
        kafka = _settled(java, group, 1, 3)
        body = _describe(broker, group)
        assert run("snapshot", group, "-b", broker, "-o", str(out), "--timeout", "30").exit_code == 0
    finally:
        pump.close()
    _assert_equals_kafkas(body, kafka)
    (member,) = body["member_lag"]
    regex = f"(^{topic}-r.*)"
    assert member["subscribed_regex"] == regex
    assert sorted(member["subscribed_topics"]) == sorted(sizes)
    (saved,) = yaml.safe_load(out.read_text())["groups"][0]["members"]
    assert saved["subscribed_regex"] == regex and sorted(saved["topics"]) == sorted(sizes)
    assert load_fixture(str(out)).group(group).members[0].subscribed_regex == regex


def test_a_classic_member_in_a_consumer_protocol_group_is_described_as_such(
    broker: str, names: tuple[str, str], java: JavaConsumers
) -> None:
    """KIP-848's upgrade path: a classic consumer joins a consumer-protocol group, whose coordinator runs it
    through JoinGroup/SyncGroup. Kafka's admin reads it `upgraded: false`; kgroup says classic, prints
    Kafka's UPGRADED column and says in one line what it cannot predict."""
    topic, group = names
    _topics(broker, {topic: 4})
    pump = Pump(broker, group)
    try:
        pump.join("modern", [topic], "uniform")
        _settled(java, group, 1, 4)
        pump.join("legacy", [topic], "uniform", classic=True)
        kafka = _settled(java, group, 2, 4)
        body = _describe(broker, group)
        table = run("describe", group, "--members", "--verbose", "-b", broker, "--timeout", "30")
    finally:
        pump.close()

    _assert_equals_kafkas(body, kafka)
    assert {m["client_id"]: m["member_type"] for m in body["member_lag"]} == {"modern": "consumer", "legacy": "classic"}
    (note,) = [n for n in body["notes"] if "classic protocol" in n]
    assert note.startswith("1 of 2 members use the classic protocol") and "cannot predict" in note
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert lines[0].split()[-2:] == ["UPGRADED", "RECONCILING"]
    upgraded = {line.split()[3]: line.split()[-2] for line in lines[1:]}
    assert upgraded == {"modern": "true", "legacy": "false"}
    assert "classic protocol" in table.stderr


def test_alice_reads_her_groups_epochs_over_sasl_ssl_through_kgroups_own_transport(secured_kafka: SecuredKafka) -> None:
    """ConsumerGroupDescribe goes with the connection settings of every other request: SCRAM over TLS, as
    alice, whose ACLs let her DESCRIBE the group and its topic."""
    suffix = uuid.uuid4().hex[:8]
    topic, group = f"{ALICE_PREFIX}k848-{suffix}", f"{ALICE_PREFIX}k848-group-{suffix}"
    topic_with_records(secured_kafka.setup, topic, [1, 1, 1])
    consumer = Consumer(
        {
            "bootstrap.servers": secured_kafka.setup,
            "group.id": group,
            "group.protocol": "consumer",
            "client.id": "alices-reader",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while len(consumer.assignment()) < 3 and time.monotonic() < deadline:
            consumer.poll(0.2)
        assert len(consumer.assignment()) == 3, "the consumer never got its assignment"
        member_id = consumer.memberid()
        config = secured_kafka.command_config("alice", "SCRAM-SHA-512", tls=True)
        result = run_process(
            "describe",
            group,
            "--members",
            "-o",
            "json",
            "-b",
            secured_kafka.address("SASL_SSL"),
            "--command-config",
            str(config),
            "--timeout",
            "30",
        )
    finally:
        consumer.close()

    assert result.returncode == 0, result.stderr
    (body,) = json.loads(result.stdout)["groups"]
    (member,) = body["member_lag"]
    assert (body["type"], body["state"], member["member_id"], member["client_id"]) == (
        "consumer",
        "Stable",
        member_id,
        "alices-reader",
    )
    assert member["assignment"] == member["target_assignment"] == [{"topic": topic, "partition": p} for p in range(3)]
    # one member that joined once: the group epoch, the target's epoch and its own are the same, and set
    assert (
        body["group_epoch"] == body["target_assignment_epoch"] == member["current_epoch"] == member["target_epoch"] >= 1
    )
