"""The Spark session kgroup opens: progress reported while a job runs (local and Connect), and a data set
with a half-written file from an interrupted `lag record` still reads as the complete polls only."""

from __future__ import annotations

import shutil
from pathlib import Path

from kgroup.inspectors.lag.dataset import COMMITS, read_samples, table_files
from kgroup.inspectors.lag.spark_session import following, spark_session
from tests.cli.helpers import run


def _progress_seen(url: str) -> list[tuple[int, int]]:
    seen: list[tuple[int, int]] = []
    # reports every 100 ms (Connect's default is 2 s; kgroup asks 500 ms): a warm server runs this job in < 1 s
    conf = {"spark.connect.progress.reportInterval": "100ms"} if url.startswith("sc://") else {}
    with spark_session(url, conf=conf) as spark, following(spark, lambda done, total: seen.append((done, total))):
        spark.range(20_000_000, numPartitions=8).selectExpr("id % 7 AS k").groupBy("k").count().collect()
    return seen


def test_progress_follows_a_local_job() -> None:
    seen = _progress_seen("local[2]")
    assert seen and max(total for _, total in seen) >= 8 and all(0 <= d <= t for d, t in seen)


def test_progress_follows_a_connect_job(connect_server: str) -> None:
    seen = _progress_seen(connect_server)
    assert seen and max(done for done, _ in seen) >= 8


def test_a_half_written_file_is_invisible(history: str, tmp_path: Path) -> None:
    path = tmp_path / "h"
    shutil.copytree(history, path)
    (file,) = table_files(str(path), COMMITS)
    leftover = Path(file).parent / ".part-1-abc.parquet.tmp"  # what a Ctrl-C mid-write leaves
    leftover.write_bytes(Path(file).read_bytes()[:100])
    assert len(read_samples(str(path))[0]) == len(read_samples(history)[0])
    assert run("lag", "analyze", str(path), "--spark", "local[2]", "-o", "json").exit_code == 0
