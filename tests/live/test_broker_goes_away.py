"""A broker that goes away mid-command: one line naming the address, exit code 4, nothing written.

Each test starts its own Tansu (the session broker must survive) and stops it by pid part-way through.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.inspectors.live.connection import ConnectionSettings
from kgroup.inspectors.errors import NotReachableError
from kgroup.inspectors.live.admin import LiveAdmin, read_groups
from tests.cli.helpers import run
from tests.live.conftest import _start, _stop, _tansu
from tests.live.traffic import commit, topic_with_records


@pytest.fixture
def doomed_broker(tmp_path: Path) -> Iterator[tuple[str, object]]:
    """A broker of the test's own, with a topic and a committed group; yields (bootstrap, process)."""
    for attempt in range(5):
        started = _start(_tansu, tmp_path, attempt, tmp_path / f"tansu-{attempt}.log")
        if started is not None:
            break
    else:
        pytest.fail("Tansu did not start")
    process, port = started
    bootstrap = f"127.0.0.1:{port}"
    topic_with_records(bootstrap, "orders", [3, 3])
    commit(bootstrap, "billing", {("orders", 0): 1, ("orders", 1): 2})
    try:
        yield bootstrap, process
    finally:
        _stop(process)


def test_a_broker_stopping_between_two_requests_gives_a_clear_error(doomed_broker: tuple[str, object]) -> None:
    bootstrap, process = doomed_broker
    admin = LiveAdmin(ConnectionSettings(bootstrap), timeout_s=3)
    admin.metadata()  # the command has started: the cluster answered
    _stop(process)  # type: ignore[arg-type]

    started = time.monotonic()
    with pytest.raises(NotReachableError) as caught:
        read_groups(admin, ["billing"])
    elapsed = time.monotonic() - started

    assert bootstrap in str(caught.value) and "\n" not in str(caught.value)
    assert elapsed < 3 * 4, f"took {elapsed:.1f} s"  # each call is bounded by the timeout, a few calls at most


def test_snapshot_writes_nothing_when_the_broker_is_gone(doomed_broker: tuple[str, object], tmp_path: Path) -> None:
    bootstrap, process = doomed_broker
    _stop(process)  # type: ignore[arg-type]
    out = tmp_path / "billing.yaml"

    result = run("snapshot", "billing", "-b", bootstrap, "--timeout", "2", "-o", str(out))

    assert result.exit_code == 4, result.output
    assert result.stderr.startswith(f"kgroup: error: cannot reach {bootstrap}") and result.stderr.count("\n") == 1
    assert not out.exists() and list(tmp_path.glob(".kgroup-*")) == []
