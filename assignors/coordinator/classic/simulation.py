"""Classic-protocol consumers around the classic coordinator, on simulated time.

The coordinator (`coordinator.py`) answers requests; this module plays the clients that send them: the
heartbeat thread, the poll loop, `onJoinPrepare` / `onJoinComplete`, the leader's assignment (Kafka:
`AbstractCoordinator`, `ConsumerCoordinator`). What the application and the operator do to a client (commits, slow batches, pauses, crashes, closes,
new partitions) is the other half, `application.py`. This module records who consumed which partition
when (`consumption`), every rebalance (`records.py`), and an event log.

It stays one module past 400 lines because it is one concept: the request plumbing between the clients
and the coordinator, whose handlers call each other in the order Kafka's client runs them.

Time is integer milliseconds. At one instant the coordinator's due timers fire first, then client and
scripted events in the order they were scheduled; an answer a client receives is acted on at the same
instant, after the request that produced it returns.

`autonomous=False` replays request-level scripts (`classic-client`, docs/conformance.md): the script sends
every JoinGroup, SyncGroup and LeaveGroup; the clients only keep their sessions alive with background
heartbeats and keep their own state and accounting.
"""

from __future__ import annotations

import heapq
import re
from functools import lru_cache, partial
from itertools import filterfalse
from operator import itemgetter
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from kgroup.assignors.base import Assignor, gc_paused
from kgroup.assignors.coordinator.classic.client import (
    COMPLETING_REBALANCE,
    COOPERATIVE,
    NO_GENERATION,
    PREPARING_REBALANCE,
    STABLE,
    UNJOINED,
    ClassicClient,
    ClientConfig,
    Subscription,
)
from kgroup.assignors.coordinator.classic.application import ApplicationEvents
from kgroup.assignors.coordinator.classic.coordinator import ClassicCoordinator, LoadedMember
from kgroup.assignors.coordinator.classic.group import EMPTY, PREPARING, CoordinatorConfig, JoinResponse, SyncResponse
from kgroup.assignors.coordinator.classic.group import STABLE as GROUP_STABLE
from kgroup.assignors.coordinator.classic.records import LogEntry, RebalanceRecord
from kgroup.assignors.coordinator.consumption import ConsumptionLedger, Gap
from kgroup.assignors.model import Cluster, Member, TopicPartition

GROUP_ID = "group"
# What a log without detail leaves out: one entry per request or per callback, per member.
_REQUEST_KINDS = frozenset({"join", "join-response", "sync-response", "heartbeat", "assignment"})
FATAL_JOIN_ERRORS = frozenset(
    {
        "FENCED_INSTANCE_ID",
        "INCONSISTENT_GROUP_PROTOCOL",
        "INVALID_SESSION_TIMEOUT",
        "INVALID_GROUP_ID",
        "GROUP_MAX_SIZE_REACHED",
        "GROUP_AUTHORIZATION_FAILED",
    }
)


Resolver = Callable[[str], Assignor]


class ClassicSimulation(ApplicationEvents):
    def __init__(
        self,
        cluster: Cluster,
        resolve: Resolver,
        coordinator_config: CoordinatorConfig | None = None,
        autonomous: bool = True,
        group_id: str = GROUP_ID,
        detailed_log: bool = True,
    ) -> None:
        self.cluster = cluster
        # Off for very large runs: the log keeps lifecycle events and group states but no per-request
        # entries, and rebalance records keep no partition lists (an eager rebalance of 100,000
        # partitions would otherwise log 200,000 of them, and 1,000 members' joins, each time).
        self.detailed_log = detailed_log
        self.resolve = resolve
        self.autonomous = autonomous
        self.group_id = group_id
        self.coordinator = ClassicCoordinator(coordinator_config)
        self.coordinator.on_member_removed = self._member_removed
        self.clients: dict[str, ClassicClient] = {}
        self._subscriptions: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._by_member_id: dict[str, ClassicClient] = {}
        self.ledger = ConsumptionLedger()
        # Assignments as received, one tuple per distinct content (see _shared_block), and whether each fits
        # a subscription: an eager hour of 1,000 members gets ~500,000 assignments of a few thousand contents.
        self._blocks: dict[tuple[int, int, int], tuple[TopicPartition, ...]] = {}
        self._fits: dict[tuple[int, int], tuple[tuple[str, ...], tuple[TopicPartition, ...], bool]] = {}
        self.created: dict[TopicPartition, int] = {
            TopicPartition(t.name, p): 0 for t in cluster.topics for p in range(t.partitions)
        }
        self.log: list[LogEntry] = []
        self._moved = _Moves()  # each set of partitions moved, and their names, listed once: read only
        # (when, leader, topics): the group's leader stopped subscribing to topics another member still wants
        # (a Java leader may then assign without their metadata: pathologies.leader-dropped-topic).
        self.leader_topic_drops: list[tuple[int, str, tuple[str, ...]]] = []
        self.rebalances: list[RebalanceRecord] = []
        self._open_rebalance: RebalanceRecord | None = None
        self._settled_members: tuple[str, ...] = ()
        self._seen_transitions = 0
        self._queue: list[tuple[int, int, Callable[..., None], tuple[Any, ...]]] = []
        # Heartbeats, most of a large group's events, come due in the order they are scheduled (each is the
        # last one plus the interval): a first-in first-out lane beside the heap keeps them in (when, sequence)
        # order for a constant cost. One due earlier than the lane's last goes to the heap instead.
        self._heartbeat_lane: deque[tuple[int, int, Callable[..., None], tuple[Any, ...]]] = deque()
        self._sequence = 0
        self.events_processed = 0  # client events and coordinator timer passes, for benchmarks
        self._ready: deque[tuple[Callable[..., None], tuple[Any, ...]]] = deque()
        self.now = 0

    # -- the event loop --------------------------------------------------------------------------

    def at(self, when: int, action: Callable[..., None], *args: Any) -> None:
        """Schedule `action(*args)` at `when`; same-instant actions run in scheduling order."""
        self._sequence += 1
        heapq.heappush(self._queue, (when, self._sequence, action, args))

    def _schedule_heartbeat(self, when: int, client: ClassicClient, token: int) -> None:
        self._sequence = sequence = self._sequence + 1
        entry = (when, sequence, self._heartbeat, (client, token))
        lane = self._heartbeat_lane
        if not lane or lane[-1][0] <= when:
            lane.append(entry)
        else:
            heapq.heappush(self._queue, entry)

    def run_until(self, horizon: int) -> None:
        """Process everything due at or before `horizon`, then stand at `horizon`.

        The cyclic collector is paused meanwhile: the loop allocates millions of short-lived tuples and
        answers, all freed by reference counting (an answer drops its callback once given), so on an eager
        hour of 1,000 members its collections were a seventh of the run and found nothing.
        """
        with gc_paused():
            self._run_until(horizon)

    def _run_until(self, horizon: int) -> None:
        coordinator, heap, lane, ready = self.coordinator, self._queue, self._heartbeat_lane, self._ready
        timers, transitions, pop, popleft = coordinator.timers, coordinator.transitions, heapq.heappop, lane.popleft
        timer_heap = timers.heap
        processed = 0  # counted here, added to events_processed once the loop ends
        try:
            while True:
                # The earlier of the two heads by (when, sequence); sequences are unique, so actions are never
                # compared.
                if lane and (not heap or lane[0] < heap[0]):
                    from_lane, next_event = True, lane[0][0]
                elif heap:
                    from_lane, next_event = False, heap[0][0]
                else:
                    from_lane, next_event = False, None
                limit = horizon if next_event is None or next_event > horizon else next_event
                # Most events come with no timer entry due before them: one comparison, no call.
                next_timer = timers.due_by(limit) if timer_heap and timer_heap[0][0] <= limit else None
                if next_timer is not None:  # timers due at an event's instant fire before it
                    self.now = next_timer
                    processed += 1
                    coordinator.advance_to(next_timer)
                    self._settle()
                elif next_event is not None and next_event <= horizon:
                    when, _, action, args = popleft() if from_lane else pop(heap)
                    processed += 1
                    # No timer is due before `when` (that branch comes first), so only the clock moves.
                    self.now = coordinator.now = when
                    action(*args)
                    if ready or self._seen_transitions < len(transitions):
                        self._settle()
                else:
                    break
        finally:
            self.events_processed += processed
        coordinator.advance_to(horizon)
        self.now = horizon
        self._settle()

    def settle(self) -> None:
        """Act on answers given outside the event loop (a scripted request)."""
        self._settle()

    def _settle(self) -> None:
        """Act on every answer given by the last step, and on the answers those actions produce."""
        ready, transitions = self._ready, self.coordinator.transitions
        while True:
            if self._seen_transitions < len(transitions):
                self._track_transitions()  # sees them all
            if not ready:
                return
            handler, args = ready.popleft()
            handler(*args)

    def _when_answered(self, response: JoinResponse | SyncResponse, handler: Callable[..., None], *args: Any) -> None:
        if response.done:
            self._ready.append((handler, args))
        else:
            response.on_done = partial(self._ready.append, (handler, args))

    def note(self, kind: str, client: ClassicClient | str | None, **detail: Any) -> None:
        if not self.detailed_log and kind in _REQUEST_KINDS:
            return
        name = client.handle if isinstance(client, ClassicClient) else client
        self.log.append(LogEntry(self.now, kind, name, detail))

    # -- members ---------------------------------------------------------------------------------

    def add_client(self, handle: str, config: ClientConfig, topics: Iterable[str]) -> ClassicClient:
        client = ClassicClient(handle, config, self._subscription(topics), self.cluster)
        self.clients[handle] = client
        return client

    def _subscription(self, topics: Iterable[str]) -> tuple[str, ...]:
        """One tuple per distinct subscription, shared by the clients that have it: the leader's assignor
        then groups a thousand members by object identity, without hashing each one's topic list."""
        wanted = tuple(topics)
        return self._subscriptions.setdefault(wanted, wanted)

    def load(
        self,
        generation: int,
        protocol_name: str,
        leader: str,
        owned: Mapping[str, tuple[TopicPartition, ...]],
        last_heartbeat: Mapping[str, int] | None = None,
        heartbeat_phase: Mapping[str, int] | None = None,
    ) -> None:
        """Start from a Stable group whose members (clients already added, member id = handle) own `owned`."""
        last_heartbeat = last_heartbeat or {}
        heartbeat_phase = heartbeat_phase or {}
        loaded = []
        for handle, client in self.clients.items():
            client.member_id, client.generation, client.state = handle, generation, STABLE
            client.owned, client.alive, client.in_group = tuple(owned.get(handle, ())), True, True
            client.is_leader = handle == leader
            client.assigned_cluster = self.cluster if client.is_leader else None
            self._by_member_id[handle] = client
            loaded.append(
                LoadedMember(
                    handle,
                    client.config.instance_id,
                    handle,
                    client.protocols(),
                    client.config.session_timeout_ms,
                    client.config.max_poll_interval_ms,
                    client.owned,
                    last_heartbeat.get(handle),
                )
            )
        self.coordinator.load_group(self.group_id, generation, protocol_name, leader, loaded)
        self._seen_transitions = len(self.coordinator.transitions)
        self._settled_members = tuple(self.clients)
        for handle, client in self.clients.items():
            interval = client.config.heartbeat_interval_ms
            if handle in last_heartbeat:
                first = last_heartbeat[handle] + interval
            else:
                first = heartbeat_phase.get(handle, 0)
            self._start_heartbeats(client, first)
            self._reconsider(client)

    def start(self, client: ClassicClient) -> None:
        """The process starts (or restarts): a fresh consumer that joins at its first poll."""
        client.alive, client.fatal, client.state = True, None, UNJOINED
        client.member_id, client.generation, client.owned = "", NO_GENERATION, ()
        client.in_group = client.is_leader = client.poll_scheduled = client.batch_stalled = False
        client.paused_until = client.batch_end = -1
        client.batches_left = 0
        client.cluster = self.cluster
        client.instance_counter += 1
        client.heartbeat_token += 1
        self.note("start", client, instance_id=client.config.instance_id)
        client.refresh_phase = self.now
        if self.autonomous:
            client.rejoin_needed = True
            self._poll_at(client, self.now)

    # -- consumption -----------------------------------------------------------------------------

    def _reconsider(self, client: ClassicClient) -> None:
        """Is `client` consuming now? It owns partitions, runs, is a member, and is neither paused nor stalled."""
        should = (
            bool(client.owned)
            and client.alive
            and client.in_group
            and self.now >= client.paused_until
            and not client.batch_stalled
        )
        if should and not client.consuming:
            self.ledger.start(client.handle, client.owned, self.now)
        elif client.consuming and not should:
            self.ledger.stop(client.handle, self.now)
        client.consuming = should

    def give_up(self, client: ClassicClient, how: str, parts: Iterable[TopicPartition]) -> None:
        """`onPartitionsRevoked` / `onPartitionsLost`."""
        # An eager revocation hands back `client.owned` itself: no need to hash every partition.
        gone: Collection[TopicPartition]
        if parts is client.owned:
            gone, everything = client.owned, True
        else:
            gone = set(parts)
            everything = len(gone) == len(client.owned) and gone.issuperset(client.owned)
        if not gone:
            return
        if everything and not self.detailed_log:
            # All of it, with nothing to list: once the ledger stops, `_reconsider` would only clear `consuming`.
            if client.consuming:
                self.ledger.stop(client.handle, self.now)
                client.consuming = False
            client.owned = ()
            return
        if client.consuming:
            self.ledger.stop(client.handle, self.now, None if everything else gone)
        client.owned = () if everything else tuple(tp for tp in client.owned if tp not in gone)
        if self.detailed_log:
            listed, names = self._moved.of(sorted(gone))
            self.note(f"partitions-{how}", client, partitions=names)
            record = self._current_record()
            if record is not None:
                _add(record.revoked if how == "revoked" else record.lost, client.handle, listed)
        self._reconsider(client)

    def _take(self, client: ClassicClient, assigned: tuple[TopicPartition, ...]) -> None:
        """`onPartitionsAssigned` for what is new in `assigned`."""
        owned, client.owned = client.owned, assigned
        if not (client.consuming or self.detailed_log):
            self._reconsider(client)  # an eager member after its revocation: nothing to list
            return
        added = list(filterfalse(set(owned).__contains__, assigned)) if owned else list(assigned)
        if client.consuming and added:
            self.ledger.start(client.handle, added, self.now)
        if self.detailed_log:
            listed, names = self._moved.of(sorted(added))
            self.note("partitions-assigned", client, partitions=names, generation=client.generation)
            record = self._current_record()
            if record is not None and added:
                _add(record.assigned, client.handle, listed)
        self._reconsider(client)

    def _member_removed(self, group_id: str, member_id: str) -> None:
        client = self._by_member_id.get(member_id)
        if client is not None and client.member_id == member_id and group_id == self.group_id:
            self.note("member-removed", client, member_id=member_id, paused=client.paused(self.now), alive=client.alive)
            client.in_group = False
            self._reconsider(client)

    # -- rebalance records -------------------------------------------------------------------------

    def _members_now(self) -> tuple[str, ...]:
        group = self.coordinator.groups.get(self.group_id)
        if group is None:
            return ()
        # `_handle_of` for each member id, without a call per member: asked at the end of every rebalance.
        by_member_id = self._by_member_id
        return tuple(by_member_id[mid].handle if mid in by_member_id else mid for mid in group.members)

    def _handle_of(self, member_id: str | None) -> str | None:
        if member_id is None:
            return None
        client = self._by_member_id.get(member_id)
        return client.handle if client is not None else member_id

    def _track_transitions(self) -> None:
        transitions = self.coordinator.transitions
        while self._seen_transitions < len(transitions):
            change = transitions[self._seen_transitions]
            self._seen_transitions += 1
            if change.group_id != self.group_id:
                continue
            self.log.append(
                LogEntry(
                    change.at_ms,
                    "group-state",
                    None,
                    {"state": change.state, "generation": change.generation, "reason": change.reason},
                )
            )
            record = self._open_rebalance
            if change.state == PREPARING and record is None:
                self._open_rebalance = RebalanceRecord(
                    len(self.rebalances) + 1, change.at_ms, self._in_handles(change.reason), self._settled_members
                )
                self.rebalances.append(self._open_rebalance)
            elif change.state in (GROUP_STABLE, EMPTY) and record is not None:
                group = self.coordinator.groups[self.group_id]
                record.end, record.outcome, record.generation = change.at_ms, change.state, change.generation
                record.leader = self._handle_of(group.leader)
                record.assignor = group.protocol_name
                record.members_after = self._members_now()
                self._settled_members = record.members_after
                self._open_rebalance = None

    def _in_handles(self, text: str) -> str:
        """A coordinator reason with each member id replaced by the name of its client."""
        return _WORD.sub(lambda word: self._handle_of(word.group()) or word.group(), text)

    def _current_record(self) -> RebalanceRecord | None:
        """The rebalance a callback belongs to: the open one, or one that ended at this very instant."""
        if self._open_rebalance is not None:
            return self._open_rebalance
        if self.rebalances and self.rebalances[-1].end == self.now:
            return self.rebalances[-1]
        return None

    # -- the heartbeat thread --------------------------------------------------------------------

    def _start_heartbeats(self, client: ClassicClient, first: int) -> None:
        client.heartbeat_token += 1
        self._schedule_heartbeat(first, client, client.heartbeat_token)

    def _heartbeat(self, client: ClassicClient, token: int) -> None:
        """Kafka: `AbstractCoordinator.HeartbeatThread.run`: one heartbeat every heartbeat.interval.ms."""
        if token != client.heartbeat_token or not client.alive:
            return
        now = self.now
        if now < client.paused_until:  # client.paused(now), inlined: this is the commonest event
            self._schedule_heartbeat(client.paused_until, client, token)
            return
        if client.state not in _HEARTBEATING:
            return
        config = client.config
        error = self.coordinator.heartbeat(
            self.group_id, client.member_id, client.generation, instance_id=config.instance_id
        )
        # _schedule_heartbeat, inlined: the next one is nearly always the lane's latest.
        when = now + config.heartbeat_interval_ms
        self._sequence = sequence = self._sequence + 1
        lane = self._heartbeat_lane
        if not lane or lane[-1][0] <= when:
            lane.append((when, sequence, self._heartbeat, (client, token)))
        else:
            heapq.heappush(self._queue, (when, sequence, self._heartbeat, (client, token)))
        if error != "NONE":
            if self.detailed_log:
                self.note("heartbeat", client, error=error)
            if self.autonomous:
                self._on_heartbeat_error(client, error)

    def _on_heartbeat_error(self, client: ClassicClient, error: str) -> None:
        """Kafka: `AbstractCoordinator.HeartbeatResponseHandler`."""
        if error == "REBALANCE_IN_PROGRESS":
            if client.state == STABLE:
                self._request_rejoin(client)
        elif error == "ILLEGAL_GENERATION":
            client.reset_generation(keep_member_id=True)
            self._request_rejoin(client)
        elif error == "UNKNOWN_MEMBER_ID":
            client.reset_generation()
            self._request_rejoin(client)
        elif error == "FENCED_INSTANCE_ID":
            self._fail(client, "FencedInstanceIdException")

    # -- the poll loop -----------------------------------------------------------------------------

    def _request_rejoin(self, client: ClassicClient) -> None:
        """`requestRejoin`: the JoinGroup goes out at the next `poll()`."""
        client.rejoin_needed = True
        self._poll_at(client, self.now + client.config.processing_ms)

    def _poll_at(self, client: ClassicClient, when: int) -> None:
        if client.poll_scheduled:
            return
        client.poll_scheduled = True
        self.at(max(when, client.batch_end, client.paused_until), self._poll, client, client.instance_counter)

    def _poll(self, client: ClassicClient, instance: int) -> None:
        client.poll_scheduled = False
        if instance != client.instance_counter or not client.alive:
            return
        now = self.now
        if now < client.paused_until or now < client.batch_end:  # paused or busy, inlined
            self._poll_at(client, now)
            return
        if client.rejoin_needed and client.state in (UNJOINED, STABLE):
            self.rejoin(client)

    def rejoin(self, client: ClassicClient) -> None:
        """`onJoinPrepare`, then a JoinGroup with what the client still owns."""
        self.prepare_join(client)
        client.rejoin_needed = False
        self.send_join(client)

    def prepare_join(self, client: ClassicClient) -> None:
        """Kafka: `ConsumerCoordinator.onJoinPrepare`: revoke (or lose) before JoinGroup."""
        how, parts = client.partitions_to_give_up()
        self.give_up(client, how, parts)

    def send_join(
        self, client: ClassicClient, member_id: str | None = None, version: int | None = None
    ) -> JoinResponse:
        client.state = PREPARING_REBALANCE
        client.heartbeat_token += 1
        requested = client.member_id if member_id is None else member_id
        config = client.config
        response = self.coordinator.join(
            self.group_id,
            requested,
            client.protocols(),
            instance_id=config.instance_id,
            client_id=client.handle,
            session_timeout_ms=config.session_timeout_ms,
            rebalance_timeout_ms=config.max_poll_interval_ms,
            version=config.join_version if version is None else version,
        )
        if response.member_id:
            self._by_member_id.setdefault(response.member_id, client)
        if self.detailed_log:
            self.note("join", client, member_id=requested)
        self._when_answered(response, self._on_join, client, response, client.instance_counter)
        return response

    def _on_join(self, client: ClassicClient, response: JoinResponse, instance: int) -> None:
        """Kafka: `AbstractCoordinator.JoinGroupResponseHandler`."""
        if instance != client.instance_counter or not client.alive:
            return
        error = response.error
        if self.detailed_log:
            self.note(
                "join-response", client, error=error, generation=response.generation, member_id=response.member_id
            )
        if error == "NONE":
            client.member_id, client.generation = response.member_id, response.generation
            client.state, client.in_group = COMPLETING_REBALANCE, True
            client.is_leader = response.leader == client.member_id
            self._by_member_id[client.member_id] = client
            client.heartbeat_token = token = client.heartbeat_token + 1  # _start_heartbeats, inlined
            self._schedule_heartbeat(self.now + client.config.heartbeat_interval_ms, client, token)
            if client.owned or client.consuming:  # else _reconsider has nothing to start or stop
                self._reconsider(client)
            if self.autonomous:
                assignments = None
                if client.is_leader and response.members and not response.skip_assignment:
                    assignments = self._assign(client, response)
                self.send_sync(client, assignments)
        elif error == "MEMBER_ID_REQUIRED":
            client.member_id = response.member_id
            self._by_member_id[client.member_id] = client
            if self.autonomous:
                self.send_join(client)
        elif error in FATAL_JOIN_ERRORS:
            self._fail(client, _exception_name(error))
        elif error == "UNKNOWN_MEMBER_ID":
            client.member_id, client.generation = "", NO_GENERATION
            if self.autonomous:
                self.send_join(client)
        elif self.autonomous:
            self.at(self.now + client.config.retry_backoff_ms, self._retry_join, client, client.instance_counter)

    def _retry_join(self, client: ClassicClient, instance: int) -> None:
        if instance == client.instance_counter and client.alive and client.state == PREPARING_REBALANCE:
            self.send_join(client)

    def _assign(self, leader: ClassicClient, response: JoinResponse) -> dict[str, tuple[TopicPartition, ...]]:
        """The leader runs the group's assignor. Kafka: `ConsumerCoordinator.onLeaderElected`."""
        members = []
        for member_id, instance_id, metadata in response.members:
            subscription: Subscription = metadata
            members.append(
                Member(
                    member_id,
                    subscription.topics,
                    instance_id,
                    subscription.rack,
                    owned=subscription.owned,
                    generation=subscription.generation if subscription.generation >= 0 else None,
                )
            )
        assignment = self.resolve(str(response.protocol_name)).assign(leader.cluster, members)
        leader.assigned_cluster = leader.cluster
        self.note(
            "assignment", leader, assignor=response.protocol_name, generation=response.generation, members=len(members)
        )
        owners = assignment.owners  # partitions_of, without a call per member
        return {m.member_id: owners.get(m.member_id, ()) for m in members}

    def send_sync(
        self,
        client: ClassicClient,
        assignments: Mapping[str, tuple[TopicPartition, ...]] | None,
        generation: int | None = None,
    ) -> SyncResponse:
        generation = client.generation if generation is None else generation
        response = self.coordinator.sync(
            self.group_id,
            client.member_id,
            generation,
            instance_id=client.config.instance_id,
            assignments=dict(assignments) if assignments is not None else None,
        )
        self._when_answered(response, self._on_sync, client, response, client.instance_counter)
        return response

    def _on_sync(self, client: ClassicClient, response: SyncResponse, instance: int) -> None:
        """Kafka: `SyncGroupResponseHandler` then `ConsumerCoordinator.onJoinComplete`."""
        if instance != client.instance_counter or not client.alive:
            return
        error = response.error
        if error == "NONE":
            client.state = STABLE
            assigned = self._shared_block(tuple(response.assignment))
            revoked = list(filterfalse(set(assigned).__contains__, client.owned)) if client.owned else []
            if revoked and client.protocol == COOPERATIVE:
                self.give_up(client, "revoked", revoked)
                client.rejoin_needed = True
            self._take(client, assigned)
            if not self._subscribed_to(client.topics, assigned):
                client.rejoin_needed = True
            if self.autonomous:
                if client.rejoin_needed:
                    self.rejoin(client)  # the same poll() loops back into JoinGroup
                elif client.batches_left and not client.busy(self.now):
                    self._start_batch(client)
            return
        self.note("sync-response", client, error=error)
        if error == "FENCED_INSTANCE_ID":
            self._fail(client, "FencedInstanceIdException")
        elif error in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
            client.reset_generation(keep_member_id=error == "ILLEGAL_GENERATION")
            if self.autonomous:
                self.rejoin(client)
        elif self.autonomous:
            client.state = UNJOINED
            self.rejoin(client)

    def _shared_block(self, parts: tuple[TopicPartition, ...]) -> tuple[TopicPartition, ...]:
        """`parts`, or an equal tuple received before: the ledger keeps every consumed block until the end, and
        a rebalance that hands a member what an earlier one did then costs no new 100-partition tuple.

        The key is the identity of the first and last partition, and the length. A kept tuple keeps its
        partitions alive, so a key can only match a tuple that starts and ends with the same objects; the
        equality test (identity first, element by element) settles the rest.
        """
        if not parts:
            return parts
        key = (id(parts[0]), id(parts[-1]), len(parts))
        known = self._blocks.get(key)
        if known is None:
            self._blocks[key] = parts
            return parts
        return known if known is parts or known == parts else parts

    def _subscribed_to(self, topics: tuple[str, ...], assigned: tuple[TopicPartition, ...]) -> bool:
        """Every topic of `assigned` is in `topics` (else the client rejoins), asked once per shared block."""
        key = (id(assigned), id(topics))
        known = self._fits.get(key)
        if known is None:
            fits = _as_set(topics).issuperset(map(_topic_of, assigned))
            if not assigned or self._blocks.get((id(assigned[0]), id(assigned[-1]), len(assigned))) is not assigned:
                return fits  # not a kept block: its id may be reused once it is gone
            # The entry holds both objects, so neither id can be reused while it is kept.
            known = self._fits[key] = (topics, assigned, fits)
        return known[2]

    # -- results -----------------------------------------------------------------------------------

    def gaps(self) -> dict[TopicPartition, list[Gap]]:
        return self.ledger.gaps(self.created)

    def unconsumed_ms(self) -> int:
        """Partition-milliseconds during which nobody consumed, over every partition's lifetime."""
        lifetime = sum(self.now - born for born in self.created.values())
        return lifetime - self.ledger.consumed_ms(self.now)

    def assignment(self) -> dict[str, tuple[TopicPartition, ...]]:
        """What each live client owns now."""
        return {h: c.owned for h, c in self.clients.items() if c.alive}


class _Moves:
    """The partitions of a move (sorted) as a list and as their names, one pair per distinct set, shared read
    only by the log and the rebalance records: an eager hour of a large group logs millions of moves, a
    member mostly handing back and getting again the same few sets (a thousand-member rolling restart logs
    about a thousand distinct ones)."""

    def __init__(self) -> None:
        self._lists: dict[tuple[TopicPartition, ...], tuple[list[TopicPartition], list[str]]] = {}
        self._names: dict[TopicPartition, str] = {}  # str(tp), one string per partition

    def of(self, partitions: list[TopicPartition]) -> tuple[list[TopicPartition], list[str]]:
        key = tuple(partitions)
        known = self._lists.get(key)
        if known is None:
            names = self._names
            known = self._lists[key] = (partitions, [names.get(tp) or names.setdefault(tp, str(tp)) for tp in key])
        return known


def _add(bucket: dict[str, list[TopicPartition]], member: str, listed: list[TopicPartition]) -> None:
    """`listed` added to a member's moves in a rebalance record: kept as given (shared, read only) when it is the
    member's first move, a new list after that."""
    have = bucket.get(member)
    bucket[member] = listed if have is None else have + listed


_topic_of = itemgetter(0)  # of a TopicPartition, in C
_HEARTBEATING = (COMPLETING_REBALANCE, STABLE)  # the states the heartbeat thread runs in, made once


@lru_cache(maxsize=256)
def _as_set(topics: tuple[str, ...]) -> frozenset[str]:
    """A subscription as a set, made once: every member of a large group checks its assignment against it."""
    return frozenset(topics)


_WORD = re.compile(r"[^\s,']+")  # member ids in a coordinator's reason: "a-1, b-2 left", "a-1's session"


def _exception_name(error: str) -> str:
    words = error.lower().split("_")
    return "".join(w.capitalize() for w in words) + "Exception"
