"""Partitions two owners consumed at once (the comparison's "owned twice" column), against the definition:
some segment starts before an earlier segment of another owner has ended."""

from __future__ import annotations

from hypothesis import given, settings

from kgroup.assignors.coordinator.consumption import ConsumptionLedger, Segment
from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.simulation.protocol_comparison import _owned_twice
from tests.assignors.coordinator import ledger_moves

_PARTS = [TopicPartition("t", p) for p in range(3)]


def _by_definition(timelines: dict[TopicPartition, list[Segment]]) -> int:
    count = 0
    for segments in timelines.values():
        consumed = [s for s in segments if s.end != s.start]  # a segment of no length consumed nothing
        if any(
            other.owner != s.owner and (other.end is None or other.end > s.start)
            for i, s in enumerate(consumed)
            for other in consumed[:i]
        ):
            count += 1
    return count


@settings(max_examples=400, deadline=None)
@given(moves=ledger_moves.moves(_PARTS, instants=12, step_ms=1000, size=30))
def test_owned_twice_counts_the_partitions_two_owners_consumed_at_once(moves) -> None:  # type: ignore[no-untyped-def]
    timelines = ledger_moves.play(ConsumptionLedger(), moves).timelines()
    assert _owned_twice(timelines) == _by_definition(timelines)
