"""`kgroup triage` and `kgroup lag record` on a real broker with real producers and consumers: a consumer
that stops while the producer goes on is STOP, with a time lag that grows."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kgroup.inspectors.lag.dataset import COMMITS, LOG_OFFSETS, read_samples, table_files
from tests.cli.helpers import run
from tests.live.traffic import CONSUMER, PRODUCER, commit, joined_consumer, topic_with_records


def _consume_commit_and_stop(broker: str, group: str, topic: str, partitions: int = 1) -> None:
    """A real consumer reads what is there, commits it, then stops (closed: it never polls again)."""
    consumer = joined_consumer(broker, group, topic)
    try:
        wanted = [KafkaTopicPartition(topic, p) for p in range(partitions)]
        deadline = time.monotonic() + 15
        ends = [consumer.get_watermark_offsets(tp, timeout=5)[1] for tp in wanted]
        while time.monotonic() < deadline:
            if [tp.offset for tp in consumer.position(wanted)] == ends:
                break
            consumer.poll(0.2)
        assert [tp.offset for tp in consumer.position(wanted)] == ends, "the consumer did not read to the end"
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()


def _wait_for_log_end_above(broker: str, topic: str, offset: int, timeout_s: float = 60) -> None:
    peek = Consumer({"bootstrap.servers": broker, "group.id": "peek", **CONSUMER})
    try:
        deadline = time.monotonic() + timeout_s
        while peek.get_watermark_offsets(KafkaTopicPartition(topic, 0), timeout=5)[1] <= offset:
            assert time.monotonic() < deadline, "the producer never got a record in"
            time.sleep(0.1)
    finally:
        peek.close()


def test_triage_flags_a_stopped_consumer(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [10])
    _consume_commit_and_stop(broker, group, topic)
    stop = threading.Event()
    threading.Thread(target=_produce_until, args=(broker, topic, stop), daemon=True).start()
    try:
        _wait_for_log_end_above(broker, topic, 10)  # the producer's records are in before triage's first poll
        first = run("triage", "-b", broker, "--group", group, "--samples", "2", "--interval", "2s", "-o", "json")
        time.sleep(2)
        second = run("triage", "-b", broker, "--group", group, "--samples", "2", "--interval", "2s", "-o", "json")
    finally:
        stop.set()
    assert first.exit_code == 3, first.output
    assert second.exit_code == 3, second.output
    (p1,), (p2,) = json.loads(first.stdout)["partitions"], json.loads(second.stdout)["partitions"]
    assert (p1["topic"], p1["partition"], p1["status"]) == (topic, 0, "STOP")
    assert p2["status"] == "STOP" and p2["committed_offset"] == p1["committed_offset"] == 10
    # the record at offset 10 was read for its timestamp, both times
    assert p1["time_lag_method"] == p2["time_lag_method"] == "exact"
    assert p2["lag"] > p1["lag"] > 0 and p2["time_lag_ms"] > p1["time_lag_ms"] > 0
    (rolled,) = json.loads(first.stdout)["groups"]
    assert rolled["members"] == 0  # it stopped: no active members
    assert (rolled["status"], rolled["burrow_status"]) == ("STOP", "ERR")  # what Burrow's group status says


def test_triage_is_ok_for_a_caught_up_group_and_says_so_with_exit_0(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [10])
    _consume_commit_and_stop(broker, group, topic)
    result = run("triage", "-b", broker, "--group", group, "--samples", "2", "--interval", "1s")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].split()[:2] == ["GROUP", "STATUS"]
    assert f"{group}  OK" in result.stdout.replace("   ", "  ")


def _produce_until(broker: str, topic: str, stop: threading.Event) -> None:
    producer = Producer(PRODUCER | {"bootstrap.servers": broker})
    while not stop.is_set():
        producer.produce(topic, value=b"y", partition=0)
        producer.poll(0)
        stop.wait(0.05)
    producer.flush(10)


def test_lag_record_appends_complete_samples(broker: str, names: tuple[str, str], tmp_path: Path) -> None:
    topic, group = names
    topic_with_records(broker, topic, [10, 4])
    _consume_commit_and_stop(broker, group, topic, partitions=2)
    out = tmp_path / "history"

    result = run("lag", "record", "-b", broker, "--group", group, "--interval", "1s", "--count", "3", "--out", str(out))

    assert result.exit_code == 0, result.output
    assert "recorded: 3 polls, 12 rows" in result.stderr and "no gaps" in result.stderr
    assert len(table_files(str(out), COMMITS)) == 3 and len(table_files(str(out), LOG_OFFSETS)) == 3
    commits, logs = read_samples(str(out))
    assert {(c.topic, c.partition, c.committed_offset) for c in commits} == {(topic, 0, 10), (topic, 1, 4)}
    # an unchanged offset keeps the time it was first seen: what lets STOP be seen in a polled history
    assert len({c.commit_ts for c in commits}) == 1 and len({c.observed_ts for c in commits}) == 3
    assert {(s.topic, s.partition, s.high_watermark) for s in logs} == {(topic, 0, 10), (topic, 1, 4)}
    assert not list(out.rglob(".*.tmp"))


def test_a_resumed_recording_keeps_when_an_offset_was_first_seen(
    broker: str, names: tuple[str, str], tmp_path: Path
) -> None:
    topic, group = names
    topic_with_records(broker, topic, [6])
    _consume_commit_and_stop(broker, group, topic)
    out = str(tmp_path / "history")
    args = ("lag", "record", "-b", broker, "--group", group, "--interval", "1s", "--count", "2", "--out", out)

    first = run(*args)
    time.sleep(1.5)
    second = run(*args)

    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    commits, _ = read_samples(out)
    assert len({c.observed_ts for c in commits}) == 4
    # the second run saw the same offset: still dated by the first run's first poll, so a consumer that
    # stopped before a restart of the recorder still looks stopped
    assert {c.commit_ts for c in commits} == {min(c.observed_ts for c in commits)}


def test_lag_record_needs_a_stop_condition_and_a_reachable_broker(tmp_path: Path) -> None:
    out = tmp_path / "h"
    missing = run("lag", "record", "-b", "127.0.0.1:1", "--group", "g", "--out", str(out))
    assert missing.exit_code == 2 and "--duration" in missing.stderr
    gone = run(
        "lag", "record", "-b", "127.0.0.1:1", "--group", "g", "--count", "1", "--out", str(out), "--timeout", "2"
    )
    assert gone.exit_code == 4, gone.output
    assert not out.exists()  # nothing created for a broker that never answered


@pytest.mark.parametrize("gaps", [(), (0.01,), (0.1,)], ids=["ctrl-c", "ctrl-c-twice", "ctrl-c-again-on-the-way-out"])
def test_ctrl_c_leaves_a_valid_data_set(
    broker: str, names: tuple[str, str], tmp_path: Path, gaps: tuple[float, ...]
) -> None:
    """Once: the poll in flight is written, the recorder says what it saved and exits 130. Twice in a row: it stops at once (or,
    if the first already ended the loop, on its way out), still with every visible file whole. A press 0.1 s later lands
    after the loop has ended, while the summary is written: it must still be exit 130, not a death by SIGINT (-2)."""
    topic, group = names
    topic_with_records(broker, topic, [10])
    _consume_commit_and_stop(broker, group, topic)
    out = tmp_path / "history"
    script = Path(sys.executable).parent / "kgroup"
    process = subprocess.Popen(
        [
            str(script),
            "lag",
            "record",
            "-b",
            broker,
            "--group",
            group,
            "--interval",
            "200ms",
            "--count",
            "1000",
            "--out",
            str(out),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120  # generous: a loaded 2-core machine starts the recorder slowly
        while len(table_files(str(out), COMMITS)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        # else the press would find a process still importing, and fail like the bug this test guards against
        assert len(table_files(str(out), COMMITS)) >= 3, "the recorder did not start polling"
        process.send_signal(signal.SIGINT)
        for gap in gaps:
            time.sleep(gap)
            process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr  # stopped before its --count: not a run that finished
    assert "interrupted" in stderr and "Traceback" not in stderr
    commits, logs = read_samples(str(out))  # every visible file reads whole
    assert len(commits) == len(table_files(str(out), COMMITS)) >= 3 and logs


def test_lag_record_follows_the_groups_a_regex_picks(broker: str, names: tuple[str, str], tmp_path: Path) -> None:
    topic, group = names
    topic_with_records(broker, topic, [3])
    for chosen in (f"{group}-a", f"{group}-b", f"not-{group}"):
        commit(broker, chosen, {(topic, 0): 1})
    out = tmp_path / "history"

    result = run(
        "lag",
        "record",
        "-b",
        broker,
        "-r",
        f"^{group}-",
        "--group",
        f"not-{group}",
        "--count",
        "1",
        "--interval",
        "1s",
        "--out",
        str(out),
    )

    assert result.exit_code == 0, result.output
    commits, _ = read_samples(str(out))
    assert sorted(c.group for c in commits) == sorted([f"{group}-a", f"{group}-b", f"not-{group}"])
    only_regex = run(
        "lag",
        "record",
        "-b",
        broker,
        "-r",
        f"^{group}-a$",
        "--count",
        "1",
        "--interval",
        "1s",
        "--out",
        str(tmp_path / "a"),
    )
    assert only_regex.exit_code == 0, only_regex.output
    assert [c.group for c in read_samples(str(tmp_path / "a"))[0]] == [f"{group}-a"]


def test_lag_record_appends_to_a_history_with_a_damaged_file(
    broker: str, names: tuple[str, str], tmp_path: Path
) -> None:
    topic, group = names
    topic_with_records(broker, topic, [3])
    commit(broker, group, {(topic, 0): 2})
    out = tmp_path / "history"
    first = run("lag", "record", "-b", broker, "--group", group, "--interval", "1s", "--count", "1", "--out", str(out))
    assert first.exit_code == 0, first.output
    (damaged,) = table_files(str(out), COMMITS)
    Path(damaged).write_bytes(b"PAR1 not a whole file")

    second = run("lag", "record", "-b", broker, "--group", group, "--interval", "1s", "--count", "1", "--out", str(out))

    assert second.exit_code == 0, second.output
    assert f"{damaged}: not readable as Parquet" in second.stderr
    assert len(table_files(str(out), COMMITS)) == 2  # a new file; the damaged one is left as it was
    assert Path(damaged).read_bytes() == b"PAR1 not a whole file"
