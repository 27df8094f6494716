"""Strategies librdkafka does not have: a librdkafka leader never runs them."""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assignors.model import Assignment, Cluster, Member
from kgroup.assignors.client.librdkafka.errors import UnsupportedAssignor


class NotInLibrdkafka:
    """librdkafka: rdkafka_assignor.c `rd_kafka_assignors_init`: `sticky` (eager) is not registered, so a
    consumer configured with it fails in `rd_kafka_new`; a group on `sticky` has a Java leader."""

    def __init__(self, name: str) -> None:
        self.name = name

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        raise UnsupportedAssignor(self.name)
