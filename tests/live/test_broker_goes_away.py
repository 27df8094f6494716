"""A broker that goes away mid-command: one line naming the address, exit code 4, nothing written.

Each test starts its own Apache Kafka broker (the session broker must survive) and stops it cleanly by pid
part-way through (tests/live/test_live_faults.py kills one instead).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kgroup.inspectors.live.connection_settings import ConnectionSettings
from kgroup.inspectors.errors import NotReachableError
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.live.consumer_groups import read_groups
from tests.cli.helpers import run
from tests.kafka.broker import Node
from tests.live.traffic import commit, topic_with_records


@pytest.fixture
def doomed_broker(own_kafka: Node) -> tuple[str, Node]:
    """An Apache Kafka broker of the test's own, with a topic and a committed group; yields (bootstrap, node)."""
    topic_with_records(own_kafka.address, "orders", [3, 3])
    commit(own_kafka.address, "billing", {("orders", 0): 1, ("orders", 1): 2})
    return own_kafka.address, own_kafka


def test_a_broker_stopping_between_two_requests_gives_a_clear_error(doomed_broker: tuple[str, Node]) -> None:
    bootstrap, process = doomed_broker
    admin = LiveAdmin(ConnectionSettings(bootstrap), timeout_s=3)
    admin.metadata()  # the command has started: the cluster answered
    process.stop()  # a clean shutdown (SIGTERM): the broker leaves, it does not crash

    started = time.monotonic()
    with pytest.raises(NotReachableError) as caught:
        read_groups(admin, ["billing"])
    elapsed = time.monotonic() - started

    assert bootstrap in str(caught.value) and "\n" not in str(caught.value)
    assert elapsed < 3 * 4, f"took {elapsed:.1f} s"  # each call is bounded by the timeout, a few calls at most


def test_snapshot_writes_nothing_when_the_broker_is_gone(doomed_broker: tuple[str, Node], tmp_path: Path) -> None:
    bootstrap, process = doomed_broker
    process.stop()  # a clean shutdown (SIGTERM): the broker leaves, it does not crash
    out = tmp_path / "billing.yaml"

    result = run("snapshot", "billing", "-b", bootstrap, "--timeout", "2", "-o", str(out))

    assert result.exit_code == 4, result.output
    assert result.stderr.startswith(f"kgroup: error: cannot reach {bootstrap}") and result.stderr.count("\n") == 1
    assert not out.exists() and list(tmp_path.glob(".kgroup-*")) == []


# A process that asked a group's coordinator while the broker was away, then goes on after the broker is back.
_ASKS_ACROSS_A_RESTART = textwrap.dedent(
    """
    import sys, time
    from kgroup.inspectors.errors import NotReachableError
    from kgroup.inspectors.live.admin import LiveAdmin
    from kgroup.inspectors.live.connection_settings import ConnectionSettings

    admin = LiveAdmin(ConnectionSettings(sys.argv[1]), timeout_s=2)
    print("answered", admin.describe(["billing"])["billing"].state.name, flush=True)
    sys.stdin.readline()  # the broker is down
    failures = 0
    for _ in range(2):  # asked again, as a retrying command does (librdkafka aborted with two requests left)
        try:
            admin.describe(["billing"])
        except NotReachableError:
            failures += 1
    print("unreachable", failures, flush=True)
    sys.stdin.readline()  # the broker is serving again
    deadline = time.monotonic() + 90
    while True:
        try:
            print("answered", admin.describe(["billing"])["billing"].state.name, flush=True)
            break
        except NotReachableError:
            if time.monotonic() > deadline:
                raise
    """
)


def test_a_coordinator_request_abandoned_while_the_broker_was_away_does_not_abort_the_process(
    doomed_broker: tuple[str, Node],
) -> None:
    """librdkafka aborts the process (an enq-once freed twice, confluentinc/librdkafka#4605) when admin requests
    timed out while waiting for their coordinator and the coordinator comes back (`lag record` riding out an
    outage hit it), or its client keeps answering "Local: Timed out" after the broker is back. kgroup gives up
    such a request by closing the client (LiveAdmin._closed_unless_answered); the next request opens another."""
    bootstrap, node = doomed_broker
    child = subprocess.Popen(
        [sys.executable, "-c", _ASKS_ACROSS_A_RESTART, bootstrap],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "answered EMPTY", _ended(child)
        node.stop(kill=True)
        child.stdin.write("down\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "unreachable 2", _ended(child)
        node.start()
        child.stdin.write("up\n")
        child.stdin.flush()
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err[-2000:]
    assert out.strip() == "answered EMPTY"


def _ended(child: subprocess.Popen) -> str:
    """The child's stderr, for a failure message: it is stopped first, so reading it cannot wait."""
    child.kill()
    _, err = child.communicate(timeout=30)
    return err[-2000:]
