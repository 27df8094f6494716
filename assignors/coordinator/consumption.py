"""Who is consuming which partition, and when nobody is, by Kafka's `ConsumerRebalanceListener` callbacks
(docs/scenarios.md, "What is reported").

A member consumes a partition from the instant its `onPartitionsAssigned` includes it until it revokes or
loses it, crashes, stalls (a GC pause, a batch longer than max.poll.interval.ms, whose work is lost) or is
no longer a member of the group on the coordinator (its commits would fail). The ledger keeps closed
segments per member; totals are sums over segments, per-partition timelines are built only on request,
because a large group moves hundreds of thousands of partitions per eager rebalance.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from kgroup.assignors.model import TopicPartition


class Segment(NamedTuple):
    """`owner` consumed `partitions` from `start` to `end` (None: still consuming)."""

    owner: str
    partitions: tuple[TopicPartition, ...]
    start: int
    end: int | None


@dataclass(frozen=True)
class Gap:
    """Nobody consumed `partition` from `start` to `end` (None: still unconsumed). May be zero-length: a
    partition revoked and reassigned at the same instant still had its consumer stop and restart."""

    partition: TopicPartition
    start: int
    end: int | None

    def length(self, now: int) -> int:
        return (now if self.end is None else self.end) - self.start


class ConsumptionLedger:
    def __init__(self) -> None:
        self._open: dict[str, list[tuple[tuple[TopicPartition, ...], int]]] = {}
        # Plain (owner, partitions, start, end) tuples: an eager rebalance of a large group closes one per
        # member, and building a named tuple costs a Python call each.
        self._closed: list[tuple[str, tuple[TopicPartition, ...], int, int]] = []

    def start(self, owner: str, partitions: Iterable[TopicPartition], at: int) -> None:
        block = tuple(partitions)
        if block:
            self._open.setdefault(owner, []).append((block, at))

    def stop(self, owner: str, at: int, partitions: Iterable[TopicPartition] | None = None) -> None:
        """Stop `owner` consuming `partitions` (all when None); the rest keep their start."""
        if partitions is not None:
            stopping = set(partitions)
            if not stopping:  # a member gaining partitions stops none: its blocks stay as they are
                return
        blocks = self._open.pop(owner, None)
        if not blocks:
            return
        # A segment that ends where it starts consumed nothing (a stalled batch that ends in a failed
        # commit, say); keeping it would show an owner that never read a record.
        if partitions is None:
            self._closed.extend([(owner, block, start, at) for block, start in blocks if start != at])
            return
        kept = []
        for block, start in blocks:
            # A member revoking one partition has many blocks, most without it: tested in C first.
            ended = () if stopping.isdisjoint(block) else tuple(tp for tp in block if tp in stopping)
            if not ended:
                kept.append((block, start))
                continue
            if start != at:
                self._closed.append((owner, ended, start, at))
            rest = tuple(tp for tp in block if tp not in stopping)
            if rest:
                kept.append((rest, start))
        if kept:
            self._open[owner] = kept

    def consuming(self, owner: str) -> tuple[TopicPartition, ...]:
        return tuple(tp for block, _ in self._open.get(owner, ()) for tp in block)

    def segments(self) -> list[Segment]:
        opened = [Segment(owner, block, start, None) for owner, blocks in self._open.items() for block, start in blocks]
        return list(map(Segment._make, self._closed)) + opened

    def consumed_ms(self, now: int) -> int:
        """Partition-milliseconds consumed up to `now`, summed over partitions."""
        total = sum(len(partitions) * (end - start) for _, partitions, start, end in self._closed)
        return total + sum(len(block) * (now - start) for blocks in self._open.values() for block, start in blocks)

    def timelines(self, partitions: Iterable[TopicPartition] | None = None) -> dict[TopicPartition, list[Segment]]:
        """Per partition, its consumers in time order (each segment narrowed to that one partition)."""
        wanted = None if partitions is None else set(partitions)
        result: dict[TopicPartition, list[Segment]] = {}
        for segment in self.segments():
            for tp in segment.partitions:
                if wanted is None or tp in wanted:
                    result.setdefault(tp, []).append(Segment(segment.owner, (tp,), segment.start, segment.end))
        for segments in result.values():
            segments.sort(key=lambda s: (s.start, s.end is None, s.end or 0))
        return result

    def gaps(self, created: Mapping[TopicPartition, int]) -> dict[TopicPartition, list[Gap]]:
        """Per partition (those in `created`, with the instant each came to exist), when nobody consumed it."""
        timelines = self.timelines(created)
        result: dict[TopicPartition, list[Gap]] = {}
        for tp, born in created.items():
            gaps: list[Gap] = []
            covered_to: int | None = born  # the instant up to which someone consumed; None: open-ended
            fresh = True  # no segment yet: a segment starting at `born` leaves no gap
            for segment in timelines.get(tp, ()):
                if covered_to is None:
                    break
                if segment.start > covered_to or (segment.start == covered_to and not fresh):
                    gaps.append(Gap(tp, covered_to, segment.start))
                covered_to = None if segment.end is None else max(covered_to, segment.end)
                fresh = False
            if covered_to is not None:
                gaps.append(Gap(tp, covered_to, None))
            result[tp] = gaps
        return result
