"""A KIP-848 member's way from its current assignment to its target, one heartbeat at a time.

Kafka: `CurrentAssignmentBuilder.build` (group-coordinator, modern/consumer). A member never receives a
partition that another member still owns: such partitions wait (UNRELEASED_PARTITIONS), and a member
that must give partitions up first reports that it did (UNREVOKED_PARTITIONS) before it advances.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from kgroup.assignors.model import TopicPartition


class MemberState(StrEnum):
    """Where a member stands on its way to its target. Kafka: `modern.MemberState` (group-coordinator)."""

    STABLE = "STABLE"
    UNREVOKED_PARTITIONS = "UNREVOKED_PARTITIONS"
    UNRELEASED_PARTITIONS = "UNRELEASED_PARTITIONS"
    UNKNOWN = "UNKNOWN"


# Reconciliation and the coordinator's heartbeat test these at every step: short names for them.
STABLE, UNREVOKED_PARTITIONS = MemberState.STABLE, MemberState.UNREVOKED_PARTITIONS
UNRELEASED_PARTITIONS, UNKNOWN = MemberState.UNRELEASED_PARTITIONS, MemberState.UNKNOWN

Partitions = frozenset[TopicPartition]
_R = TypeVar("_R")
FREE = -1  # the epoch of a partition nobody owns (ConsumerGroup.currentPartitionEpoch)


class FencedMemberEpoch(Exception):
    """Kafka: FencedMemberEpochException from CurrentAssignmentBuilder (state UNKNOWN with owned partitions)."""


@dataclass(frozen=True)
class Reconciliation:
    """The part of a member record that reconciliation reads and writes."""

    epoch: int
    previous_epoch: int
    state: MemberState
    assigned: Partitions
    pending_revocation: Partitions = frozenset()

    def is_reconciled_to(self, target_epoch: int) -> bool:
        """Kafka: `ConsumerGroupMember.isReconciledTo`."""
        return self.state == STABLE and self.epoch == target_epoch

    def stable_at(self, target_epoch: int) -> Reconciliation:
        """This Stable step moved to `target_epoch`, holding the same sets (`CurrentAssignmentBuilder` when the
        target is what the member is assigned and it revokes nothing)."""
        return record_replaced(self, previous_epoch=self.epoch, epoch=target_epoch)


def record_of(cls: type[_R], fields: dict[str, Any]) -> _R:
    """A frozen dataclass record (one without `__post_init__`) holding `fields`, every one of its fields.

    What `__init__` makes, without it: a frozen dataclass's `__init__` sets each field through
    `object.__setattr__`, and the coordinator makes a member record or two at most heartbeats.
    """
    record = object.__new__(cls)
    object.__setattr__(record, "__dict__", fields)
    return record


def record_replaced(record: _R, **changes: Any) -> _R:
    """`dataclasses.replace` for such a record, without `__init__` (see `record_of`)."""
    fields = record.__dict__.copy()
    fields.update(changes)
    return record_of(type(record), fields)


def reconcile(
    current: Reconciliation,
    target_epoch: int,
    target: Partitions,
    partition_epoch: Callable[[TopicPartition], int],
    owned: Partitions | None,
) -> Reconciliation:
    """Kafka: `CurrentAssignmentBuilder.build`. `owned` None: the request did not say what it owns."""
    if current.state == STABLE:
        if current.epoch == target_epoch:
            return current
        return _next(current, current.epoch, current.assigned, target_epoch, target, partition_epoch, owned)
    if current.state == UNREVOKED_PARTITIONS:
        if _owns_any(owned, current.pending_revocation):
            return current
        # +1, not the target epoch: a newer target may ask the member to revoke again
        return _next(current, current.epoch + 1, current.assigned, target_epoch, target, partition_epoch, owned)
    if current.state == UNRELEASED_PARTITIONS:
        return _next(current, current.epoch, current.assigned, target_epoch, target, partition_epoch, owned)
    if current.state == UNKNOWN:
        if owned is None or owned:
            raise FencedMemberEpoch("the member is in an unknown state and owns partitions")
        return _next(current, target_epoch, current.assigned, target_epoch, target, partition_epoch, owned)
    raise ValueError(f"unknown member state {current.state!r}")


def _owns_any(owned: Partitions | None, partitions: Partitions) -> bool:
    """Kafka: `CurrentAssignmentBuilder.ownsRevokedPartitions`: an absent list counts as owning them."""
    return owned is None or not owned.isdisjoint(partitions)


def _next(
    current: Reconciliation,
    epoch_if_revoking: int,
    assigned: Partitions,
    target_epoch: int,
    target: Partitions,
    partition_epoch: Callable[[TopicPartition], int],
    owned: Partitions | None,
) -> Reconciliation:
    """Kafka: `CurrentAssignmentBuilder.computeNextAssignment`."""
    if target is assigned or target == assigned:  # nothing to give up or receive (most members after a bump)
        return _moved(current, target_epoch, STABLE, target, frozenset())  # target's object: `is` holds next time
    kept = assigned & target
    if len(kept) == len(assigned):
        kept = assigned  # the same set object: later checks compare by identity first
    revoking = assigned - kept
    incoming = target - kept
    unreleased = frozenset(tp for tp in incoming if partition_epoch(tp) != FREE)
    incoming -= unreleased
    if revoking and _owns_any(owned, revoking):
        return _moved(current, epoch_if_revoking, UNREVOKED_PARTITIONS, kept, revoking)
    if incoming:
        state = UNRELEASED_PARTITIONS if unreleased else STABLE
        whole = target if not unreleased else kept | incoming
        return _moved(current, target_epoch, state, whole, frozenset())
    if unreleased:
        return _moved(current, target_epoch, UNRELEASED_PARTITIONS, kept, frozenset())
    return _moved(current, target_epoch, STABLE, kept, frozenset())


def _moved(
    current: Reconciliation, epoch: int, state: MemberState, assigned: Partitions, revoking: Partitions
) -> Reconciliation:
    return record_of(
        Reconciliation,
        {
            "epoch": epoch,
            "previous_epoch": current.epoch,
            "state": state,
            "assigned": assigned,
            "pending_revocation": revoking,
        },
    )
