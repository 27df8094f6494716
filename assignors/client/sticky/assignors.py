"""Client-side `sticky` and `cooperative-sticky` (Kafka `StickyAssignor`, `CooperativeStickyAssignor`).

Both balance partitions over the members while keeping as many as possible where they were. Members
with identical subscriptions take the constrained path (quotas, then round robin), others the general
one (least-loaded placement, then balancing moves). Example: c1 owns t-0, t-1, t-2 at generation 4 and
c2 joins: `sticky` gives c1 t-0 and t-1, c2 t-2. `cooperative-sticky` gives c2 nothing in this first
rebalance (c1 must revoke t-2 first); in the follow-up rebalance c2 gets t-2.

What a member claims to own: for `sticky` (eager, previous assignment carried in the assignor's user
data) `Member.owned` and `Member.generation` stand for that user data; for `cooperative-sticky` for the
subscription's ownedPartitions and generationId. Claims of the newest generation win; two claims in the
same generation void each other (Kafka: `AbstractStickyAssignor.allSubscriptionsEqual`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kgroup.assignors.base import gc_paused
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.client.sticky.constrained import ConstrainedBuilder
from kgroup.assignors.client.sticky.general import GeneralBuilder
from kgroup.assignors.client.sticky.inputs import read_input
from kgroup.assignors.trace import WITHHELD, active


@dataclass(frozen=True)
class StickyResult:
    """The full sticky assignment and, on the constrained path, the partitions changing owner.

    `transferring` is None on the general path: Kafka leaves it for the cooperative assignor to compute.
    """

    assignment: dict[str, list[TopicPartition]]
    transferring: dict[TopicPartition, str] | None


def sticky_assign(cluster: Cluster, members: Sequence[Member]) -> StickyResult:
    """Kafka: `AbstractStickyAssignor.assignPartitions`."""
    trace = active()
    if trace is not None:
        trace.note(client="java")
        trace.note_member_order([m for m in members])
    given = read_input(cluster, members)
    if given.all_equal:
        builder = ConstrainedBuilder(given)
        return StickyResult(builder.build(), builder.transferring)
    return StickyResult(GeneralBuilder(given).build(), None)


class StickyAssignor:
    """Kafka: `org.apache.kafka.clients.consumer.StickyAssignor` (eager)."""

    name = "sticky"

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        with gc_paused():
            trace = active()
            if trace is not None:
                trace.note(assignor=self.name)
            return Assignment.of(sticky_assign(cluster, members).assignment)


MAX_FOLLOW_UPS = 10


@dataclass(frozen=True)
class CooperativeRound:
    """One rebalance: what the leader hands out, and what it withholds until the owner has revoked it
    (partition -> the member that gets it once free)."""

    assignment: Assignment
    withheld: dict[TopicPartition, str]
    generation: int | None


@dataclass(frozen=True)
class CooperativeRounds:
    """A cooperative rebalance and its follow-ups, run back to back until nothing is withheld.

    Usually two: the first withholds the partitions changing owner, the follow-up hands them over. On
    the general path a follow-up may move partitions again and need a third; `settled` is False if
    the group was still withholding partitions after `MAX_FOLLOW_UPS` follow-ups.
    """

    rounds: tuple[CooperativeRound, ...]
    settled: bool

    @property
    def first(self) -> Assignment:
        return self.rounds[0].assignment

    @property
    def transferring(self) -> dict[TopicPartition, str]:
        return self.rounds[0].withheld

    @property
    def second(self) -> Assignment:
        """The very next rebalance (the first again if nothing was withheld)."""
        return self.rounds[min(1, len(self.rounds) - 1)].assignment

    @property
    def final(self) -> Assignment:
        return self.rounds[-1].assignment


RoundOf = Callable[[Cluster, Sequence[Member]], tuple[Assignment, dict[TopicPartition, str]]]


def follow_up_rounds(
    assign_round: RoundOf,
    cluster: Cluster,
    members: Sequence[Member],
    generation: int | None = None,
    reported: Callable[[tuple[TopicPartition, ...]], tuple[TopicPartition, ...]] = tuple,
) -> CooperativeRounds:
    """A cooperative rebalance (`assign_round`) and its follow-ups, back to back, until nothing is withheld.

    Kafka: `ConsumerCoordinator.onJoinComplete` (librdkafka: rdkafka_cgrp.c): a member that lost partitions
    rejoins at once, reporting what it kept, in the order `reported` gives its assignment. `generation` is
    the follow-up's (default: one above the newest the members report); each further follow-up adds one.
    """
    if generation is None:
        generation = max((m.generation for m in members if m.generation is not None), default=0) + 1
    assignment, withheld = assign_round(cluster, members)
    rounds = [CooperativeRound(assignment, withheld, None)]
    trace = active()
    while withheld and len(rounds) <= MAX_FOLLOW_UPS:
        if trace is not None:
            trace.next_round()
            trace.note(generation=generation)
        members = [
            replace(m, owned=reported(assignment.partitions_of(m.member_id)), generation=generation) for m in members
        ]
        assignment, withheld = assign_round(cluster, members)
        rounds.append(CooperativeRound(assignment, withheld, generation))
        generation += 1
    return CooperativeRounds(tuple(rounds), not withheld)


class CooperativeStickyAssignor:
    """Kafka: `org.apache.kafka.clients.consumer.CooperativeStickyAssignor`."""

    name = "cooperative-sticky"

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        with gc_paused():
            first, _ = self.assign_round(cluster, members)
            return first

    def assign_round(self, cluster: Cluster, members: Sequence[Member]) -> tuple[Assignment, dict[TopicPartition, str]]:
        """One rebalance: the sticky result minus the partitions whose owner must revoke them first."""
        trace = active()
        if trace is not None:
            trace.note(assignor=self.name)
        result = sticky_assign(cluster, members)
        transferring = result.transferring
        if transferring is None:
            transferring = _transferring(members, result.assignment)
        assignment = result.assignment
        if trace is not None and transferring:
            owner = {tp: m.member_id for m in members for tp in m.owned}
            for tp, member in transferring.items():
                source = owner.get(tp)
                # where Kafka handed a kept partition out twice, its keeper's assignment still has it
                keeps = source is not None and source != member and tp in assignment.get(source, ())
                trace.record(
                    tp, None, WITHHELD, source=source, target=member, **({"source_keeps": True} if keeps else {})
                )
        for tp, member in transferring.items():
            assignment[member].remove(tp)
        return Assignment.of(assignment), transferring

    def assign_rounds(
        self, cluster: Cluster, members: Sequence[Member], generation: int | None = None
    ) -> CooperativeRounds:
        """This rebalance and its follow-ups, as the group would run them back to back.

        Kafka: `ConsumerCoordinator`: a member that lost partitions in a cooperative rebalance rejoins,
        reporting what it kept, in its assignment's order (`follow_up_rounds`). `generation` is the one the
        follow-up runs at (default: one above the newest the members report); each further follow-up adds one.
        """
        with gc_paused():
            return follow_up_rounds(self.assign_round, cluster, members, generation)


def _transferring(members: Sequence[Member], assignment: dict[str, list[TopicPartition]]) -> dict[TopicPartition, str]:
    """Kafka: `CooperativeStickyAssignor.computePartitionsTransferringOwnership`.

    Partitions added to a member that did not own them and revoked from a member that did.
    """
    owned_by = {m.member_id: m.owned for m in members}
    added: dict[TopicPartition, str] = {}
    revoked: set[TopicPartition] = set()
    for member, parts in assignment.items():
        owned = set(owned_by[member])
        mine = set(parts)
        added.update((tp, member) for tp in parts if tp not in owned)
        revoked.update(tp for tp in owned_by[member] if tp not in mine)
    return {tp: member for tp, member in added.items() if tp in revoked}
