"""The KIP-848 group coordinator (`group.protocol=consumer`): group epoch, target assignment, member epochs.

Kafka: `GroupMetadataManager.consumerGroupHeartbeat` and its helpers (group-coordinator), `ConsumerGroup`
for the derived group state and partition epochs, `CurrentAssignmentBuilder` for each member's steps
(kgroup.assignors.coordinator.consumer.reconcile). Processing is atomic at an instant of simulated time; timers are
keyed as Kafka keys them (`groupSessionTimeoutKey`, `consumerGroupRebalanceTimeoutKey`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import repeat
from typing import NamedTuple, TypeVar

from kgroup.assignors.coordinator.consumer.reconcile import (
    FREE,
    STABLE,
    FencedMemberEpoch,
    Partitions,
    Reconciliation,
    UNREVOKED_PARTITIONS,
    reconcile,
    record_replaced,
)
from kgroup.assignors.java.timeline_table import TimelineHashTable
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.server.releases import parse_release
from kgroup.assignors.coordinator.timer_queue import TimerQueue, run_due


class ConsumerGroupState(StrEnum):
    """A consumer-protocol group's state, by the names the broker lists. Kafka: `ConsumerGroup.ConsumerGroupState`."""

    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


LEAVE_EPOCH, STATIC_LEAVE_EPOCH = -1, -2
NONE = "NONE"
_NOTHING: Partitions = frozenset()
_T = TypeVar("_T")

# TargetAssignor(group, member ids in the order TargetAssignmentBuilder puts them into GroupSpec's member HashMap,
# current target, read only) -> new target per member id (a member left out gets none). The members' records are
# in `group.members`: a large group's assignor mostly needs only the group's counts of them.
TargetAssignor = Callable[["ConsumerGroup", Sequence[str], Mapping[str, Partitions]], Mapping[str, Partitions]]


@dataclass(frozen=True)
class ConsumerConfig:
    """Broker settings; the defaults are Kafka's (`GroupCoordinatorConfig`, `group.consumer.*`)."""

    session_timeout_ms: int = 45_000  # group.consumer.session.timeout.ms
    # GroupMetadataManager.Builder's metadataRefreshIntervalMs default (Integer.MAX_VALUE): effectively never
    metadata_refresh_interval_ms: int = 2**31 - 1
    heartbeat_interval_ms: int = 5_000  # group.consumer.heartbeat.interval.ms
    max_size: int = 2_147_483_647  # group.consumer.max.size
    assignors: tuple[str, ...] = ("uniform", "range")  # group.consumer.assignors; the first is the default


class HeartbeatRequest(NamedTuple):
    """ConsumerGroupHeartbeat; None fields were not sent ("unchanged"). A named tuple: one per heartbeat."""

    member_id: str
    member_epoch: int
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topics: tuple[str, ...] | None = None
    server_assignor: str | None = None
    owned: Partitions | None = None

    @property
    def full(self) -> bool:
        """Kafka: `isFullRequest`: every field the member could have changed is present."""
        return self.rebalance_timeout_ms != -1 and self.subscribed_topics is not None and self.owned is not None


class HeartbeatResponse(NamedTuple):
    error: str = NONE
    member_id: str | None = None
    member_epoch: int | None = None
    heartbeat_interval_ms: int | None = None
    assignment: Partitions | None = None  # None: the response had no Assignment field


@dataclass(frozen=True)
class ConsumerMember:
    """Kafka: `ConsumerGroupMember`."""

    member_id: str
    progress: Reconciliation
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topics: tuple[str, ...] = ()
    server_assignor: str | None = None

    @property
    def epoch(self) -> int:
        return self.progress.epoch

    def with_progress(self, progress: Reconciliation) -> ConsumerMember:
        """The same record at another step of reconciliation."""
        return record_replaced(self, progress=progress)

    @property
    def owned(self) -> Partitions:
        """What holds a partition epoch: assigned and still being revoked."""
        progress = self.progress
        return progress.assigned | progress.pending_revocation if progress.pending_revocation else progress.assigned


@dataclass
class ConsumerGroup:
    """Kafka: `ConsumerGroup`. `members` keeps join order; `timeline` holds the member ids as Kafka's
    `TimelineHashMap` of members does, whose iteration order decides the assignor's ties (`_new_target`)."""

    group_id: str
    group_epoch: int = 0
    assignment_epoch: int = 0
    members: dict[str, ConsumerMember] = field(default_factory=dict)
    target: dict[str, Partitions] = field(default_factory=dict)
    # member id -> its target's topics as its last target record lists them, where they are more than one
    # and kgroup knows the order (kgroup.assignors.server.target_order); absent: by name.
    target_order: dict[str, tuple[str, ...]] = field(default_factory=dict)
    static: dict[str, str] = field(default_factory=dict)  # instance id -> member id
    owners: dict[TopicPartition, str] = field(default_factory=dict)  # who holds each partition (its epoch)
    subscription_metadata: dict[str, int] = field(default_factory=dict)  # subscribed topic -> partitions
    # Kafka: `ModernGroup.metadataRefreshDeadline`, (deadline ms, group epoch). (0, 0) is expired at once: a
    # loaded group refreshes on its first heartbeat, as after `requestMetadataRefresh`.
    refresh_deadline: tuple[int, int] = (0, 0)
    timeline: TimelineHashTable = field(default_factory=TimelineHashTable, repr=False)

    # The members not reconciled to `_checked_epoch`, kept current by put/remove while that is the
    # assignment epoch, so deriving the state after each heartbeat does not scan every member.
    _unreconciled: set[str] = field(default_factory=set, repr=False)
    _checked_epoch: int | None = field(default=None, repr=False)
    # How many members subscribe to each topic list and name each server assignor, kept by put and remove: a
    # new target and the subscription metadata need only these, which a scan would read from every record.
    subscriptions: Counter[tuple[str, ...]] = field(default_factory=Counter, repr=False)
    server_assignors: Counter[str | None] = field(default_factory=Counter, repr=False)

    def metadata_expired(self, now: int) -> bool:
        """Kafka: `ModernGroup.hasMetadataExpired`: the deadline passed, or a write failed after it was set."""
        deadline_ms, epoch = self.refresh_deadline
        return now >= deadline_ms or self.group_epoch < epoch

    @property
    def state(self) -> ConsumerGroupState:
        """Kafka: `ConsumerGroup.maybeUpdateGroupState`: derived, never stored."""
        if not self.members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch > self.assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        if self._checked_epoch != self.assignment_epoch:
            epoch = self.assignment_epoch
            # Reconciliation.is_reconciled_to, inlined: this runs over every member after each new target.
            self._unreconciled = {
                member_id
                for member_id, m in self.members.items()
                if m.progress.epoch != epoch or m.progress.state != STABLE
            }
            self._checked_epoch = epoch
        return ConsumerGroupState.RECONCILING if self._unreconciled else ConsumerGroupState.STABLE

    def partition_epoch(self, tp: TopicPartition) -> int:
        """Kafka: `ConsumerGroup.currentPartitionEpoch`: the epoch of the member holding it, or FREE."""
        owner = self.owners.get(tp)
        return FREE if owner is None else self.members[owner].epoch

    def put(self, member: ConsumerMember, replay: bool = True) -> None:
        """Kafka: `ConsumerGroup.updateMember`: the partition epochs follow the member's record.

        Kafka stores each owned partition's epoch, which is always its owner's epoch; kgroup stores the
        owner, so a member advancing its epoch with the same partitions costs nothing per partition.
        `replay=False` leaves a new member out of `timeline` for now: a heartbeat's records are replayed
        after its target is built, and the caller calls `replay_join` then.
        """
        member_id = member.member_id
        old = self.members.get(member_id)
        if old is None and replay:
            self.replay_join(member_id)
        if old is None or old.subscribed_topics is not member.subscribed_topics:
            if old is not None:
                self._uncount(old)
            self._count(member)
        elif old.server_assignor != member.server_assignor:
            _decrement(self.server_assignors, old.server_assignor)
            self.server_assignors[member.server_assignor] += 1
        before = old.owned if old is not None else frozenset()
        after = member.owned
        if before is not after and before != after:
            owners = self.owners
            for tp in before - after:
                if owners.get(tp) == member_id:
                    del owners[tp]
            for tp in after - before:
                holder = owners.get(tp)
                if holder is not None:  # ConsumerGroup.addPartitionEpochs
                    raise AssertionError(f"{tp} would be owned twice (by {holder})")
                owners[tp] = member_id
        self.put_holding(member)

    def _count(self, member: ConsumerMember) -> None:
        self.subscriptions[member.subscribed_topics] += 1
        self.server_assignors[member.server_assignor] += 1

    def _uncount(self, member: ConsumerMember) -> None:
        _decrement(self.subscriptions, member.subscribed_topics)
        _decrement(self.server_assignors, member.server_assignor)

    def put_holding(self, member: ConsumerMember) -> None:
        """`put` for a member already in the group whose new record owns the very set object its old one
        owns (`owned`), with the same subscription and server assignor: Kafka's `ConsumerGroup.updateMember`
        then moves no partition epoch, as kgroup keeps owners rather than epochs, so only the record and the
        reconciled bookkeeping change (`put` ends here)."""
        member_id = member.member_id
        if self._checked_epoch == self.assignment_epoch:
            if member.progress.is_reconciled_to(self.assignment_epoch):
                self._unreconciled.discard(member_id)
            else:
                self._unreconciled.add(member_id)
        self.members[member_id] = member
        if member.instance_id is not None:
            self.static[member.instance_id] = member_id

    def replay_join(self, member_id: str) -> None:
        """A new member's records replayed into the members map: its metadata (an add) and its current
        assignment (a replace, which grows the table when (size + 1) * 0.75 passes its length)."""
        self.timeline.put(member_id)
        self.timeline.put(member_id)

    def remove(self, member_id: str) -> ConsumerMember | None:
        member = self.members.pop(member_id, None)
        if member is None:
            return None
        self.timeline.remove(member_id)
        self._unreconciled.discard(member_id)
        self._uncount(member)
        for tp in member.owned:
            if self.owners.get(tp) == member_id:
                del self.owners[tp]
        if member.instance_id is not None and self.static.get(member.instance_id) == member_id:
            del self.static[member.instance_id]
        self.target.pop(member_id, None)
        self.target_order.pop(member_id, None)
        return member

    def subscribed(self, topics: Mapping[str, int]) -> dict[str, int]:
        """Kafka: `ModernGroup.computeSubscriptionMetadata`: the subscribed topics that exist."""
        names = set().union(*self.subscriptions)
        return {name: topics[name] for name in sorted(names) if name in topics}


class ConsumerCoordinator:
    """Heartbeats, leaves and timers of KIP-848 groups on one coordinator."""

    def __init__(
        self,
        config: ConsumerConfig,
        topics: Mapping[str, int],
        assignor: TargetAssignor,
        timers: TimerQueue | None = None,
    ) -> None:
        self.config = config
        self.topics = dict(topics)  # the metadata image: topic -> partition count
        self.assignor = assignor
        self.timers = timers if timers is not None else TimerQueue()
        self.groups: dict[str, ConsumerGroup] = {}
        # The epoch a group created by its first member's heartbeat starts at, before that member bumps it: 0 up
        # to Kafka 4.2; from 4.3.0 ModernGroup's constructor sets groupEpoch to 1, so the first member brings the
        # group to epoch 2 (measured on Apache Kafka 4.4.0: "Bumped group epoch to 2"). new_group_epoch().
        self.created_group_epoch = 0
        self.now = 0
        self.on_fenced: Callable[[str, str], None] | None = None  # (group, member) after a timer fences it
        self._sessions: dict[tuple[str, str], tuple[str, Callable[[], None], str]] = {}  # see _session

    @staticmethod
    def session_key(group_id: str, member_id: str) -> str:
        """Kafka: `GroupMetadataManager.groupSessionTimeoutKey`."""
        return f"session-timeout-{group_id}-{member_id}"

    @staticmethod
    def rebalance_key(group_id: str, member_id: str) -> str:
        """Kafka: `GroupMetadataManager.consumerGroupRebalanceTimeoutKey`."""
        return f"rebalance-timeout-{group_id}-{member_id}"

    # -- the heartbeat ----------------------------------------------------------------------------------

    def heartbeat(self, group_id: str, request: HeartbeatRequest) -> HeartbeatResponse:
        """Kafka: `GroupMetadataManager.consumerGroupHeartbeat`."""
        steady = self._steady(group_id, request)
        if steady is not None:
            return steady
        return self.changing_heartbeat(group_id, request)

    def changing_heartbeat(self, group_id: str, request: HeartbeatRequest) -> HeartbeatResponse:
        """`heartbeat` for a request `_steady` does not answer: the whole of `consumerGroupHeartbeat`."""
        invalid = self._invalid(request)
        if invalid:
            return HeartbeatResponse(invalid)
        if request.member_epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
            return self.leave(group_id, request.member_id, request.instance_id, request.member_epoch)
        group = self.groups.get(group_id)
        if group is None:
            if request.member_epoch != 0:
                return HeartbeatResponse("GROUP_ID_NOT_FOUND")
            group = self.groups[group_id] = ConsumerGroup(group_id, self.created_group_epoch)
        if len(group.members) >= self.config.max_size and (
            not request.member_id or request.member_id not in group.members
        ):
            return HeartbeatResponse("GROUP_MAX_SIZE_REACHED")
        found = self._member(group, request)
        if isinstance(found, str):
            return HeartbeatResponse(found)
        member = found
        updated = _updated(member, request)
        # GroupMetadataManager.hasMemberSubscriptionChanged: a new member always changes it
        bump = (
            updated.subscribed_topics is not member.subscribed_topics
            and updated.subscribed_topics != member.subscribed_topics
        ) or member.member_id not in group.members
        joined = updated.member_id not in group.timeline  # a new member, or a static member's replacement
        if updated is not member or bump:
            group.put(updated, replay=False)
        refresh = bump or group.metadata_expired(self.now)
        if refresh:
            metadata = group.subscribed(self.topics)
            if metadata != group.subscription_metadata:
                group.subscription_metadata = metadata
                bump = True
        if bump:
            group.group_epoch += 1
        if refresh:
            # GroupMetadataManager.consumerGroupHeartbeat: setMetadataRefreshDeadline(now + interval, groupEpoch)
            group.refresh_deadline = (self.now + self.config.metadata_refresh_interval_ms, group.group_epoch)
        if group.group_epoch > group.assignment_epoch:
            self._new_target(group, updated.member_id if joined else None)
        if joined:
            group.replay_join(updated.member_id)
        before = updated.progress.assigned
        try:
            updated = self._reconcile(group, updated, request.owned)
        except FencedMemberEpoch:
            return HeartbeatResponse("FENCED_MEMBER_EPOCH")
        self.schedule_session(group.group_id, updated.member_id)
        assigned = updated.progress.assigned
        # `is` first: equal frozensets are compared element by element, and most heartbeats change nothing
        include = request.member_epoch == 0 or request.full or (assigned is not before and assigned != before)
        return HeartbeatResponse(
            NONE,
            updated.member_id,
            updated.epoch,
            self.config.heartbeat_interval_ms,
            updated.progress.assigned if include else None,
        )

    def _steady(self, group_id: str, request: HeartbeatRequest) -> HeartbeatResponse | None:
        """`heartbeat`'s answer to a heartbeat that changes nothing, or None when the full path must run.

        Most heartbeats come from a member at its current epoch, already reconciled to the group's assignment
        epoch, sending its id and epoch (and instance id) only. For such a request every step of
        `consumerGroupHeartbeat` passes without effect: it is valid, it is the member's own epoch, no field
        changes so the group epoch stays, the metadata is not due for a refresh, the target is current and
        there is nothing to reconcile; what is left is re-arming the session timer and the response without
        an assignment. Anything else takes the full path.
        """
        if (
            request.owned is not None
            or request.subscribed_topics is not None
            or request.rebalance_timeout_ms != -1
            or request.server_assignor is not None
            or request.rack_id is not None
        ):
            return None
        epoch = self.steady_heartbeat(group_id, request.member_id, request.member_epoch, request.instance_id)
        if epoch is None:
            return None
        return HeartbeatResponse(NONE, request.member_id, epoch, self.config.heartbeat_interval_ms, None)

    def steady_heartbeat(
        self, group_id: str, member_id: str, member_epoch: int, instance_id: str | None, advance: bool = False
    ) -> int | None:
        """`_steady` for a heartbeat sending only the member id, epoch and instance id: the member's epoch
        (the response carries nothing else), or None when the full path must run (and nothing was done).

        `advance`: also answer a member whose target is the very set it holds, at an older epoch than the
        group's current assignment: the full path would only reconcile it to that epoch (`_reconcile`, the
        same call) and answer without an assignment, as nothing it holds changes.
        """
        if member_epoch <= 0 or not member_id:
            return None
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        if group is None or member is None:
            return None
        if instance_id is not None and (
            not instance_id or instance_id != member.instance_id or group.static.get(instance_id) != member_id
        ):
            return None
        progress = member.progress
        deadline_ms, refresh_epoch = group.refresh_deadline
        if (
            progress.epoch != member_epoch
            or progress.state != STABLE
            or group.group_epoch > group.assignment_epoch
            or self.now >= deadline_ms
            or group.group_epoch < refresh_epoch
        ):
            return None
        # The member's timer keys serve both _advance_holding and the session; the dictionary first, without
        # a call: nearly every heartbeat comes here.
        session = self._sessions.get((group_id, member_id)) or self._session(group_id, member_id)
        if progress.epoch != group.assignment_epoch:
            if not advance or group.target.get(member_id) is not progress.assigned:
                return None
            member_epoch = self._advance_holding(group, member, session[2])
        self._arm_session(session)  # after _advance_holding: a rebalance timer it arms takes its sequence first
        return member_epoch

    def _advance_holding(self, group: ConsumerGroup, member: ConsumerMember, rebalance_key: str) -> int:
        """`_reconcile` for a Stable member whose target is the very set it is assigned, at an older epoch: its
        new epoch. `CurrentAssignmentBuilder.computeNextAssignment` finds nothing to revoke or assign and moves
        it to the target epoch, Stable; its owned partitions stay the same object (`ConsumerGroup.put_holding`)
        and, no longer revoking, its rebalance timer is cancelled as `_reconcile` cancels it."""
        progress = member.progress
        if progress.pending_revocation:  # it owns more than it is assigned: the general path
            return self._reconcile(group, member, None).epoch
        epoch = group.assignment_epoch
        group.put_holding(member.with_progress(progress.stable_at(epoch)))
        self.timers.cancel(rebalance_key)
        return epoch

    def _invalid(self, request: HeartbeatRequest) -> str | None:
        """Kafka: `throwIfConsumerGroupHeartbeatRequestIsInvalid`."""
        epoch = request.member_epoch
        if request.instance_id == "" or request.rack_id == "":
            return "INVALID_REQUEST"
        if epoch > 0 or epoch == LEAVE_EPOCH:
            return None if request.member_id else "INVALID_REQUEST"
        if epoch == 0:
            if (
                request.rebalance_timeout_ms == -1
                or request.owned is None
                or request.owned
                or not request.subscribed_topics
            ):
                return "INVALID_REQUEST"
            if request.server_assignor is not None and request.server_assignor not in self.config.assignors:
                return "UNSUPPORTED_ASSIGNOR"
            return None
        if epoch == STATIC_LEAVE_EPOCH:
            return None if request.member_id and request.instance_id else "INVALID_REQUEST"
        return "INVALID_REQUEST"

    def _member(self, group: ConsumerGroup, request: HeartbeatRequest) -> ConsumerMember | str:
        """The member the request is from, or the error (GMM getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember)."""
        epoch = request.member_epoch
        if request.instance_id is None:
            existing = group.members.get(request.member_id)
            if epoch == 0:
                return existing or _new_member(request.member_id)
            if existing is None:
                return "UNKNOWN_MEMBER_ID"
            return self._epoch_error(existing, request) or existing
        holder_id = group.static.get(request.instance_id)
        holder = group.members.get(holder_id) if holder_id is not None else None
        if epoch == 0:
            if holder is None:
                return group.members.get(request.member_id) or _new_member(request.member_id)
            if holder.epoch != STATIC_LEAVE_EPOCH:
                return "UNRELEASED_INSTANCE_ID"
            return self._replace_static(group, holder, request.member_id)
        if holder is None:
            return "UNKNOWN_MEMBER_ID"
        if holder.member_id != request.member_id:
            return "FENCED_INSTANCE_ID"
        return self._epoch_error(holder, request) or holder

    @staticmethod
    def _epoch_error(member: ConsumerMember, request: HeartbeatRequest) -> str | None:
        """Kafka: `throwIfConsumerGroupMemberEpochIsInvalid`: a lost response is tolerated once."""
        asked, progress = request.member_epoch, member.progress
        if asked > progress.epoch:
            return "FENCED_MEMBER_EPOCH"
        if asked < progress.epoch:
            lost_response = (
                asked == progress.previous_epoch and request.owned is not None and request.owned <= progress.assigned
            )
            if not lost_response:
                return "FENCED_MEMBER_EPOCH"
        return None

    def _replace_static(self, group: ConsumerGroup, departed: ConsumerMember, member_id: str) -> ConsumerMember:
        """Kafka: a static member rejoining after its -2 leave takes over the departed record and its target."""
        target = group.target.get(departed.member_id, frozenset())
        record = group.target_order.get(departed.member_id)
        self._cancel_timers(group.group_id, departed.member_id)
        group.remove(departed.member_id)
        copy = replace(departed, member_id=member_id, progress=replace(departed.progress, epoch=0, previous_epoch=0))
        group.put(copy, replay=False)  # its records are replayed after the heartbeat, as a new member's
        group.target[member_id] = target
        if record is not None:
            group.target_order[member_id] = record
        return copy

    def _new_target(self, group: ConsumerGroup, joining: str | None = None) -> None:
        """Kafka: `GroupMetadataManager.updateTargetAssignment` (TargetAssignmentBuilder).

        `TargetAssignmentBuilder.build` puts the group's members into its HashMap as the members' TimelineHashMap
        iterates them, then the heartbeat's member; a joining member is not in that map yet (its records are
        replayed after the heartbeat), so it comes last.
        """
        ids = group.timeline.order()
        if joining is not None:
            ids.append(joining)
        computed = self.assignor(group, ids, group.target)
        # A member whose target did not change keeps the same set object; one the assignor left out has none.
        # The server assignors answer with a dict over `ids` in their order: copied whole, in C (a scripted
        # answer may not be).
        if type(computed) is dict and len(computed) == len(ids) and list(computed) == ids:
            group.target = computed.copy()
        else:
            group.target = dict(zip(ids, map(computed.get, ids, repeat(_NOTHING))))
        group.assignment_epoch = group.group_epoch
        # No member is at the new assignment epoch yet (a member's epoch is one the group had assigned, and
        # this one is new): every member is unreconciled, which `state` would otherwise find member by member.
        group._unreconciled = set(ids)
        group._checked_epoch = group.assignment_epoch

    def _reconcile(self, group: ConsumerGroup, member: ConsumerMember, owned: Partitions | None) -> ConsumerMember:
        """Kafka: `GroupMetadataManager.maybeReconcile`, with the rebalance timer it arms or cancels."""
        if member.progress.is_reconciled_to(group.assignment_epoch):
            return member
        progress = reconcile(
            member.progress,
            group.assignment_epoch,
            group.target.get(member.member_id, frozenset()),
            group.partition_epoch,
            owned,
        )
        if progress is member.progress or progress == member.progress:
            return member
        updated = member.with_progress(progress)
        group.put(updated)
        key = self.rebalance_key(group.group_id, member.member_id)
        if progress.state == UNREVOKED_PARTITIONS:
            epoch = progress.epoch
            self.timers.schedule(
                key,
                self.now + updated.rebalance_timeout_ms,
                lambda: self._rebalance_timeout(group.group_id, member.member_id, epoch),
            )
        else:
            self.timers.cancel(key)
        return updated

    # -- leaving and fencing ----------------------------------------------------------------------------

    def leave(self, group_id: str, member_id: str, instance_id: str | None, epoch: int) -> HeartbeatResponse:
        """Kafka: `consumerGroupLeave`: -1 fences the member; -2 parks a static member's record."""
        group = self.groups.get(group_id)
        if group is None:
            return HeartbeatResponse("GROUP_ID_NOT_FOUND")
        if instance_id is not None:
            holder_id = group.static.get(instance_id)
            if holder_id is None:
                return HeartbeatResponse("UNKNOWN_MEMBER_ID")
            if holder_id != member_id:
                return HeartbeatResponse("FENCED_INSTANCE_ID")
        member = group.members.get(member_id)
        if member is None:
            return HeartbeatResponse("UNKNOWN_MEMBER_ID")
        if epoch == STATIC_LEAVE_EPOCH:
            # consumerGroupStaticMemberGroupLeave: no bump, partitions kept (owned at -2), session timer left running
            parked = replace(
                member, progress=replace(member.progress, epoch=STATIC_LEAVE_EPOCH, pending_revocation=frozenset())
            )
            group.put(parked)
            return HeartbeatResponse(NONE, member_id, STATIC_LEAVE_EPOCH)
        self.fence(group, member_id)
        return HeartbeatResponse(NONE, member_id, LEAVE_EPOCH)

    def fence(self, group: ConsumerGroup, member_id: str) -> None:
        """Kafka: `consumerGroupFenceMember`: tombstones, new subscription metadata, group epoch + 1."""
        self._cancel_timers(group.group_id, member_id)
        group.remove(member_id)
        group.subscription_metadata = group.subscribed(self.topics)
        group.group_epoch += 1

    def _cancel_timers(self, group_id: str, member_id: str) -> None:
        self.timers.cancel(self.session_key(group_id, member_id))
        self.timers.cancel(self.rebalance_key(group_id, member_id))
        self._sessions.pop((group_id, member_id), None)

    def schedule_session(self, group_id: str, member_id: str) -> None:
        self._arm_session(self._session(group_id, member_id))

    def _arm_session(self, session: tuple[str, Callable[[], None], str]) -> None:
        """Kafka: `scheduleConsumerGroupSessionTimeout`, for the member's `_session` timers."""
        self.timers.schedule(session[0], self.now + self.config.session_timeout_ms, session[1])

    def _session(self, group_id: str, member_id: str) -> tuple[str, Callable[[], None], str]:
        """The member's session timer key, its expiry action and its rebalance timer key.

        Every heartbeat needs them: they are made once per member, not per heartbeat."""
        session = self._sessions.get((group_id, member_id))
        if session is None:
            session = self._sessions[group_id, member_id] = (
                self.session_key(group_id, member_id),
                lambda: self._session_timeout(group_id, member_id),
                self.rebalance_key(group_id, member_id),
            )
        return session

    def _session_timeout(self, group_id: str, member_id: str) -> None:
        group = self.groups.get(group_id)
        if group is not None and member_id in group.members:
            self.fence(group, member_id)
            if self.on_fenced:
                self.on_fenced(group_id, member_id)

    def _rebalance_timeout(self, group_id: str, member_id: str, epoch: int) -> None:
        """Fires only if the member is still at the epoch it had when it started revoking."""
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        if group is not None and member is not None and member.epoch == epoch:
            self.fence(group, member_id)
            if self.on_fenced:
                self.on_fenced(group_id, member_id)

    # -- the world around ---------------------------------------------------------------------------------

    def metadata_change(self, topic: str, partitions: int) -> None:
        """Kafka: `onNewMetadataImage` -> `requestMetadataRefresh` for every group subscribed to the topic."""
        if partitions > 0:
            self.topics[topic] = partitions
        else:
            self.topics.pop(topic, None)
        for group in self.groups.values():
            if any(topic in m.subscribed_topics for m in group.members.values()):
                group.refresh_deadline = (0, 0)  # ModernGroup.requestMetadataRefresh

    def advance_to(self, instant: int) -> None:
        """Fire every timer due at or before `instant` at its own deadline, then stand at `instant`."""
        run_due(self.timers, instant, self)


def _updated(member: ConsumerMember, request: HeartbeatRequest) -> ConsumerMember:
    """The member record with what the request sent (None / -1: unchanged); the same record if nothing changed."""
    changes = {}
    if request.instance_id is not None and request.instance_id != member.instance_id:
        changes["instance_id"] = request.instance_id
    if request.rack_id is not None and request.rack_id != member.rack_id:
        changes["rack_id"] = request.rack_id
    if request.rebalance_timeout_ms != -1 and request.rebalance_timeout_ms != member.rebalance_timeout_ms:
        changes["rebalance_timeout_ms"] = request.rebalance_timeout_ms
    if request.server_assignor is not None and request.server_assignor != member.server_assignor:
        changes["server_assignor"] = request.server_assignor
    if request.subscribed_topics is not None and request.subscribed_topics != member.subscribed_topics:
        changes["subscribed_topics"] = request.subscribed_topics
    return replace(member, **changes) if changes else member


def _decrement(counts: Counter[_T], key: _T) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]  # keys are only what some member has: `subscribed` unions them


def _new_member(member_id: str) -> ConsumerMember:
    return ConsumerMember(member_id, Reconciliation(0, 0, STABLE, frozenset()))


def new_group_epoch(kafka_version: str | None) -> int:
    """The epoch Kafka `kafka_version` gives a consumer group it creates (ModernGroup's constructor): 1 from 4.3.0
    on, else 0. No release given keeps 0, the rule of the 4.0-4.2 releases the bundled scenarios and the
    conformance cases were written for."""
    parsed = parse_release(kafka_version)
    return 1 if parsed is not None and parsed >= (4, 3) else 0
