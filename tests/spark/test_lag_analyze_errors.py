"""Bad input and faults around `lag analyze`: one line each, the documented exit code, no partial output."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from kgroup.assignors.lag.samples import CommitSample, LogSample
from kgroup.inspectors.lag.dataset import COMMITS, table_files, write_all
from tests.cli.helpers import run, run_process


def _copy(history: str, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(history, target)
    return target


def _rewrite_commits(path: Path, change) -> str:  # type: ignore[no-untyped-def]
    (file,) = table_files(str(path), COMMITS)
    pq.write_table(change(pq.read_table(file)), file)
    return file


def test_a_missing_column_is_named(history: str, tmp_path: Path) -> None:
    path = _copy(history, tmp_path)
    _rewrite_commits(path, lambda t: t.drop_columns(["commit_ts"]))
    result = run("lag", "analyze", str(path), "--spark", "local[2]", "--out", str(tmp_path / "r.parquet"))
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "commits.commit_ts: missing column" in result.stderr
    assert not (tmp_path / "r.parquet").exists()


def test_a_column_of_the_wrong_type_is_named(history: str, tmp_path: Path) -> None:
    path = _copy(history, tmp_path)
    _rewrite_commits(
        path,
        lambda t: t.set_column(
            t.schema.get_field_index("partition"), "partition", pa.array([str(v) for v in t["partition"].to_pylist()])
        ),
    )
    result = run("lag", "analyze", str(path), "--spark", "local[2]")
    assert result.exit_code == 2, result.output
    assert "commits.partition: is string, expected int" in result.stderr


def test_an_unreadable_file_is_named(history: str, tmp_path: Path) -> None:
    path = _copy(history, tmp_path)
    (file,) = table_files(str(path), COMMITS)
    Path(file).write_bytes(b"not parquet at all")
    result = run("lag", "analyze", str(path), "--spark", "local[2]")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "part-" in result.stderr and "Parquet" in result.stderr


def test_a_failing_spark_job_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    # offsets near 2^62: the interpolation's 64-bit product overflows, and ANSI SQL fails the job
    big = 2**62
    logs = [LogSample("c", "t", 0, 0, big, None, 0), LogSample("c", "t", 0, 0, big + 2**40, None, 10**9)]
    commits = [CommitSample("c", "g", "t", 0, big + 2**39, 10**9, None, None, None, None, 10**9)]
    write_all(str(tmp_path / "h"), commits, logs)
    out = tmp_path / "r.parquet"
    result = run("lag", "analyze", str(tmp_path / "h"), "--spark", "local[2]", "--out", str(out))
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("kgroup: error: the Spark job failed:") and result.stderr.count("\n") == 1
    assert not out.exists() and not list(tmp_path.glob(".*"))


def test_an_unreachable_spark_connect_url(history: str) -> None:
    result = run("lag", "analyze", history, "--spark", "sc://127.0.0.1:1", "--timeout", "2")
    assert result.exit_code == 4
    assert "Spark Connect at 127.0.0.1:1 did not answer" in result.stderr


def test_without_pyspark_it_says_what_to_install(history: str, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "pyspark"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named pyspark')\n")
    result = run_process("lag", "analyze", history, "--engine", "spark", env={"PYTHONPATH": str(shadow.parent)})
    assert result.returncode == 2
    assert "pip install 'kgroup[spark]'" in result.stderr and "Traceback" not in result.stderr


def test_without_java_it_says_so(history: str) -> None:
    path = os.pathsep.join(
        p
        for p in os.environ["PATH"].split(os.pathsep)
        if not os.path.exists(os.path.join(p, "java")) or p == str(Path(sys.executable).parent)
    )
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    result = run_process("lag", "analyze", history, "--engine", "spark", env={**env, "PATH": path, "JAVA_HOME": ""})
    assert result.returncode == 2, result.stderr
    assert "needs Java 17" in result.stderr


def test_a_damaged_file_is_skipped_on_spark_when_asked(history: str, tmp_path: Path) -> None:
    path = _copy(history, tmp_path)
    commits = [
        CommitSample("c", "extra-group", "extra", 0, 1, 1_790_000_000_000, None, None, None, None, 1_790_000_000_000)
    ]
    write_all(str(path), commits, [LogSample("c", "extra", 0, 0, 3, None, 1_790_000_000_000)])
    damaged = next(f for f in table_files(str(path), COMMITS) if "date=2026-09" in f)
    Path(damaged).write_bytes(b"not parquet at all")

    result = run("lag", "analyze", str(path), "--spark", "local[2]", "--skip-bad-files", "-o", "json")

    assert result.exit_code == 0, result.output
    assert f"{damaged}: not readable as Parquet; left out" in result.stderr
    assert "extra-group" not in result.stdout and '"partitions"' in result.stdout
