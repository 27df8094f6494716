"""`lag record` through a broker restart: a real Apache Kafka broker is stopped by pid mid-recording and
started again on the same ports and storage; the recording goes on to its --duration and the outage is
saved as a gap. After the restart the group commits again, and the recorder must pick that up.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


from kgroup.inspectors.lag.dataset import COMMITS, read_gaps, read_samples, table_files
from tests.kafka import broker as kafka_broker
from tests.kafka.broker import Node
from tests.live.traffic import commit, topic_with_records


def test_a_recording_rides_out_a_broker_restart_and_saves_the_gap(own_kafka: Node, tmp_path: Path) -> None:
    bootstrap = own_kafka.address
    topic_with_records(bootstrap, "orders", [3])
    commit(bootstrap, "billing", {("orders", 0): 1})
    out = tmp_path / "history"
    recorder = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "kgroup"),
            "lag",
            "record",
            "-b",
            bootstrap,
            "--group",
            "billing",
            "--interval",
            "500ms",
            "--duration",
            "60s",
            "--timeout",
            "5",
            "--out",
            str(out),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120  # a loaded 2-core machine starts the recorder slowly (> 30 s seen in CI)
        while len(table_files(str(out), COMMITS)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(table_files(str(out), COMMITS)) >= 3, "the recorder did not start polling"
        own_kafka.stop()  # by pid: SIGTERM, then SIGKILL
        stopped_at = time.time()
        time.sleep(3)  # a few failed polls
        own_kafka.start()  # the same ports and storage
        kafka_broker.warm_up_coordinators(bootstrap)
        commit(bootstrap, "billing", {("orders", 0): 2})
        _, stderr = recorder.communicate(timeout=150)
    finally:
        if recorder.poll() is None:
            recorder.kill()

    assert recorder.returncode == 0, stderr  # it ran its whole --duration
    assert "Traceback" not in stderr
    (gap,) = read_gaps(str(out))
    assert gap["end_ts"] is not None, stderr
    assert gap["end_ts"] is not None and gap["start_ts"] <= stopped_at * 1000 < gap["end_ts"]
    assert gap["attempts"] >= 1 and bootstrap in gap["reason"]
    commits, _ = read_samples(str(out))
    before = [c for c in commits if c.observed_ts <= gap["start_ts"]]
    after = [c for c in commits if c.observed_ts >= gap["end_ts"]]
    assert {c.committed_offset for c in before} == {1} and 2 in {c.committed_offset for c in after}
    assert not [c for c in commits if gap["start_ts"] < c.observed_ts < gap["end_ts"]]  # nothing inside the gap
    summary = stderr.strip().splitlines()[-1]
    assert summary.startswith("kgroup: recorded:") and "1 gap(s)" in summary, stderr


def test_a_recording_gives_up_after_max_outage_with_exit_4_and_says_what_it_saved(
    own_kafka: Node, tmp_path: Path
) -> None:
    bootstrap = own_kafka.address
    topic_with_records(bootstrap, "orders", [3])
    commit(bootstrap, "billing", {("orders", 0): 1})
    out = tmp_path / "history"
    recorder = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "kgroup"),
            "lag",
            "record",
            "-b",
            bootstrap,
            "--group",
            "billing",
            "--interval",
            "500ms",
            "--duration",
            "10m",
            "--max-outage",
            "3s",
            "--timeout",
            "2",
            "--out",
            str(out),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while len(table_files(str(out), COMMITS)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(table_files(str(out), COMMITS)) >= 2, "the recorder did not start polling"
        own_kafka.stop()
        _, stderr = recorder.communicate(timeout=60)
    finally:
        if recorder.poll() is None:
            recorder.kill()

    assert recorder.returncode == 4, stderr
    lines = stderr.strip().splitlines()
    assert lines[-2].startswith("kgroup: saved before giving up:") and "1 gap(s)" in lines[-2]
    assert lines[-1].startswith(f"kgroup: error: cannot reach {bootstrap}") and "gave up after" in lines[-1]
    (gap,) = read_gaps(str(out))
    assert gap["end_ts"] is None and gap["attempts"] >= 2
    assert read_samples(str(out))[0]  # what was recorded before is there and reads whole
