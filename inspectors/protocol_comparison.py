"""One user-level scenario under each coordination design, and the numbers to compare them by.

classic-eager and classic-cooperative run the classic simulator with range or cooperative-sticky on every
client; consumer runs the KIP-848 simulator (uniform on the coordinator); zk-watcher and external run the
models of the older designs (coordinator.md §7). Slow batches and GC pauses only stop consumption in the
two older designs: they have no poll timer, and the pause is assumed shorter than the ZooKeeper session.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kgroup.assignors.consumer_coordinator import ConsumerConfig
from kgroup.assignors.consumer_simulation import ConsumerSimulation
from kgroup.assignors.consumption import ConsumptionLedger, Gap
from kgroup.assignors.external_coordinator import ExternalCoordinatorGroup
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.zk_watcher import ZkWatcherGroup
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.scenario import Scenario, ScenarioEvent
from kgroup.inspectors.scenario_run import apply_event, run_scenario

PROTOCOLS = ("classic-eager", "classic-cooperative", "consumer", "zk-watcher", "external")


@dataclass(frozen=True)
class ProtocolRun:
    protocol: str
    rebalances: int  # generations (classic), group-epoch bumps (consumer), rebalance attempts (zk), moves (external)
    unconsumed_ms: int  # partition-milliseconds nobody consumed
    longest_outage_ms: int  # the longest single gap of one partition
    owned_twice: int  # partitions ever consumed by two consumers at the same time
    time_to_stable_ms: tuple[int | None, ...]  # per event: until the group is settled again (None: never)
    notes: tuple[str, ...] = ()


def parse_protocols(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PROTOCOLS]
    if unknown or not names:
        raise InputError(f"{text!r}: expected a comma-separated list of {', '.join(PROTOCOLS)}", field="--protocol")
    return list(dict.fromkeys(names))


def compare(scenario: Scenario, protocols: list[str]) -> list[ProtocolRun]:
    return [_RUNNERS[p](scenario, p) for p in protocols]


def _summary(protocol: str, rebalances: int, ledger: ConsumptionLedger, gaps: dict[TopicPartition, list[Gap]],
             now: int, starts: list[int], settled: list[int], events: tuple[ScenarioEvent, ...],
             notes: tuple[str, ...] = ()) -> ProtocolRun:
    unconsumed = sum(g.length(now) for gs in gaps.values() for g in gs)
    longest = max((g.length(now) for gs in gaps.values() for g in gs), default=0)
    return ProtocolRun(protocol, rebalances, unconsumed, longest, _owned_twice(ledger),
                       _settle_times(events, now, starts, settled), notes)


def _settle_times(events: tuple[ScenarioEvent, ...], now: int, starts: list[int],
                  settled: list[int]) -> tuple[int | None, ...]:
    """Per event: 0 if no rebalance starts before the next event; else until the group next settles."""
    instants = sorted(e.at_ms for e in events)
    result = []
    for event in events:
        following = [t for t in instants if t > event.at_ms]
        until = following[0] if following else now + 1
        if not any(event.at_ms <= s < until for s in starts):
            result.append(0)
            continue
        later = [s for s in settled if s >= event.at_ms]
        result.append(later[0] - event.at_ms if later else None)
    return tuple(result)


def _owned_twice(ledger: ConsumptionLedger) -> int:
    count = 0
    for segments in ledger.timelines().values():
        ends: list[tuple[int | None, str]] = []
        for s in segments:
            if s.end == s.start:
                continue  # stopped at the instant it started: nothing was consumed
            if any(e is None or e > s.start for e, owner in ends if owner != s.owner):
                count += 1
                break
            ends.append((s.end, s.owner))
    return count


def _classic(scenario: Scenario, protocol: str) -> ProtocolRun:
    assignors = ("range",) if protocol == "classic-eager" else ("cooperative-sticky",)
    clients = {h: replace(c, assignors=assignors) for h, c in scenario.clients.items()}
    forced = replace(scenario, clients=clients, default_client=replace(scenario.default_client, assignors=assignors),
                     group=replace(scenario.group, assignors=assignors))
    outcome = run_scenario(forced)
    sim = outcome.simulation
    settled = [r.end for r in sim.rebalances if r.end is not None]
    return _summary(protocol, len(sim.rebalances), sim.ledger, outcome.gaps, sim.now,
                    [r.start for r in sim.rebalances], settled, scenario.events)


def _consumer(scenario: Scenario, protocol: str) -> ProtocolRun:
    group = scenario.group
    topics = {t.name: t.partitions for t in scenario.cluster.topics}
    sim = ConsumerSimulation.create(topics, ConsumerConfig(), group.group_id)
    owned = any(group.assignment.partitions_of(m.member_id) for m in group.members)
    for member in group.members:
        client = sim.add_client(member.member_id, scenario.clients[member.member_id], member.topics)
        sim.at(0, sim.start, client)
    notes = ("the fixture's assignment is not loaded: members join at 0 and the coordinator assigns",) if owned else ()
    for event in scenario.events:
        sim.at(event.at_ms, apply_event, sim, scenario, event)
    sim.run_until(scenario.duration_ms)
    return _summary(protocol, len(sim.bumps), sim.ledger, sim.gaps(), sim.now, [b.at_ms for b in sim.bumps],
                    sim.stable_at, scenario.events, notes)


def _older(scenario: Scenario, protocol: str) -> ProtocolRun:
    """zk-watcher: one model of the group. external: the design coordinates each topic on its own."""
    members = [m.member_id for m in scenario.group.members]
    if protocol == "zk-watcher":
        partition_sets = [[TopicPartition(t.name, p) for t in scenario.cluster.topics for p in range(t.partitions)]]
    else:
        partition_sets = [[TopicPartition(t.name, p) for p in range(t.partitions)] for t in scenario.cluster.topics]
    runs = []
    for partitions in partition_sets:
        model: Any = ZkWatcherGroup(partitions) if protocol == "zk-watcher" else ExternalCoordinatorGroup(partitions)
        if protocol == "zk-watcher":
            model.load([], {})
            for member in members:
                model.start(member)
        else:
            model.load("Initial", members, {})
        for number, event in enumerate(scenario.events):
            model.timers.schedule(("event", number), event.at_ms, lambda e=event, m=model: _older_event(m, protocol, e))
        model.advance_to(scenario.duration_ms)
        runs.append(model)
    skipped = sorted({e.kind for e in scenario.events if e.kind not in ("join", "crash", "leave", "restart")})
    notes = (f"not modelled for this design: {', '.join(skipped)}",) if skipped else ()
    gaps = {tp: g for model in runs for tp, g in model.gaps().items()}
    now = scenario.duration_ms
    unconsumed = sum(g.length(now) for gs in gaps.values() for g in gs)
    longest = max((g.length(now) for gs in gaps.values() for g in gs), default=0)
    per_model = [_settle_times(scenario.events, now, m.attempt_times if protocol == "zk-watcher" else m.move_times,
                               m.settled if protocol == "zk-watcher" else m.stable_at) for m in runs]
    per_event = tuple(None if any(t is None for t in times) else max(times)  # settled once every topic is
                      for times in zip(*per_model))
    rebalances = sum(m.attempts if protocol == "zk-watcher" else len(m.move_times) for m in runs)
    return ProtocolRun(protocol, rebalances, unconsumed, longest, sum(_owned_twice(m.ledger) for m in runs),
                       per_event, notes)


def _older_event(model: Any, protocol: str, event: ScenarioEvent) -> None:
    kind, name = event.kind, event.subject
    zk = protocol == "zk-watcher"
    if kind == "join":
        model.start(name) if zk else model.register(name)
    elif kind == "crash":
        model.crash(name)
        if not zk:
            model.isolate(name)  # service discovery's health check evicts it (taken as immediate)
    elif kind in ("leave", "restart"):
        if zk:
            model.leave(name)
        else:
            model.crash(name)
            model.isolate(name)
        if kind == "restart":
            down = int(event.fields["down"])
            model.timers.schedule(("restart", name, event.at_ms), event.at_ms + down,
                                  lambda: model.start(name) if zk else model.register(name))


_RUNNERS = {"classic-eager": _classic, "classic-cooperative": _classic, "consumer": _consumer,
            "zk-watcher": _older, "external": _older}
