"""`describe --verbose` rendering of what live brokers here never report: a commit's leader epoch and a
KIP-848 member's target assignment (the read path is exercised against real brokers in tests/live).

Run through the public command, with the cluster replaced by the inspectors' answer: `read_groups` gives the
group, `described_time_lags` the time lags."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from kgroup.assignors.model import Assignment, Group, Member, PartitionOffsets, TopicPartition
from kgroup.inspectors.live.consumer_groups import LiveGroup, LiveRead
from tests.cli.helpers import run

T0, T1, T2 = (TopicPartition("orders", p) for p in range(3))
LIVE = "kgroup.cli.commands.live"


def _live() -> LiveGroup:
    group = Group(
        "g",
        "consumer",
        (),
        (Member("m1", ("orders",)), Member("m2", ("orders",))),
        Assignment.of({"m1": [T0, T1], "m2": [T2]}),
        None,
        "Reconciling",
        (PartitionOffsets(T0, 5, 0, 9), PartitionOffsets(T1, 3, 0, 3), PartitionOffsets(T2, 1, 0, 4)),
    )
    return LiveGroup(
        group, "consumer", "uniform", None, (), leader_epochs={T0: 7}, target_assignments={"m1": (T0,), "m2": (T1, T2)}
    )


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> dict[TopicPartition, int]:
    """The time lags `--time-lag` reads; fill it in a test. The group is `_live()`."""
    lags: dict[TopicPartition, int] = {}
    live = _live()
    monkeypatch.setattr(
        "kgroup.cli.options.LiveOptions.connect", lambda _: SimpleNamespace(settings=None, timeout_s=1.0)
    )
    monkeypatch.setattr(f"{LIVE}.read_groups", lambda *_: LiveRead(None, [live]))
    monkeypatch.setattr(f"{LIVE}.described_time_lags", lambda *_: dict(lags))
    return lags


def _table(*flags: str) -> list[list[str]]:
    result = run("describe", "g", "-b", "kafka:9092", *flags)
    assert result.exit_code == 0, result.output
    return [line.split() for line in result.stdout.splitlines() if line.strip()]


def _json(*flags: str) -> dict[str, Any]:
    result = run("describe", "g", "-b", "kafka:9092", *flags, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["groups"][0]


def test_verbose_members_show_current_and_target_assignments_in_kafkas_form(cluster: dict) -> None:
    header, *rows = _table("--members", "--verbose")
    assert header[-4:] == ["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
    by_member = {row[1]: row[-4:] for row in rows}
    assert by_member == {"m1": ["-", "orders:0,1", "-", "orders:0"], "m2": ["-", "orders:2", "-", "orders:1,2"]}


def test_verbose_offsets_show_the_leader_epoch_where_the_commit_has_one(cluster: dict) -> None:
    _summary, header, *rows = _table("--verbose")
    assert header[3] == "LEADER-EPOCH"
    assert {row[2]: row[3] for row in rows} == {"0": "7", "1": "-", "2": "-"}


def test_the_json_body_carries_both(cluster: dict) -> None:
    body = _json()
    assert {p["partition"]: p["leader_epoch"] for p in body["partitions"]} == {0: 7, 1: None, 2: None}
    targets = {m["member_id"]: m["target_assignment"] for m in body["member_lag"]}
    assert targets["m2"] == [{"topic": "orders", "partition": 1}, {"topic": "orders", "partition": 2}]


def test_time_lag_columns_follow_lag_and_a_member_shows_its_worst_known_partition(
    cluster: dict[TopicPartition, int],
) -> None:
    """T2's record could not be read (absent): `-` for it, and m2, which owns only T2, has no known time lag."""
    cluster.update({T0: 90_000, T1: 0})
    _summary, header, *rows = _table("--time-lag")
    assert header[6:8] == ["LAG", "TIME-LAG"]
    assert {row[2]: row[7] for row in rows} == {"0": "1m30s", "1": "0s", "2": "-"}
    header, *rows = _table("--members", "--time-lag")
    assert header[-1] == "MAX-TIME-LAG"
    assert {row[1]: row[-1] for row in rows} == {"m1": "1m30s", "m2": "-"}
    body = _json("--time-lag")
    assert body["max_time_lag_ms"] == 90_000
    assert {m["member_id"]: m["max_time_lag_ms"] for m in body["member_lag"]} == {"m1": 90_000, "m2": None}
