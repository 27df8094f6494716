"""`kgroup lag analyze` on a real Spark: the same result as the in-process reference, locally and through
Spark Connect, and every planted behaviour of the synthetic history found with its status."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from kgroup.assignors.lag.history import analyze
from kgroup.assignors.lag.rollup import rollups
from kgroup.assignors.lag.samples import LagQuery
from kgroup.assignors.lag.synthetic import EXPECTED
from kgroup.cli.render.lag import rollup_body
from kgroup.inspectors.lag.dataset import read_samples
from tests.cli.helpers import run
from tests.spark.conftest import PLAN

ARGS = ("--bucket", "5m", "--window", str(PLAN.window))


STDOUT: dict[str, str] = {}  # engine -> the JSON exactly as printed


def _analyze(history: str, spark: str, *extra: str) -> dict[str, Any]:
    result = run("lag", "analyze", history, "--spark", spark, *ARGS, *extra, "-o", "json")
    assert result.exit_code == 0, result.output
    if not extra:
        STDOUT[spark if spark.startswith("local") else "connect"] = result.stdout
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("out")


@pytest.fixture(scope="module")
def local(history: str, files: Path) -> dict[str, Any]:
    return _analyze(history, "local[2]", "--out", str(files / "result.parquet"), "--chart", str(files / "lag.html"))


def test_the_parquet_result_and_the_chart(local: dict[str, Any], files: Path) -> None:
    rows = pq.read_table(files / "result.parquet").to_pylist()
    assert rows == local["partitions"]
    chart = (files / "lag.html").read_text()
    assert chart.count('<svg width="960"') == 2 and chart.count('class="series"') == 2 * len(local["groups"])
    assert all(g["group"] in chart for g in local["groups"])


def test_spark_matches_the_reference(history: str, local: dict[str, Any]) -> None:
    commits, logs = read_samples(history)
    query = LagQuery(as_of=local["as_of"], window=PLAN.window, bucket_ms=300_000)
    reports, points = analyze(commits, logs, query)
    assert local["partitions"] == [asdict(r) for r in reports]
    assert [(h["group"], h["bucket_ts"], h["max_lag"], h["max_time_lag_ms"]) for h in local["history"]] == [
        (p.group, p.bucket_ts, p.max_lag, p.max_time_lag_ms) for p in points
    ]
    expected = [rollup_body(r) for r in rollups(reports)]  # the reference, in the JSON document's form
    found = local["groups"] + local["topics"] + local["members"]
    # the trend is a sum of per-partition floats, added smallest first by both: equal to the last bit
    assert found == expected


def test_every_planted_behaviour_is_found_on_spark(local: dict[str, Any]) -> None:
    truth = {(p.group, p.topic, p.partition): p.behaviour for p in PLAN.partitions_planned()}
    found = {(p["group"], p["topic"], p["partition"]): p["status"] for p in local["partitions"]}
    assert found == {key: EXPECTED[behaviour] for key, behaviour in truth.items()}


def test_spark_connect_gives_the_same_result(history: str, local: dict[str, Any], connect_server: str) -> None:
    _analyze(history, "local[2]")
    remote = _analyze(history, connect_server)
    assert remote == local
    assert STDOUT["connect"] == STDOUT["local[2]"]  # byte for byte, float sums included


def test_group_selection_and_since(history: str) -> None:
    one = _analyze(history, "local[2]", "--group", "group-1", "--since", "10m")
    assert {p["group"] for p in one["partitions"]} == {"group-1"}
    assert one["since"] == one["as_of"] - 600_000
    regex = _analyze(history, "local[2]", "-r", "-0$")
    assert {p["group"] for p in regex["partitions"]} == {"group-0"}


def test_in_process_gives_the_same_document_as_spark(history: str, local: dict[str, Any]) -> None:
    result = run("lag", "analyze", history, "--in-process", *ARGS, "-o", "json")
    assert result.exit_code == 0, result.output
    if "local[2]" not in STDOUT:
        _analyze(history, "local[2]")
    assert result.stdout == STDOUT["local[2]"]  # byte for byte
