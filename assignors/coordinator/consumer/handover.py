"""How a KIP-848 group gets from what its members own to a new target assignment, and what that costs.

Kafka's consumer protocol never gives a partition to its new owner while the previous owner still holds
it: `CurrentAssignmentBuilder.computeNextAssignment` (group-coordinator, modern/consumer) first asks the
owner to revoke it (member state UNREVOKED_PARTITIONS), and hands it on only once its partition epoch is
cleared (`ConsumerGroup.currentPartitionEpoch`), which happens when the owner acknowledges the revocation
in a heartbeat; until then the new owner waits (UNRELEASED_PARTITIONS). Each member hears of a new target
only in the response to its own `ConsumerGroupHeartbeat`, sent every heartbeat interval
(`group.consumer.heartbeat.interval.ms`, 5 s by default); a member that has just revoked acknowledges at
once (the Java consumer's `AbstractMembershipManager`: ACKNOWLEDGING makes `shouldHeartbeatNow` true).

So, counted from the heartbeat that brings the change to the coordinator (a newcomer's first heartbeat, a
member's heartbeat with its new subscription or its leave, or after a partition increase the first
heartbeat once the new metadata is in the coordinator's image), with the interval H and members
heartbeating at unknown phases:
- a partition that moves from A to B stops when A revokes it, at A's next heartbeat (at most H later, or
  at once when A's own heartbeat brought the change), and is consumed again at B's first heartbeat after
  A's acknowledgement: it goes unconsumed for at most H;
- a partition nobody owns (new, never assigned, or held by a member that left: a leave releases them) is
  taken at its new owner's next heartbeat: at most H;
- the group is on its new target within 2H (a revocation heard within H, its hand-over within H more).

Each member's first step is `CurrentAssignmentBuilder.build` as kgroup ports it
(kgroup.assignors.coordinator.consumer.reconcile), replayed against the members' current assignments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kgroup.assignors.coordinator.consumer.reconcile import FREE, STABLE, Reconciliation, reconcile
from kgroup.assignors.model import Assignment, Group, TopicPartition, sort_partitions

DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000  # group.consumer.heartbeat.interval.ms (GroupCoordinatorConfig default)


@dataclass(frozen=True)
class Move:
    """One partition whose owner changes. `source` None: nobody owns it now (new, never assigned, or its
    owner left); `target` None: nobody gets it (no member subscribes to it any more)."""

    partition: TopicPartition
    source: str | None
    target: str | None

    @property
    def waits_for_revocation(self) -> bool:
        """The new owner gets it only after `source` acknowledges revoking it."""
        return self.source is not None and self.target is not None


@dataclass(frozen=True)
class MemberStep:
    """A member's way to its new target: what it keeps, revokes first, and receives (at once or later)."""

    member_id: str
    state: str  # its state after the first heartbeat that carries the new target (MemberState)
    keeps: tuple[TopicPartition, ...]
    revokes: tuple[TopicPartition, ...]
    receives_free: tuple[TopicPartition, ...]  # nobody owns them: given with the new target
    receives_after_revocation: tuple[TopicPartition, ...]  # another member must revoke them first
    waits_for: tuple[str, ...]  # the members whose revocations it waits for


@dataclass(frozen=True)
class Handover:
    """The reconciliation path from the members' current assignments to a new target."""

    group_epoch: int | None  # the epoch of the new target (the group epoch after the change)
    heartbeat_interval_ms: int
    steps: tuple[MemberStep, ...]
    moves: tuple[Move, ...]
    departed: tuple[str, ...]  # members that left: their partitions were released when they did
    interval_known: bool = True  # False: the group's interval was not known and Kafka's default was assumed

    @property
    def revoked_first(self) -> tuple[Move, ...]:
        return tuple(m for m in self.moves if m.waits_for_revocation)

    @property
    def unconsumed_at_most_ms(self) -> int:
        """The longest a partition that changes owner goes unconsumed: one heartbeat interval (0: none moves)."""
        return self.heartbeat_interval_ms if any(m.target is not None for m in self.moves) else 0

    @property
    def settled_within_ms(self) -> int:
        """When every member is on its new target, at the latest: two intervals when a partition must be
        revoked first, one when members only take free partitions or give partitions up, none otherwise."""
        if self.revoked_first:
            return 2 * self.heartbeat_interval_ms
        return self.heartbeat_interval_ms if self.moves else 0


def handover(
    before: Group, after_members: Iterable[str], target: Assignment, heartbeat_interval_ms: int | None = None
) -> Handover:
    """The path from `before`'s members' current assignments (`Member.owned`, KIP-848's current assignment,
    at `Member.generation`, the member epoch) to `target`, the new target of the members `after_members`.
    The heartbeat interval is the one given, else the group's (`Group.heartbeat_interval_ms`), else Kafka's
    default (GroupCoordinatorConfig.CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_DEFAULT), said to be assumed."""
    interval = heartbeat_interval_ms if heartbeat_interval_ms is not None else before.heartbeat_interval_ms
    present = list(dict.fromkeys(after_members))
    staying = set(present)
    owned = {m.member_id: frozenset(m.owned) for m in before.members if m.member_id in staying}
    owner = {tp: member for member, parts in owned.items() for tp in parts}
    epochs = {m.member_id: _member_epoch(m.generation, before.generation) for m in before.members}
    departed = tuple(m.member_id for m in before.members if m.member_id not in staying)
    new_epoch = None if before.generation is None else before.generation + 1

    def partition_epoch(tp: TopicPartition) -> int:
        holder = owner.get(tp)  # a departed member's partitions were freed by its leave
        return FREE if holder is None else epochs.get(holder, 0)

    steps = []
    for member_id in present:
        now = owned.get(member_id, frozenset())
        wanted = frozenset(target.partitions_of(member_id))
        epoch = epochs.get(member_id, 0)
        current = Reconciliation(epoch, epoch - 1 if epoch > 0 else 0, STABLE, now)
        first = reconcile(current, new_epoch if new_epoch is not None else epoch + 1, wanted, partition_epoch, now)
        incoming = wanted - now
        waiting = sorted(tp for tp in incoming if owner.get(tp) not in (None, member_id))
        steps.append(
            MemberStep(
                member_id,
                first.state,
                tuple(sort_partitions(now & wanted)),
                tuple(sort_partitions(now - wanted)),
                tuple(sort_partitions(tp for tp in incoming if tp not in owner)),
                tuple(sort_partitions(waiting)),
                tuple(dict.fromkeys(owner[tp] for tp in waiting)),
            )
        )

    new_owner = {tp: member for member in present for tp in target.partitions_of(member)}
    moved = set(new_owner) | set(owner) | {tp for m in before.members if m.member_id not in staying for tp in m.owned}
    moves = []
    for tp in sort_partitions(moved):
        source, goes_to = owner.get(tp), new_owner.get(tp)
        if source != goes_to:
            moves.append(Move(tp, source, goes_to))
    return Handover(
        new_epoch,
        DEFAULT_HEARTBEAT_INTERVAL_MS if interval is None else interval,
        tuple(steps),
        tuple(moves),
        departed,
        interval_known=interval is not None,
    )


def _member_epoch(generation: int | None, group_epoch: int | None) -> int:
    """A member's epoch as the fixture records it (`generation`); not recorded: the group's (a member that is
    reconciled has the group's epoch), else 0 (KIP-848's epoch of a member that has not joined yet)."""
    if generation is not None:
        return generation
    return group_epoch if group_epoch is not None else 0


def targets_as_owned(group: Group) -> Mapping[str, tuple[TopicPartition, ...]]:
    """Each member's current target: what the coordinator hands the server assignor as its assignment
    (`TargetAssignmentBuilder`: `GroupSpec.memberAssignment` is the target, not what the member owns), its
    topics in the order the coordinator iterates them where that is known (`Group.target_order`), each topic's
    partitions ascending (the assignors put a HashSet<Integer>'s order on them)."""
    return {m.member_id: group.target_of(m.member_id) for m in group.members}
