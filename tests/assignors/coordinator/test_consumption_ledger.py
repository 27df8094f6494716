"""The consumption ledger's per-partition timelines and gaps, against their definition (docs/scenarios.md,
"What is reported") on ledgers hypothesis draws."""

from __future__ import annotations

from hypothesis import given, settings

from kgroup.assignors.coordinator.consumption import ConsumptionLedger, Gap, Segment
from kgroup.assignors.model import TopicPartition
from tests.assignors.coordinator import ledger_moves

_PARTS = [TopicPartition(topic, p) for topic in ("t", "u") for p in range(3)]
_moves = ledger_moves.moves(_PARTS, instants=20, step_ms=1000, size=25)


def _timelines_by_definition(ledger: ConsumptionLedger) -> dict[TopicPartition, list[Segment]]:
    """Each partition's segments (those naming it), partitions in the order the segments first name them, each
    partition's segments by start (closed before open at one start, shorter first), ties as logged."""
    result: dict[TopicPartition, list[Segment]] = {}
    for segment in ledger.segments():
        for tp in segment.partitions:
            result.setdefault(tp, []).append(segment)
    for segments in result.values():
        segments.sort(key=lambda s: (s.start, s.end is None, s.end or 0))
    return result


@settings(max_examples=300, deadline=None)
@given(moves=_moves, more=_moves)
def test_timelines_are_each_partition_s_segments_in_order_and_follow_every_change(moves, more) -> None:  # type: ignore[no-untyped-def]
    ledger = ledger_moves.play(ConsumptionLedger(), moves)
    expected = _timelines_by_definition(ledger)
    timelines = ledger.timelines()
    assert list(timelines.items()) == list(expected.items())  # the partitions' order too
    wanted = _PARTS[::2]
    assert list(ledger.timelines(wanted).items()) == [(tp, s) for tp, s in expected.items() if tp in wanted]
    # Kept between reads, and read afresh once the ledger changes.
    last = max((at for *_, at in moves), default=0)
    for move in sorted(more, key=lambda move: move[3]):
        ledger_moves.play(ledger, [move], after=last)
        assert list(ledger.timelines().items()) == list(_timelines_by_definition(ledger).items())


def test_gaps_read_the_timelines_of_the_partitions_created() -> None:
    t0, t1, u0 = _PARTS[0], _PARTS[1], _PARTS[3]
    ledger = ConsumptionLedger()
    ledger.start("a", [t0, t1], 0)
    ledger.stop("a", 5_000, [t1])
    ledger.start("b", [t1], 8_000)
    ledger.stop("a", 9_000)
    assert ledger.gaps({t0: 0, t1: 0, u0: 2_000}) == {
        t0: [Gap(9_000, None)],
        t1: [Gap(5_000, 8_000)],
        u0: [Gap(2_000, None)],
    }
    assert Gap(5_000, 8_000).length(60_000) == 3_000 and Gap(9_000, None).length(60_000) == 51_000


def test_partitions_that_always_moved_together_share_their_timeline_and_gaps() -> None:
    """An eager hour's memory: a member's partitions move together, and each of their timelines is one list."""
    t0, t1, t2, u0 = _PARTS[0], _PARTS[1], _PARTS[2], _PARTS[3]
    ledger = ConsumptionLedger()
    ledger.start("a", [t0, t1, t2, u0], 0)
    ledger.stop("a", 4_000)
    ledger.start("b", [t0, t1, u0], 6_000)
    ledger.start("a", [t2], 6_000)
    ledger.stop("b", 9_000, [u0])
    timelines = ledger.timelines()
    assert timelines[t0] is timelines[t1] and timelines[t0] is not timelines[t2] is not timelines[u0]
    assert [s.owner for s in timelines[t0]] == ["a", "b"] and [s.owner for s in timelines[u0]] == ["a", "b"]
    gaps = ledger.gaps({t0: 0, t1: 0, t2: 0, u0: 0})
    assert gaps[t0] is gaps[t1] == [Gap(4_000, 6_000)] == gaps[t2]
    assert gaps[u0] == [Gap(4_000, 6_000), Gap(9_000, None)]
