"""TIME-TO-STABLE: how long the group took to settle after each event, read off any design's timeline.

The definition (docs/scenarios.md, "Time to stable"): from the event until every live member consumes its
final share and no later rebalance follows from that event. "Follows from that event" is taken as
"starts before the next event": the events of a scenario are the only causes, so whatever moves between
one event and the next is that event's doing. The same function serves every design, so their numbers
compare: it looks only at who consumed what when (the consumption ledger's segments) and at the design's
rebalance intervals, never at a design's own notion of "stable".
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import attrgetter
from typing import NamedTuple

from kgroup.assignors.coordinator.consumption import Segment, distinct
from kgroup.assignors.model import TopicPartition


_START, _END = attrgetter("start"), attrgetter("end")
_FOREVER = float("inf")  # a partition consumed until the run ends: no later close finds it unconsumed


class Settle(NamedTuple):
    """`ms` after the event the group was settled; None: it never was before the run ended. `interrupted`:
    still unsettled when the next event came, `ms` later."""

    ms: int | None
    interrupted: bool = False
    applies: bool = True  # False: the design does not depend on what the event changes (an outage of ZooKeeper
    #                       for Kafka's coordinator), so the event neither has a time nor cuts another's window


def time_to_stable(
    instants: Sequence[int],
    timelines: Mapping[TopicPartition, list[Segment]],
    created: Mapping[TopicPartition, int],
    rebalances: Sequence[tuple[int, int | None]],
    now: int,
    applies: Sequence[bool] | None = None,
) -> list[Settle]:
    """Per event instant (in order; equal instants share one window), when the group settled.

    `rebalances`: (start, end) of each rebalance, end None while still open; `now`, the end of the run, is at or
    after every instant. `timelines`: each partition's segments by start, as `ConsumptionLedger.timelines`
    gives them. A partition counts once its topic has ever been consumed by anyone (a topic nobody subscribes
    to is nobody's share).

    One pass over the segments serves every window (a thousand-member restart hour has a thousand events and
    a hundred thousand partitions, each with hundreds of segments): each partition's uncovered stretches mark
    the windows whose end they contain, instead of each window looking at every partition.
    """
    relevant = [t for i, t in enumerate(instants) if applies is None or applies[i]]
    starts = sorted(set(relevant))
    if not starts:
        return [Settle(None, applies=False) for _ in instants]
    last = len(starts) - 1
    # Window i runs from starts[i] up to (not including) ends[i], the next event; the last one up to `now`
    # included.
    ends = starts[1:]

    def window(at: int) -> int | None:
        index = bisect_right(starts, at) - 1
        return None if index < 0 or (index == last and at > now) else index

    latest = list(starts)
    unsettled = [False] * len(starts)
    for begun, ended in rebalances:
        index = window(begun)
        if index is None:
            continue
        if ended is None or window(ended) != index:
            unsettled[index] = True  # still running when its window closed
        elif ended > latest[index]:
            latest[index] = ended
    timeline_lists = [segments for segments, _ in distinct(timelines)]  # partitions that moved together share one
    moments = set(map(_START, chain.from_iterable(timeline_lists)))
    moments.update(map(_END, chain.from_iterable(timeline_lists)))
    moments.discard(None)
    for at in moments:
        index = window(at)
        if index is not None and at > latest[index]:
            latest[index] = at
    _mark_unconsumed(timelines, created, ends, now, unsettled)
    by_instant: dict[int, Settle] = {}
    for index, start in enumerate(starts):
        if not unsettled[index]:
            by_instant[start] = Settle(latest[index] - start)
        elif index == last:
            by_instant[start] = Settle(None)
        else:
            by_instant[start] = Settle(ends[index] - start, interrupted=True)
    return [
        by_instant[t] if applies is None or applies[i] else Settle(None, applies=False) for i, t in enumerate(instants)
    ]


def _mark_unconsumed(
    timelines: Mapping[TopicPartition, list[Segment]],
    created: Mapping[TopicPartition, int],
    ends: list[int],
    now: int,
    unsettled: list[bool],
) -> None:
    """Mark each window at whose close some partition of a consumed topic, already there, is consumed by
    nobody: at the close `end` of a window but the last, one still consuming just before it (a segment
    with start < end <= its end); at `now`, the last window's close, one consuming until the run ends.

    A partition's segments, by start, leave it unconsumed at `t` exactly over the stretches (covered, next
    start] between them (and after the last one that ends): each stretch marks the closes it holds, through a
    running count over the windows."""
    consumed_topics = {tp.topic for tp, segments in timelines.items() if segments}
    marks = [0] * (len(ends) + 1)
    at_the_end = False
    # Only whether a close finds some partition unconsumed counts, not how many: partitions with one birth and
    # one (shared) timeline mark the same closes, so each such pair is walked once.
    walked: set[tuple[int, int]] = set()
    for tp, born in created.items():
        if tp.topic not in consumed_topics:
            continue
        timeline = timelines.get(tp, ())
        if (born, id(timeline)) in walked:
            continue
        walked.add((born, id(timeline)))
        covered: float = born  # consumed over (born, covered]: nothing yet
        open_ended = False
        for _owner, _partitions, start, end in timeline:  # unpacked: millions in a large hour
            if end is None and start <= now:
                open_ended = True
            if start > covered:
                marks[bisect_right(ends, covered)] += 1
                marks[bisect_right(ends, start)] -= 1
                covered = start
            if end is None:
                covered = _FOREVER
                continue
            if end > covered:
                covered = end
        if covered != _FOREVER:
            marks[bisect_right(ends, covered)] += 1
            marks[len(ends)] -= 1
        if not open_ended and born <= now:
            at_the_end = True
    running = 0
    for index in range(len(ends)):
        running += marks[index]
        if running:
            unsettled[index] = True
    if at_the_end:
        unsettled[-1] = True
