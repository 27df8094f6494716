"""The assignor protocol every built-in and user assignor follows, and the errors it may raise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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


def member_partitions(members: Sequence[Member]) -> dict[str, list[TopicPartition]]:
    """A fresh result map with an empty entry per member, as Kafka's assignors start."""
    return {member.member_id: [] for member in members}


def subscribed_topics(cluster: Cluster, members: Sequence[Member]) -> dict[str, int]:
    """Topic -> partition count for every subscribed topic with metadata and at least one partition.

    Kafka: `AbstractPartitionAssignor.assign` drops topics without metadata (or with no partitions).
    """
    known = cluster.by_name()
    result: dict[str, int] = {}
    for member in members:
        for name in member.topics:
            topic = known.get(name)
            if topic is not None and topic.partitions > 0:
                result[name] = topic.partitions
    return result

