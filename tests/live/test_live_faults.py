"""Every way a live command loses the cluster, with its exit code: one line on stderr naming the address
and the request, and no waiting out --timeout when the answer is already known.

`--timeout 30` below is far longer than any of these faults should take: a command that waited it out
would fail the `elapsed < 30` check, which is what "fails fast" means here (not a speed target).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kgroup.inspectors.errors import NotReachableError
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.live.consumer_groups import read_groups
from kgroup.inspectors.live.connection_settings import ConnectionSettings
from tests.kafka.broker import Node
from tests.live.traffic import commit, topic_with_records

KGROUP = str(Path(sys.executable).parent / "kgroup")


def _kgroup(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run([KGROUP, *args], capture_output=True, text=True, timeout=120)
    return done, time.monotonic() - started


def _one_line(stderr: str) -> str:
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    return stderr


@pytest.fixture
def own_broker(own_kafka: Node) -> tuple[str, subprocess.Popen]:
    """An Apache Kafka broker of the test's own (the session broker must survive), with a topic and a
    committed group; yields (bootstrap, the broker's process)."""
    topic_with_records(own_kafka.address, "orders", [3, 3])
    commit(own_kafka.address, "billing", {("orders", 0): 1, ("orders", 1): 2})
    return own_kafka.address, own_kafka.process  # type: ignore[return-value]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket is closed: connections are refused


def test_a_malformed_address_is_bad_input_at_once() -> None:
    done, elapsed = _kgroup("groups", "-b", "127.0.0.1:notaport", "--timeout", "30")
    assert done.returncode == 2
    assert "127.0.0.1:notaport" in _one_line(done.stderr) and "--bootstrap-server" in done.stderr
    assert elapsed < 30


def test_a_refused_connection_is_exit_4_without_waiting_out_the_timeout() -> None:
    address = f"127.0.0.1:{_closed_port()}"
    done, elapsed = _kgroup("describe", "billing", "-b", address, "--timeout", "30")
    assert done.returncode == 4, done.stderr
    line = _one_line(done.stderr)
    assert line.startswith(f"kgroup: error: cannot reach {address}") and "during Metadata" in line
    assert "refused" in line
    assert elapsed < 30


def test_an_unresolvable_host_is_exit_4_without_waiting_out_the_timeout() -> None:
    done, elapsed = _kgroup("groups", "-b", "no-such-host.invalid:9092", "--timeout", "30")
    assert done.returncode == 4, done.stderr
    assert "no-such-host.invalid:9092" in _one_line(done.stderr) and "resolve" in done.stderr
    assert elapsed < 30


def test_an_authentication_failure_says_so_with_exit_7(broker: str, tmp_path: Path) -> None:
    """SASL against a broker that does not take these credentials: an answer, not an unreachable cluster."""
    config = tmp_path / "client.properties"
    config.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        'username="alice" password="s3cr3t-value";\n'
    )
    done, elapsed = _kgroup("groups", "-b", broker, "--command-config", str(config), "--timeout", "30")
    assert done.returncode == 7, done.stderr
    line = _one_line(done.stderr)
    assert line.startswith(f"kgroup: error: authentication with {broker}") and "cannot reach" not in line
    assert "s3cr3t-value" not in done.stderr + done.stdout
    assert elapsed < 30


def test_a_broker_killed_while_a_request_is_in_flight_is_exit_4(own_broker: tuple[str, subprocess.Popen]) -> None:
    """The broker hangs (SIGSTOP) so the request is in flight, then dies (SIGKILL) under it."""
    bootstrap, process = own_broker
    process.send_signal(signal.SIGSTOP)
    threading.Timer(2.0, process.kill).start()
    done, elapsed = _kgroup(
        "offsets", "reset", "billing", "--all-topics", "--to-earliest", "-b", bootstrap, "--timeout", "30"
    )
    assert done.returncode == 4, done.stderr
    line = _one_line(done.stderr)
    assert line.startswith(f"kgroup: error: cannot reach {bootstrap}") and "during " in line
    assert elapsed < 30


def test_a_broker_gone_between_two_requests_names_the_request(own_broker: tuple[str, subprocess.Popen]) -> None:
    """`describe` read the metadata, then the broker went away before DescribeGroups: exit 4, not 1."""
    bootstrap, process = own_broker
    admin = LiveAdmin(ConnectionSettings(bootstrap), timeout_s=30)
    admin.metadata()
    process.kill()
    process.wait(30)
    started = time.monotonic()
    with pytest.raises(NotReachableError) as caught:
        read_groups(admin, ["billing"])
    assert time.monotonic() - started < 30
    message = str(caught.value)
    assert message.startswith(f"cannot reach {bootstrap}") and "during " in message and "\n" not in message
