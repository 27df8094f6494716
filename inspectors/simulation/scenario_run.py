"""Run a user-level scenario through the classic coordinator and its clients; collect what to report."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kgroup.assignors.base import Assignor
from kgroup.assignors.coordinator.classic.client import ClassicClient
from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation
from kgroup.assignors.coordinator.consumer.simulation import ConsumerSimulation
from kgroup.assignors.coordinator.consumption import Gap
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.coordinator.classic.rebalance_causes import Explanation, explain_all
from kgroup.assignors.coordinator.classic.pathologies import Finding, findings
from kgroup.assignors.coordinator.settling import Settle, time_to_stable
from kgroup.inspectors.assignor_lookup import resolve
from kgroup.inspectors.errors import RunError
from kgroup.inspectors.fixtures.scenario_file import Scenario, ScenarioEvent


@dataclass(frozen=True)
class ScenarioOutcome:
    scenario: Scenario
    simulation: ClassicSimulation
    gaps: dict[TopicPartition, list[Gap]]
    findings: tuple[Finding, ...]
    settle: tuple[Settle, ...] = ()  # per scenario event: TIME-TO-STABLE (docs/scenarios.md)
    explanations: tuple[Explanation, ...] = ()  # per rebalance: its cause and whom it waited for
    # per rebalance: the indices of the scenario events it follows from (empty: none before it)
    causes: tuple[tuple[int, ...], ...] = ()
    _unconsumed: dict[int, int] = field(default_factory=dict, compare=False, repr=False)  # id(gaps) -> ms

    def caused_by(self, event: ScenarioEvent) -> list[int]:
        """The rebalances (their indices) that follow from `event`."""
        return [r.index for r, events in zip(self.simulation.rebalances, self.causes) if event.index in events]

    def unconsumed_ms(self, tp: TopicPartition) -> int:
        gaps = self.gaps.get(tp)
        if gaps is None:
            return 0
        # The report ranks every partition of a large group by this; partitions that moved together share
        # one list of gaps (ConsumptionLedger.gaps), summed once.
        known = self._unconsumed.get(id(gaps))
        if known is None:
            now = self.simulation.now
            known = self._unconsumed[id(gaps)] = sum((now if end is None else end) - start for start, end in gaps)
        return known

    @property
    def total_unconsumed_ms(self) -> int:
        return self.simulation.unconsumed_ms()


def run_scenario(scenario: Scenario) -> ScenarioOutcome:
    group = scenario.group
    library = group.client or "java"  # the leader runs its client's own assignor (librdkafka's differ)

    def by_protocol_name(name: str) -> Assignor:
        return scenario.user_assignors.get(name) or resolve(name, library)

    sim = ClassicSimulation(
        scenario.cluster, by_protocol_name, scenario.broker, autonomous=True, group_id=group.group_id
    )
    owned = {m.member_id: group.assignment.partitions_of(m.member_id) for m in group.members}
    for member in group.members:
        sim.add_client(member.member_id, scenario.clients[member.member_id], member.topics)
    if any(owned.values()):
        count = len(group.members)
        # Real heartbeat threads are not in step; unless told otherwise, spread them over one interval.
        phases = {
            h: scenario.phases.get(h, i * c.config.heartbeat_interval_ms // count)
            for i, (h, c) in enumerate(sim.clients.items())
        }
        sim.load(
            group.generation or 1,
            _common_protocol(list(sim.clients.values())),
            group.members[0].member_id,
            owned,
            heartbeat_phase=phases,
        )
    else:
        for client in list(sim.clients.values()):
            sim.start(client)
    for event in scenario.events:
        sim.at(event.at_ms, apply_event, sim, scenario, event)
    try:
        sim.run_until(scenario.duration_ms)
    except RunError as exc:  # a user assignor failed on the leader: say when, so the replay can be followed
        raise RunError(f"{scenario.source}: at {sim.now / 1000:.1f}s: {exc}") from None
    settle = time_to_stable(
        [e.at_ms for e in scenario.events],
        sim.ledger.timelines(),
        sim.created,
        [(r.start, r.end) for r in sim.rebalances],
        sim.now,
        [e.kind != "outage" for e in scenario.events],
    )
    explanations = explain_all(sim)
    return ScenarioOutcome(
        scenario,
        sim,
        sim.gaps(),
        tuple(findings(sim, library)),
        tuple(settle),
        explanations,
        rebalance_causes(scenario.events, sim, explanations),
    )


def rebalance_causes(
    events: tuple[ScenarioEvent, ...], sim: ClassicSimulation, explanations: tuple[Explanation, ...]
) -> tuple[tuple[int, ...], ...]:
    """Which scenario events each rebalance follows from.

    By default the events at the latest instant at or before its start (the TIME-TO-STABLE window rule:
    what happens between one event and the next is that event's doing). Three causes outlast that window,
    and the coordinator's reason names them: a member the rebalance is about (a member's JoinGroup after
    its session expired in a GC pause, long after other events) goes to that member's latest event; a
    cooperative follow-up (ConsumerCoordinator.onJoinComplete after revoking) to the rebalance before it;
    the leader's rejoin at its metadata refresh to the partitions added before it.
    """
    causes: list[tuple[int, ...]] = []
    for record, why in zip(sim.rebalances, explanations):
        before = [e for e in events if e.at_ms <= record.start]
        latest = max((e.at_ms for e in before), default=None)
        found = tuple(e.index for e in before if e.at_ms == latest)
        subject = record.trigger.split(" ")[0].removesuffix("'s")
        own = [e for e in before if e.subject == subject and e.kind != "add-partitions"]
        if "the cooperative follow-up" in why.trigger and causes:
            found = causes[-1]
        elif "saw a partition count change" in why.trigger:
            grown = [e for e in before if e.kind == "add-partitions"]
            found = (grown[-1].index,) if grown else found
        elif subject in sim.clients and own and own[-1].at_ms != latest:
            found = (own[-1].index,)
        causes.append(found)
    return tuple(causes)


def _common_protocol(clients: list[ClassicClient]) -> str:
    """The assignor a loaded group runs: the oldest member's first choice that every member supports."""
    common = set(clients[0].config.assignors)
    for client in clients[1:]:
        common &= set(client.config.assignors)
    return next((name for name in clients[0].config.assignors if name in common), clients[0].config.assignors[0])


def apply_event(sim: ClassicSimulation | ConsumerSimulation, scenario: Scenario, event: ScenarioEvent) -> None:
    """One user-level event on either protocol's simulation (they share the client-facing methods)."""
    kind, name, fields = event.kind, event.subject, event.fields
    if kind == "outage":
        return  # the Kafka group coordinator depends on neither ZooKeeper nor service discovery
    if kind == "add-partitions":
        sim.add_partitions(name, int(fields["total"]))
        return
    client = sim.clients.get(name)
    if kind == "join":
        topics = fields.get("topics") or scenario.group.members[0].topics
        if client is None:
            client = sim.add_client(name, scenario.clients.get(name, scenario.default_client), topics)
        else:
            client.topics = tuple(topics)
        sim.start(client)
        return
    assert client is not None  # the reader checked every member an event names
    if kind == "leave":
        sim.close(client)
    elif kind == "crash":
        sim.crash(client)
    elif kind == "gc-pause":
        sim.gc_pause(client, int(fields["duration"]))
    elif kind == "slow-poll":
        sim.process(client, int(fields["processing"]), int(fields["batches"]))
    elif kind == "subscribe":
        sim.subscribe(client, fields["topics"])
    elif kind == "restart":
        if client.alive:
            sim.close(client)
        if client.config.instance_id != fields["instance_id"]:  # `dynamic` drops it, `static` may set it
            client.config = replace(client.config, instance_id=fields["instance_id"])
        sim.at(event.at_ms + int(fields["down"]), sim.start, client)
