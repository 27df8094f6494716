"""The Spark pipeline against the reference on the awkward cases the synthetic history never plants:
duplicate log samples at one time, a log end that dips, an LSO below the high watermark, a commit observed
several times (once with another offset), more commits than the window, a rewind, a partition with no log sample and one never
committed; under both isolation levels."""

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


def _commits(logs: list[LogSample]) -> list[CommitSample]:
    commits = []
    for group in ("g1", "g2"):
        for partition in range(4):
            offset, committed_at = 0, 0
            for i in range(1, 40):
                observed = i * 10_000 + 1_000
                if i % 3 == 0:  # a new commit (else the same commit, observed again)
                    ends = [s.high_watermark for s in logs if s.partition == partition and s.ts < observed]
                    target = ends[-1] - 40 if ends else offset + 10
                    offset = 3 if (group, partition, i) == ("g2", 1, 39) else max(offset, target)  # a rewind
                    committed_at = observed - 500
                if group == "g1" and partition == 2 and i > 30:
                    continue  # g1 stopped committing on partition 2
                commits.append(CommitSample("c", group, "t", partition, offset if i > 2 else None,
                                            committed_at, f"m-{group}", "client", "/10.0.0.1", 1, observed))
                if (group, partition, i) == ("g1", 0, 32):  # the same commit time read back lower, later
                    commits.append(CommitSample("c", group, "t", partition, offset - 5, committed_at,
                                                f"m-{group}", "client", "/10.0.0.1", 1, observed + 9_000))
    return commits


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("edge") / "history"
    logs = _logs()
    write_all(str(path), _commits(logs), logs)
    return str(path)


@pytest.mark.parametrize("isolation", [READ_UNCOMMITTED, READ_COMMITTED])
def test_spark_matches_the_reference_on_awkward_histories(data: str, isolation: str, tmp_path: Path) -> None:
    result = run("lag", "analyze", data, "--spark", "local[2]", "--window", str(WINDOW), "--bucket", "1m",
                 "--isolation", isolation, "-o", "json")
    assert result.exit_code == 0, result.output
    spark = json.loads(result.stdout)
    commits, logs = read_samples(data)
    reports, points = analyze(commits, logs, LagQuery(as_of=spark["as_of"], window=WINDOW, bucket_ms=60_000,
                                                       isolation=isolation))
    assert spark["partitions"] == [asdict(r) for r in reports]
    assert [(h["group"], h["bucket_ts"], h["max_lag"], h["max_time_lag_ms"]) for h in spark["history"]] == \
        [(p.group, p.bucket_ts, p.max_lag, p.max_time_lag_ms) for p in points]
    # the cases are really there: a rewind, a stop, a partition without log samples, a lower bound
    assert {r.status for r in reports} >= {"REWIND", "STOP"}
    assert any(r.log_end_offset is None for r in reports)
    assert {r.time_lag_method for r in reports} >= {"interpolated", "none"}
    alone = run("lag", "analyze", data, "--in-process", "--window", str(WINDOW), "--bucket", "1m",
                "--isolation", isolation, "-o", "json")
    assert alone.stdout == result.stdout  # byte for byte: rollups, float sums and history included
