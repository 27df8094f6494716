"""A classic-protocol consumer as the coordinator sees it from outside: its settings and its state.

Kafka: `AbstractCoordinator` (member state, the heartbeat thread), `ConsumerCoordinator` (rebalance
protocol, `onJoinPrepare` / `onJoinComplete`, commits) and `Heartbeat` (the three client timers, KIP-62).
The simulation (`simulation.py`) drives these objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from itertools import repeat
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from kgroup.assignors.model import Cluster, TopicPartition


class MemberState(StrEnum):
    """Where a client stands in the group. Kafka: `AbstractCoordinator.MemberState`."""

    UNJOINED = "UNJOINED"
    PREPARING_REBALANCE = "PREPARING_REBALANCE"
    COMPLETING_REBALANCE = "COMPLETING_REBALANCE"
    STABLE = "STABLE"


class RebalanceProtocol(StrEnum):
    """How a client gives partitions up. Kafka: `ConsumerPartitionAssignor.RebalanceProtocol`."""

    EAGER = "EAGER"
    COOPERATIVE = "COOPERATIVE"


# The simulation, the application loop and the scenarios test these on nearly every step: short names for them.
UNJOINED, PREPARING_REBALANCE = MemberState.UNJOINED, MemberState.PREPARING_REBALANCE
COMPLETING_REBALANCE, STABLE = MemberState.COMPLETING_REBALANCE, MemberState.STABLE
EAGER, COOPERATIVE = RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE
NO_GENERATION = -1
_new_tuple = tuple.__new__

# Kafka: `ConsumerPartitionAssignor.supportedProtocols`; only CooperativeStickyAssignor adds COOPERATIVE.
_SUPPORTS_COOPERATIVE = frozenset({"cooperative-sticky"})
DEFAULT_ASSIGNORS = ("range", "cooperative-sticky")  # ConsumerConfig: [RangeAssignor, CooperativeStickyAssignor]


def rebalance_protocol(assignors: Sequence[str]) -> RebalanceProtocol:
    """Kafka: `ConsumerCoordinator` constructor: the highest protocol every configured assignor supports."""
    return COOPERATIVE if assignors and all(a in _SUPPORTS_COOPERATIVE for a in assignors) else EAGER


@dataclass(frozen=True)
class ClientConfig:
    """Consumer settings, Kafka's `ConsumerConfig` defaults; `processing_ms` is how long one poll loop takes normally."""

    session_timeout_ms: int = 45_000
    heartbeat_interval_ms: int = 3000
    max_poll_interval_ms: int = 300_000
    instance_id: str | None = None
    assignors: tuple[str, ...] = DEFAULT_ASSIGNORS
    processing_ms: int = 100
    metadata_max_age_ms: int = 300_000
    rack: str | None = None
    join_version: int = 9
    retry_backoff_ms: int = 100

    @cached_property
    def protocol(self) -> RebalanceProtocol:
        return rebalance_protocol(self.assignors)


class Subscription(NamedTuple):
    """The JoinGroup metadata of one assignor. Kafka: `ConsumerProtocolSubscription` (v3)."""

    topics: tuple[str, ...]
    owned: tuple[TopicPartition, ...]
    generation: int
    rack: str | None


@dataclass
class ClassicClient:
    """One consumer process. `handle` names it in scenarios and reports; `member_id` is the coordinator's."""

    handle: str
    config: ClientConfig
    topics: tuple[str, ...]
    cluster: Cluster  # its metadata view, as of its last refresh
    state: MemberState = UNJOINED
    member_id: str = ""
    generation: int = NO_GENERATION
    owned: tuple[TopicPartition, ...] = ()
    alive: bool = False  # started, not crashed or closed
    fatal: str | None = None  # the exception that stopped it
    paused_until: int = -1  # a GC pause: neither thread runs before this instant
    batch_end: int = -1  # the poll in progress returns at this instant
    batch_stalled: bool = False  # this batch outlives max.poll.interval.ms: its work is lost
    batches_left: int = 0
    batch_ms: int = 0
    rejoin_needed: bool = False
    poll_scheduled: bool = False
    in_group: bool = False  # the coordinator counts member_id as a member
    consuming: bool = False
    is_leader: bool = False
    assigned_cluster: Cluster | None = None  # leader only: the metadata its last assignment used
    heartbeat_token: int = 0  # bumps to cancel the heartbeat loop
    refresh_phase: int = 0  # metadata refreshes at refresh_phase + k * metadata.max.age.ms
    instance_counter: int = 0
    exceptions: list[tuple[int, str]] = field(default_factory=list)

    @property
    def protocol(self) -> RebalanceProtocol:
        return self.config.protocol

    @property
    def is_static(self) -> bool:
        return self.config.instance_id is not None

    def paused(self, now: int) -> bool:
        return now < self.paused_until

    def busy(self, now: int) -> bool:
        return now < self.batch_end

    def heartbeats(self, now: int) -> bool:
        """Kafka: `HeartbeatThread.run`: disabled while unjoined or waiting in JoinGroup."""
        return self.alive and not self.paused(now) and self.state in (COMPLETING_REBALANCE, STABLE)

    def subscription(self) -> Subscription:
        """What JoinGroup carries. Kafka: `ConsumerCoordinator.metadata`."""
        return Subscription(self.topics, self.owned, self.generation, self.config.rack)

    def protocols(self) -> tuple[tuple[str, Subscription], ...]:
        config = self.config
        assignors = config.assignors
        # `subscription()` built in C (`tuple.__new__` skips the named tuple's Python constructor): asked at
        # every JoinGroup of every member.
        subscription = _new_tuple(Subscription, (self.topics, self.owned, self.generation, config.rack))
        if len(assignors) == 1:  # a large group's usual configuration, at every JoinGroup of every member
            return ((assignors[0], subscription),)
        return tuple(zip(assignors, repeat(subscription)))

    def generation_if_stable(self) -> int | None:
        """Kafka: `AbstractCoordinator.generationIfStable`."""
        return self.generation if self.state == STABLE else None

    def reset_generation(self, keep_member_id: bool = False) -> None:
        """Kafka: `resetStateAndGeneration` / `resetGenerationOnLeaveGroup`."""
        self.generation = NO_GENERATION
        if not keep_member_id:
            self.member_id = ""
        self.state = UNJOINED
        self.rejoin_needed = True
        self.is_leader = False
        self.heartbeat_token += 1

    def partitions_to_give_up(self) -> tuple[str, tuple[TopicPartition, ...]]:
        """Kafka: `ConsumerCoordinator.onJoinPrepare`: ('lost'|'revoked', partitions) before a JoinGroup."""
        if self.generation == NO_GENERATION or not self.member_id:
            return "lost", self.owned
        if self.protocol == EAGER:
            return "revoked", self.owned
        return "revoked", tuple(tp for tp in self.owned if tp.topic not in self.topics)
