"""The assignor protocol every built-in and user assignor follows, and the errors it may raise."""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, groupby, repeat
from types import MappingProxyType
from typing import Protocol, runtime_checkable

from kgroup.assignors.java.semantics import java_string_key
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.trace import RANGE, Trace, active


class AssignorError(Exception):
    """Kafka's assignor would throw (e.g. `IllegalArgumentException` from a legacy `require`)."""

    def __init__(self, kafka_exception: str, message: str) -> None:
        super().__init__(message)
        self.kafka_exception = kafka_exception


@runtime_checkable
class Assignor(Protocol):
    """An assignor is a pure function of the cluster metadata and the members (in JoinGroup order).

    `assign` returns every member's partitions; members that get nothing may be absent or empty.
    """

    name: str

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment: ...


@dataclass(frozen=True, slots=True)
class AssignorInfo:
    """What `kgroup assignors` shows about one assignor."""

    name: str
    side: str  # client | server | legacy | user
    protocol: str  # eager | cooperative | consumer | zookeeper
    summary: str
    kafka_source: str
    # (Kafka version, what changed in the output); kgroup reproduces Kafka 4.0 unless a row says otherwise.
    history: tuple[tuple[str, str], ...] = ()


def subscribed_topics(cluster: Cluster, members: Sequence[Member]) -> dict[str, int]:
    """Topic -> partition count for every subscribed topic with metadata and at least one partition.

    Kafka: `AbstractPartitionAssignor.assign` drops topics without metadata (or with no partitions).
    The result follows the cluster's topic order, so it never depends on set iteration order.
    """
    wanted = set().union(*_distinct_subscriptions(members))
    return {t.name: t.partitions for t in cluster.topics if t.name in wanted and t.partitions > 0}


def _distinct_subscriptions(members: Sequence[Member]) -> set[tuple[str, ...]]:
    """The distinct subscription lists. Members often share one tuple object (a simulation interns them),
    so they are told apart by identity first: a thousand members of a hundred topics cost a thousand
    lookups, not a thousand hashes of a hundred-topic tuple."""
    return set({id(m.topics): m.topics for m in members}.values())


def subscriber_positions(ordered: Sequence[Member], topics: Iterable[str]) -> dict[str, list[int]]:
    """Topic -> positions (ascending) in `ordered` of the members subscribed to it.

    Members are grouped by distinct subscription first: groups are usually few, so this avoids a
    Python-level step per (member, topic) pair on a million-partition group.
    """
    by_object: dict[int, tuple[tuple[str, ...], list[int]]] = {}
    for position, member in enumerate(ordered):
        by_object.setdefault(id(member.topics), (member.topics, []))[1].append(position)
    by_topics: dict[tuple[str, ...], list[int]] = {}  # hashing a tuple is cheaper than building a set
    for topics_, positions_ in by_object.values():
        by_topics.setdefault(topics_, []).extend(positions_)
    by_subscription: dict[frozenset[str], list[int]] = {}
    for topics_, positions_ in by_topics.items():
        by_subscription.setdefault(frozenset(topics_), []).extend(positions_)
    for positions_ in by_subscription.values():
        positions_.sort()
    result = {}
    for topic in topics:
        runs = [positions for subs, positions in by_subscription.items() if topic in subs]
        result[topic] = runs[0] if len(runs) == 1 else sorted(p for run in runs for p in run)
    return result


_NUMBERS: list[int] = []  # 0, 1, 2, ...: one int object per partition number, shared by every topic


@lru_cache(maxsize=4096)
def topic_partitions(topic: str, count: int) -> tuple[TopicPartition, ...]:
    """`topic-0 .. topic-(count-1)`, built in C (`tuple.__new__` skips the NamedTuple constructor), and kept.

    Every assignment of a topic then shares one object per partition: a simulation that keeps a thousand
    eager rebalances of 100,000 partitions holds each partition once, not a thousand times.
    """
    if len(_NUMBERS) < count:
        _NUMBERS.extend(range(len(_NUMBERS), count))
    return tuple(map(tuple.__new__, repeat(TopicPartition), zip(repeat(topic), _NUMBERS[:count])))


@lru_cache(maxsize=4)
def partition_rows(names: tuple[str, ...], count: int) -> tuple[tuple[TopicPartition, ...], ...]:
    """Row p: partition p of each topic in `names`, kept: a simulated group that rebalances hundreds of times
    deals the same rows each time, and its members then receive the same tuples. A tuple, as the cache hands the
    same rows to every caller."""
    return tuple(zip(*(topic_partitions(topic, count) for topic in names)))


def contiguous_ranges(
    topics: dict[str, int], ordered: list[Member], positions: dict[str, list[int]], members: Sequence[Member]
) -> Assignment:
    """Per topic, the i-th subscriber (in `ordered`) takes the next q partitions, +1 while i < n % k.

    The closed form shared by client `range` without racks (`RangeAssignor.assignRanges` with every
    partition assignable) and the server-side `range` (`RangeAssignor.addPartitionsToAssignment`).
    """
    # Consecutive topics (in topic order) with the same subscribers and the same partition count split
    # identically, so each such run is dealt out in one pass.
    runs = [
        list(run)
        for _, run in groupby(
            sorted(topics, key=java_string_key), key=lambda topic: (id(positions[topic]), topics[topic])
        )
    ]
    trace = active()
    if trace is not None:  # the dealing below, one topic at a time, recording who takes what
        runs = [[topic] for run in runs for topic in run]
    elif len(runs) == 1:  # one subscription and one topic size, a large group's usual shape
        owners: dict[str, tuple[TopicPartition, ...]] = {m.member_id: () for m in members}
        for position, partitions in dealt_whole(runs[0], topics, positions[runs[0][0]]):
            owners[ordered[position].member_id] = partitions
        return Assignment(MappingProxyType(owners))
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    lists = [out[m.member_id] for m in ordered]
    targets_of: dict[int, list[list[TopicPartition]]] = {}  # topics with the same subscribers share one
    for names in runs:  # appending in topic order keeps every list sorted
        subscribers = positions[names[0]]
        targets = targets_of.get(id(subscribers))
        if targets is None:
            targets = targets_of[id(subscribers)] = [lists[i] for i in subscribers]
        _deal([topic_partitions(topic, topics[topic]) for topic in names], targets)
        if trace is not None:
            _record_deal(trace, names[0], topics[names[0]], [ordered[i].member_id for i in subscribers], targets)
    return Assignment.presorted(out)


def _record_deal(
    trace: Trace, topic: str, count: int, subscribers: list[str], targets: list[list[TopicPartition]]
) -> None:
    """What `_deal` just did to one topic, partition by partition, with the arithmetic it used."""
    q, r = divmod(count, len(subscribers))
    for position, (member, target) in enumerate(zip(subscribers, targets)):
        mine = [tp for tp in target if tp.topic == topic]
        for tp in mine:
            trace.record(
                tp,
                member,
                RANGE,
                partitions=count,
                members=subscribers,
                quota=q,
                extra=r,
                position=position,
                first=mine[0].partition,
                last=mine[-1].partition,
            )


def dealt_whole(
    names: list[str], topics: dict[str, int], subscribers: list[int]
) -> Iterator[tuple[int, tuple[TopicPartition, ...]]]:
    """Topics of one size, one subscriber list, built whole: (position, its partitions of every topic)."""
    run_parts = [topic_partitions(topic, topics[topic]) for topic in names]
    q, r = divmod(len(run_parts[0]), len(subscribers))
    # Row p holds partition p of every topic. With at most two partitions of each topic per subscriber
    # (a large group's usual shape) a subscriber's share is one row, or two rows interleaved topic by topic.
    rows = partition_rows(tuple(names), len(run_parts[0])) if q < 2 and len(run_parts) > 1 else None

    def take(start: int, end: int) -> tuple[TopicPartition, ...]:
        if len(run_parts) == 1:
            return run_parts[0][start:end]
        if rows is None:
            return tuple(chain.from_iterable(parts[start:end] for parts in run_parts))
        return rows[start] if end - start == 1 else tuple(chain.from_iterable(zip(*rows[start:end])))

    start = 0
    for i, position in enumerate(subscribers):
        size = q + 1 if i < r else q
        if size == 0:
            return
        yield position, take(start, start + size)
        start += size


def _deal(run_parts: list[tuple[TopicPartition, ...]], targets: list[list[TopicPartition]]) -> None:
    """Topics of one size, one subscriber list: the i-th target takes the next q partitions of each, +1 while
    i < n % k."""
    q, r = divmod(len(run_parts[0]), len(targets))
    head = r * (q + 1)
    for parts in run_parts:
        for i in range(r):
            targets[i] += parts[i * (q + 1) : (i + 1) * (q + 1)]
        if q == 1:
            deque(map(list.append, targets[r:], parts[head:]), maxlen=0)
        else:
            for j, target in enumerate(targets[r:]):
                target += parts[head + j * q : head + (j + 1) * q]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while an assignor allocates millions of tuples.

    Those allocations trigger repeated full collections over a heap that holds no cycles; on Kafka's
    one-million-partition scale test that is 40% of the run. The previous state is restored.

    On the way out, everything the collector tracks is moved to its oldest generation (freeze, then
    unfreeze), which also clears the count of young allocations. Otherwise the first allocation after
    re-enabling would start a collection over the million fresh tuples of the result at once (0.2 s on
    the scale test); the result is long-lived, so the next full collection is soon enough.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
