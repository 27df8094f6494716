"""The assignor protocol every built-in and user assignor follows, and the errors it may raise."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import repeat
from typing import Protocol, runtime_checkable

from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition


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


def subscribed_topics(cluster: Cluster, members: Sequence[Member]) -> dict[str, int]:
    """Topic -> partition count for every subscribed topic with metadata and at least one partition.

    Kafka: `AbstractPartitionAssignor.assign` drops topics without metadata (or with no partitions).
    The result follows the cluster's topic order, so it never depends on set iteration order.
    """
    wanted = set().union(*(m.topics for m in members))
    return {t.name: t.partitions for t in cluster.topics if t.name in wanted and t.partitions > 0}


def subscriber_positions(ordered: Sequence[Member], topics: Iterable[str]) -> dict[str, list[int]]:
    """Topic -> positions (ascending) in `ordered` of the members subscribed to it.

    Members are grouped by distinct subscription first: groups are usually few, so this avoids a
    Python-level step per (member, topic) pair on a million-partition group.
    """
    by_subscription: dict[frozenset[str], list[int]] = {}
    for position, member in enumerate(ordered):
        by_subscription.setdefault(frozenset(member.topics), []).append(position)
    result = {}
    for topic in topics:
        runs = [positions for subs, positions in by_subscription.items() if topic in subs]
        result[topic] = runs[0] if len(runs) == 1 else sorted(p for run in runs for p in run)
    return result


def topic_partitions(topic: str, count: int) -> list[TopicPartition]:
    """`topic-0 .. topic-(count-1)`, built in C: `tuple.__new__` skips the NamedTuple constructor."""
    return list(map(tuple.__new__, repeat(TopicPartition), zip(repeat(topic), range(count))))


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while an assignor allocates millions of tuples.

    Those allocations trigger repeated full collections over a heap that holds no cycles; on Kafka's
    one-million-partition scale test that is 40% of the run. The previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
