"""Offset reset plans, computed as `kafka-consumer-groups.sh --reset-offsets` computes them.

Pure: the caller reads committed offsets, log bounds and offsets-for-time from the cluster and hands
them in; this module only decides the new offset of each partition and says why when it differs from
what was asked (ConsumerGroupCommand.prepareOffsetsToReset, checkOffsetsRange).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kgroup.assignors.model import TopicPartition, sort_partitions

# The reset specs of kafka-consumer-groups.sh; by-duration is turned into to-datetime by the caller,
# since "now" is a wall-clock value and this module never reads the clock.
TO_EARLIEST, TO_LATEST, TO_CURRENT = "to-earliest", "to-latest", "to-current"
TO_OFFSET, SHIFT_BY, TO_DATETIME, FROM_FILE = "to-offset", "shift-by", "to-datetime", "from-file"
SPECS = (TO_EARLIEST, TO_LATEST, TO_CURRENT, TO_OFFSET, SHIFT_BY, TO_DATETIME, FROM_FILE)

# A timestamp lookup that found no record at or after the time (ListOffsetsResponse.UNKNOWN_OFFSET).
NO_OFFSET_FOR_TIME = -1


class ResetRefused(ValueError):
    """A partition the spec cannot be applied to (shift-by with nothing committed)."""


@dataclass(frozen=True)
class PlannedOffset:
    tp: TopicPartition
    current: int | None  # the group's committed offset before the reset; None if never committed
    new: int
    note: str | None = None  # why `new` is not what was asked: clamped, or an empty partition


@dataclass(frozen=True)
class ResetInputs:
    """What the cluster said, for the partitions in scope."""

    committed: Mapping[TopicPartition, int]
    bounds: Mapping[TopicPartition, tuple[int, int]]  # (log start, log end)
    for_time: Mapping[TopicPartition, int] | None = None  # offset of the first record at/after the time
    requested: Mapping[TopicPartition, int] | None = None  # from-file: the file's offsets


def plan_reset(
    spec: str, partitions: Iterable[TopicPartition], inputs: ResetInputs, value: int | None = None
) -> list[PlannedOffset]:
    """New offsets for `partitions` under `spec` (`value` is N of to-offset / shift-by), in partition order."""
    plan = []
    for tp in sort_partitions(set(partitions)):
        start, end = inputs.bounds[tp]
        current = inputs.committed.get(tp)
        plan.append(_plan_one(spec, tp, current, start, end, inputs, value))
    return plan


def _plan_one(
    spec: str, tp: TopicPartition, current: int | None, start: int, end: int, inputs: ResetInputs, value: int | None
) -> PlannedOffset:
    if spec == TO_EARLIEST:
        return PlannedOffset(tp, current, start)
    if spec == TO_LATEST:
        return PlannedOffset(tp, current, end)
    if spec == TO_CURRENT:
        # ConsumerGroupCommand.prepareOffsetsToReset: a partition never committed goes to the log end
        if current is None:
            return PlannedOffset(tp, current, end, "never committed: set to the log end")
        return PlannedOffset(tp, current, current)
    if spec == TO_DATETIME:
        found = (inputs.for_time or {}).get(tp, NO_OFFSET_FOR_TIME)
        # ConsumerGroupCommand.getLogTimestampOffsets: no record at or after the time -> the log end
        if found == NO_OFFSET_FOR_TIME:
            return PlannedOffset(tp, current, end, "no record at or after the time: set to the log end")
        return PlannedOffset(tp, current, found)
    if spec == TO_OFFSET:
        return _in_range(tp, current, _required(value, spec), start, end)
    if spec == SHIFT_BY:
        if current is None:  # ConsumerGroupCommand: "Cannot shift offset ... no current committed offset"
            raise ResetRefused(f"cannot shift {tp}: the group has no committed offset there")
        return _in_range(tp, current, current + _required(value, spec), start, end)
    if spec == FROM_FILE:
        return _in_range(tp, current, (inputs.requested or {})[tp], start, end)
    raise ValueError(f"unknown reset spec {spec!r}")


def _in_range(tp: TopicPartition, current: int | None, asked: int, start: int, end: int) -> PlannedOffset:
    """ConsumerGroupCommand.checkOffsetsRange: above the log end -> the end, below the log start -> the start."""
    if asked > end:
        return PlannedOffset(tp, current, end, f"asked {asked}, above the log end: set to {end}")
    if asked < start:
        return PlannedOffset(tp, current, start, f"asked {asked}, below the log start: set to {start}")
    return PlannedOffset(tp, current, asked)


def _required(value: int | None, spec: str) -> int:
    if value is None:
        raise ValueError(f"{spec} needs a value")
    return value


# ConsumerGroupCommand.resetOffsets: only a group nobody is consuming in may have its offsets reset.
RESETTABLE_STATES = frozenset({"empty", "dead", "unknown"})


def _label(state: str) -> str:
    """A state as Kafka's tool prints it (ConsumerGroupState's names: Stable, PreparingRebalance)."""
    return "".join(word.capitalize() for word in state.split("_")).replace("Rebalancing", "Rebalance")


def refusal(state: str, members: int) -> str | None:
    """Why a group's offsets may not be reset now, or None (state as confluent-kafka names it, lower case)."""
    if members:
        return f"the group has {members} active member(s); stop its consumers first"
    if state not in RESETTABLE_STATES:
        return f"offsets can only be reset when the group is inactive, but its state is {_label(state)}"
    return None
