"""A port that answers but is not Kafka is named as such in one line, within a couple of seconds, by every
live command (issue 39: an HTTP server was "all brokers are down" after the whole --timeout). A real Kafka
listener reached with the wrong security.protocol is named as that, not as "not Kafka"."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import run_process
from tests.live.test_exit_code_matrix_live import live_commands, one_error_line

BOUND_S = 12.0  # the probe answers in under 2 s; the rest is kgroup's start on a loaded 2-core machine


@pytest.fixture
def http_port() -> Iterator[int]:
    """Python's own HTTP server on a free 127.0.0.1 port, in a thread."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_every_live_command_names_an_http_server_in_one_line_fast(http_port: int, tmp_path: Path) -> None:
    address = f"127.0.0.1:{http_port}"
    for name, args in live_commands("g", "t", tmp_path).items():
        started = time.monotonic()
        result = run_process(*args, "-b", address, "--timeout", "60")
        took = time.monotonic() - started
        assert result.returncode == 4, (name, result.stderr)  # README: the cluster cannot be reached
        line = one_error_line(result)
        assert line.startswith(
            f"kgroup: error: {address} answered but not as a Kafka broker (is it the right "
            "port, and does security.protocol match?)"
        ), (name, line)
        assert "HTTP server" in line and "all brokers are down" not in line, (name, line)
        assert took < BOUND_S, (name, took)  # not the 60 s --timeout


def test_a_kafka_listener_with_the_wrong_security_protocol_is_named_not_taken_for_something_else(
    broker: str, tmp_path: Path
) -> None:
    config = tmp_path / "ssl.properties"
    config.write_text("security.protocol=SSL\n")
    started = time.monotonic()
    result = run_process("groups", "-b", broker, "--command-config", str(config), "--timeout", "60")
    assert result.returncode == 4, result.stderr
    line = one_error_line(result)
    # librdkafka names this one itself ("connecting to a PLAINTEXT broker listener?"), kgroup's probe when it does not
    assert "PLAINTEXT" in line and "not as a Kafka broker" not in line, line
    assert time.monotonic() - started < BOUND_S


def test_a_plaintext_probe_of_a_tls_listener_names_tls_and_a_right_config_is_never_probed_wrong(
    secured_kafka, tmp_path: Path
) -> None:
    ssl_address = secured_kafka.address("SSL")
    plain = tmp_path / "plain.properties"
    plain.write_text("security.protocol=PLAINTEXT\n")
    result = run_process("groups", "-b", ssl_address, "--command-config", str(plain), "--timeout", "60")
    assert result.returncode == 4, result.stderr
    line = one_error_line(result)
    assert "answered but not as a Kafka broker" in line and "TLS" in line, line
    right = secured_kafka.command_config("alice", None, tls=True)
    ok = run_process("groups", "-b", ssl_address, "--command-config", str(right), "--timeout", "60")
    assert ok.returncode == 0, ok.stderr
