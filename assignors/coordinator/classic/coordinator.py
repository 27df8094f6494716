"""The classic-protocol group coordinator, as a deterministic state machine on simulated time.

Kafka: `org.apache.kafka.coordinator.group.GroupMetadataManager` (the classic-group half) and
`classic.ClassicGroup` / `ClassicGroupMember` at the 4.0 line.
States Empty, PreparingRebalance, CompletingRebalance, Stable, Dead; JoinGroup (with the KIP-394
member-id round trip), SyncGroup, Heartbeat, LeaveGroup, OffsetCommit validation; the join, sync and
heartbeat timers; static membership; group.max.size.

Where Kafka walks a HashMap of members (a new leader, a protocol-vote tie), kgroup takes the oldest
member, in insertion order; a static replacement counts as a new insertion, as `remove` then `put` would
(`ClassicGroup.maybeElectNewJoinedLeader`, `selectProtocol`).
Writes to __consumer_offsets always succeed at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from kgroup.assignors.coordinator.classic.group import (
    COMPLETING,
    DEAD,
    EMPTY,
    PREPARING,
    STABLE,
    ClassicGroup,
    ClassicGroupState,
    ClassicMember,
    CoordinatorConfig,
    JoinResponse,
    LeaveResponse,
    Protocols,
    SyncResponse,
    Transition,
)
from kgroup.assignors.coordinator.timer_queue import TimerQueue


class ClassicCoordinator:
    """The coordinator of every classic group on one `__consumer_offsets` partition."""

    def __init__(self, config: CoordinatorConfig | None = None, timers: TimerQueue | None = None) -> None:
        self.config = config or CoordinatorConfig()
        self.timers = timers or TimerQueue()
        self.groups: dict[str, ClassicGroup] = {}
        self.now = 0
        self.transitions: list[Transition] = []
        self._ids = 0
        # (group id, member id): told when a member leaves a group for any reason.
        self.on_member_removed: Callable[[str, str], None] | None = None

    # -- time ----------------------------------------------------------------------------------

    def advance_to(self, now: int) -> None:
        """Fire every timer due at or before `now`, each at its own deadline, then stand at `now`."""
        while (due := self.timers.pop_due(now)) is not None:
            self.now, action = due
            action()
        self.now = max(self.now, now)

    def _new_group(self, group_id: str) -> ClassicGroup:
        group = self.groups[group_id] = ClassicGroup(group_id)

        def removed(member_id: str) -> None:
            if self.on_member_removed is not None:
                self.on_member_removed(group_id, member_id)

        group.on_remove = removed
        return group

    def load_group(
        self, group_id: str, generation: int, protocol_name: str, leader: str, members: Iterable[LoadedMember]
    ) -> ClassicGroup:
        """A Stable group as `__consumer_offsets` records rebuild it when the coordinator loads them.

        Kafka: `GroupMetadataManager.replay` of a GroupMetadataValue then `onLoaded`, which re-arms every
        member's session timer (here from its last heartbeat when one is known, else from now).
        """
        group = self._new_group(group_id)
        group.generation, group.protocol_type, group.protocol_name = generation, "consumer", protocol_name
        for loaded in members:
            member = ClassicMember(
                loaded.member_id,
                loaded.instance_id,
                loaded.client_id,
                "consumer",
                loaded.protocols,
                loaded.session_timeout_ms,
                loaded.rebalance_timeout_ms,
                assignment=loaded.assignment,
            )
            group.add(member)
            if member.instance_id is not None:
                group.static_members[member.instance_id] = member.member_id
            since = self.now if loaded.last_heartbeat_ms is None else loaded.last_heartbeat_ms
            self.timers.schedule(
                self.heartbeat_key(group_id, member.member_id),
                since + member.session_timeout_ms,
                lambda mid=member.member_id: self._expire_heartbeat(group_id, mid),
            )
        group.leader = leader
        group.transition(PREPARING)
        group.transition(COMPLETING)
        group.transition(STABLE)
        group.previous_state = COMPLETING
        self.transitions.append(Transition(self.now, group_id, STABLE, generation, "loaded"))
        return group

    # -- keys and ids ----------------------------------------------------------------------------

    @staticmethod
    def heartbeat_key(group_id: str, member_id: str) -> tuple[str, str, str]:
        return ("heartbeat", group_id, member_id)

    @staticmethod
    def join_key(group_id: str) -> tuple[str, str]:
        return ("join", group_id)

    @staticmethod
    def sync_key(group_id: str) -> tuple[str, str]:
        return ("sync", group_id)

    def _new_member_id(self, client_id: str, instance_id: str | None) -> str:
        """Kafka: `<clientId or instanceId>-<UUID>`; kgroup numbers them so runs repeat exactly."""
        self._ids += 1
        return f"{instance_id or client_id or 'member'}-{self._ids}"

    def _transition(self, group: ClassicGroup, target: ClassicGroupState, reason: str) -> None:
        group.transition(target)
        self.transitions.append(Transition(self.now, group.group_id, target, group.generation, reason))

    def _schedule_heartbeat(self, group: ClassicGroup, member_id: str, delay: int) -> None:
        gid = group.group_id
        self.timers.schedule(
            self.heartbeat_key(gid, member_id), self.now + delay, lambda: self._expire_heartbeat(gid, member_id)
        )

    def _reschedule_heartbeat(self, group: ClassicGroup, member: ClassicMember) -> None:
        # Every heartbeat of every member lands here: the member keeps its timer key and action.
        if member.session_timer is None:
            gid, member_id = group.group_id, member.member_id
            member.session_timer = (self.heartbeat_key(gid, member_id), lambda: self._expire_heartbeat(gid, member_id))
        key, action = member.session_timer
        self.timers.schedule(key, self.now + member.session_timeout_ms, action)

    # -- JoinGroup ---------------------------------------------------------------------------------

    def join(
        self,
        group_id: str,
        member_id: str,
        protocols: Protocols,
        *,
        instance_id: str | None = None,
        client_id: str = "",
        protocol_type: str = "consumer",
        session_timeout_ms: int = 45_000,
        rebalance_timeout_ms: int = 300_000,
        version: int = 9,
    ) -> JoinResponse:
        """Kafka: `GroupMetadataManager.classicGroupJoin`."""
        response = JoinResponse(member_id=member_id)
        config = self.config
        if not group_id:
            response.answer(self.now, error="INVALID_GROUP_ID")
            return response
        if not config.min_session_timeout_ms <= session_timeout_ms <= config.max_session_timeout_ms:
            response.answer(self.now, error="INVALID_SESSION_TIMEOUT")
            return response
        group = self.groups.get(group_id)
        if group is None:
            if member_id:
                response.answer(self.now, error="UNKNOWN_MEMBER_ID")
                return response
            group = self._new_group(group_id)
        elif member_id and group.state == PREPARING:
            # A known member rejoining a rebalance, every member of a large group at every rebalance: when each
            # check of `acceptJoiningMember` and `classicGroupJoinExistingMember` passes (under group.max.size, not
            # Dead, a protocol in common, not pending, `validateMember`), their PreparingRebalance branch
            # (`updateMemberThenRebalanceOrCompleteJoin`) without the calls of `_accept_joining` and `_join_existing`.
            member = group.members.get(member_id)
            if (
                member is not None
                and (member.awaiting_join is not None or group.num_awaiting_join() < config.max_size)
                and member_id not in group.pending_join
                and (instance_id is None or group.static_members.get(instance_id) == member_id)
                and group.supports_protocols(protocol_type, protocols)
            ):
                group.update_protocols(member, protocols)
                member.rebalance_timeout_ms = rebalance_timeout_ms
                member.session_timeout_ms = session_timeout_ms
                group.await_join(member, response)
                if group.previous_state != EMPTY and group.has_all_members_joined():  # _maybe_complete_join
                    self._complete_join(group)
                return response
        request = _JoinRequest(
            member_id,
            instance_id,
            client_id,
            protocol_type,
            protocols,
            session_timeout_ms,
            rebalance_timeout_ms,
            version,
        )
        if not self._accept_joining(group, member_id):
            group.remove(member_id)
            response.answer(self.now, error="GROUP_MAX_SIZE_REACHED", member_id="")
        elif not member_id:
            self._join_new(group, request, response)
        else:
            self._join_existing(group, request, response)
        return response

    def _accept_joining(self, group: ClassicGroup, member_id: str) -> bool:
        """Kafka: `acceptJoiningMember`: awaiting members count against group.max.size while preparing."""
        if group.state in (EMPTY, DEAD):
            return True
        member = group.members.get(member_id)
        if group.state == PREPARING:
            return (
                member is not None and member.awaiting_join is not None
            ) or group.num_awaiting_join() < self.config.max_size
        return member is not None or len(group.members) < self.config.max_size

    def _refused(self, group: ClassicGroup, req: _JoinRequest, response: JoinResponse) -> bool:
        """The first checks of both JoinGroup paths: a Dead group, then no protocol in common."""
        if group.state == DEAD:
            response.answer(self.now, error="COORDINATOR_NOT_AVAILABLE")
        elif not group.supports_protocols(req.protocol_type, req.protocols):
            response.answer(self.now, error="INCONSISTENT_GROUP_PROTOCOL")
        return response.done

    def _join_new(self, group: ClassicGroup, req: _JoinRequest, response: JoinResponse) -> None:
        """Kafka: `classicGroupJoinNewMember`."""
        if self._refused(group, req, response):
            return
        new_id = self._new_member_id(req.client_id, req.instance_id)
        if req.instance_id is not None:
            old_id = group.static_members.get(req.instance_id)
            if old_id is not None:
                self._replace_static(group, req, old_id, new_id, response)
            else:
                self._add_member(group, new_id, req, response)
        elif req.version >= 4:
            # KIP-394: the member must come back with this id before it counts.
            group.pending_join[new_id] = None
            self._schedule_heartbeat(group, new_id, req.session_timeout_ms)
            response.answer(self.now, error="MEMBER_ID_REQUIRED", member_id=new_id)
        else:
            self._add_member(group, new_id, req, response)

    def _join_existing(self, group: ClassicGroup, req: _JoinRequest, response: JoinResponse) -> None:
        """Kafka: `classicGroupJoinExistingMember`."""
        member_id = req.member_id
        if self._refused(group, req, response):
            return
        if member_id in group.pending_join:
            self._add_member(group, member_id, req, response)
            return
        error = group.validate_member(member_id, req.instance_id)
        if error is not None:
            response.answer(self.now, error=error)
            return
        member = group.members[member_id]
        if group.state == PREPARING:
            self._update_member(group, member, req, response)
            self._maybe_complete_join(group)  # _rebalance_or_complete in PreparingRebalance, without its reason text
        elif group.state == COMPLETING:
            if member.matches(req.protocols):
                self._answer_current(group, member_id, response, with_members=group.leader == member_id)
            else:
                self._update_member(group, member, req, response)
                self._rebalance_or_complete(group, f"{member_id} rejoins with new metadata")
        elif group.state == STABLE:
            if group.leader == member_id or not member.matches(req.protocols):
                self._update_member(group, member, req, response)
                reason = "the leader rejoins" if group.leader == member_id else f"{member_id} rejoins with new metadata"
                self._rebalance_or_complete(group, reason)
            else:
                self._answer_current(group, member_id, response, with_members=False)
        else:
            response.answer(self.now, error="UNKNOWN_MEMBER_ID")

    def _answer_current(
        self,
        group: ClassicGroup,
        member_id: str,
        response: JoinResponse,
        with_members: bool,
        skip_assignment: bool = False,
    ) -> None:
        """A JoinGroup answered NONE at the group's generation, with its leader and protocol."""
        members = group.member_list() if with_members else ()
        response.accept(
            self.now, member_id, group.generation, group.leader, group.protocol_name, members, skip_assignment
        )

    def _add_member(self, group: ClassicGroup, member_id: str, req: _JoinRequest, response: JoinResponse) -> None:
        """Kafka: `addMemberThenRebalanceOrCompleteJoin` + `ClassicGroup.add`."""
        member = ClassicMember(
            member_id,
            req.instance_id,
            req.client_id,
            req.protocol_type,
            req.protocols,
            req.session_timeout_ms,
            req.rebalance_timeout_ms,
            is_new=True,
            _awaiting_join=response,
        )
        response.member_id = member_id
        if group.state == PREPARING and group.previous_state == EMPTY:
            group.new_member_added = True
        if req.instance_id is not None:
            group.static_members[req.instance_id] = member_id
        if not group.members:
            group.protocol_type = req.protocol_type
        if group.leader is None:
            group.leader = member_id
        group.add(member)
        group.pending_join.pop(member_id, None)
        self._schedule_heartbeat(group, member_id, self.config.new_member_join_timeout_ms)
        self._rebalance_or_complete(group, f"{member_id} joins")

    def _update_member(
        self, group: ClassicGroup, member: ClassicMember, req: _JoinRequest, response: JoinResponse | None
    ) -> None:
        """Kafka: `ClassicGroup.updateMember`."""
        group.update_protocols(member, req.protocols)
        member.rebalance_timeout_ms = req.rebalance_timeout_ms
        member.session_timeout_ms = req.session_timeout_ms
        group.await_join(member, response)

    def _replace_static(
        self, group: ClassicGroup, req: _JoinRequest, old_id: str, new_id: str, response: JoinResponse
    ) -> None:
        """Kafka: `updateStaticMemberThenRebalanceOrCompleteJoin` + `ClassicGroup.replaceStaticMember`."""
        leader_before = group.leader
        old = group.detach(old_id)
        assert old is not None
        if old.awaiting_join is not None:
            old.awaiting_join.answer(
                self.now, error="FENCED_INSTANCE_ID", member_id=old_id, leader=None, members=(), protocol_name=None
            )
        if old.awaiting_sync is not None:
            old.awaiting_sync.answer(self.now, error="FENCED_INSTANCE_ID", assignment=())
            old.awaiting_sync = None
        new = ClassicMember(
            new_id,
            old.instance_id,
            old.client_id,
            old.protocol_type,
            old.protocols,
            old.session_timeout_ms,
            old.rebalance_timeout_ms,
            assignment=old.assignment,
        )
        group.add(new)
        if group.leader == old_id:
            group.leader = new_id
        group.static_members[req.instance_id or ""] = new_id
        # Rescheduled with the old session timeout, before the new one is applied.
        self._reschedule_heartbeat(group, new)
        self._update_member(group, new, req, response)
        response.member_id = new_id
        if group.state == STABLE:
            if group.protocol_name == group.select_protocol():
                # The group metadata write succeeds at once; no rebalance.
                group.await_join(new, None)
                if req.version >= 9:
                    is_leader = group.leader == new_id
                    self._answer_current(group, new_id, response, with_members=is_leader, skip_assignment=is_leader)
                else:
                    # Before v9 the answer names the leader from before the replacement (the old member id, when
                    # it led): a replaced leader then runs no assignment, which a Stable group would not hand out.
                    response.accept(self.now, new_id, group.generation, leader_before, group.protocol_name, (), False)
            else:
                self._rebalance_or_complete(group, f"static member {req.instance_id} rejoins with a new protocol")
        elif group.state == COMPLETING:
            self._prepare_rebalance(group, f"static member {req.instance_id} replaced during CompletingRebalance")
        elif group.state == PREPARING:
            self._maybe_complete_join(group)
        else:
            raise RuntimeError(f"static member replaced in state {group.state}")

    # -- rebalance ---------------------------------------------------------------------------------

    def _rebalance_or_complete(self, group: ClassicGroup, reason: str) -> None:
        """Kafka: `maybePrepareRebalanceOrCompleteJoin`."""
        if group.can_rebalance():
            self._prepare_rebalance(group, reason)
        else:
            self._maybe_complete_join(group)

    def force_prepare_rebalance(self, group_id: str, reason: str = "forced by the scenario") -> None:
        """Kafka's test hook `GroupMetadataManager.prepareRebalance` (package-private, called by its tests):
        a rebalance of a group that exists, whatever its state allows."""
        group = self.groups.get(group_id)
        if group is None:
            raise KeyError(f"no group {group_id!r} to rebalance")
        self._prepare_rebalance(group, reason)

    def _prepare_rebalance(self, group: ClassicGroup, reason: str) -> None:
        """Kafka: `prepareRebalance`."""
        if group.state == COMPLETING:
            self._reset_and_propagate(group, "REBALANCE_IN_PROGRESS")
        self.timers.cancel(self.sync_key(group.group_id))
        initial = group.state == EMPTY
        if initial:
            delay = self.config.initial_rebalance_delay_ms
            remaining = max(group.rebalance_timeout_ms() - delay, 0)
            self._schedule_initial_delay(group, delay, remaining)
        self._transition(group, PREPARING, reason)
        if not initial:
            if group.has_all_members_joined():
                self._complete_join(group)
            else:
                self._schedule_join_timeout(group)

    def _schedule_initial_delay(self, group: ClassicGroup, delay: int, remaining: int) -> None:
        gid = group.group_id
        self.timers.schedule(
            self.join_key(gid), self.now + delay, lambda: self._initial_delay_expired(gid, delay, remaining)
        )

    def _initial_delay_expired(self, group_id: str, delay: int, remaining: int) -> None:
        """Kafka: `tryCompleteInitialRebalanceElseSchedule`: each newcomer extends the wait, within bounds."""
        group = self.groups.get(group_id)
        if group is None:
            return
        if group.new_member_added and remaining != 0:
            group.new_member_added = False
            new_delay = min(self.config.initial_rebalance_delay_ms, remaining)
            self._schedule_initial_delay(group, new_delay, max(remaining - delay, 0))
        else:
            self._complete_join(group)

    def _schedule_join_timeout(self, group: ClassicGroup) -> None:
        gid = group.group_id
        self.timers.schedule(
            self.join_key(gid), self.now + group.rebalance_timeout_ms(), lambda: self._join_timeout(gid)
        )

    def _join_timeout(self, group_id: str) -> None:
        group = self.groups.get(group_id)
        if group is not None:
            self._complete_join(group)

    def _maybe_complete_join(self, group: ClassicGroup) -> None:
        """Kafka: `maybeCompleteJoinPhase`: never early during an initial (delayed) rebalance."""
        if group.state != PREPARING or group.previous_state == EMPTY or not group.has_all_members_joined():
            return
        self._complete_join(group)

    def _complete_join(self, group: ClassicGroup) -> None:
        """Kafka: `completeClassicGroupJoin`."""
        gid = group.group_id
        self.timers.cancel(self.join_key(gid))
        for member in [m for m in group.members.values() if m.awaiting_join is None and m.instance_id is None]:
            group.remove(member.member_id)
            self.timers.cancel(self.heartbeat_key(gid, member.member_id))
        if group.state == DEAD:
            return
        if not self._elect_joined_leader(group) and group.members:
            self._schedule_join_timeout(group)  # nobody rejoined: wait again, same generation
            return
        group.generation += 1
        group.pending_sync.clear()
        if not group.members:
            group.protocol_name = None
            self._transition(group, EMPTY, "the join phase ended with no members")
            return
        group.protocol_name = group.select_protocol()
        self._transition(group, COMPLETING, "the join phase completed")
        # Every answer names the same generation, leader and protocol; an answer's callback only queues the
        # client's handler (`_Answer.on_done`), so none of them changes while the loop runs.
        now, pending_sync = self.now, group.pending_sync
        generation, leader, protocol_name = group.generation, group.leader, group.protocol_name
        for member in list(group.members.values()):
            member_id = member.member_id
            response = member.awaiting_join
            if response is not None:
                members = group.member_list() if leader == member_id else ()
                response.accept(now, member_id, generation, leader, protocol_name, members, False)
                group.await_join(member, None)
            self._reschedule_heartbeat(group, member)
            member.is_new = False
            pending_sync.add(member_id)
        self.timers.schedule(
            self.sync_key(gid),
            self.now + group.rebalance_timeout_ms(),
            lambda: self._expire_pending_sync(gid, generation),
        )

    def _elect_joined_leader(self, group: ClassicGroup) -> bool:
        """Kafka: `maybeElectNewJoinedLeader`: keep a leader that rejoined, else the oldest that did."""
        if group.leader is None:
            return False
        if group.members[group.leader].awaiting_join is not None:
            return True
        for member in group.members.values():
            if member.awaiting_join is not None:
                group.leader = member.member_id
                return True
        return False

    def _expire_pending_sync(self, group_id: str, generation: int) -> None:
        """Kafka: `expirePendingSync`: members that never sent SyncGroup leave, static ones too."""
        group = self.groups.get(group_id)
        if group is None or generation != group.generation or group.state not in (COMPLETING, STABLE):
            return
        if group.pending_sync:
            for member_id in list(group.pending_sync):
                group.remove(member_id)
                self.timers.cancel(self.heartbeat_key(group_id, member_id))
            self._prepare_rebalance(group, "members did not send SyncGroup in time")

    def _expire_heartbeat(self, group_id: str, member_id: str) -> None:
        """Kafka: `expireClassicGroupMemberHeartbeat`."""
        group = self.groups.get(group_id)
        if group is None or group.state == DEAD:
            return
        if member_id in group.pending_join:
            group.remove(member_id)
            if group.state == PREPARING and group.has_all_members_joined():
                self._complete_join(group)
            return
        member = group.members.get(member_id)
        if member is None or member.has_satisfied_heartbeat():
            return
        self._remove_member(group, member, f"{member_id}'s session expired")

    def _remove_member(self, group: ClassicGroup, member: ClassicMember, reason: str) -> None:
        """Kafka: `removeMemberAndUpdateClassicGroup`."""
        if member.awaiting_join is not None:
            member.awaiting_join.answer(self.now, error="UNKNOWN_MEMBER_ID", member_id="")
            group.await_join(member, None)
        group.remove(member.member_id)
        if group.state in (STABLE, COMPLETING):
            self._rebalance_or_complete(group, reason)
        elif group.state == PREPARING and group.has_all_members_joined():
            self._complete_join(group)

    # -- SyncGroup ---------------------------------------------------------------------------------

    def sync(
        self,
        group_id: str,
        member_id: str,
        generation: int,
        *,
        instance_id: str | None = None,
        assignments: dict[str, tuple[Any, ...]] | None = None,
        protocol_type: str | None = None,
        protocol_name: str | None = None,
    ) -> SyncResponse:
        """Kafka: `classicGroupSync` / `classicGroupSyncToClassicGroup`."""
        response = SyncResponse()
        group = self.groups.get(group_id)
        if group is None or group.state == EMPTY:
            response.answer(self.now, error="UNKNOWN_MEMBER_ID")
            return response
        # A known member at the current generation naming no protocol passes every check of `_validate_sync`:
        # a thousand of them per rebalance skip its calls.
        member = group.members.get(member_id)
        if (
            member is not None
            and generation == group.generation
            and protocol_type is None
            and protocol_name is None
            and group.state != DEAD
            and (instance_id is None or group.static_members.get(instance_id) == member_id)
        ):
            error = None
        else:
            error = self._validate_sync(group, member_id, instance_id, generation, protocol_type, protocol_name)
        if error is not None:
            response.answer(self.now, error=error)
        elif group.state == PREPARING:
            response.answer(self.now, error="REBALANCE_IN_PROGRESS")
        elif group.state == COMPLETING:
            group.members[member_id].awaiting_sync = response
            self._remove_pending_sync(group, member_id)
            if group.leader == member_id:
                given = dict(assignments or {})
                for member in group.members.values():
                    member.assignment = tuple(given.get(member.member_id, ()))
                # The group metadata write succeeds at once.
                self._propagate(group, "NONE")
                self._transition(group, STABLE, "the leader's assignment was stored")
        elif group.state == STABLE:
            self._remove_pending_sync(group, member_id)
            response.give(self.now, "NONE", group.members[member_id].assignment, group.protocol_name)
        return response

    def _validate_sync(
        self,
        group: ClassicGroup,
        member_id: str,
        instance_id: str | None,
        generation: int,
        protocol_type: str | None,
        protocol_name: str | None,
    ) -> str | None:
        error = _validate_generation_member(group, member_id, instance_id, generation)
        if error is not None:
            return error
        if (protocol_type is not None and protocol_type != group.protocol_type) or (
            protocol_name is not None and protocol_name != group.protocol_name
        ):
            return "INCONSISTENT_GROUP_PROTOCOL"
        return None

    def _remove_pending_sync(self, group: ClassicGroup, member_id: str) -> None:
        group.pending_sync.discard(member_id)
        if group.state in (DEAD, EMPTY, PREPARING) or not group.pending_sync:
            self.timers.cancel(self.sync_key(group.group_id))

    def _propagate(self, group: ClassicGroup, error: str) -> None:
        """Kafka: `propagateAssignment`: answer every parked SyncGroup and re-arm its member's session."""
        now = self.now
        for member in group.members.values():
            response = member.awaiting_sync
            if response is not None:
                response.give(now, error, member.assignment, group.protocol_name if error == "NONE" else None)
                member.awaiting_sync = None
                self._reschedule_heartbeat(group, member)

    def _reset_and_propagate(self, group: ClassicGroup, error: str) -> None:
        for member in group.members.values():
            member.assignment = ()
        self._propagate(group, error)

    # -- Heartbeat, LeaveGroup, OffsetCommit ----------------------------------------------------------

    def heartbeat(self, group_id: str, member_id: str, generation: int, *, instance_id: str | None = None) -> str:
        """Kafka: `classicGroupHeartbeatToClassicGroup`: membership, then generation, then state."""
        group = self.groups.get(group_id)
        if group is None:
            return "UNKNOWN_MEMBER_ID"
        # The commonest request of a large group: a known member at the current generation. When every check
        # of `_validate_generation_member` passes, it answers from here without building anything.
        member = group.members.get(member_id)
        if (
            member is not None
            and generation == group.generation
            and group.state != DEAD
            and (instance_id is None or group.static_members.get(instance_id) == member_id)
        ):
            if group.state == EMPTY:
                return "UNKNOWN_MEMBER_ID"
            timer = member.session_timer
            if timer is None:
                self._reschedule_heartbeat(group, member)
            else:
                self.timers.schedule(timer[0], self.now + member.session_timeout_ms, timer[1])
            return "REBALANCE_IN_PROGRESS" if group.state == PREPARING else "NONE"
        error = _validate_generation_member(group, member_id, instance_id, generation)
        if error is not None:
            return error
        if group.state == EMPTY:
            return "UNKNOWN_MEMBER_ID"
        self._reschedule_heartbeat(group, group.members[member_id])
        return "REBALANCE_IN_PROGRESS" if group.state == PREPARING else "NONE"

    def leave(self, group_id: str, members: list[tuple[str, str | None]]) -> LeaveResponse:
        """Kafka: `classicGroupLeaveToClassicGroup` (batch, KIP-345)."""
        response = LeaveResponse()
        group = self.groups.get(group_id)
        if group is None:
            response.error = "UNKNOWN_MEMBER_ID"
            response.members = [(m, i, "UNKNOWN_MEMBER_ID") for m, i in members]
            return response
        if group.state == DEAD:
            response.error = "COORDINATOR_NOT_AVAILABLE"
            return response
        left = []
        for member_id, instance_id in members:
            if not member_id:
                if instance_id is not None and instance_id in group.static_members:
                    self._remove_current(group, group.static_members[instance_id])
                    response.members.append((member_id, instance_id, "NONE"))
                    left.append(member_id)
                else:
                    response.members.append((member_id, instance_id, "UNKNOWN_MEMBER_ID"))
            elif member_id in group.pending_join:
                group.remove(member_id)
                self.timers.cancel(self.heartbeat_key(group_id, member_id))
                response.members.append((member_id, instance_id, "NONE"))
                left.append(member_id)
            else:
                error = group.validate_member(member_id, instance_id)
                if error is None:
                    self._remove_current(group, member_id)
                    left.append(member_id)
                response.members.append((member_id, instance_id, error or "NONE"))
        if left:
            if group.state in (STABLE, COMPLETING):
                self._rebalance_or_complete(group, f"{', '.join(left)} left the group")
            elif group.state == PREPARING:
                self._maybe_complete_join(group)
        return response

    def _remove_current(self, group: ClassicGroup, member_id: str) -> None:
        """Kafka: `removeCurrentMemberFromClassicGroup`."""
        self.timers.cancel(self.heartbeat_key(group.group_id, member_id))
        member = group.members[member_id]
        if member.awaiting_join is not None:
            member.awaiting_join.answer(self.now, error="UNKNOWN_MEMBER_ID", member_id="")
            group.await_join(member, None)
        group.remove(member_id)

    def commit(self, group_id: str, member_id: str, generation: int, *, instance_id: str | None = None) -> str:
        """Kafka: `ClassicGroup.validateOffsetCommit`: whether an OffsetCommit would be accepted."""
        group = self.groups.get(group_id)
        if group is None:
            return "NONE" if generation < 0 else "UNKNOWN_MEMBER_ID"
        if group.state == DEAD:
            return "COORDINATOR_NOT_AVAILABLE"
        if generation < 0 and group.state == EMPTY:
            return "NONE"  # a simple consumer or an admin commit
        error = _validate_generation_member(group, member_id, instance_id, generation)
        if error is not None:
            return error
        if group.state == COMPLETING:
            return "REBALANCE_IN_PROGRESS"
        return "NONE"


def _validate_generation_member(
    group: ClassicGroup, member_id: str, instance_id: str | None, generation: int
) -> str | None:
    """The checks SyncGroup, Heartbeat and OffsetCommit share, in Kafka's order: a Dead group, then
    membership (`validateMember`), then the generation."""
    if group.state == DEAD:
        return "COORDINATOR_NOT_AVAILABLE"
    error = group.validate_member(member_id, instance_id)
    if error is not None:
        return error
    if generation != group.generation:
        return "ILLEGAL_GENERATION"
    return None


@dataclass(frozen=True)
class LoadedMember:
    """A member of a group rebuilt by `load_group`."""

    member_id: str
    instance_id: str | None
    client_id: str
    protocols: Protocols
    session_timeout_ms: int
    rebalance_timeout_ms: int
    assignment: tuple[Any, ...] = ()
    last_heartbeat_ms: int | None = None


class _JoinRequest(NamedTuple):  # a named tuple: built on every JoinGroup, and cheaper than a frozen dataclass
    member_id: str
    instance_id: str | None
    client_id: str
    protocol_type: str
    protocols: Protocols
    session_timeout_ms: int
    rebalance_timeout_ms: int
    version: int
