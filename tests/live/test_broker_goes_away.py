"""A broker that goes away mid-command: one line naming the address, exit code 4, nothing written.

Each test starts its own Apache Kafka broker (the session broker must survive) and stops it cleanly by pid
part-way through (tests/live/test_live_faults.py kills one instead).
"""

from __future__ import annotations

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
