"""A KIP-848 group with its clients, run on simulated time: the consumer protocol's side of `simulate`.

The coordinator is kgroup.assignors.coordinator.consumer.coordinator. Each client (Kafka's `MemberState`,
`ConsumerMembershipManager` and `ConsumerHeartbeatRequestManager`) heartbeats every interval the broker
gives it; when a response changes its assignment it revokes, then assigns, in its next `poll()` (at
once if the application is polling, after a slow batch or a GC pause otherwise) and acknowledges with an
immediate heartbeat. Poll-timer expiry sends a leave (-1, or -2 when static) and the client rejoins at
its next poll. A crashed client is fenced by its session timeout. Consumption is accounted per partition:
only moving partitions stop (KIP-848 has no group-wide barrier).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from kgroup.assignors.coordinator.consumer.coordinator import (
    ConsumerConfig,
    ConsumerCoordinator,
    ConsumerGroup,
    ConsumerGroupState,
    ConsumerMember,
    HeartbeatRequest,
    HeartbeatResponse,
    NONE,
    STATIC_LEAVE_EPOCH,
    new_group_epoch,
)
from kgroup.assignors.coordinator.consumer.reconcile import STABLE, Reconciliation
from kgroup.assignors.base import gc_paused
from kgroup.assignors.coordinator.classic.client import ClientConfig
from kgroup.assignors.coordinator.consumer.scenario import server_assignor
from kgroup.assignors.coordinator.consumption import ConsumptionLedger, Gap
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.java.timeline_table import TimelineHashTable

Partitions = frozenset[TopicPartition]


@dataclass
class ConsumerClient:
    handle: str
    topics: tuple[str, ...]
    config: ClientConfig = ClientConfig()  # group.instance.id and max.poll.interval.ms are what this protocol reads
    incarnation: int = 0
    member_id: str = ""
    epoch: int = 0
    held: Partitions = frozenset()
    alive: bool = False
    in_group: bool = False
    paused_until: int = 0  # GC pause: no thread runs
    polling_from: int = 0  # the application is in a batch until then
    last_poll: int = 0
    acknowledged: bool = True  # the owned partitions sent match what the coordinator knows
    pending: Partitions | None = None  # an assignment waiting for the next poll()
    new_subscription: bool = False  # subscribe() changed the topics: the next heartbeat carries them


@dataclass(frozen=True)
class EpochBump:
    at_ms: int
    group_epoch: int


@dataclass
class ConsumerSimulation:
    coordinator: ConsumerCoordinator
    group_id: str = "group"
    # The members' client: "java" (Kafka's) or "librdkafka"; they differ in when a new subscription is sent.
    client: str = "java"
    clients: dict[str, ConsumerClient] = field(default_factory=dict)
    ledger: ConsumptionLedger = field(default_factory=ConsumptionLedger)
    created: dict[TopicPartition, int] = field(default_factory=dict)
    bumps: list[EpochBump] = field(default_factory=list)
    stable_at: list[int] = field(default_factory=list)  # instants the group became Stable
    _events: int = 0
    _subscriptions: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)
    # handle -> (incarnation, heartbeat timer key, heartbeat action), see _heartbeat_at
    _beats: dict[str, tuple[int, tuple[str, str], Callable[[], None]]] = field(default_factory=dict)

    @classmethod
    def create(
        cls,
        topics: Mapping[str, int],
        config: ConsumerConfig = ConsumerConfig(),
        group_id: str = "group",
        client: str = "java",
        topic_ids: Mapping[str, str] | None = None,
        kafka_version: str | None = None,
    ) -> ConsumerSimulation:
        """`topic_ids`: the topics' Kafka ids where known; they order the coordinator's maps (else derived).
        `kafka_version`: the broker's release, whose server assignors it runs (None: the newest) and whose rule
        for a new group's epoch it follows (new_group_epoch)."""
        coordinator = ConsumerCoordinator(config, topics, lambda *_: {})
        coordinator.assignor = server_assignor(coordinator, topic_ids, kafka_version)
        coordinator.created_group_epoch = new_group_epoch(kafka_version)
        sim = cls(coordinator, group_id, client)
        coordinator.on_fenced = lambda group, member: sim._after_request(sim._group_epoch() - 1)
        sim.created = {TopicPartition(t, p): 0 for t, n in topics.items() for p in range(n)}
        return sim

    @property
    def now(self) -> int:
        return self.coordinator.now

    def at(self, instant: int, action, *args) -> None:  # type: ignore[no-untyped-def]
        self._events += 1
        self.coordinator.timers.schedule(("event", self._events), instant, lambda: action(*args))

    def run_until(self, instant: int) -> None:
        """Run every timer due at or before `instant`, then stand at `instant`.

        The cyclic collector is paused meanwhile, as in ClassicSimulation.run_until: each heartbeat replaces
        member records and timers, all freed by reference counting; the collector's passes over them were a
        sixth of a thousand-member restart hour and found nothing to free.
        """
        with gc_paused():
            self.coordinator.advance_to(instant)

    # -- clients --------------------------------------------------------------------------------------------

    def add_client(self, handle: str, config: ClientConfig, topics: Iterable[str]) -> ConsumerClient:
        """As ClassicSimulation.add_client, so one scenario runner drives both."""
        client = self.clients[handle] = ConsumerClient(handle, self._shared(topics), config)
        return client

    def _shared(self, topics: Iterable[str]) -> tuple[str, ...]:
        """One tuple per distinct subscription: the coordinator compares and groups them by identity first."""
        subscription = tuple(topics)
        return self._subscriptions.setdefault(subscription, subscription)

    def load(
        self,
        epoch: int,
        owned: Mapping[str, Iterable[TopicPartition]],
        heartbeat_phase: Mapping[str, int] | None = None,
        target_order: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """Start from a Stable group at `epoch` whose members (clients already added, member id = handle)
        hold `owned`, which is also the target: as the coordinator has it after loading the group's records
        (GroupMetadataManager.replay, then onLoaded re-arming each member's session timer). The clients were
        added in the order the coordinator iterates its members, as ConsumerGroupDescribe lists them, and
        `target_order` gives a member's target topics in that order where known (`Group.target_order`)."""
        phases = heartbeat_phase or {}
        group = self.coordinator.groups[self.group_id] = ConsumerGroup(self.group_id, epoch, epoch)
        for handle, client in self.clients.items():
            held = frozenset(owned.get(handle, ()))
            client.alive, client.in_group, client.incarnation = True, True, client.incarnation + 1
            client.member_id, client.epoch, client.held = handle, epoch, held
            group.put(
                ConsumerMember(
                    handle,
                    Reconciliation(epoch, epoch - 1, STABLE, held),
                    client.config.instance_id,
                    None,
                    client.config.max_poll_interval_ms,
                    client.topics,
                ),
                replay=False,
            )
            group.target[handle] = held
            if target_order and len(target_order.get(handle, ())) > 1:
                group.target_order[handle] = tuple(target_order[handle])
            self.ledger.start(handle, sorted(held), self.now)
            self.coordinator.schedule_session(self.group_id, handle)
            self._heartbeat_at(client, self.now + phases.get(handle, 0))
        group.timeline = TimelineHashTable.listed(list(self.clients))
        group.subscription_metadata = group.subscribed(self.coordinator.topics)
        self.stable_at.append(self.now)

    def start(self, client: ConsumerClient) -> None:
        if client.alive:
            return
        client.alive, client.incarnation = True, client.incarnation + 1
        client.member_id = f"{client.handle}-{client.incarnation}"  # KIP-1082: the client makes its id
        client.paused_until = client.polling_from = 0
        client.last_poll = self.now
        self._join(client)

    def _join(self, client: ConsumerClient) -> None:
        client.epoch, client.in_group, client.new_subscription = 0, True, False
        self._send(
            client,
            HeartbeatRequest(
                client.member_id,
                0,
                client.config.instance_id,
                None,
                client.config.max_poll_interval_ms,
                client.topics,
                None,
                frozenset(),
            ),
        )

    def _send(self, client: ConsumerClient, request: HeartbeatRequest, steady_tried: bool = False) -> None:
        """`steady_tried`: the coordinator's steady path already declined this request (it changes something)."""
        group = self.coordinator.groups.get(self.group_id)  # _group_epoch(), inlined: once per heartbeat
        before = group.group_epoch if group else 0
        if steady_tried:
            response = self.coordinator.changing_heartbeat(self.group_id, request)
        else:
            response = self.coordinator.heartbeat(self.group_id, request)
        self._after_request(before)
        self._on_response(client, client.incarnation, response)

    def _group_epoch(self) -> int:
        group = self.coordinator.groups.get(self.group_id)
        return group.group_epoch if group else 0

    def _after_request(self, before: int) -> None:
        group = self.coordinator.groups.get(self.group_id)
        if group is None:
            return
        if group.group_epoch != before:
            self.bumps.append(EpochBump(self.now, group.group_epoch))
        self._note_stable(group)

    def _note_stable(self, group: ConsumerGroup) -> None:
        # The group's state is derived (ConsumerGroup.state); asked only while Stable is not yet recorded.
        if (
            not self.stable_at or self.stable_at[-1] < (self.bumps[-1].at_ms if self.bumps else 0)
        ) and group.state == ConsumerGroupState.STABLE:
            self.stable_at.append(self.now)

    def _on_response(self, client: ConsumerClient, incarnation: int, response: HeartbeatResponse) -> None:
        if incarnation != client.incarnation or not client.alive:
            return
        if response.error in ("FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"):
            self._lose(client)  # transitionToFenced: onPartitionsLost, rejoin at once
            self._join(client)
            return
        if response.error != NONE:
            return  # fatal errors (e.g. UNRELEASED_INSTANCE_ID): the client stops heartbeating
        client.epoch = response.member_epoch or 0
        if response.assignment is not None and response.assignment != client.held:
            client.pending = response.assignment
            self._maybe_reconcile(client)
        coordinator = self.coordinator
        interval = response.heartbeat_interval_ms or coordinator.config.heartbeat_interval_ms
        self._heartbeat_at(client, coordinator.now + interval)

    def _heartbeat(self, client: ConsumerClient, incarnation: int) -> None:
        if incarnation != client.incarnation or not client.alive or not client.in_group:
            return
        if self.coordinator.now < client.paused_until:
            self._heartbeat_at(client, client.paused_until)
            return
        steady = client.acknowledged and not client.new_subscription
        if steady:
            # Most heartbeats change nothing, or only the member's epoch: the coordinator answers them with
            # that epoch and no assignment (ConsumerCoordinator.steady_heartbeat), which is all _on_response
            # would read. When nothing in the group changed, neither would what _after_request records.
            coordinator = self.coordinator
            epoch = coordinator.steady_heartbeat(
                self.group_id, client.member_id, client.epoch, client.config.instance_id, advance=True
            )
            if epoch is not None:
                if epoch != client.epoch:  # reconciled to the new epoch (no bump): the group may now be Stable
                    self._note_stable(coordinator.groups[self.group_id])
                client.epoch = epoch
                self._heartbeat_at(client, coordinator.now + coordinator.config.heartbeat_interval_ms)
                return
        owned = None if client.acknowledged else client.held
        topics = client.topics if client.new_subscription else None
        client.acknowledged, client.new_subscription = True, False
        self._send(
            client,
            HeartbeatRequest(
                client.member_id, client.epoch, client.config.instance_id, owned=owned, subscribed_topics=topics
            ),
            steady,  # the steady path declined it already
        )

    def _heartbeat_at(self, client: ConsumerClient, instant: int) -> None:
        """Schedule the client's next heartbeat, for its current incarnation (a client's heartbeats are
        scheduled only while it is that incarnation: its timer key and action are made once per incarnation)."""
        beat = self._beats.get(client.handle)
        if beat is None or beat[0] != client.incarnation:
            beat = self._beats[client.handle] = (
                client.incarnation,
                ("heartbeat", client.handle),
                partial(self._heartbeat, client, client.incarnation),
            )
        self.coordinator.timers.schedule(beat[1], instant, beat[2], lane=True)

    def _maybe_reconcile(self, client: ConsumerClient) -> None:
        """Callbacks run in poll(): now if the application polls, else when its batch or pause ends."""
        ready = max(client.polling_from, client.paused_until)
        if self.now < ready:
            self.coordinator.timers.schedule(
                ("reconcile", client.handle),
                ready,
                lambda i=client.incarnation: i == client.incarnation and self._maybe_reconcile(client),
            )
            return
        if client.pending is None:
            return
        target, client.pending = client.pending, None
        self._hold(client, target)
        client.acknowledged = False
        self._heartbeat(client, client.incarnation)  # ACKNOWLEDGING: sent at once

    def _hold(self, client: ConsumerClient, partitions: Partitions) -> None:
        gone, new = client.held - partitions, partitions - client.held
        self.ledger.stop(client.handle, self.now, gone)
        if self._consuming(client):
            self.ledger.start(client.handle, sorted(new), self.now)
        client.held = partitions

    def _consuming(self, client: ConsumerClient) -> bool:
        return client.alive and self.now >= client.polling_from and self.now >= client.paused_until

    def _lose(self, client: ConsumerClient) -> None:
        self.ledger.stop(client.handle, self.now)
        client.held, client.pending, client.in_group = frozenset(), None, False

    # -- the application ----------------------------------------------------------------------------------

    def _poll_expired(self, client: ConsumerClient, incarnation: int) -> None:
        """PREPARE_LEAVING -> LEAVING -> STALE: leave (-2 when static), lose everything, rejoin at next poll."""
        if incarnation != client.incarnation or not client.alive or not client.in_group:
            return
        self._leave(client)
        self.coordinator.timers.schedule(
            ("rejoin", client.handle),
            max(client.polling_from, client.paused_until),
            lambda: client.alive and incarnation == client.incarnation and self._rejoin_after_poll(client),
        )

    def _rejoin_after_poll(self, client: ConsumerClient) -> None:
        client.last_poll = self.now
        self._join(client)

    def _leave(self, client: ConsumerClient) -> None:
        epoch = STATIC_LEAVE_EPOCH if client.config.instance_id else -1
        before = self._group_epoch()
        self.coordinator.leave(self.group_id, client.member_id, client.config.instance_id, epoch)
        self._after_request(before)
        self._lose(client)
        self.coordinator.timers.cancel(("heartbeat", client.handle))

    def close(self, client: ConsumerClient) -> None:
        if client.alive and client.in_group:
            self._leave(client)
        client.alive = False

    def crash(self, client: ConsumerClient) -> None:
        self.ledger.stop(client.handle, self.now)
        client.alive, client.held, client.pending = False, frozenset(), None

    def gc_pause(self, client: ConsumerClient, duration: int) -> None:
        self.ledger.stop(client.handle, self.now)
        client.paused_until = self.now + duration
        self.coordinator.timers.schedule(
            ("resume", client.handle),
            client.paused_until,
            lambda i=client.incarnation: i == client.incarnation and self._resume(client),
        )

    def process(self, client: ConsumerClient, processing: int, batches: int = 1) -> None:
        """The application's last poll() is now; the next comes after `batches` batches of `processing` ms."""
        duration = processing * batches
        if duration > client.config.max_poll_interval_ms:
            self.ledger.stop(client.handle, self.now)  # work the poll timeout throws away (docs/scenarios.md)
        client.last_poll = self.now
        client.polling_from = self.now + duration
        if duration > client.config.max_poll_interval_ms:  # the poll timer only matters while poll() is not called
            self.coordinator.timers.schedule(
                ("poll-timer", client.handle),
                self.now + client.config.max_poll_interval_ms,
                lambda i=client.incarnation: self._poll_expired(client, i),
            )
        self.coordinator.timers.schedule(
            ("resume", client.handle),
            client.polling_from,
            lambda i=client.incarnation: i == client.incarnation and self._resume(client),
        )

    def _resume(self, client: ConsumerClient) -> None:
        if not self._consuming(client):
            return
        client.last_poll = self.now
        self.coordinator.timers.cancel(("poll-timer", client.handle))
        if not self.ledger.consuming(client.handle):  # a batch within the poll interval never stopped it
            self.ledger.start(client.handle, sorted(client.held), self.now)
        if client.pending is not None:
            self._maybe_reconcile(client)

    def subscribe(self, client: ConsumerClient, topics: Iterable[str]) -> None:
        """A member in the group sends its new subscription with its next heartbeat, at the interval: Kafka's
        client only marks it (AbstractMembershipManager.onSubscriptionUpdated; the heartbeat request carries
        SubscribedTopicNames when they changed since the last one sent, ConsumerHeartbeatRequestManager's
        HeartbeatState). librdkafka sends it at once (rd_kafka_cgrp_consumer_apply_next_subscribe expedites
        the heartbeat; measured on Kafka 4.2.1 with a 5 s interval: the epoch bump came 22-23 ms after
        subscribe() in each of three runs). One not in the group joins with it."""
        client.topics = self._shared(topics)
        if client.alive and client.in_group:
            client.new_subscription = True
            if self.client == "librdkafka":
                self._heartbeat(client, client.incarnation)

    def add_partitions(self, topic: str, total: int) -> None:
        for p in range(self.coordinator.topics.get(topic, 0), total):
            self.created[TopicPartition(topic, p)] = self.now
        self.coordinator.metadata_change(topic, total)

    # -- what to report -------------------------------------------------------------------------------------

    def gaps(self) -> dict[TopicPartition, list[Gap]]:
        return self.ledger.gaps(self.created)

    def unconsumed_ms(self) -> int:
        lifetime = sum(self.now - born for born in self.created.values())
        return lifetime - self.ledger.consumed_ms(self.now)
