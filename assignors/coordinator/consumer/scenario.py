"""Request-level scenarios of the KIP-848 consumer protocol (`protocol: consumer` and `consumer-client`;
schema: docs/conformance.md).

The script sends the heartbeats and leaves; `assignor: scripted` makes the next target computation return
the latest `assignor_result`, as Kafka's tests script `MockPartitionAssignor`. Without it, the coordinator
runs the server-side assignor the members prefer (uniform or range), given the current target.

In `consumer-client` scenarios the members are also clients: each keeps its session alive with its own
heartbeats, at its heartbeat interval in the phase of its first scripted heartbeat (a scripted heartbeat
at an instant stands for the one the client sends then); takes and gives up partitions as responses say
(callbacks are instantaneous); and stops consuming while the application does not poll (`process`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import is_not, itemgetter
from dataclasses import dataclass, field, replace
from typing import Any

from kgroup.assignors.coordinator.consumer.coordinator import (
    ConsumerConfig,
    ConsumerCoordinator,
    ConsumerGroup,
    ConsumerMember,
    HeartbeatRequest,
    HeartbeatResponse,
    NONE,
)
from kgroup.assignors.coordinator.consumer.reconcile import (
    STABLE,
    FencedMemberEpoch,
    MemberState,
    Partitions,
    Reconciliation,
    reconcile,
)
from kgroup.assignors.coordinator.consumption import ConsumptionLedger, Gap
from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition
from kgroup.assignors.registry import builtin
from kgroup.assignors.server.group_spec import (
    HOMOGENEOUS,
    ServerGroup,
    record_listing,
    subscription_type,
    subscription_type_of,
)
from kgroup.assignors.server.target_order import (
    TopicHashes,
    after_range,
    after_uniform,
    after_moves,
)
from kgroup.assignors.server.uniform_incremental import UniformTargets

GROUP_ID = "group"
_EMPTY: Partitions = frozenset()
_TOPIC = itemgetter(0)  # a TopicPartition's topic
_KAFKA_TO_KGROUP = {"uniform": "uniform", "range": "server-range"}


def partitions(raw: Mapping[str, Iterable[int]] | None) -> Partitions:
    """`{topic: [p, ...]}` as a set of partitions."""
    return frozenset(TopicPartition(str(t), int(p)) for t, ps in (raw or {}).items() for p in ps or ())


def as_mapping(parts: Iterable[TopicPartition]) -> dict[str, list[int]]:
    result: dict[str, list[int]] = {}
    for tp in sorted(parts):
        result.setdefault(tp.topic, []).append(tp.partition)
    return result


def refresh_deadline_of(raw: Any) -> tuple[int, int]:
    """`metadata_refresh_deadline` (Kafka's `ModernGroup.metadataRefreshDeadline`, a `DeadlineAndEpoch`):
    `expired` (`DeadlineAndEpoch.EMPTY`, as a loaded group or `requestMetadataRefresh` leaves it),
    `{at, epoch}` (or `{deadline_ms, epoch}`), `[ms, epoch]` or ms."""
    if raw == "expired":
        return 0, 0
    if isinstance(raw, Mapping):
        unknown = set(raw) - {"at", "deadline_ms", "epoch"}
        if unknown or {"at", "deadline_ms"} <= set(raw):
            raise ValueError(f"metadata_refresh_deadline: unknown or doubled key(s) {sorted(raw)}")
        return int(raw.get("at", raw.get("deadline_ms", 0))), int(raw.get("epoch", 0))
    if isinstance(raw, (list, tuple)):
        return int(raw[0]), int(raw[1])
    return int(raw), 0


def config_of(settings: Mapping[str, Any]) -> ConsumerConfig:
    return ConsumerConfig(
        session_timeout_ms=int(settings.get("group_consumer_session_timeout_ms", 45_000)),
        heartbeat_interval_ms=int(settings.get("group_consumer_heartbeat_interval_ms", 5_000)),
        max_size=int(settings.get("group_consumer_max_size", 2_147_483_647)),
    )


def preferred_assignor(group: ConsumerGroup, member_ids: Sequence[str], configured: Sequence[str]) -> str:
    """Kafka: `ConsumerGroup.computePreferredServerAssignor`: the most named; a tie goes to the oldest member's
    (the first of `member_ids` naming one of the tied)."""
    named = {name: count for name, count in group.server_assignors.items() if name}
    if not named:
        return configured[0]
    best = max(named.values())
    tied = [name for name, count in named.items() if count == best]
    if len(tied) == 1:
        return tied[0]
    assignors = (group.members[m].server_assignor for m in member_ids)
    return next(name for name in assignors if name in tied)


def _subscriptions(group: ConsumerGroup, member_ids: Sequence[str]) -> list[tuple[str, ...]]:
    """Each member's subscription, in the members' order: when they all share one (the group's counts say so),
    that one without reading a thousand member records at every epoch bump."""
    if len(group.subscriptions) == 1 and sum(group.subscriptions.values()) == len(member_ids):
        return [next(iter(group.subscriptions))] * len(member_ids)
    return [group.members[m].subscribed_topics for m in member_ids]


def server_assignor(
    coordinator: ConsumerCoordinator, topic_ids: Mapping[str, str] | None = None, kafka_version: str | None = None
) -> Any:
    """A TargetAssignor running kgroup's uniform / server-range with the current target as input; `topic_ids`
    names the topics' ids where known (they order the HashMaps; else kgroup derives ids from the names), and
    `kafka_version` the broker's release, whose uniform rules it follows (KAFKA-18688 changed them in 4.1;
    None: the newest).

    uniform's target is derived from the last one when that is exact (UniformTargets), else computed in full.
    Like Kafka's TargetAssignmentBuilder it leaves each changed member's target in the order its record lists
    the topics (`ConsumerGroup.target_order`), which decides what uniform takes from it next time.
    """
    uniform = UniformTargets(kafka_version)
    clusters: dict[tuple[tuple[str, int], ...], tuple[Cluster, TopicHashes]] = {}  # the metadata image changes rarely

    def assign(
        group: ConsumerGroup, member_ids: Sequence[str], current: Mapping[str, Partitions]
    ) -> Mapping[str, Partitions]:
        name = _KAFKA_TO_KGROUP.get(preferred_assignor(group, member_ids, coordinator.config.assignors), "uniform")
        sizes = tuple(sorted(coordinator.topics.items()))
        if sizes not in clusters:
            clusters.clear()
            cluster = Cluster(
                tuple(Topic(t, n, topic_id=(topic_ids or {}).get(t)) for t, n in sizes), kafka_version=kafka_version
            )
            clusters[sizes] = (cluster, TopicHashes(cluster))
        cluster, hash_of = clusters[sizes]
        subscriptions = _subscriptions(group, member_ids)
        records = group.target_order
        handed: dict[str, list[tuple[str, int]]] = {}
        emptied: dict[str, set[str]] | None = {}
        targets: Mapping[str, Partitions] | None = None
        if name == "uniform":
            targets = uniform.compute(cluster, member_ids, subscriptions, current, records, handed, emptied)
        walks: Mapping[str, Sequence[str]] = {}
        if targets is None:
            assignor = builtin(name)
            assert assignor is not None
            members = list(map(group.members.__getitem__, member_ids))
            given = [
                Member(
                    m.member_id,
                    tuple(m.subscribed_topics),
                    m.instance_id,
                    m.rack_id,
                    owned=_as_recorded(current.get(m.member_id, ()), records.get(m.member_id)),
                )
                for m in members
            ]
            if name == "uniform":
                result = assignor.assign(cluster, given, handed=handed)  # type: ignore[call-arg]
            else:
                result = assignor.assign(cluster, given)
                walks = _range_walks(cluster, given)
            targets = {m.member_id: frozenset(result.partitions_of(m.member_id)) for m in members}
            if name == "uniform":
                uniform.remember(cluster, subscriptions, targets)
            emptied = None
        changed = uniform.changed if emptied is not None else None
        _NewTarget(name, member_ids, subscriptions, current, targets, handed, emptied, walks, changed).record(
            records, hash_of, coordinator.topics
        )
        return targets

    return assign


def _as_recorded(partitions: Iterable[TopicPartition], record: Sequence[str] | None) -> tuple[TopicPartition, ...]:
    """A member's target as the coordinator lists it to the assignor: topics in record order, partitions ascending."""
    ordered = sorted(partitions)
    if record is None:
        return tuple(ordered)
    rank = {topic: i for i, topic in enumerate(record_listing({tp.topic for tp in ordered}, record))}
    return tuple(sorted(ordered, key=lambda tp: rank[tp.topic]))  # stable: partitions stay ascending


def _range_walks(cluster: Cluster, members: Sequence[Member]) -> dict[str, list[str]]:
    """The topics `RangeAssignor` walks for each member, in order: the member's subscribed topic ids
    (`TopicIds` over a HashSet of names), or in a homogeneous group the first member's, members sorted static
    first by instance id, then by member id (`RangeAssignor.sortMemberIds`)."""
    server = ServerGroup(cluster, members)
    if subscription_type(members) == HOMOGENEOUS:
        first = min(members, key=lambda m: (m.instance_id is None, m.instance_id or m.member_id)).member_id
        walk = [server.name[t] for t in server.subscribed_ids(first)]
        return {m.member_id: walk for m in members}
    return {m.member_id: [server.name[t] for t in server.subscribed_ids(m.member_id)] for m in members}


@dataclass(frozen=True)
class _NewTarget:
    """One run of the server assignor, as `ConsumerGroup.target_order` follows it: `handed` has the partitions
    uniform gave to (heterogeneous: or took from) each member, in order; `emptied`, when uniform derived the
    target (UniformTargets), the topics each member gave up its last partition of (else found here); `walks`,
    range's topics per member."""

    name: str
    member_ids: Sequence[str]
    subscriptions: Sequence[tuple[str, ...]]
    current: Mapping[str, Partitions]
    targets: Mapping[str, Partitions]
    handed: Mapping[str, list[tuple[str, int]]]
    emptied: Mapping[str, set[str]] | None
    walks: Mapping[str, Sequence[str]]
    changed: Sequence[str] | None = None  # when uniform derived the target: the members whose target it changed

    def record(self, records: dict[str, tuple[str, ...]], hash_of: TopicHashes, known: Collection[str]) -> None:
        """Each changed member's record order (kgroup.assignors.server.target_order), as the assignor built its
        map; a member whose target stayed the same keeps its own (Kafka writes no record)."""
        member_ids, targets, current = self.member_ids, self.targets, self.current
        visits: Iterable[tuple[int, str]]
        if self.changed is not None:
            # uniform derived the target and named the members it changed: a homogeneous group, where the first
            # member's subscription is every member's
            visits = zip(repeat(0), self.changed)
        else:
            news = map(targets.get, member_ids, repeat(_EMPTY))
            olds = map(current.get, member_ids, repeat(_EMPTY))
            # Most members of a large group keep the very same set object: only the others are visited.
            changed = compress(range(len(member_ids)), map(is_not, news, olds))
            visits = ((index, member_ids[index]) for index in changed)
        homogeneous = subscription_type_of(self.subscriptions) == HOMOGENEOUS
        for index, member_id in visits:
            new, old = targets.get(member_id, _EMPTY), current.get(member_id, _EMPTY)
            if new == old:
                continue
            record = records.get(member_id) or tuple(sorted(set(map(_TOPIC, old))))
            handed = self.handed.get(member_id, ())
            if self.name == "server-range":
                held = set(map(_TOPIC, new))
                walked = [t for t in self.walks[member_id] if t in held]
                order: Sequence[str] = after_range(walked, len(set(self.subscriptions[index])), hash_of)
            elif homogeneous:
                order = after_uniform(record, self._emptied(member_id, old, new), handed, hash_of)
            else:
                subscribed = set(self.subscriptions[index]).intersection(known)
                order = after_moves(record, old, subscribed, handed, hash_of)
            if order:
                records[member_id] = tuple(order)
            else:
                records.pop(member_id, None)

    def _emptied(self, member_id: str, old: Partitions, new: Partitions) -> Collection[str]:
        if self.emptied is not None:
            return self.emptied.get(member_id, ())
        removed = old - new
        if not removed:
            return ()
        left = set(map(_TOPIC, new))
        return {t for t in map(_TOPIC, removed) if t not in left}


@dataclass
class ScenarioClient:
    """What a consumer-protocol client holds and whether its application is polling."""

    handle: str
    held: Partitions = frozenset()
    polling_from: int = 0  # the application is stuck in processing until this instant
    active: bool = True  # sends heartbeats (not after leaving, until it rejoins)
    phase: int = -1  # its heartbeats' offset within the interval; -1: not known yet


@dataclass
class ConsumerScenario:
    coordinator: ConsumerCoordinator
    scripted: list[Partitions | Mapping[str, Partitions]] = field(default_factory=list)
    responses: dict[str, Any] = field(default_factory=dict)
    clients: dict[str, ScenarioClient] = field(default_factory=dict)
    with_clients: bool = False
    scripted_heartbeats: dict[int, set[str]] = field(default_factory=dict)  # instant -> members heartbeating
    owned_ledger: ConsumptionLedger = field(default_factory=ConsumptionLedger)  # who holds what
    consumed_ledger: ConsumptionLedger = field(default_factory=ConsumptionLedger)  # who actually consumes
    created: dict[TopicPartition, int] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> ConsumerScenario:
        settings = {**(defaults or {}), **(spec.get("config") or {})}
        topics = {str(t): int(n) for t, n in (spec.get("topics") or {}).items()}
        scenario = cls(ConsumerCoordinator(config_of(settings), topics, lambda *_: {}))
        scripted = (spec.get("assignor") or {}).get("type") == "scripted"
        scenario.coordinator.assignor = scenario._scripted_target if scripted else server_assignor(scenario.coordinator)
        scenario.with_clients = spec.get("protocol") == "consumer-client"
        scenario._load(spec.get("initial_state") or {})
        if scenario.with_clients:
            scenario._plan_clients(spec.get("events") or ())
        return scenario

    def _scripted_target(
        self, group: ConsumerGroup, member_ids: Sequence[str], current: Mapping[str, Partitions]
    ) -> Mapping[str, Partitions]:
        """Kafka's MockPartitionAssignor: the prepared result, whatever the input."""
        return dict(self.scripted[-1]) if self.scripted else dict(current)  # type: ignore[arg-type]

    @property
    def group(self) -> ConsumerGroup | None:
        return self.coordinator.groups.get(GROUP_ID)

    def _load(self, initial: Mapping[str, Any]) -> None:
        if not initial:
            return
        group = ConsumerGroup(GROUP_ID, int(initial.get("group_epoch", 0)), int(initial.get("assignment_epoch", 0)))
        self.coordinator.groups[GROUP_ID] = group
        for member_id, fields in (initial.get("members") or {}).items():
            fields = fields or {}
            epoch = int(fields.get("epoch", 0))
            progress = Reconciliation(
                epoch,
                int(fields.get("previous_epoch", epoch - 1 if epoch > 0 else 0)),
                MemberState(fields.get("state", STABLE)),
                partitions(fields.get("assigned")),
                partitions(fields.get("pending_revocation")),
            )
            group.put(
                ConsumerMember(
                    str(member_id),
                    progress,
                    fields.get("instance_id"),
                    fields.get("rack_id"),
                    int(fields.get("rebalance_timeout_ms", -1)),
                    tuple(fields.get("subscribed_topics") or ()),
                    fields.get("server_assignor"),
                )
            )
            if self.with_clients:
                self._client(str(member_id)).held = progress.assigned
        group.target = {str(m): partitions(t) for m, t in (initial.get("target") or {}).items()}
        deadline = initial.get("metadata_refresh_deadline")
        if deadline is not None:
            group.refresh_deadline = refresh_deadline_of(deadline)
        metadata = initial.get("subscription_metadata")
        group.subscription_metadata = (
            {str(t): int(n) for t, n in metadata.items()}
            if metadata is not None
            else group.subscribed(self.coordinator.topics)
        )
        for member_id, deadline in ((initial.get("timers") or {}).get("session") or {}).items():
            self.coordinator.timers.schedule(
                self.coordinator.session_key(GROUP_ID, str(member_id)),
                int(deadline),
                lambda m=str(member_id): self.coordinator._session_timeout(GROUP_ID, m),
            )

    # -- clients ----------------------------------------------------------------------------------------

    def _client(self, handle: str) -> ScenarioClient:
        client = self.clients.get(handle)
        if client is None:
            client = self.clients[handle] = ScenarioClient(handle)
        return client

    def _plan_clients(self, events: Iterable[Mapping[str, Any]]) -> None:
        interval = self.coordinator.config.heartbeat_interval_ms
        for event in events:
            if event.get("kind") == "heartbeat":
                member, at = str(event["member_id"]), int(event["at_ms"])
                self.scripted_heartbeats.setdefault(at, set()).add(member)
                client = self._client(member)
                if client.phase < 0:
                    client.phase = at % interval
        for topic, count in self.coordinator.topics.items():
            for p in range(count):
                self.created[TopicPartition(topic, p)] = 0
        for client in self.clients.values():
            client.phase = max(client.phase, 0)
            held, client.held = client.held, frozenset()
            self._hold(client, held, 0)
            self._keep_alive(client, 0)

    def _keep_alive(self, client: ScenarioClient, after: int) -> None:
        """Arm the client's next own heartbeat: the first phase instant after `after`."""
        interval = self.coordinator.config.heartbeat_interval_ms
        due = after + ((client.phase - after) % interval or interval)
        self.coordinator.timers.schedule(("client-heartbeat", client.handle), due, lambda: self._beat(client, due))

    def _beat(self, client: ScenarioClient, due: int) -> None:
        group = self.group
        member = group.members.get(client.handle) if group else None
        if not client.active or member is None:
            return
        if client.handle not in self.scripted_heartbeats.get(due, ()):
            self._deliver(client, self.coordinator.heartbeat(GROUP_ID, HeartbeatRequest(client.handle, member.epoch)))
        self._keep_alive(client, due)

    def _deliver(self, client: ScenarioClient, response: HeartbeatResponse) -> None:
        """The client acts on a response at once: revokes what is gone, takes what is new."""
        now = self.coordinator.now
        if response.error in ("FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"):
            self._hold(client, frozenset(), now)  # onPartitionsLost
            return
        if response.error == NONE and response.assignment is not None:
            self._hold(client, response.assignment, now)

    def _hold(self, client: ScenarioClient, now_held: Partitions, at: int) -> None:
        gone, new = client.held - now_held, now_held - client.held
        self.owned_ledger.stop(client.handle, at, gone)
        self.owned_ledger.start(client.handle, sorted(new), at)
        if at >= client.polling_from:
            self.consumed_ledger.stop(client.handle, at, gone)
            self.consumed_ledger.start(client.handle, sorted(new), at)
        client.held = now_held

    def gaps(self) -> dict[TopicPartition, list[Gap]]:
        return self.consumed_ledger.gaps(self.created)

    # -- replay -----------------------------------------------------------------------------------------

    def advance_to(self, instant: int) -> None:
        self.coordinator.advance_to(instant)

    def apply(self, event: Mapping[str, Any]) -> None:
        kind = str(event["kind"])
        handler = getattr(self, "_" + kind, None)
        if handler is None:
            raise ValueError(f"event {event.get('id')}: unknown kind {kind!r} for a consumer-protocol scenario")
        self.advance_to(int(event["at_ms"]))
        result = handler(event)
        if event.get("id") is not None and result is not None:
            self.responses[str(event["id"])] = result

    def _assignor_result(self, event: Mapping[str, Any]) -> None:
        self.scripted.append({str(m): partitions(t) for m, t in (event.get("target") or {}).items()})

    def _heartbeat(self, event: Mapping[str, Any]) -> HeartbeatResponse:
        owned = event.get("owned")
        topics = event.get("subscribed_topics")
        request = HeartbeatRequest(
            str(event.get("member_id", "")),
            int(event["member_epoch"]),
            event.get("instance_id"),
            event.get("rack_id"),
            int(event.get("rebalance_timeout_ms", -1)),
            tuple(str(t) for t in topics) if topics is not None else None,
            event.get("server_assignor"),
            None if owned is None and "owned" not in event else partitions(owned),
        )
        response = self.coordinator.heartbeat(event.get("group_id", GROUP_ID), request)
        if self.with_clients:
            client = self._client(request.member_id)
            if request.member_epoch == 0 and response.error == NONE:
                client.active = True
                self._keep_alive(client, self.coordinator.now)
            self._deliver(client, response)
        return response

    def _leave(self, event: Mapping[str, Any]) -> HeartbeatResponse:
        member_id = str(event["member_id"])
        response = self.coordinator.leave(
            event.get("group_id", GROUP_ID), member_id, event.get("instance_id"), int(event.get("member_epoch", -1))
        )
        if self.with_clients:
            client = self._client(member_id)
            client.active = False  # STALE until its application polls and it rejoins
            self._hold(client, frozenset(), self.coordinator.now)  # onPartitionsLost, then STALE
        return response

    def _process(self, event: Mapping[str, Any]) -> None:
        """The application's last poll() is now; it polls again `duration_ms` later."""
        client = self._client(str(event["member"]))
        now = self.coordinator.now
        self.consumed_ledger.stop(client.handle, now)
        client.polling_from = now + int(event["duration_ms"])
        self.coordinator.timers.schedule(
            ("client-poll", client.handle), client.polling_from, lambda: self._resume(client)
        )

    def _resume(self, client: ScenarioClient) -> None:
        self.consumed_ledger.start(client.handle, sorted(client.held), self.coordinator.now)

    def _metadata_change(self, event: Mapping[str, Any]) -> None:
        self.coordinator.metadata_change(str(event["topic"]), int(event["partitions"]))

    def _replay(self, event: Mapping[str, Any]) -> None:
        """Coordinator records replayed onto the group, as GroupMetadataManager.replay applies them."""
        group = self.group or self.coordinator.groups.setdefault(GROUP_ID, ConsumerGroup(GROUP_ID))
        record = str(event["record"])
        member_id = str(event.get("member_id", ""))
        if record == "member_subscription":
            existing = group.members.get(member_id) or ConsumerMember(
                member_id, Reconciliation(0, 0, MemberState(event.get("state", STABLE)), frozenset())
            )
            group.put(replace(existing, subscribed_topics=tuple(event.get("subscribed_topics") or ())))
        elif record == "group_epoch":
            group.group_epoch = int(event["epoch"])
        elif record == "target_assignment":
            group.target[member_id] = partitions(event.get("target"))
        elif record == "target_assignment_epoch":
            group.assignment_epoch = int(event["epoch"])
        elif record == "current_assignment":
            member = group.members[member_id]
            group.put(
                replace(
                    member,
                    progress=Reconciliation(
                        int(event["epoch"]),
                        int(event["previous_epoch"]),
                        MemberState(event["state"]),
                        partitions(event.get("assigned")),
                        partitions(event.get("pending_revocation")),
                    ),
                )
            )
        else:
            raise ValueError(f"event {event.get('id')}: unknown record {record!r}")

    def _reconcile(self, event: Mapping[str, Any]) -> Reconciliation | str:
        """One call to CurrentAssignmentBuilder, as Kafka's unit tests make it."""
        fields = event["member"]
        current = Reconciliation(
            int(fields["epoch"]),
            int(fields["previous_epoch"]),
            MemberState(fields["state"]),
            partitions(fields.get("assigned")),
            partitions(fields.get("pending_revocation")),
        )
        epochs = event.get("partition_epoch") or {}
        default = int(epochs.get("default", -1))
        overrides = {TopicPartition.parse(str(k)): int(v) for k, v in (epochs.get("overrides") or {}).items()}
        owned = event.get("owned")
        try:
            return reconcile(
                current,
                int(event["target_epoch"]),
                partitions(event.get("target")),
                lambda tp: overrides.get(tp, default),
                None if owned is None else partitions(owned),
            )
        except FencedMemberEpoch:
            return "FENCED_MEMBER_EPOCH"
