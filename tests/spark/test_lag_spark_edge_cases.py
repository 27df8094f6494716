"""The Spark pipeline against the reference on the awkward cases the synthetic history never plants:
duplicate log samples at one time, a log end that dips, an LSO below the high watermark, a commit observed
several times (once with another offset), more commits than the window, a rewind, a partition with no log sample and one never
committed; under both isolation levels. Each history comes in two shapes: commits observed between the log
samples (an imported history), and `lag record`'s, where one poll stamps its commit and log samples with the
same time (also with one poll's log sample missing). On `lag record`'s shape the equi-join bench/lag.py
measures must give the as-of answer."""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from pathlib import Path

import pytest

from kgroup.assignors.lag.history import analyze
from kgroup.assignors.lag.samples import READ_COMMITTED, READ_UNCOMMITTED, CommitSample, LagQuery, LogSample
from kgroup.inspectors.lag.dataset import read_samples, write_all
from tests.cli.helpers import run

WINDOW = 4


def _logs() -> list[LogSample]:
    rng = random.Random(11)
    logs = []
    for partition in range(3):  # partition 3 has commits and no log sample
        end = 0
        for i in range(40):
            end += rng.randrange(0, 60)
            dip = 25 if i == 17 else 0  # a truncated-looking sample: not monotonic
            lso = end - rng.randrange(0, 10) if i % 3 else None
            logs.append(LogSample("c", "t", partition, 5, end - dip, lso, i * 10_000))
            if i % 7 == 0:  # a second sample at the same time, lower: the higher one is kept
                logs.append(LogSample("c", "t", partition, 5, end - 3, None, i * 10_000))
    return logs


def _commits(logs: list[LogSample], polled: bool) -> list[CommitSample]:
    """polled: observed at the log samples' poll times and dated by the first poll that saw the offset, as
    `lag record` writes them; else observed a second after each poll and dated half a second before."""
    commits = []
    for group in ("g1", "g2"):
        for partition in range(4):
            offset, committed_at = 0, 0
            for i in range(1, 40):
                observed = i * 10_000 + (0 if polled else 1_000)
                if i % 3 == 0:  # a new commit (else the same commit, observed again)
                    ends = [s.high_watermark for s in logs if s.partition == partition and s.ts < observed]
                    target = ends[-1] - 40 if ends else offset + 10
                    offset = 3 if (group, partition, i) == ("g2", 1, 39) else max(offset, target)  # a rewind
                    committed_at = observed - (0 if polled else 500)
                if group == "g1" and partition == 2 and i > 27:
                    continue  # g1 stopped committing on partition 2
                commits.append(
                    CommitSample(
                        "c",
                        group,
                        "t",
                        partition,
                        offset if i > 2 else None,
                        committed_at,
                        f"m-{group}",
                        "client",
                        "/10.0.0.1",
                        1,
                        observed,
                    )
                )
                if (group, partition, i) == ("g1", 0, 32) and not polled:  # the same commit read back lower, later
                    commits.append(
                        CommitSample(
                            "c",
                            group,
                            "t",
                            partition,
                            offset - 5,
                            committed_at,
                            f"m-{group}",
                            "client",
                            "/10.0.0.1",
                            1,
                            observed + 9_000,
                        )
                    )
    return commits


SHAPES = ("between-polls", "polled", "polled-one-sample-missing")


@pytest.fixture(scope="module", params=SHAPES)
def data(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("edge") / "history"
    logs = _logs()
    commits = _commits(logs, request.param != "between-polls")
    if request.param == "polled-one-sample-missing":  # a poll that read the commits but not this log end
        logs = [s for s in logs if (s.partition, s.ts) != (0, 200_000)]
    write_all(str(path), commits, logs)
    return str(path)


@pytest.mark.parametrize("isolation", [READ_UNCOMMITTED, READ_COMMITTED])
def test_spark_matches_the_reference_on_awkward_histories(data: str, isolation: str, tmp_path: Path) -> None:
    result = run(
        "lag",
        "analyze",
        data,
        "--spark",
        "local[2]",
        "--window",
        str(WINDOW),
        "--bucket",
        "1m",
        "--isolation",
        isolation,
        "-o",
        "json",
    )
    assert result.exit_code == 0, result.output
    spark = json.loads(result.stdout)
    commits, logs = read_samples(data)
    reports, points = analyze(
        commits, logs, LagQuery(as_of=spark["as_of"], window=WINDOW, bucket_ms=60_000, isolation=isolation)
    )
    assert spark["partitions"] == [asdict(r) for r in reports]
    assert [(h["group"], h["bucket_ts"], h["max_lag"], h["max_time_lag_ms"]) for h in spark["history"]] == [
        (p.group, p.bucket_ts, p.max_lag, p.max_time_lag_ms) for p in points
    ]
    # the cases are really there: a rewind, a stop, a partition without log samples, a lower bound
    assert {r.status for r in reports} >= {"REWIND", "STOP"}
    assert any(r.log_end_offset is None for r in reports)
    assert {r.time_lag_method for r in reports} >= {"interpolated", "none"}
    alone = run(
        "lag",
        "analyze",
        data,
        "--in-process",
        "--window",
        str(WINDOW),
        "--bucket",
        "1m",
        "--isolation",
        isolation,
        "-o",
        "json",
    )
    assert alone.stdout == result.stdout  # byte for byte: rollups, float sums and history included


# 1 ms: a block per commit time; 60 s: two commits a block. (A 20 s block, one commit or none, ranked the same
# commits as 1 ms on these histories, a commit every 30 s: one Spark run per shape spent on nothing new.)
@pytest.mark.parametrize("block_ms", [1, 60_000])
def test_burrows_window_is_the_same_whatever_blocks_of_commit_time_are_ranked(
    data: str, block_ms: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window (the newest WINDOW commits) is found by ranking only the commits from each group
    partition's newest WINDOW non-empty blocks of commit time: with blocks of one commit (1 ms; a commit every
    30 s) or two (60 s), so the cut falls inside the history, the statuses and windows are the reference's."""
    from kgroup.inspectors.lag import spark_job

    monkeypatch.setattr(spark_job, "WINDOW_BLOCK_MS", block_ms)
    result = run("lag", "analyze", data, "--spark", "local[2]", "--window", str(WINDOW), "-o", "json")
    assert result.exit_code == 0, result.output
    spark = json.loads(result.stdout)
    commits, logs = read_samples(data)
    reports, _ = analyze(commits, logs, LagQuery(as_of=spark["as_of"], window=WINDOW))
    assert spark["partitions"] == [asdict(r) for r in reports]
    assert max(r.window_commits for r in reports) == WINDOW  # more commits than the window: the cut is real


def test_the_log_end_at_each_polled_commit_is_an_equi_join_with_the_as_of_answer(tmp_path: Path) -> None:
    """On `lag record`'s shape the equi-join answers every commit observation with the log end and the
    monotonic end the as-of lookup gives; where a poll's sample is missing it leaves the ask open."""
    from pyspark.sql import functions as F

    from kgroup.inspectors.lag import spark_job
    from kgroup.inspectors.lag.spark_session import spark_session

    logs = _logs()
    path = tmp_path / "history"
    write_all(str(path), _commits(logs, polled=True), [s for s in logs if (s.partition, s.ts) != (1, 150_000)])
    with spark_session("local[2]") as spark:
        commits, samples = spark_job.read_tables(spark, str(path))
        query = LagQuery(as_of=400_000, window=WINDOW)
        timeline = spark_job._log_timeline(spark_job.keyed(samples), query)
        asks = (
            spark_job.keyed(commits)
            .where(F.col("committed_offset").isNotNull())
            .select(
                *spark_job.KEY,
                "group",
                "partition",
                F.col("committed_offset").alias("c"),
                F.col("observed_ts").alias("at"),
                F.lit(0).alias("role"),
            )
        )
        columns = ["group", "partition", "at", "end_at", "mono_end_at"]
        equi = {tuple(r) for r in spark_job._ends_at_polls(asks, timeline).select(*columns).collect()}
        as_of = {tuple(r) for r in spark_job._ends_at(asks, timeline).select(*columns).collect()}
    open_asks = {r for r in equi if r[3] is None}
    # partition 3 has no log sample at all; partition 1 lacks the one at 150 s
    assert {(p, at) for _, p, at, _, _ in open_asks} == {(1, 150_000)} | {(3, at) for _, p, at, _, _ in equi if p == 3}
    assert equi - open_asks == {r for r in as_of if (r[1], r[2]) not in {(p, at) for _, p, at, _, _ in open_asks}}
    assert any(end != mono for _, _, _, end, mono in equi - open_asks)  # the dip: raw and monotonic ends differ


def test_connect_prints_the_same_bytes_on_a_polled_history(tmp_path: Path, connect_server: str) -> None:
    """`lag record`'s shape through Spark Connect: the document equals the in-process one byte for byte."""
    logs = _logs()
    path = str(tmp_path / "history")
    write_all(path, _commits(logs, polled=True), logs)
    args = ("--window", str(WINDOW), "--bucket", "1m", "-o", "json")
    remote = run("lag", "analyze", path, "--spark", connect_server, *args)
    assert remote.exit_code == 0, remote.output
    alone = run("lag", "analyze", path, "--in-process", *args)
    assert alone.exit_code == 0 and alone.stdout == remote.stdout
