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

    result = run_process("lag", "analyze", str(history), "--in-process", "--window", str(PLAN.window), "-o", "json",
                         env=no_java)

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
