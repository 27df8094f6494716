"""Real Kafka Java consumers (kafka-clients of the broker's release) for the live tests.

`tests/live/java/ConsumerDriver.java` is compiled once per session against the same jars the broker runs
(`compiled`), and one JVM per group hosts every member of that group, each KafkaConsumer on its own thread,
driven over stdin and reporting its rebalance callbacks over stdout as JSON lines. One JVM rather than one
per consumer: on a 2-core machine five JVMs starting at once would spend seconds compiling and collecting,
and each rebalance would wait for the slowest of them.

`JavaConsumers` has the interface of `real_consumers.Consumers` (join, leave, callbacks, settle,
member_ids, close), so a test can run either client.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.kafka import jars
from tests.live.real_consumers import Group, Member

DRIVER_SOURCE = Path(__file__).parent / "java" / "ConsumerDriver.java"
# kgroup's strategy names -> the classes partition.assignment.strategy names (org.apache.kafka.clients.consumer).
STRATEGIES = {
    "range": "org.apache.kafka.clients.consumer.RangeAssignor",
    "roundrobin": "org.apache.kafka.clients.consumer.RoundRobinAssignor",
    "sticky": "org.apache.kafka.clients.consumer.StickyAssignor",
    "cooperative-sticky": "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
}
# The classic protocol: the matrix is about the client-side assignors the group's leader runs.
SETTINGS = {
    "group.protocol": "classic",
    "session.timeout.ms": "6000",
    "heartbeat.interval.ms": "500",
    "enable.auto.commit": "false",
    "auto.offset.reset": "earliest",
}
# A small, quickly started JVM: C1 only, the serial collector, a small heap for up to five consumers.
JVM_FLAGS = [
    "-Xmx128m",
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    "-Xss512k",
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
]
START_TIMEOUT_S = 60
LEAVE_TIMEOUT_S = 45

_compiled: dict[str, Path] = {}


def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The driver's classes, compiled against the session's kafka-clients (once per session and release)."""
    from tests.live.conftest import require_kafka

    require_kafka()
    release = jars.version()
    if release not in _compiled:
        out = tmp_path_factory.mktemp("java-driver")
        result = subprocess.run(
            ["javac", "-nowarn", "-d", str(out), "-cp", jars.classpath(), str(DRIVER_SOURCE)],
            capture_output=True,
            text=True,
            timeout=180,
            env=jars.java_env(),
        )
        if result.returncode != 0:
            pytest.fail(
                f"javac could not compile {DRIVER_SOURCE.name} against kafka-clients {release}:\n"
                f"{result.stdout}{result.stderr}"
            )
        _compiled[release] = out
    return _compiled[release]


class JavaConsumers(Group):
    """Kafka's Java consumers of one group, in one JVM; callbacks arrive on a reader thread."""

    client = "java"

    def __init__(
        self,
        broker: str,
        group: str,
        partitions: dict[str, int],
        strategy: str,
        classes: Path,
        log_dir: Path,
        settings: dict[str, str] | None = None,
    ) -> None:
        """`settings`: the consumers' configuration instead of SETTINGS (a KIP-848 group's: group.protocol
        consumer, group.remote.assignor; `strategy` is then not a kgroup strategy name and none is sent)."""
        super().__init__(broker, group, partitions, strategy)
        self.classes, self.log_path = classes, log_dir / f"java-consumers-{group}.log"
        self.settings = SETTINGS if settings is None else settings
        self.described: dict[str, dict] = {}
        self.process: subprocess.Popen | None = None
        self.closed: set[str] = set()
        self.errors: list[str] = []
        self._ready = threading.Event()
        self._reader: threading.Thread | None = None

    def _start(self) -> subprocess.Popen:
        if self.process is None:
            with open(self.log_path, "wb") as log:
                self.process = subprocess.Popen(
                    ["java", *JVM_FLAGS, "-cp", f"{self.classes}{os.pathsep}{jars.classpath()}", "ConsumerDriver"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                    bufsize=1,
                    env=jars.java_env(),
                )
            self._reader = threading.Thread(target=self._read, args=(self.process,), daemon=True)
            self._reader.start()
            if not self._ready.wait(START_TIMEOUT_S):
                raise AssertionError(f"the Java consumer driver did not start in {START_TIMEOUT_S} s: {self._log()}")
        return self.process

    def _read(self, process: subprocess.Popen) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                self.errors.append(f"the driver printed a line that is not JSON: {line.strip()[:200]!r}")
                continue
            kind, name = event["event"], event.get("name")
            if kind == "ready":
                self._ready.set()
                continue
            if kind == "closed":
                self.closed.add(name)
                continue
            if kind == "error":
                self.errors.append(f"{name}: {event['message']}")
                continue
            if kind == "described":
                self.described[event["id"]] = event["groups"]
                continue
            member = self.members.get(name)
            if member is None:
                continue  # a member that left: its close revokes what it held
            if event.get("member_id"):
                member.member_id = event["member_id"]
            partitions = {(t, p) for t, p in event["partitions"]}
            if kind == "assigned":
                member.assigned(partitions)
                if event.get("generation") is not None:
                    member.generations = member.generations | {event["generation"]}
            else:  # revoked, lost
                member.revoked(partitions)

    def _send(self, command: dict) -> None:
        process = self._start()
        assert process.stdin is not None
        process.stdin.write(json.dumps(command) + "\n")
        process.stdin.flush()

    def _log(self) -> str:
        return self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else "(no log)"

    def _problem(self) -> str | None:
        if self.errors:
            return "; ".join(self.errors)
        if self.process is not None and self.process.poll() is not None:
            return f"the JVM exited with {self.process.returncode}: {self._log()}"
        return None

    def join(
        self, name: str, topics: tuple[str, ...], instance_id: str | None = None, client_id: str | None = None
    ) -> Member:
        member = Member(name, topics, instance_id)
        self.members[name] = member
        self._send(
            {
                "op": "join",
                "name": name,
                "bootstrap": self.broker,
                "group": self.group,
                "strategy": STRATEGIES.get(self.strategy),
                "topics": list(topics),
                "instance": instance_id,
                "config": {**self.settings, "client.id": client_id or name},
            }
        )
        return member

    def leave(self, name: str) -> None:
        """Close the consumer: a dynamic member sends LeaveGroup, a static one leaves its session to expire."""
        self.members.pop(name)
        self._send({"op": "leave", "name": name})
        deadline = time.monotonic() + LEAVE_TIMEOUT_S
        while name not in self.closed:
            if time.monotonic() > deadline or self._problem():
                raise AssertionError(
                    f"Java consumer {name} did not close in {LEAVE_TIMEOUT_S} s: {self._problem() or self._log()}"
                )
            time.sleep(0.05)

    def member_ids(self) -> dict[str, str]:
        return {name: m.member_id for name, m in self.members.items()}

    def describe(self, groups: list[str], timeout_s: float = 60) -> dict[str, dict]:
        """Kafka's own reading of `groups` (Admin.describeConsumerGroups in the driver's JVM): per group its
        state, epochs, assignor and members with their epochs and current and target assignments."""
        request = f"describe-{len(self.described)}-{time.monotonic_ns()}"
        self._send({"op": "describe", "id": request, "bootstrap": self.broker, "groups": groups})
        deadline = time.monotonic() + timeout_s
        while request not in self.described:
            if time.monotonic() > deadline or self._problem():
                raise AssertionError(
                    f"Admin.describeConsumerGroups gave no answer in {timeout_s:.0f} s: "
                    f"{self._problem() or self._log()}"
                )
            time.sleep(0.05)
        return self.described.pop(request)

    def close(self) -> None:
        self.members.clear()
        process, self.process = self.process, None
        if process is None:
            return
        try:
            assert process.stdin is not None
            process.stdin.write(json.dumps({"op": "quit"}) + "\n")
            process.stdin.close()
            process.wait(LEAVE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
