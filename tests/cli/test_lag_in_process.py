"""`lag analyze --in-process`: the offset-history analysis with no Spark and no Java."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kgroup.assignors.lag.synthetic import EXPECTED, Plan, generate
from kgroup.inspectors.lag.dataset import write_all
from tests.cli.helpers import run, run_process

PLAN = Plan()


def test_no_java_is_needed_and_every_planted_behaviour_is_found(tmp_path: Path) -> None:
    history = tmp_path / "history"
    write_all(str(history), *generate(PLAN))
    no_java = {"PATH": str(Path(sys.executable).parent), "JAVA_HOME": ""}  # only the venv's bin on the PATH

    result = run_process(
        "lag", "analyze", str(history), "--in-process", "--window", str(PLAN.window), "-o", "json", env=no_java
    )

    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    truth = {(p.group, p.topic, p.partition): p.behaviour for p in PLAN.partitions_planned()}
    found = {(p["group"], p["topic"], p["partition"]): p["status"] for p in doc["partitions"]}
    assert found == {key: EXPECTED[behaviour] for key, behaviour in truth.items()}


def test_group_selection_and_since_apply_in_process(tmp_path: Path) -> None:
    history = tmp_path / "history"
    write_all(str(history), *generate(PLAN))
    one = run("lag", "analyze", str(history), "--in-process", "--group", "group-1", "--since", "10m", "-o", "json")
    assert one.exit_code == 0, one.output
    doc = json.loads(one.stdout)
    assert {p["group"] for p in doc["partitions"]} == {"group-1"}
    assert doc["since"] == doc["as_of"] - 600_000
    regex = run("lag", "analyze", str(history), "--in-process", "-r", "-0$", "-o", "json")
    assert {p["group"] for p in json.loads(regex.stdout)["partitions"]} == {"group-0"}


def test_in_process_and_a_spark_url_are_one_line_and_exit_2(tmp_path: Path) -> None:
    history = tmp_path / "history"
    write_all(str(history), *generate(PLAN))
    both = run("lag", "analyze", str(history), "--in-process", "--spark", "sc://127.0.0.1:15002")
    assert both.exit_code == 2 and both.stdout == ""
    assert len(both.stderr.strip().splitlines()) == 1 and "--in-process" in both.stderr


def _steady_then_blind(path: Path, with_gap: bool) -> int:
    """A consumer committing every 10 s while the log grows, then the recorder goes blind at the last poll."""
    from kgroup.assignors.lag.samples import CommitSample, LogSample
    from kgroup.inspectors.lag.dataset import append_gap

    base = 1_795_000_000_000
    polls = [base + i * 10_000 for i in range(4)]
    commits = [CommitSample("c", "g", "t", 0, 10 * i, ts, "m", "client", "host", 1, ts) for i, ts in enumerate(polls)]
    logs = [LogSample("c", "t", 0, 0, 50 + 10 * i, None, ts) for i, ts in enumerate(polls)]
    write_all(str(path), commits, logs)
    if with_gap:
        append_gap(
            str(path),
            {
                "cluster": "c",
                "start_ts": polls[-1],
                "end_ts": None,
                "attempts": 9,
                "reason": "cannot reach 127.0.0.1:9092",
            },
        )
    return polls[-1]


def test_an_evaluation_time_inside_a_recording_gap_is_never_read_as_a_stop(tmp_path: Path) -> None:
    until = "2026-11-18T11:08:20"  # 70 s after the last poll: longer than the commits' own span
    blind = tmp_path / "blind"
    last_poll = _steady_then_blind(blind, with_gap=True)
    seen = tmp_path / "seen"
    _steady_then_blind(seen, with_gap=False)

    without_gap = json.loads(run("lag", "analyze", str(seen), "--in-process", "--until", until, "-o", "json").stdout)
    result = run("lag", "analyze", str(blind), "--in-process", "--until", until, "-o", "json")

    assert without_gap["partitions"][0]["status"] == "STOP"  # silence the recorder saw: a stopped consumer
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["partitions"][0]["status"] != "STOP" and doc["as_of"] == last_poll
    assert [(g["start_ts"], g["end_ts"], g["attempts"]) for g in doc["gaps"]] == [(last_poll, None, 9)]
    assert "could not poll c" in result.stderr and "--until falls in a recording gap" in result.stderr


def test_a_damaged_file_is_named_and_can_be_skipped(tmp_path: Path) -> None:
    from kgroup.inspectors.lag.dataset import COMMITS, table_files

    history = tmp_path / "history"
    _steady_then_blind(history, with_gap=False)
    write_all(str(history), *generate(Plan(groups=1)))
    damaged = table_files(str(history), COMMITS)[0]
    Path(damaged).write_bytes(Path(damaged).read_bytes()[:40])  # truncated: no footer

    stopped = run("lag", "analyze", str(history), "--in-process", "-o", "json")
    skipped = run("lag", "analyze", str(history), "--in-process", "--skip-bad-files", "-o", "json")

    assert stopped.exit_code == 2 and stopped.stdout == ""
    assert stopped.stderr.startswith(f"kgroup: error: {damaged}: cannot read it as Parquet")
    assert "--skip-bad-files" in stopped.stderr and stopped.stderr.count("\n") == 1
    assert skipped.exit_code == 0, skipped.output
    assert f"{damaged}: not readable as Parquet; left out" in skipped.stderr
    assert json.loads(skipped.stdout)["partitions"]  # the rest of the history is analyzed
