"""Who is consuming which partition, and when nobody is, by Kafka's `ConsumerRebalanceListener` callbacks
(docs/scenarios.md, "What is reported").

A member consumes a partition from the instant its `onPartitionsAssigned` includes it until it revokes or
loses it, crashes, stalls (a GC pause, a batch longer than max.poll.interval.ms, whose work is lost) or is
no longer a member of the group on the coordinator (its commits would fail). The ledger keeps closed
segments per member; totals are sums over segments, per-partition timelines are built only on request,
because a large group moves hundreds of thousands of partitions per eager rebalance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar

from kgroup.assignors.model import TopicPartition

T = TypeVar("T")


class Segment(NamedTuple):
    """`owner` consumed `partitions` from `start` to `end` (None: still consuming)."""

    owner: str
    partitions: tuple[TopicPartition, ...]
    start: int
    end: int | None


class Gap(NamedTuple):
    """Nobody consumed a partition from `start` to `end` (None: still unconsumed). May be zero-length: a
    partition revoked and reassigned at the same instant still had its consumer stop and restart.

    A gap names no partition: partitions that always moved together have the very same gaps, and share
    them (`ConsumptionLedger.gaps`); an eager hour of a large group has millions of them."""

    start: int
    end: int | None

    def length(self, now: int) -> int:
        return (now if self.end is None else self.end) - self.start


_new_tuple = tuple.__new__
_PARTITIONS = itemgetter(1)  # of a Segment


def _timeline_order(segment: Segment) -> tuple[int, bool, int]:
    """A partition's segments by start; at one start, closed ones first, shorter first."""
    return (segment.start, segment.end is None, segment.end or 0)


def distinct(per_partition: Mapping[TopicPartition, list[T]]) -> list[tuple[list[T], int]]:
    """The distinct lists of a mapping whose partitions may share one (`timelines`, `gaps`), each with the
    number of partitions that have it: a sum over every partition's segments or gaps, once per list."""
    counts: dict[int, list[Any]] = {}
    for value in per_partition.values():
        seen = counts.get(id(value))
        if seen is None:
            counts[id(value)] = [value, 1]
        else:
            seen[1] += 1
    return [(value, count) for value, count in counts.values()]


class ConsumptionLedger:
    def __init__(self) -> None:
        self._open: dict[str, list[tuple[tuple[TopicPartition, ...], int]]] = {}
        # Plain (owner, partitions, start, end) tuples: an eager rebalance of a large group closes one per
        # member, and building a named tuple costs a Python call each.
        self._closed: list[tuple[str, tuple[TopicPartition, ...], int, int]] = []
        self._timelines: dict[TopicPartition, list[Segment]] | None = None  # every partition's, until a change

    def start(self, owner: str, partitions: Iterable[TopicPartition], at: int) -> None:
        block = tuple(partitions)
        if block:
            self._timelines = None
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
        self._timelines = None
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
        """Per partition, its consumers in time order; read only. A segment is the ledger's own, naming every
        partition its owner started together (the partition's among them), and partitions whose segments are
        all the same share one list: in an eager hour a member's partitions move together, so a hundred
        thousand partitions with hundreds of segments each are a thousand lists, not tens of millions of
        entries.

        The segments are ordered once, stably, and dealt block by block: the partitions of a block that
        shared a list until then still do (the list grows in place when the block holds all of them, else
        they go on with a copy). Every partition's timelines are kept until the ledger changes: a report
        reads them several times."""
        if self._timelines is None:
            segments = self.segments()
            # Partitions in the order the segments first name them, as a reader iterating them expects.
            result: dict[TopicPartition, list[Segment]] = dict.fromkeys(
                chain.from_iterable(map(_PARTITIONS, segments)), _NO_SEGMENTS
            )
            sharing: dict[int, int] = {id(_NO_SEGMENTS): len(result)}  # id(list) -> partitions that have it
            for segment in sorted(segments, key=_timeline_order):
                block = segment.partitions
                lists = list(map(result.__getitem__, block))
                here = Counter(map(id, lists))
                grown: dict[int, list[Segment]] = {}
                for tp, timeline in zip(block, lists):
                    key = id(timeline)
                    new = grown.get(key)
                    if new is None:
                        if timeline is not _NO_SEGMENTS and here[key] == sharing[key]:
                            timeline.append(segment)  # every partition of this list is in the block
                            new = timeline
                        else:
                            new = timeline + [segment]
                            sharing[key] -= here[key]
                            sharing[id(new)] = here[key]
                        grown[key] = new
                    result[tp] = new
            self._timelines = result
        if partitions is None:
            return self._timelines
        wanted = set(partitions)
        return {tp: segments for tp, segments in self._timelines.items() if tp in wanted}

    def gaps(self, created: Mapping[TopicPartition, int]) -> dict[TopicPartition, list[Gap]]:
        """Per partition (those in `created`, with the instant each came to exist), when nobody consumed it;
        read only. Partitions with one timeline and one birth share one list of gaps."""
        timelines = self.timelines()
        result: dict[TopicPartition, list[Gap]] = {}
        done: dict[tuple[int, int], list[Gap]] = {}
        for tp, born in created.items():
            timeline = timelines.get(tp, _NO_SEGMENTS)
            key = (born, id(timeline))
            gaps = done.get(key)
            if gaps is None:
                gaps = done[key] = _gaps(timeline, born)
            result[tp] = gaps
        return result


_NO_SEGMENTS: list[Segment] = []  # the timeline of a partition nobody consumed yet, shared; never grown


def _gaps(timeline: list[Segment], born: int) -> list[Gap]:
    """When nobody consumed a partition that came to exist at `born` and was consumed over `timeline`."""
    gaps: list[Gap] = []
    covered_to = born  # the instant up to which someone consumed
    fresh = True  # no segment yet: a segment starting at `born` leaves no gap
    # Segments unpacked, not read by name: a large hour has millions of them.
    for _owner, _partitions, start, end in timeline:
        if start > covered_to or (start == covered_to and not fresh):
            gaps.append(_new_tuple(Gap, (covered_to, start)))
        if end is None:  # consumed until the run ends: no gap after
            break
        if end > covered_to:
            covered_to = end
        fresh = False
    else:
        gaps.append(_new_tuple(Gap, (covered_to, None)))
    return gaps
