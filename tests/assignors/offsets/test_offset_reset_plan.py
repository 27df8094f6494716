"""The reset plan follows kafka-consumer-groups.sh (ConsumerGroupCommand.prepareOffsetsToReset).

Expected values are worked out from the tool's documented rules: to-offset and shift-by are clamped
into [log start, log end], to-current sends never-committed partitions to the log end, and a time with
no record at or after it falls back to the log end.
"""

from __future__ import annotations

import pytest

from kgroup.assignors.model import TopicPartition
from kgroup.assignors.offsets.reset_plan import (
    FROM_FILE,
    SHIFT_BY,
    TO_CURRENT,
    TO_DATETIME,
    TO_EARLIEST,
    TO_LATEST,
    TO_OFFSET,
    ResetInputs,
    ResetRefused,
    plan_reset,
    refusal,
)

A0, A1, B0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)
# a-0: log 10..50, committed 30; a-1: log 0..5, never committed; b-0: log 100..100 (empty), committed 100
INPUTS = ResetInputs(committed={A0: 30, B0: 100}, bounds={A0: (10, 50), A1: (0, 5), B0: (100, 100)})


def new_offsets(spec: str, inputs: ResetInputs = INPUTS, value: int | None = None) -> dict[str, int]:
    return {str(p.tp): p.new for p in plan_reset(spec, [B0, A1, A0], inputs, value)}


def test_earliest_and_latest_are_the_log_bounds() -> None:
    assert new_offsets(TO_EARLIEST) == {"a-0": 10, "a-1": 0, "b-0": 100}
    assert new_offsets(TO_LATEST) == {"a-0": 50, "a-1": 5, "b-0": 100}


def test_to_current_sends_never_committed_partitions_to_the_log_end() -> None:
    plan = {str(p.tp): p for p in plan_reset(TO_CURRENT, [A0, A1], INPUTS)}
    assert (plan["a-0"].new, plan["a-0"].note) == (30, None)
    assert plan["a-1"].new == 5 and "never committed" in (plan["a-1"].note or "")


def test_to_offset_is_clamped_into_the_log_with_a_note() -> None:
    assert new_offsets(TO_OFFSET, value=20) == {"a-0": 20, "a-1": 5, "b-0": 100}
    plan = {str(p.tp): p for p in plan_reset(TO_OFFSET, [A0, A1, B0], INPUTS, 3)}
    assert plan["a-0"].new == 10 and "below the log start" in (plan["a-0"].note or "")
    assert plan["a-1"].note is None
    assert plan["b-0"].new == 100 and "below" in (plan["b-0"].note or "")


def test_shift_by_moves_from_the_commit_and_is_clamped() -> None:
    inputs = ResetInputs(committed={A0: 30}, bounds=INPUTS.bounds)
    assert new_offsets(SHIFT_BY, ResetInputs({A0: 30, A1: 2, B0: 100}, INPUTS.bounds), -25) == {
        "a-0": 10,
        "a-1": 0,
        "b-0": 100,
    }
    assert {str(p.tp): p.new for p in plan_reset(SHIFT_BY, [A0], inputs, 15)} == {"a-0": 45}
    assert {str(p.tp): p.new for p in plan_reset(SHIFT_BY, [A0], inputs, 500)} == {"a-0": 50}


def test_shift_by_refuses_a_partition_without_a_commit() -> None:
    with pytest.raises(ResetRefused, match="a-1"):
        plan_reset(SHIFT_BY, [A0, A1], INPUTS, 1)


def test_to_datetime_uses_the_lookup_and_falls_back_to_the_log_end() -> None:
    inputs = ResetInputs(INPUTS.committed, INPUTS.bounds, for_time={A0: 17, A1: -1})
    plan = {str(p.tp): p for p in plan_reset(TO_DATETIME, [A0, A1], inputs)}
    assert plan["a-0"].new == 17
    assert plan["a-1"].new == 5 and "no record" in (plan["a-1"].note or "")


def test_from_file_is_clamped_like_to_offset() -> None:
    inputs = ResetInputs(INPUTS.committed, INPUTS.bounds, requested={A0: 60, A1: 4})
    assert {str(p.tp): p.new for p in plan_reset(FROM_FILE, [A0, A1], inputs)} == {"a-0": 50, "a-1": 4}


def test_the_plan_keeps_the_current_offset_and_is_in_partition_order() -> None:
    plan = plan_reset(TO_EARLIEST, [B0, A1, A0], INPUTS)
    assert [(str(p.tp), p.current) for p in plan] == [("a-0", 30), ("a-1", None), ("b-0", 100)]


@pytest.mark.parametrize(
    ("state", "members", "refused"),
    [
        ("empty", 0, False),
        ("dead", 0, False),
        ("unknown", 0, False),
        ("stable", 0, True),
        ("preparing_rebalancing", 0, True),
        ("empty", 1, True),
    ],
)
def test_only_inactive_groups_may_be_reset(state: str, members: int, refused: bool) -> None:
    assert (refusal(state, members) is not None) == refused
