"""`describe --verbose` rendering of what live brokers here never report: a commit's leader epoch and a
KIP-848 member's target assignment (the read path is exercised against real brokers in tests/live)."""

from __future__ import annotations

import io

from rich.console import Console

from kgroup.assignors.model import Assignment, Group, Member, PartitionOffsets, TopicPartition
from kgroup.cli.commands.live import _describe_body, _describe_tables
from kgroup.inspectors.live.admin import LiveGroup

T0, T1, T2 = (TopicPartition("orders", p) for p in range(3))


def _live() -> LiveGroup:
    group = Group("g", "consumer", (), (Member("m1", ("orders",)), Member("m2", ("orders",))),
                  Assignment.of({"m1": [T0, T1], "m2": [T2]}), None, "Reconciling",
                  (PartitionOffsets(T0, 5, 0, 9), PartitionOffsets(T1, 3, 0, 3), PartitionOffsets(T2, 1, 0, 4)))
    return LiveGroup(group, "consumer", "uniform", None, (), leader_epochs={T0: 7},
                     target_assignments={"m1": (T0,), "m2": (T1, T2)})


def _table(view: str, time_lags: dict[TopicPartition, int] | None = None, verbose: bool = True) -> list[list[str]]:
    out = io.StringIO()
    _describe_tables(Console(file=out, width=400), [_describe_body(_live(), time_lags)], view, verbose=verbose)
    return [line.split() for line in out.getvalue().splitlines() if line.strip()]


def test_verbose_members_show_current_and_target_assignments_in_kafkas_form() -> None:
    header, *rows = _table("members")
    assert header[-4:] == ["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
    by_member = {row[1]: row[-4:] for row in rows}
    assert by_member == {"m1": ["-", "orders:0,1", "-", "orders:0"], "m2": ["-", "orders:2", "-", "orders:1,2"]}


def test_verbose_offsets_show_the_leader_epoch_where_the_commit_has_one() -> None:
    _summary, header, *rows = _table("offsets")
    assert header[3] == "LEADER-EPOCH"
    assert {row[2]: row[3] for row in rows} == {"0": "7", "1": "-", "2": "-"}


def test_the_json_body_carries_both() -> None:
    body = _describe_body(_live(), None)
    assert {p["partition"]: p["leader_epoch"] for p in body["partitions"]} == {0: 7, 1: None, 2: None}
    targets = {m["member_id"]: m["target_assignment"] for m in body["member_lag"]}
    assert targets["m2"] == [{"topic": "orders", "partition": 1}, {"topic": "orders", "partition": 2}]


def test_time_lag_columns_follow_lag_and_a_member_shows_its_worst_known_partition() -> None:
    """T2's record could not be read (absent): `-` for it, and m2, which owns only T2, has no known time lag."""
    lags = {T0: 90_000, T1: 0}
    _summary, header, *rows = _table("offsets", lags, verbose=False)
    assert header[6:8] == ["LAG", "TIME-LAG"]
    assert {row[2]: row[7] for row in rows} == {"0": "1m30s", "1": "0s", "2": "-"}
    header, *rows = _table("members", lags, verbose=False)
    assert header[-1] == "MAX-TIME-LAG"
    assert {row[1]: row[-1] for row in rows} == {"m1": "1m30s", "m2": "-"}
    body = _describe_body(_live(), lags)
    assert body["max_time_lag_ms"] == 90_000
    assert {m["member_id"]: m["max_time_lag_ms"] for m in body["member_lag"]} == {"m1": 90_000, "m2": None}
