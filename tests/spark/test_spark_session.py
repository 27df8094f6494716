"""The Spark session kgroup opens: progress reported while a job runs (local and Connect), the settings both
kinds of session get, a local JVM's heap, and a data set with a half-written file from an interrupted
`lag record` still reads as the complete polls only."""

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
    # the server's reports come every interval, so the last of them may miss the last tasks; the finished
    # operation still ends the bar at its total
    assert seen and seen[-1][0] == seen[-1][1] >= 8 and all(0 <= d <= t for d, t in seen)


def test_a_half_written_file_is_invisible(history: str, tmp_path: Path) -> None:
    path = tmp_path / "h"
    shutil.copytree(history, path)
    (file,) = table_files(str(path), COMMITS)
    leftover = Path(file).parent / ".part-1-abc.parquet.tmp"  # what a Ctrl-C mid-write leaves
    leftover.write_bytes(Path(file).read_bytes()[:100])
    assert len(read_samples(str(path))[0]) == len(read_samples(history)[0])
    assert run("lag", "analyze", str(path), "--spark", "local[2]", "-o", "json").exit_code == 0


def _settings_seen(url: str) -> dict[str, str]:
    keys = (
        "spark.sql.shuffle.partitions",
        "spark.sql.windowExec.buffer.in.memory.threshold",
        "spark.sql.session.timeZone",
    )
    with spark_session(url, data_bytes=200 * 2**20) as spark:
        return {key: spark.conf.get(key) for key in keys}


def test_local_and_connect_sessions_get_the_same_sized_settings(connect_server: str) -> None:
    # 200 MiB of Parquet at one shuffle partition per 64 MiB: 4 partitions (rounded up from 3.1)
    expected = {
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.windowExec.buffer.in.memory.threshold": "2000000",
        "spark.sql.session.timeZone": "UTC",
    }
    assert _settings_seen("local[1]") == expected
    assert _settings_seen(connect_server) == expected


def test_a_local_session_gets_a_4g_heap() -> None:
    """Spark's own default heap (1g) ran long histories out of memory; kgroup's local JVM gets 4g (a quarter
    of a machine with less than 16 GiB). A fresh process, since a JVM's heap is fixed when it starts."""
    import os
    import subprocess
    import sys

    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    expected_gib = 4 if physical >= 16 * 2**30 else max(1, physical // 4 // 2**30)
    script = (
        "from kgroup.inspectors.lag.spark_session import spark_session\n"
        "with spark_session('local[1]') as s:\n"
        "    print(s.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    heap_gib = int(out.stdout.strip().splitlines()[-1]) / 2**30
    assert expected_gib - 0.5 <= heap_gib <= expected_gib + 0.01, heap_gib  # -Xmx, less a survivor space
