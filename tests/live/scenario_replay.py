"""A `kind: scenario` played on Apache Kafka with real consumers, and compared with `kgroup simulate` (issue 36).

The harness settles the scenario's starting group on the broker first (its members join and the group
becomes Stable), then takes that instant as the scenario's 0 and runs each event at its time: `join`
starts a consumer, `leave` closes it (a dynamic member sends LeaveGroup), `crash` is kill -9 of the
member's own JVM (no LeaveGroup, no more heartbeats), `gc-pause` stops that JVM (SIGSTOP, then SIGCONT:
every thread stops, as in a stop-the-world pause), `restart` closes it and starts it again after `down`
(with its group.instance.id when static), `slow-poll` stops the member's poll() loop for each batch (the
Java driver's `stall`: its heartbeat thread goes on, so past max.poll.interval.ms it leaves the group;
each further batch starts at its next assignment), `add-partitions` grows the topic (CreatePartitions).
What happened is recorded three ways, each in wall-clock ms from the scenario's 0:

- the consumers' rebalance callbacks (assigned, revoked, lost), with the generation (classic) or member
  epoch (consumer protocol) the Java consumer reports in them (`KafkaConsumer.groupMetadata()`);
- classic groups: the coordinator's own log lines, read as they are written: "Preparing to rebalance
  group G ... with old generation N" is a rebalance's start, "Stabilized group G generation N" its end
  (GroupMetadataManager of Kafka's group coordinator);
- consumer-protocol groups: ConsumerGroupDescribe, asked every few hundred ms: each group-epoch bump
  (first seen), when the group is Stable again, and every member's epoch and assignment.

`kgroup simulate` runs the same scenario file (JSON output); a consumer-protocol scenario goes to
`kgroup simulate --protocol consumer` with the broker's `group.consumer.*` settings and member ids written
into the file (KIP-1082: each client picks a random id, and the server assignors break ties by member id).
`compare` lists every difference.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewPartitions

from tests.kafka import jars
from tests.kafka.broker import Node
from tests.live.java_consumers import JavaConsumers

SCENARIOS = Path(__file__).parent / "scenarios"

# The test broker's group settings, lowered so that a scenario takes seconds (GroupCoordinatorConfig).
# The classic ones are also written in each scenario's `broker:` section; the consumer protocol's are given
# to kgroup's KIP-848 simulation by `predict` (the scenario schema has no place for them).
BROKER_SETTINGS = {
    "group.initial.rebalance.delay.ms": "3000",
    "group.min.session.timeout.ms": "2000",
    "group.consumer.min.session.timeout.ms": "2000",
    "group.consumer.session.timeout.ms": "8000",
    "group.consumer.min.heartbeat.interval.ms": "500",
    "group.consumer.heartbeat.interval.ms": "500",
}

# Bounded waits, sized for a loaded 2-core machine (about 3x slower than idle).
SETTLE_TIMEOUT_S = 90.0
QUIET_S = 2.0
PROCESS_START_S = 60.0  # a librdkafka member's process imports confluent_kafka and subscribes (a loaded machine)
DESCRIBE_EVERY_S = 0.25


def now_ms(t0: float) -> int:
    return round((time.monotonic() - t0) * 1000)


@dataclass
class Callback:
    at_ms: float
    member: str
    kind: str  # assigned | revoked | lost
    partitions: frozenset[str]  # "topic-p"
    generation: int | None  # classic generation or KIP-848 member epoch (Java); None for librdkafka


@dataclass
class Rebalance:
    start_ms: int
    end_ms: int | None
    generation: int  # classic: the generation it created; consumer protocol: the group epoch


@dataclass
class LiveRun:
    rebalances: list[Rebalance] = field(default_factory=list)
    callbacks: list[Callback] = field(default_factory=list)
    final: dict[str, frozenset[str]] = field(default_factory=dict)
    start_generation: int = 0
    start_assignment: dict[str, frozenset[str]] = field(default_factory=dict)
    member_ids: dict[str, str] = field(default_factory=dict)  # handle -> the broker's member id
    member_epochs: dict[str, int] = field(default_factory=dict)  # consumer protocol, at the end
    events: list[tuple[int, str]] = field(default_factory=list)  # (ms, what the harness did)
    # consumer protocol: the handles as ConsumerGroupDescribe listed the settled group, which is the order its
    # TimelineHashMap of members iterates, the order the coordinator hands them to the assignor
    start_order: list[str] = field(default_factory=list)
    topic_ids: dict[str, str] = field(default_factory=dict)  # the broker's, by topic name
    # classic: the coordinator's log lines about the group, from the scenario's 0 to its end (ms, text)
    coordinator_log: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class Predicted:
    rebalances: list[Rebalance]
    # member -> what its callbacks did, in order: (assigned | revoked | lost, partitions, generation of an
    # assignment); the classic simulation's event log only, and only callbacks that moved a partition
    changes: dict[str, list[tuple[str, frozenset[str], int | None]]] | None
    final: dict[str, frozenset[str]]
    member_epochs: dict[str, int] = field(default_factory=dict)


def _name(topic: str, partition: int) -> str:
    return f"{topic}-{partition}"


# The events the harness plays on the broker. An `outage` (ZooKeeper, service discovery) is nothing to Kafka's
# group coordinator: played as nothing.
REPLAYED = ("join", "leave", "crash", "restart", "gc-pause", "slow-poll", "add-partitions", "subscribe", "outage")
# ConsumerConfig's defaults (Kafka 4.x), which a scenario that does not set them simulates.
CLIENT_DEFAULTS = {
    "session.timeout.ms": "45s",
    "heartbeat.interval.ms": "3s",
    "max.poll.interval.ms": "5m",
    "metadata.max.age.ms": "5m",
}


# -- the scenario file -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    at_ms: int
    kind: str  # join | leave | crash | restart-stop | restart-start | pause | resume | slow-poll | add-partitions
    # | subscribe
    member: str  # the topic of add-partitions
    instance: str | None = None  # restart-start: the group.instance.id it comes back with (None: dynamic)
    ms: int = 0  # slow-poll: each batch's processing time
    count: int = 0  # slow-poll: the batches; add-partitions: the topic's new total
    topics: tuple[str, ...] = ()  # join, subscribe: the member's subscription from then on


def _ms(text: Any) -> int:
    from kgroup.inspectors.offsets.reset_times import parse_duration

    ms = parse_duration(str(text))
    assert ms is not None, f"not a duration: {text!r}"
    return ms


@dataclass
class Plan:
    """What the harness needs of a scenario file: the group, the clients' settings, the steps."""

    path: Path
    data: dict[str, Any]
    group: dict[str, Any]
    topics: dict[str, int]
    steps: list[Step]
    duration_ms: int
    instances: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, scenario: Path | str) -> Plan:
        """A scenario file, or a bundled scenario's name (`compare-crash`)."""
        from kgroup.inspectors.fixtures.bundled import locate
        from kgroup.inspectors.fixtures.scenario_file import load_scenario

        path = Path(locate(str(scenario)))
        data = yaml.safe_load(path.read_text())
        assert "fixture" not in data and len(data["groups"]) == 1, (
            f"{path.name}: the harness replays a scenario with one inline group"
        )
        group = data["groups"][0]
        topics = {t["name"]: t["partitions"] for t in data["cluster"]["topics"]}
        # kgroup's own reading of the events, so that the broker plays what `kgroup simulate` plays (a
        # restart of a member with a group.instance.id is static unless it says `dynamic`; `join X static`
        # without one takes the member's name as its instance id).
        read = load_scenario(str(path))
        instances = {m: c.instance_id for m, c in read.clients.items() if c.instance_id}
        steps = []
        for event in read.events:
            kind, member, at, fields = event.kind, event.subject, event.at_ms, event.fields
            assert kind in REPLAYED, f"{path.name}: the harness cannot play {kind!r} events on a broker yet"
            if kind == "restart":
                steps += [
                    Step(at, "restart-stop", member),
                    Step(at + int(fields["down"]), "restart-start", member, fields["instance_id"]),
                ]
            elif kind == "outage":
                continue
            elif kind == "gc-pause":
                steps += [Step(at, "pause", member), Step(at + int(fields["duration"]), "resume", member)]
            elif kind == "slow-poll":
                processing, batches = int(fields["processing"]), int(fields["batches"])
                # The driver starts each further batch at the member's next assignment, which is when kgroup
                # starts it too only if the batch before cost the member its place (past max.poll.interval.ms).
                assert batches == 1 or processing > _ms(cls._client(data, member)["max.poll.interval.ms"]), (
                    f"{path.name}: several slow batches are replayed only past max.poll.interval.ms"
                )
                steps.append(Step(at, kind, member, ms=processing, count=batches))
            elif kind == "add-partitions":
                steps.append(Step(at, kind, member, count=int(fields["total"])))
            elif kind in ("join", "subscribe"):  # a join without topics takes the first member's (as kgroup does)
                subscription = fields.get("topics") or group["members"][0]["topics"]
                steps.append(Step(at, kind, member, topics=tuple(subscription)))
            else:
                steps.append(Step(at, kind, member))  # a join is static when kgroup gives it an instance id
        steps.sort(key=lambda s: s.at_ms)  # stable: steps at the same instant keep the file's order
        return cls(path, data, group, topics, steps, _ms(data["duration"]), instances)

    @staticmethod
    def _client(data: dict[str, Any], member: str) -> dict[str, Any]:
        clients = data.get("clients") or {}
        return {**CLIENT_DEFAULTS, **clients.get("default", {}), **clients.get(member, {})}

    def client(self, member: str) -> dict[str, Any]:
        """The member's consumer settings, over the Java consumer's defaults that kgroup also takes."""
        return self._client(self.data, member)

    def instance(self, member: str) -> str | None:
        """The member's group.instance.id as kgroup reads it (None: a dynamic member)."""
        return self.instances.get(member)

    def subscriptions(self) -> dict[str, tuple[str, ...]]:
        """The starting members' subscriptions."""
        return {m["member_id"]: tuple(m["topics"]) for m in self.group["members"]}

    def start_assignment(self) -> dict[str, frozenset[str]]:
        """The starting group's assignment, partitions named as the harness records them."""
        return {
            m: frozenset(_name(t, p) for t, ps in a.items() for p in ps)
            for m, a in (self.group.get("assignment") or {}).items()
        }

    def members(self) -> list[str]:
        """Every member the scenario ever runs: the starting ones, then those its events join."""
        names = [m["member_id"] for m in self.group["members"]]
        return names + [s.member for s in self.steps if s.kind == "join" and s.member not in names]


# -- the members -----------------------------------------------------------------------------------------


class _RecordingJava(JavaConsumers):
    """The Java driver's consumers, every callback also recorded with its time, generation and member id."""

    def __init__(self, *args: Any, record: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._record = record

    def _read(self, process: subprocess.Popen) -> None:
        def lines() -> Any:
            assert process.stdout is not None
            for line in process.stdout:
                self._record(line)
                yield line

        class _Tee:
            stdout = lines()

        super()._read(_Tee())  # type: ignore[arg-type]


class Members:
    """The scenario's consumers on one client, each of them its own JVM (Java) or thread (librdkafka)."""

    def __init__(
        self,
        plan: Plan,
        client: str,
        protocol: str,
        broker: str,
        group: str,
        classes: Path | None,
        folder: Path,
        t0: list[float],
    ) -> None:
        self.plan, self.client, self.protocol, self.broker, self.group = plan, client, protocol, broker, group
        self.classes, self.folder, self.t0 = classes, folder, t0
        self.callbacks: list[Callback] = []
        self.held: dict[str, frozenset[str]] = {}
        self.member_ids: dict[str, str] = {}
        self.last_change = time.monotonic()
        self.running: set[str] = set()
        self.topics: dict[str, tuple[str, ...]] = plan.subscriptions()  # member -> its subscription now
        self._resubscribe: dict[str, tuple[str, ...]] = {}  # librdkafka: the next subscribe() of a member's thread
        self._lock = threading.Lock()
        self._java: dict[str, _RecordingJava] = {}  # member -> the JVM it runs in
        self._jvms: dict[str, _RecordingJava] = {}
        self._threads: dict[str, tuple[threading.Thread, threading.Event]] = {}
        # librdkafka: a member the scenario kills or pauses runs in a process of its own (librdkafka_member.py)
        self._killable = {s.member for s in plan.steps if s.kind in ("crash", "pause")}
        self._processes: dict[str, subprocess.Popen] = {}

    # what the consumers report
    def _note(
        self, member: str, kind: str, partitions: frozenset[str], generation: int | None, member_id: str | None = None
    ) -> None:
        with self._lock:
            # Monotonic seconds for now; replay makes them ms from the scenario's 0 once it is known.
            self.callbacks.append(Callback(time.monotonic(), member, kind, partitions, generation))
            held = self.held.get(member, frozenset())
            self.held[member] = held | partitions if kind == "assigned" else held - partitions
            if member_id:
                self.member_ids[member] = member_id
            self.last_change = time.monotonic()

    def _java_line(self, line: str) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        if event.get("event") in ("assigned", "revoked", "lost"):
            self._note(
                event["name"],
                event["event"],
                frozenset(_name(t, p) for t, p in event["partitions"]),
                event.get("generation"),
                event.get("member_id"),
            )

    def _java_settings(self, member: str) -> dict[str, str]:
        settings = {"enable.auto.commit": "false", "auto.offset.reset": "earliest"}
        if self.protocol == "consumer":
            return {**settings, "group.protocol": "consumer", "group.remote.assignor": "uniform"}
        config = self.plan.client(member)
        return {
            **settings,
            "group.protocol": "classic",
            "session.timeout.ms": str(_ms(config["session.timeout.ms"])),
            "heartbeat.interval.ms": str(_ms(config["heartbeat.interval.ms"])),
            "max.poll.interval.ms": str(_ms(config["max.poll.interval.ms"])),
            "metadata.max.age.ms": str(_ms(config["metadata.max.age.ms"])),
        }

    def _strategy(self, member: str) -> str:
        if self.protocol == "consumer":
            return ""  # the coordinator assigns; a KIP-848 consumer refuses partition.assignment.strategy
        return (self.plan.client(member).get("partition.assignment.strategy") or self.plan.group["assignors"])[0]

    def prepare(self) -> None:
        """Java: start every member's JVM before the scenario, so that a JVM's start is not counted in it."""
        if self.client != "java":
            return
        assert self.classes is not None
        crashed = {s.member for s in self.plan.steps if s.kind in ("crash", "pause")}
        for member in self.plan.members():
            # A member the scenario kills or pauses gets a JVM of its own; the others share one, whose classes are then
            # loaded when a member joins mid-scenario (a cold KafkaConsumer takes seconds on a loaded machine).
            jvm = member if member in crashed else "shared"
            if jvm not in self._jvms:
                java = _RecordingJava(
                    self.broker,
                    self.group,
                    self.plan.topics,
                    self._strategy(member),
                    self.classes,
                    self.folder,
                    self._java_settings(member),
                    record=self._java_line,
                )
                java.log_path = self.folder / f"java-{self.group}-{jvm}.log"
                self._jvms[jvm] = java
            assert self._jvms[jvm].settings == self._java_settings(member), (
                f"{member}'s consumer settings differ from its JVM's: give it a JVM of its own"
            )
            self._java[member] = self._jvms[jvm]
        # The JVMs start side by side: each waits seconds for its classes on a loaded machine.
        failures: list[BaseException] = []

        def start(java: _RecordingJava) -> None:
            try:
                java._start()
            except BaseException as e:  # noqa: BLE001 - raised below, on the harness's thread
                failures.append(e)

        starting = [threading.Thread(target=start, args=(java,), daemon=True) for java in self._jvms.values()]
        for thread in starting:
            thread.start()
        for thread in starting:
            thread.join()
        if failures:
            raise failures[0]

    def start(self, member: str, instance: str | None) -> None:
        topics = self.topics[member]
        self.running.add(member)
        if self.client == "java":
            self._java[member].join(member, topics, instance)
            return
        config: dict[str, Any] = {
            "bootstrap.servers": self.broker,
            "group.id": self.group,
            "client.id": member,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
        settings = self.plan.client(member)
        if self.protocol == "consumer":
            config.update({"group.protocol": "consumer", "group.remote.assignor": "uniform"})
        else:
            config.update(
                {
                    "partition.assignment.strategy": self._strategy(member),
                    "session.timeout.ms": _ms(settings["session.timeout.ms"]),
                    "heartbeat.interval.ms": _ms(settings["heartbeat.interval.ms"]),
                    "max.poll.interval.ms": _ms(settings["max.poll.interval.ms"]),
                    "topic.metadata.refresh.interval.ms": _ms(settings["metadata.max.age.ms"]),
                }
            )
        if instance:
            config["group.instance.id"] = instance
        if member in self._killable:
            self._spawn(member, config)
            return
        stop = threading.Event()
        thread = threading.Thread(target=self._poll, args=(member, config, stop), daemon=True)
        self._threads[member] = (thread, stop)
        thread.start()

    def _poll(self, member: str, config: dict[str, Any], stop: threading.Event) -> None:
        """One librdkafka consumer, polled on its own thread, and closed by it (a Consumer is not thread-safe)."""
        consumer = Consumer(config)

        def note(kind: str) -> Any:
            return lambda _c, parts: self._note(
                member, kind, frozenset(_name(p.topic, p.partition) for p in parts), None, consumer.memberid()
            )

        callbacks = {"on_assign": note("assigned"), "on_revoke": note("revoked"), "on_lost": note("lost")}
        consumer.subscribe(list(self.topics[member]), **callbacks)
        try:
            while not stop.is_set():
                consumer.poll(0.05)
                with self._lock:
                    topics = self._resubscribe.pop(member, None)
                if topics is not None:
                    consumer.subscribe(list(topics), **callbacks)
        finally:
            consumer.close()  # a dynamic member sends LeaveGroup; a static one does not (KIP-345)

    def _spawn(self, member: str, config: dict[str, Any]) -> None:
        """A librdkafka consumer in its own process; its callbacks are read from its stdout as they run."""
        log_path = self.folder / f"librdkafka-{self.group}-{member}.log"
        with open(log_path, "ab") as log:  # the child keeps its own copy of the file
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.live.librdkafka_member",
                    json.dumps(config),
                    ",".join(self.topics[member]),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                cwd=Path(__file__).parents[2],  # the repository: `-m tests.live.librdkafka_member`
            )
        self._processes[member] = process
        started = threading.Event()

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                event = json.loads(line)
                if event["event"] == "ready":
                    started.set()
                else:
                    parts = frozenset(_name(t, p) for t, p in event["partitions"])
                    self._note(member, event["event"], parts, None, event["member_id"])

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + PROCESS_START_S
        while not started.wait(0.1):
            assert process.poll() is None and time.monotonic() < deadline, (
                f"librdkafka consumer {member} did not start in {PROCESS_START_S:.0f} s: "
                f"{log_path.read_text(errors='replace')[-2000:]}"
            )

    def stop(self, member: str) -> None:
        """Close the consumer (what `leave` and a restart's first half do)."""
        self.running.discard(member)
        if self.client == "java":
            self._java[member].leave(member)
        elif member in self._processes:
            process = self._processes.pop(member)
            if process.poll() is None:
                assert process.stdin is not None
                process.stdin.write("leave\n")
                process.stdin.flush()
                process.wait(45)
        else:
            thread, stop = self._threads.pop(member)
            stop.set()
            thread.join(45)
            assert not thread.is_alive(), f"librdkafka consumer {member} did not close in 45 s"
        with self._lock:
            self.held.pop(member, None)

    def crash(self, member: str) -> None:
        """kill -9 of the member's JVM or process: no LeaveGroup, no more heartbeats, its callbacks never run."""
        self.running.discard(member)
        process = self._java[member].process if self.client == "java" else self._processes.pop(member)
        assert process is not None
        os.kill(process.pid, signal.SIGKILL)
        process.wait(30)
        with self._lock:
            self.held.pop(member, None)

    def signal(self, member: str, number: int) -> None:
        """A GC pause: SIGSTOP of the member's own JVM stops every thread of it, heartbeats too; SIGCONT ends it."""
        process = self._java[member].process if self.client == "java" else self._processes[member]
        assert process is not None
        os.kill(process.pid, number)

    def subscribe(self, member: str, topics: tuple[str, ...]) -> None:
        """The application calls subscribe() with other topics, on the consumer's own thread after its poll."""
        self.topics[member] = topics
        if self.client == "java":
            self._java[member]._send({"op": "subscribe", "name": member, "topics": list(topics)})
        else:
            assert member not in self._processes, f"{member}: a librdkafka member of its own process cannot resubscribe"
            with self._lock:
                self._resubscribe[member] = topics

    def slow(self, member: str, processing_ms: int, batches: int) -> None:
        """A slow batch: the member's thread stops calling poll() for `processing_ms` (its heartbeat thread goes
        on), `batches` times, each further batch from the member's next assignment (the driver's `stall`)."""
        assert self.client == "java", "a slow batch needs the Java driver's `stall`"
        self._java[member]._send({"op": "stall", "name": member, "ms": processing_ms, "batches": batches})

    def close(self) -> None:
        for java in self._jvms.values():
            if java.process is not None and java.process.poll() is None:
                os.kill(java.process.pid, signal.SIGCONT)  # a JVM still paused would never close
        for process in self._processes.values():
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)
        for member in list(self._threads) + list(self._processes):
            self.stop(member)
        for java in self._jvms.values():
            java.close()

    def problem(self) -> str | None:
        for jvm, java in self._jvms.items():
            if java.errors:
                return f"JVM {jvm}: {'; '.join(java.errors)}"
        return None

    def settled(self) -> bool:
        """Every running member has had an assignment, the running members hold every partition of the topics
        they subscribe to exactly once, and nothing moved for QUIET_S."""
        subscribed = {t for m in self.running for t in self.topics[m]}
        everything = [_name(t, p) for t in subscribed for p in range(self.plan.topics[t])]
        with self._lock:
            held = [p for m in self.running for p in self.held.get(m, ())]
            assigned = {c.member for c in self.callbacks if c.kind == "assigned"}
        return (
            self.running <= assigned
            and sorted(held) == sorted(everything)
            and time.monotonic() - self.last_change >= QUIET_S
        )


# -- the broker's side ------------------------------------------------------------------------------------


class CoordinatorLog:
    """The coordinator's log lines about one classic group, timed as they are written (read every 20 ms)."""

    def __init__(self, node: Node, group: str) -> None:
        self.path, self.group = node.log_path, group
        self.lines: list[tuple[float, str]] = []
        self._offset = self.path.stat().st_size
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tail, daemon=True)
        self._thread.start()

    def _tail(self) -> None:
        pending = b""
        while not self._stop.is_set():
            with open(self.path, "rb") as log:
                log.seek(self._offset)
                chunk = log.read()
            self._offset += len(chunk)
            pending += chunk
            *complete, pending = pending.split(b"\n")
            seen = time.monotonic()
            for line in complete:
                text = line.decode(errors="replace")
                if f"group {self.group} " in text:
                    self.lines.append((seen, text))
            time.sleep(0.02)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def wait_for_a_member(self, timeout_s: float) -> None:
        """Until the coordinator has added a first member (its first rebalance is prepared)."""
        deadline = time.monotonic() + timeout_s
        while not any("Preparing to rebalance group" in text for _, text in list(self.lines)):
            assert time.monotonic() < deadline, f"no member joined group {self.group} in {timeout_s:.0f} s"
            time.sleep(0.02)

    def rebalances(self, t0: float, until: float) -> tuple[int, list[Rebalance]]:
        """The generation the group was Stable at before `t0`, and each rebalance that started after it,
        up to `until` (the scenario's end: the harness's closing of the consumers is not in it)."""
        prepare = re.compile(r"Preparing to rebalance group \S+ in state \S+ with old generation (\d+)")
        stable = re.compile(r"Stabilized group \S+ generation (\d+)")
        before, found = 0, []
        for seen, text in [(s, t) for s, t in self.lines if s <= until]:
            at = round((seen - t0) * 1000)
            if (m := stable.search(text)) and at < 0:
                before = int(m.group(1))
            elif at < 0:
                continue
            elif m := prepare.search(text):
                found.append(Rebalance(at, None, int(m.group(1)) + 1))
            elif (m := stable.search(text)) and found and found[-1].generation == int(m.group(1)):
                found[-1].end_ms = at
        return before, found


class EpochWatch:
    """A consumer-protocol group through ConsumerGroupDescribe every DESCRIBE_EVERY_S: each group epoch when
    first seen, when the group was Stable again, and the members' ids, epochs and assignments."""

    def __init__(self, broker: str, group: str, t0: list[float]) -> None:
        self.broker, self.group, self.t0 = broker, group, t0
        self.epochs: list[Rebalance] = []
        self.last: Any = None
        self.member_ids: dict[str, str] = {}  # client id -> member id
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        from kgroup.inspectors.live.wire.consumer_group_describe import describe_consumer_groups

        while not self._stop.is_set():
            try:
                described = describe_consumer_groups({"bootstrap.servers": self.broker}, [self.group], 10)[self.group]
            except Exception:  # noqa: BLE001 - a describe that failed is asked again at the next tick
                described = None
            at = now_ms(self.t0[0])
            if described is not None and described.group_epoch is not None:
                self.last = described
                for member in described.members:
                    self.member_ids[member.client_id] = member.member_id
                if not self.epochs or self.epochs[-1].generation != described.group_epoch:
                    self.epochs.append(Rebalance(at, None, described.group_epoch))
                if described.state == "Stable" and self.epochs[-1].end_ms is None:
                    self.epochs[-1].end_ms = at
            time.sleep(DESCRIBE_EVERY_S)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(15)


# -- the replay ------------------------------------------------------------------------------------------


def topic_ids(broker: str, names: list[str]) -> dict[str, str]:
    """The broker's topic ids (`Uuid.toString` form), which order the KIP-848 coordinator's maps: kgroup gets
    them too, or it derives ids of its own and may order one member's topics otherwise."""
    from kgroup.inspectors.live.admin import LiveAdmin
    from kgroup.inspectors.live.connection_settings import ConnectionSettings

    admin = LiveAdmin(ConnectionSettings(broker), timeout_s=60)
    try:
        return admin.topic_ids(names)
    finally:
        admin.close()


def add_partitions(broker: str, topic: str, total: int) -> None:
    """The topic grows to `total` partitions (CreatePartitions); the consumers see it at a metadata refresh."""
    admin = AdminClient({"bootstrap.servers": broker})
    for future in admin.create_partitions([NewPartitions(topic, total)]).values():
        future.result(60)


def replay(
    node: Node, scenario: Path | str, client: str, protocol: str, group: str, classes: Path | None, folder: Path
) -> tuple[Plan, LiveRun]:
    """Play `scenario` on `node` with real consumers (`client`: java | librdkafka; `protocol`: classic |
    consumer) in group `group`; the topics must exist. Returns what was recorded."""
    plan = Plan.read(scenario)
    t0 = [time.monotonic() + 3600.0]  # the scenario's 0, set once the starting group is settled
    members = Members(plan, client, protocol, node.address, group, classes, folder, t0)
    log = CoordinatorLog(node, group) if protocol == "classic" else None
    watch = EpochWatch(node.address, group, t0) if protocol == "consumer" else None
    run = LiveRun()
    try:
        members.prepare()
        for n, member in enumerate(plan.group["members"]):
            members.start(member["member_id"], plan.instance(member["member_id"]))
            if n == 0 and log is not None:
                # Classic: the first member added leads, as in the group kgroup loads from the file (its first
                # member); the others start once it is in, well within the 3 s initial rebalance delay. Left
                # to race, another member led at times, and a leader changing its own subscription can take one
                # more rebalance than a follower does (docs/conformance.md: classic-subscribe).
                log.wait_for_a_member(SETTLE_TIMEOUT_S)
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while not members.settled():
            problem = members.problem()
            assert problem is None and time.monotonic() < deadline, (
                f"the starting group never settled in {SETTLE_TIMEOUT_S:.0f} s: {problem or members.held}"
            )
            time.sleep(0.05)
        t0[0] = time.monotonic()
        run.start_assignment = dict(members.held)
        if watch is not None:
            time.sleep(2 * DESCRIBE_EVERY_S + 1)  # the describe of the settled group, before any event
            t0[0] = time.monotonic()
            run.start_generation = watch.epochs[-1].generation if watch.epochs else 0
            run.start_order = [m.client_id for m in watch.last.members] if watch.last is not None else []
            run.topic_ids = topic_ids(node.address, [t["name"] for t in plan.data["cluster"]["topics"]])
        for step in plan.steps:
            delay = t0[0] + step.at_ms / 1000 - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            run.events.append((now_ms(t0[0]), f"{step.kind} {step.member}"))
            if step.kind == "join":
                members.topics[step.member] = step.topics
                members.start(step.member, plan.instance(step.member))
            elif step.kind == "restart-start":
                members.start(step.member, step.instance)
            elif step.kind in ("leave", "restart-stop"):
                members.stop(step.member)
            elif step.kind == "crash":
                members.crash(step.member)
            elif step.kind in ("pause", "resume"):
                members.signal(step.member, signal.SIGSTOP if step.kind == "pause" else signal.SIGCONT)
            elif step.kind == "slow-poll":
                members.slow(step.member, step.ms, step.count)
            elif step.kind == "add-partitions":
                add_partitions(node.address, step.member, step.count)
            elif step.kind == "subscribe":
                members.subscribe(step.member, step.topics)
        remaining = t0[0] + plan.duration_ms / 1000 - time.monotonic()
        if remaining > 0:
            time.sleep(remaining)
        problem = members.problem()
        assert problem is None, f"a consumer failed: {problem}"
        until = time.monotonic()
        if watch is not None:
            watch.close()  # its last describe is the group at the scenario's end, before the consumers close
        with members._lock:
            run.callbacks = [replace(c, at_ms=round((c.at_ms - t0[0]) * 1000)) for c in members.callbacks]
            run.final = {m: members.held.get(m, frozenset()) for m in sorted(members.running)}
            run.member_ids = dict(members.member_ids)
    finally:
        members.close()
        if log is not None:
            log.close()
        if watch is not None:
            watch.close()
    if log is not None:
        run.start_generation, run.rebalances = log.rebalances(t0[0], until)
        run.coordinator_log = [
            (round((seen - t0[0]) * 1000), text) for seen, text in log.lines if t0[0] <= seen <= until
        ]
    if watch is not None:
        end_ms = round((until - t0[0]) * 1000)
        run.rebalances = [e for e in watch.epochs if 0 <= e.start_ms <= end_ms]
        run.member_ids = {**run.member_ids, **watch.member_ids}
        if watch.last is not None:
            run.member_epochs = {m.client_id: m.member_epoch for m in watch.last.members}
    return plan, run


# -- kgroup's prediction ----------------------------------------------------------------------------------


def predict(plan: Plan, run: LiveRun, protocol: str, client: str) -> Predicted:
    """`kgroup simulate --client CLIENT` of the same scenario, read from its JSON: the file alone (classic),
    or (consumer protocol) `--protocol consumer` of the file with the broker's member ids, starting
    assignment and `group.consumer.*` settings written in."""
    if protocol == "classic":
        body = _simulate(plan.path, "--client", client)
        rebalances = [Rebalance(r["start_ms"], r["end_ms"], r["generation"]) for r in body["rebalances"]]
        changes: dict[str, list[tuple[str, frozenset[str], int | None]]] = {}
        for event in body["events"]:
            if event["kind"].startswith("partitions-") and event["partitions"]:
                changes.setdefault(event["member"], []).append(
                    (event["kind"].removeprefix("partitions-"), frozenset(event["partitions"]), event.get("generation"))
                )
        final = {m: frozenset(ps) for m, ps in body["final_assignment"].items()}
        return Predicted(rebalances, changes, final)
    return _predict_consumer(plan, run, client)


def _simulate(path: Path | str, *flags: str) -> dict[str, Any]:
    out = subprocess.run(
        [str(Path(sys.executable).parent / "kgroup"), "simulate", str(path), *flags, "-o", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout)


def _predict_consumer(plan: Plan, run: LiveRun, client: str) -> Predicted:
    """The server assignor breaks ties by member id, and KIP-1082 clients pick random ones: the file kgroup
    reads names the members by the ids the broker's members picked, in the order the broker listed them."""
    ids = {m: run.member_ids[m] for m in plan.members()}
    back = {v: k for k, v in ids.items()}
    data = json.loads(json.dumps(plan.data))  # a copy, with the broker's member ids for the handles
    group = data["groups"][0]
    group["generation"] = run.start_generation
    listed = {handle: n for n, handle in enumerate(run.start_order)}
    in_order = sorted(group["members"], key=lambda m: listed.get(m["member_id"], len(listed)))
    group["members"] = [{**m, "member_id": ids[m["member_id"]]} for m in in_order]
    group["assignment"] = {ids[m]: _by_topic(ps) for m, ps in run.start_assignment.items()}
    data["clients"] = {ids.get(k, k): v for k, v in (data.get("clients") or {}).items()}
    data["events"] = [" ".join(ids.get(w, w) for w in e.split()) for e in data["events"]]
    for topic in data["cluster"]["topics"]:
        if topic["name"] in run.topic_ids:
            topic["id"] = run.topic_ids[topic["name"]]
    data["cluster"]["kafka_version"] = jars.version()  # uniform's rules changed in 4.1 (KAFKA-18688)
    consumer_settings = ("group.consumer.session.timeout.ms", "group.consumer.heartbeat.interval.ms")
    data["broker"] = {**(data.get("broker") or {}), **{k: int(BROKER_SETTINGS[k]) for k in consumer_settings}}
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as renamed:
        yaml.safe_dump(data, renamed)
    try:
        (body,) = _simulate(renamed.name, "--protocol", "consumer", "--client", client)["protocols"]
    finally:
        os.unlink(renamed.name)
    rebalances = [Rebalance(r["start_ms"], r["end_ms"], r["group_epoch"]) for r in body["rebalance_list"]]
    final = {back.get(m, m): frozenset(ps) for m, ps in body["final_assignment"].items()}
    epochs = {back.get(m, m): e for m, e in body["member_epochs"].items()}
    return Predicted(rebalances, None, final, epochs)


def _by_topic(partitions: frozenset[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for name in sorted(partitions):
        topic, _, number = name.rpartition("-")
        out.setdefault(topic, []).append(int(number))
    return out


# -- the comparison ---------------------------------------------------------------------------------------


def _fmt(parts: frozenset[str]) -> str:
    return ",".join(sorted(parts, key=lambda p: (p.rpartition("-")[0], int(p.rpartition("-")[2])))) or "-"


def compare(plan: Plan, live: LiveRun, kgroup: Predicted, tolerance_ms: int, protocol: str) -> tuple[str, list[str]]:
    """A report (printed by the test) and the differences: number, order and generation (or group epoch)
    of the rebalances, each start and end within `tolerance_ms`, the final assignment, and (Java, classic)
    what each member was assigned in each generation."""
    differences = []
    unit = "generation" if protocol == "classic" else "group epoch"
    # A broker's new group starts at generation 1 (epoch 2 for two KIP-848 members); a scenario that starts
    # at another one is compared by how far each generation is from the start.
    shift = int(plan.group.get("generation") or 0) - live.start_generation if protocol == "classic" else 0
    lines = [
        f"scenario {plan.path.name}: {plan.data.get('description', '')}",
        f"  start: {unit} {live.start_generation}"
        + (f" (kgroup's: {live.start_generation + shift})" if shift else "")
        + ", "
        + "  ".join(f"{m}={_fmt(p)}" for m, p in sorted(live.start_assignment.items())),
        "  events: " + ", ".join(f"{what} at {ms} ms" for ms, what in live.events),
        f"  rebalances (tolerance {tolerance_ms} ms):  broker vs kgroup",
    ]
    if not live.rebalances and not kgroup.rebalances:
        lines.append("    none on either side")
    for i in range(max(len(live.rebalances), len(kgroup.rebalances))):
        b = live.rebalances[i] if i < len(live.rebalances) else None
        k = kgroup.rebalances[i] if i < len(kgroup.rebalances) else None
        left = f"{unit} {b.generation}: {b.start_ms} -> {b.end_ms} ms" if b else "(none)"
        right = f"{unit} {k.generation}: {k.start_ms} -> {k.end_ms} ms" if k else "(none)"
        lines.append(f"    #{i + 1}  {left:38} | {right}")
        if b is None or k is None:
            differences.append(f"rebalance #{i + 1}: broker {left}, kgroup {right}")
            continue
        if b.generation + shift != k.generation:
            differences.append(
                f"rebalance #{i + 1}: broker {unit} {b.generation}, kgroup {k.generation}"
                + (f" (starting {shift} higher)" if shift else "")
            )
        for what, x, y in (("start", b.start_ms, k.start_ms), ("end", b.end_ms, k.end_ms)):
            if x is None or y is None:
                if x != y:
                    differences.append(f"rebalance #{i + 1} {what}: broker {x}, kgroup {y}")
            elif abs(x - y) > tolerance_ms:
                differences.append(
                    f"rebalance #{i + 1} {what}: broker {x} ms, kgroup {y} ms "
                    f"(off by {abs(x - y)} ms > {tolerance_ms} ms)"
                )
    if kgroup.changes is not None:
        for member in sorted(set(kgroup.changes) | {c.member for c in live.callbacks}):
            want = kgroup.changes.get(member, [])
            got = [c for c in live.callbacks if c.member == member and c.at_ms >= 0 and c.partitions]
            same = len(got) == len(want) and all(
                (c.kind, c.partitions) == (kind, parts)
                and (kind != "assigned" or c.generation is None or c.generation + shift == generation)
                for c, (kind, parts, generation) in zip(got, want)
            )
            if not same:
                differences.append(
                    f"{member}'s callbacks: broker "
                    f"{[(c.kind, _fmt(c.partitions), c.generation) for c in got]}, kgroup "
                    f"{[(k, _fmt(p), g) for k, p, g in want]}"
                )
    lines.append(
        "  callbacks (broker): "
        + "; ".join(
            f"{c.at_ms} {c.member} {c.kind} {_fmt(c.partitions)}"
            + (f" @{c.generation}" if c.generation is not None else "")
            for c in live.callbacks
            if c.partitions or c.kind == "assigned"
        )
    )
    lines.append("  final (broker): " + "  ".join(f"{m}={_fmt(p)}" for m, p in sorted(live.final.items())))
    lines.append("  final (kgroup): " + "  ".join(f"{m}={_fmt(p)}" for m, p in sorted(kgroup.final.items())))
    if live.final != kgroup.final:
        differences.append(f"final assignment: broker {live.final}, kgroup {kgroup.final}")
    if protocol == "consumer":
        lines.append(f"  member epochs at the end: broker {live.member_epochs}, kgroup {kgroup.member_epochs}")
        if live.member_epochs != kgroup.member_epochs:
            differences.append(f"member epochs: broker {live.member_epochs}, kgroup {kgroup.member_epochs}")
    lines.append("  differences: " + ("none" if not differences else "; ".join(differences)))
    return "\n".join(lines), differences
