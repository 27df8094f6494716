"""Apache Kafka brokers from the cached jars (tests/kafka/jars.py): one combined KRaft node, or a cluster.

Each node is a `java kafka.Kafka server.properties` process in its own session, on free 127.0.0.1 ports,
its KRaft storage formatted first by `kafka.tools.StorageTool`. A node is up when its log says
"Kafka Server started" while the process still runs and its port accepts; it is stopped by pid (SIGTERM,
then SIGKILL). The group settings are the test-friendly ones: no initial rebalance delay
(`group.initial.rebalance.delay.ms`, GroupCoordinatorConfig), and short minimum session and heartbeat
intervals for both protocols, so a dead member is noticed in seconds.
"""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.kafka import jars

# Sized for a loaded 2-core machine: a node is seen "started" in about 3 s when idle.
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0

GROUP_SETTINGS = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    "group.consumer.min.session.timeout.ms": "6000",
    "group.consumer.session.timeout.ms": "6000",
    "group.consumer.min.heartbeat.interval.ms": "500",
    "group.consumer.heartbeat.interval.ms": "500",
    "group.share.min.session.timeout.ms": "6000",
    "group.share.session.timeout.ms": "6000",
    "group.share.min.heartbeat.interval.ms": "500",
    "group.share.heartbeat.interval.ms": "500",
    "log.cleaner.dedupe.buffer.size": "2097152",
    "num.network.threads": "2",
    "num.io.threads": "2",
    "auto.create.topics.enable": "false",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _properties(values: Mapping[str, str]) -> str:
    return "".join(f"{key}={value}\n" for key, value in values.items())


@dataclass
class Node:
    node_id: int
    folder: Path
    port: int
    controller_port: int
    properties: dict[str, str]
    release: str  # the Apache Kafka release whose jars run this node
    process: subprocess.Popen | None = None
    # Classes put before the release's jars, and JVM options (tests/kafka/new_member_timeout.py uses both).
    classpath_prefix: Path | None = None
    java_options: tuple[str, ...] = ()
    log_path: Path = field(init=False)
    starts: int = 0

    def __post_init__(self) -> None:
        self.log_path = self.folder / "broker.log"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self, heap: str = "512m", wait: bool = True) -> None:
        """Start the node (again, after a stop: the same ports and storage) and wait until it serves."""
        (self.folder / "server.properties").write_text(_properties(self.properties))
        self.starts += 1
        marker = f"=== start {self.starts} ===\n"
        with open(self.log_path, "a") as log:
            log.write(marker)
            log.flush()
            self.process = subprocess.Popen(
                [
                    "java",
                    f"-Xmx{heap}",
                    "-Xms128m",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-Djava.awt.headless=true",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                    *self.java_options,
                    "-cp",
                    self._classpath(),
                    "kafka.Kafka",
                    str(self.folder / "server.properties"),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=jars.java_env(),
            )
        if wait:
            self.wait_started(marker)

    def _classpath(self) -> str:
        jars_of_release = jars.classpath(self.release)
        return f"{self.classpath_prefix}{os.pathsep}{jars_of_release}" if self.classpath_prefix else jars_of_release

    def wait_started(self, marker: str | None = None) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        marker = marker or f"=== start {self.starts} ===\n"
        while time.monotonic() < deadline:
            if not self.running:
                raise RuntimeError(f"Apache Kafka node {self.node_id} exited while starting:\n{self.log()[-3000:]}")
            text = self.log()
            if "Kafka Server started" in text[text.rfind(marker) :]:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=2).close()
                    return
                except OSError:
                    pass
            time.sleep(0.1)
        self.stop(kill=True)
        raise RuntimeError(
            f"Apache Kafka node {self.node_id} did not start within {START_TIMEOUT_S:.0f} s:\n{self.log()[-3000:]}"
        )

    def stop(self, kill: bool = False) -> None:
        """SIGKILL when `kill`, else SIGTERM (a clean shutdown) and SIGKILL after STOP_TIMEOUT_S."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def random_cluster_id() -> str:
    """What `StorageTool random-uuid` prints (Kafka's Uuid.randomUuid: a random UUID, URL-safe base64 without
    padding, never starting with "-"), without starting a JVM for it: seconds on a loaded machine."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not text.startswith("-"):
            return text


def _run_tool(release: str, *args: str) -> str:
    # The flags of Node.start: a short-lived JVM starts faster with C1 only and the serial collector.
    result = subprocess.run(
        [
            "java",
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            jars.classpath(release),
            "kafka.tools.StorageTool",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=jars.java_env(),
    )
    if result.returncode != 0:
        raise RuntimeError(f"StorageTool {' '.join(args[:1])} failed: {(result.stdout + result.stderr)[-2000:]}")
    return result.stdout.strip()


def _base(
    node_id: int, folder: Path, port: int, controller_port: int, listeners: dict[str, tuple[str, int]], replication: int
) -> dict[str, str]:
    """Server properties of a combined broker+controller; `listeners`: name -> (security protocol, port)."""
    names = {"PLAINTEXT": ("PLAINTEXT", port), **listeners}
    props = {
        "process.roles": "broker,controller",
        "node.id": str(node_id),
        "listeners": ",".join(f"{n}://127.0.0.1:{p}" for n, (_, p) in names.items())
        + f",CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": ",".join(f"{n}://127.0.0.1:{p}" for n, (_, p) in names.items())
        + f",CONTROLLER://127.0.0.1:{controller_port}",
        "listener.security.protocol.map": ",".join(f"{n}:{proto}" for n, (proto, _) in names.items())
        + ",CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name": "PLAINTEXT",
        "controller.listener.names": "CONTROLLER",
        "log.dirs": str(folder / "data"),
        "offsets.topic.replication.factor": str(replication),
        "offsets.topic.num.partitions": "50",
        "transaction.state.log.replication.factor": str(replication),
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": str(replication),
        "share.coordinator.state.topic.min.isr": "1",
        "default.replication.factor": str(replication),
        "min.insync.replicas": "1",
        **GROUP_SETTINGS,
    }
    return props


def single(
    folder: Path,
    release: str | None = None,
    listeners: dict[str, tuple[str, int]] | None = None,
    extra: Mapping[str, str] | None = None,
    format_args: tuple[str, ...] = (),
) -> Node:
    """One formatted (not yet started) combined node; `extra` adds or overrides server properties."""
    release = release or jars.version()
    folder.mkdir(parents=True, exist_ok=True)
    port, controller_port = free_port(), free_port()
    props = _base(1, folder, port, controller_port, listeners or {}, replication=1)
    props["controller.quorum.bootstrap.servers"] = f"127.0.0.1:{controller_port}"
    props.update(extra or {})
    node = Node(1, folder, port, controller_port, props, release)
    (folder / "server.properties").write_text(_properties(props))
    cluster_id = random_cluster_id()
    _run_tool(
        release, "format", "-t", cluster_id, "-c", str(folder / "server.properties"), "--standalone", *format_args
    )
    return node


def cluster(
    folder: Path, size: int = 3, release: str | None = None, extra: Mapping[str, str] | None = None
) -> list[Node]:
    """`size` formatted combined nodes with static voters (controller.quorum.voters), replication `size`;
    `extra` adds or overrides server properties on every node."""
    release = release or jars.version()
    ports = [(free_port(), free_port()) for _ in range(size)]
    voters = ",".join(f"{i + 1}@127.0.0.1:{c}" for i, (_, c) in enumerate(ports))
    cluster_id = random_cluster_id()
    nodes = []
    for i, (port, controller_port) in enumerate(ports):
        node_folder = folder / f"node-{i + 1}"
        node_folder.mkdir(parents=True, exist_ok=True)
        props = _base(i + 1, node_folder, port, controller_port, {}, replication=size)
        props["controller.quorum.voters"] = voters
        props.update(extra or {})
        node = Node(i + 1, node_folder, port, controller_port, props, release)
        (node_folder / "server.properties").write_text(_properties(props))
        _run_tool(release, "format", "-t", cluster_id, "-c", str(node_folder / "server.properties"))
        nodes.append(node)
    return nodes


def warm_up_coordinators(address: str, offsets_partitions: int = 50) -> None:
    """Ask every `__consumer_offsets` partition's coordinator for a group's offsets until it answers.

    A fresh broker creates `__consumer_offsets` on the first FindCoordinator and loads each partition's
    coordinator afterwards (CoordinatorRuntime "Finished loading of metadata"); until then a commit answers
    NOT_COORDINATOR, which confluent-kafka's explicit commit does not retry. One OffsetFetch per partition
    (through a group id whose `coordinator_partition` is that partition) leaves no group behind.
    """
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    from kgroup.assignors.java.semantics import coordinator_partition

    probes: dict[int, str] = {}
    index = 0
    while len(probes) < offsets_partitions:
        group = f"kgroup-rig-probe-{index}"
        probes.setdefault(coordinator_partition(group, offsets_partitions), group)
        index += 1
    deadline = time.monotonic() + START_TIMEOUT_S
    for group in probes.values():
        consumer = Consumer({"bootstrap.servers": address, "group.id": group, "enable.auto.commit": False})
        try:
            while True:
                try:
                    consumer.committed([TopicPartition("__consumer_offsets", 0)], timeout=10)
                    break
                except KafkaException:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
        finally:
            consumer.close()


def stop_all(nodes: list[Node]) -> None:
    """Stop every node at once: one by one, the last ones wait for a quorum that is gone."""
    for node in nodes:
        if node.running:
            try:
                os.killpg(node.process.pid, signal.SIGTERM)  # type: ignore[union-attr]
            except ProcessLookupError:
                pass
    for node in nodes:
        node.stop()


def start_cluster(nodes: list[Node], heap: str = "384m") -> None:
    """Start every node, one after another (a KRaft quorum needs a majority before a broker registers)."""
    for node in nodes:
        node.start(heap=heap, wait=False)
    for node in nodes:
        node.wait_started()


@contextmanager
def running_cluster(folder: Path, extra: Mapping[str, str] | None = None) -> Iterator[list[Node]]:
    """Three formatted nodes (`cluster`) started, their `__consumer_offsets` coordinators warmed up, and all
    stopped by pid when the block ends."""
    nodes = cluster(folder, size=3, extra=extra)
    try:
        start_cluster(nodes)
        warm_up_coordinators(",".join(n.address for n in nodes))
        yield nodes
    finally:
        stop_all(nodes)


def wait_fully_replicated(nodes: list[Node], timeout_s: float = START_TIMEOUT_S) -> None:
    """Until every partition of every topic (`__consumer_offsets` included) has a leader and all of `nodes` in
    sync, as the cluster's metadata says: after a node comes back, before the next fault may take another."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": ",".join(n.address for n in nodes)})
    every = {n.node_id for n in nodes}
    deadline = time.monotonic() + timeout_s
    behind: list[str] = ["no metadata yet"]
    while time.monotonic() < deadline:
        try:
            topics = admin.list_topics(timeout=10).topics
        except KafkaException as exc:  # a node still starting: ask again
            behind = [str(exc)]
            time.sleep(0.2)
            continue
        behind = [
            f"{name}-{p.id} (leader {p.leader}, isr {sorted(p.isrs)})"
            for name, t in topics.items()
            for p in t.partitions.values()
            if p.leader < 0 or set(p.isrs) != every
        ]
        if not behind and "__consumer_offsets" in topics:
            return
        time.sleep(0.2)
    raise RuntimeError(f"not fully replicated within {timeout_s:.0f} s: {', '.join(behind[:5])}")


def create_topics(broker: str, topics: Mapping[str, int], timeout_s: float = START_TIMEOUT_S) -> dict[str, str]:
    """Create `topics` (name: partitions, one replica) and wait until the broker describes every one; returns
    each topic's id. CreateTopics answers once the controller has the topic, which the broker's metadata cache
    may learn a moment later: a DescribeTopics or a subscription in between sees UNKNOWN_TOPIC_OR_PART."""
    from confluent_kafka import KafkaError, KafkaException, TopicCollection
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": broker})
    for future in admin.create_topics([NewTopic(t, n, 1) for t, n in topics.items()]).values():
        future.result(60)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            described = admin.describe_topics(TopicCollection(list(topics)), request_timeout=30)
            return {t: str(f.result(60).topic_id) for t, f in described.items()}
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.UNKNOWN_TOPIC_OR_PART or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def coordinator_of(nodes: list[Node], group: str, timeout_s: float = START_TIMEOUT_S) -> Node:
    """The node Kafka names as `group`'s coordinator now (FindCoordinator through Kafka's own answer), asked
    again while a fault settles: after a node dies, the describe may reach a broker that no longer leads the
    group's offsets partition, or one still loading it (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, which
    confluent-kafka's describe does not retry), until the controller has fenced the node and moved leadership."""
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import AdminClient

    settling = {
        KafkaError.NOT_COORDINATOR,
        KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
        KafkaError.COORDINATOR_NOT_AVAILABLE,
        KafkaError._TIMED_OUT,
        KafkaError._TRANSPORT,
    }
    admin = AdminClient({"bootstrap.servers": ",".join(n.address for n in nodes if n.running)})
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            described = admin.describe_consumer_groups([group], request_timeout=30)[group].result(60)
            return next(n for n in nodes if n.node_id == described.coordinator.id)
        except KafkaException as exc:
            if exc.args[0].code() not in settling or time.monotonic() > deadline:
                raise
            time.sleep(0.5)
