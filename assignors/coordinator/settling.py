"""TIME-TO-STABLE: how long the group took to settle after each event, read off any design's timeline.

The definition (docs/scenarios.md, "Time to stable"): from the event until every live member consumes its
final share and no later rebalance follows from that event. "Follows from that event" is taken as
"starts before the next event": the events of a scenario are the only causes, so whatever moves between
one event and the next is that event's doing. The same function serves every design, so their numbers
compare: it looks only at who consumed what when (the consumption ledger's segments) and at the design's
rebalance intervals, never at a design's own notion of "stable".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from kgroup.assignors.coordinator.consumption import Segment
from kgroup.assignors.model import TopicPartition


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

    `rebalances`: (start, end) of each rebalance, end None while still open. A partition counts once its
    topic has ever been consumed by anyone (a topic nobody subscribes to is nobody's share).
    """
    consumed_topics = {tp.topic for tp, segments in timelines.items() if segments}
    wanted = [tp for tp in created if tp.topic in consumed_topics]
    relevant = [t for i, t in enumerate(instants) if applies is None or applies[i]]
    distinct = sorted(set(relevant))
    by_instant: dict[int, Settle] = {}
    for i, start in enumerate(distinct):
        last_window = i + 1 == len(distinct)
        stop = now if last_window else distinct[i + 1]
        by_instant[start] = _settle(start, stop, last_window, timelines, created, wanted, rebalances)
    return [
        by_instant[t] if applies is None or applies[i] else Settle(None, applies=False) for i, t in enumerate(instants)
    ]


def _settle(
    start: int,
    stop: int,
    last_window: bool,
    timelines: Mapping[TopicPartition, list[Segment]],
    created: Mapping[TopicPartition, int],
    wanted: list[TopicPartition],
    rebalances: Sequence[tuple[int, int | None]],
) -> Settle:
    def inside(at: int) -> bool:
        return start <= at < stop or (last_window and at == stop)

    unsettled = False
    latest = start
    for begun, ended in rebalances:
        if not inside(begun):
            continue
        if ended is None or not inside(ended):
            unsettled = True
        else:
            latest = max(latest, ended)
    for segments in timelines.values():
        for s in segments:
            if inside(s.start):
                latest = max(latest, s.start)
            if s.end is not None and inside(s.end):
                latest = max(latest, s.end)
    for tp in wanted:
        if created[tp] > stop or (created[tp] == stop and not last_window):
            continue  # born with the next event: that event's to settle
        # Consumed just before the window closes (for the last window: at the end of the run).
        if not any(
            s.start < stop and (s.end is None or s.end >= stop)
            if not last_window
            else s.start <= stop and s.end is None
            for s in timelines.get(tp, ())
        ):
            unsettled = True
            break
    if unsettled:
        return Settle(None) if last_window else Settle(stop - start, interrupted=True)
    return Settle(latest - start)
