"""One user-level scenario under each coordination design, and the numbers to compare them by.

classic-eager and classic-cooperative run the classic simulator with range or cooperative-sticky on every
client; consumer runs the KIP-848 simulator (uniform on the coordinator); zk-watcher and external run the
models of the older designs (docs/scenarios.md, "Comparing designs"). Every design starts from the fixture's assignment when it
has one. Slow batches, GC pauses and new partitions are not modelled for the two older designs (a note says
so); `outage` events (ZooKeeper, service discovery) apply only to them: Kafka's group coordinator depends on
neither.

Messages at risk of double processing, given `produce_rates` (docs/scenarios.md): messages produced to a
partition while two consumers consumed it at once, plus, for each crash, what its partitions can have
received since the crashed consumer's last automatic commit: up to one auto.commit.interval.ms (5 s for the
Java client, 60 s for the 0.8 consumer of the older designs), and no more than it had consumed them.
"""

from __future__ import annotations

from bisect import bisect_left
import gc
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from kgroup.assignors.coordinator.consumer.simulation import ConsumerSimulation
from kgroup.assignors.coordinator.consumption import Gap, Segment, distinct
from kgroup.assignors.coordinator.designs.external_coordinator import ExternalCoordinatorGroup
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.coordinator.designs.zk_watcher import ZkWatcherGroup
from kgroup.assignors.coordinator.settling import Settle, time_to_stable
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.fixtures.scenario_file import Scenario, ScenarioEvent
from kgroup.inspectors.simulation.scenario_run import apply_event, run_scenario

PROTOCOLS = ("classic-eager", "classic-cooperative", "consumer", "zk-watcher", "external")


@dataclass(frozen=True)
class Timeline:
    """What the comparison draws for one design: who consumed what, when nobody did, and its rebalances."""

    end_ms: int
    segments: Mapping[TopicPartition, list[Segment]]
    gaps: Mapping[TopicPartition, list[Gap]]
    bands: tuple[tuple[int, int, int], ...]  # (start, end, rebalances) of each rebalance, merged where they overlap
    owners: tuple[str, ...]
    not_modelled: tuple[tuple[int, str], ...] = ()  # (instant, event) this design cannot express


@dataclass(frozen=True)
class Round:
    """One rebalance of a Kafka design: a classic generation, or a consumer-protocol group-epoch bump, from its
    start to the instant the group was next stable (None: it never was)."""

    start_ms: int
    end_ms: int | None
    epoch: int | None  # the generation (classic; None: the rebalance never completed one) or the group epoch


@dataclass(frozen=True)
class Outcome:
    """Where a Kafka design's run ends: each rebalance, what each live member holds, and (consumer protocol) each
    live member's epoch. The older designs' models keep no generations, so they have none."""

    rounds: tuple[Round, ...]
    final: Mapping[str, tuple[TopicPartition, ...]]
    member_epochs: Mapping[str, int] | None = None


@dataclass(frozen=True)
class ProtocolRun:
    protocol: str
    rebalances: int  # generations (classic), group-epoch bumps (consumer), rebalance attempts (zk), moves (external)
    unconsumed_ms: int  # partition-milliseconds nobody consumed
    longest_outage_ms: int  # the longest single gap of one partition
    owned_twice: int  # partitions ever consumed by two consumers at the same time
    settle: tuple[Settle, ...]  # per event: TIME-TO-STABLE (docs/scenarios.md)
    notes: tuple[str, ...] = ()
    messages_at_risk: float | None = None  # None: the scenario gives no produce_rates
    timeline: Timeline | None = None
    not_modelled: tuple[int, ...] = ()  # indexes of the scenario's events this design cannot express
    outcome: Outcome | None = None  # the Kafka designs' rebalances and final state

    @property
    def time_to_stable_ms(self) -> tuple[int | None, ...]:
        return tuple(s.ms for s in self.settle)


def parse_protocols(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PROTOCOLS]
    if unknown or not names:
        raise InputError(f"{text!r}: expected a comma-separated list of {', '.join(PROTOCOLS)}", field="--protocol")
    return list(dict.fromkeys(names))


def compare(scenario: Scenario, protocols: list[str], timelines: bool = True) -> list[ProtocolRun]:
    """Each design's run of the scenario. Without `timelines` (nothing to draw) each design's segments and gaps
    are let go once its numbers are in, before the next design runs: a large group's are hundreds of MB each."""
    runs = []
    for protocol in protocols:
        run = _RUNNERS[protocol](scenario, protocol)
        runs.append(run if timelines else replace(run, timeline=None))
        # A simulation is a web of cycles (clients, timers, callbacks) the collector reaches only in a full
        # pass, which a large heap makes rare: without one the last design's log is still held when the next runs.
        gc.collect()
    return runs


_JAVA_COMMIT_MS = 5_000  # auto.commit.interval.ms, Java consumer default (ConsumerConfig)
_ZK_CONSUMER_COMMIT_MS = (
    60_000  # auto.commit.interval.ms, 0.8 high-level consumer default (ConsumerConfig.scala at 0.8.2.2)
)
_NO_OUTAGE = "outage: Kafka's group coordinator depends on neither ZooKeeper nor service discovery"


def _summary(
    protocol: str,
    scenario: Scenario,
    rebalances: int,
    ledger_timelines: Mapping[TopicPartition, list[Segment]],
    gaps: Mapping[TopicPartition, list[Gap]],
    now: int,
    intervals: list[tuple[int, int | None]],
    created: Mapping[TopicPartition, int],
    commit_ms: int,
    notes: tuple[str, ...] = (),
    not_modelled: tuple[int, ...] = (),
) -> ProtocolRun:
    # Once per distinct list: partitions that moved together share their segments and gaps.
    each_gaps = distinct(gaps)
    unconsumed = sum(count * g.length(now) for gs, count in each_gaps for g in gs)
    longest = max((g.length(now) for gs, _ in each_gaps for g in gs), default=0)
    owners = tuple(dict.fromkeys(s.owner for segs, _ in distinct(ledger_timelines) for s in segs))
    skipped = tuple((scenario.events[i].at_ms, _event_text(scenario.events[i])) for i in not_modelled)
    timeline = Timeline(now, ledger_timelines, gaps, _bands(intervals, now), owners, skipped)
    applies = [_applies(protocol, e) and i not in not_modelled for i, e in enumerate(scenario.events)]
    settle = time_to_stable([e.at_ms for e in scenario.events], ledger_timelines, created, intervals, now, applies)
    return ProtocolRun(
        protocol,
        rebalances,
        unconsumed,
        longest,
        _owned_twice(ledger_timelines),
        tuple(settle),
        notes,
        _messages_at_risk(scenario, ledger_timelines, now, commit_ms),
        timeline,
        not_modelled,
    )


def _applies(protocol: str, event: ScenarioEvent) -> bool:
    """Whether the design depends on what the event changes: outages touch only the older designs."""
    if event.kind == "outage":
        return protocol == "external" or (protocol == "zk-watcher" and event.subject == "zookeeper")
    return True


def _event_text(event: ScenarioEvent) -> str:
    return f"{event.kind} {event.subject}"


def _intervals(starts: list[int], settled: list[int]) -> list[tuple[int, int | None]]:
    """Each rebalance from its start to the next settled instant (None: it never settled)."""
    ordered = sorted(settled)
    last = len(ordered)
    return [
        (start, ordered[at] if at < last else None) for start in sorted(starts) for at in (bisect_left(ordered, start),)
    ]


def _bands(intervals: list[tuple[int, int | None]], now: int) -> tuple[tuple[int, int, int], ...]:
    """The rebalance intervals to shade as (start, end, how many rebalances), overlapping ones merged; an open
    one runs to the end."""
    bands: list[tuple[int, int, int]] = []
    for start, stop in sorted((s, now if e is None else e) for s, e in intervals):
        if bands and start <= bands[-1][1]:
            first, last, count = bands[-1]
            bands[-1] = (first, max(last, stop), count + 1)
        else:
            bands.append((start, stop, 1))
    return tuple(bands)


def _messages_at_risk(
    scenario: Scenario, timelines: Mapping[TopicPartition, list[Segment]], now: int, commit_ms: int
) -> float | None:
    if not scenario.produce_rates:
        return None
    initial = {t.name: t.partitions for t in scenario.cluster.topics}
    crashes = {(e.subject, e.at_ms) for e in scenario.events if e.kind == "crash"}
    total = 0.0
    for tp, segments in timelines.items():
        rate = scenario.produce_rates.get(tp.topic, 0.0) / initial[tp.topic] / 1000  # per partition, per ms
        if not rate:
            continue
        total += rate * _overlap_ms(segments, now)
        for s in segments:
            if s.end is not None and (s.owner, s.end) in crashes:
                total += rate * min(s.end - s.start, commit_ms)  # up to one commit interval since the last
    return total


def _overlap_ms(segments: list[Segment], now: int) -> int:
    """How long two or more consumers consumed the partition at once."""
    spans = [(s.start, now if s.end is None else s.end) for s in segments]
    edges = sorted([edge for start, end in spans if end > start for edge in ((start, 1), (end, -1))])
    depth, since, overlap = 0, 0, 0
    for at, step in edges:
        if depth >= 2:
            overlap += at - since
        depth += step
        since = at
    return overlap


def _owned_twice(timelines: Mapping[TopicPartition, list[Segment]]) -> int:
    """How many partitions two owners consumed at once: a segment starting before another owner's earlier
    segment ended (or while it was still open).

    Each partition's segments come by start, so comparing with the latest end so far is enough: when that end
    is the segment's own owner's and another owner's earlier segment still runs, those two overlapped first
    and the partition was counted then (the tests check this against every pair)."""
    count = 0
    for segments in timelines.values():
        latest: tuple[float, str] | None = None  # the latest end so far, and its owner
        for s in segments:
            if s.end == s.start:
                continue  # stopped at the instant it started: nothing was consumed
            if latest is not None and latest[1] != s.owner and latest[0] > s.start:
                count += 1
                break
            end = _OPEN if s.end is None else s.end
            if latest is None or end > latest[0]:
                latest = (end, s.owner)
    return count


_OPEN = float("inf")  # the end of a segment still open


def _classic(scenario: Scenario, protocol: str) -> ProtocolRun:
    assignors = ("range",) if protocol == "classic-eager" else ("cooperative-sticky",)
    clients = {h: replace(c, assignors=assignors) for h, c in scenario.clients.items()}
    forced = replace(
        scenario,
        clients=clients,
        default_client=replace(scenario.default_client, assignors=assignors),
        group=replace(scenario.group, assignors=assignors),
    )
    outcome = run_scenario(forced)
    sim = outcome.simulation
    notes = (_NO_OUTAGE,) if any(e.kind == "outage" for e in scenario.events) else ()
    run = _summary(
        protocol,
        scenario,
        len(sim.rebalances),
        sim.ledger.timelines(),
        outcome.gaps,
        sim.now,
        [(r.start, r.end) for r in sim.rebalances],
        sim.created,
        _JAVA_COMMIT_MS,
        notes,
    )
    rounds = tuple(Round(r.start, r.end, r.generation) for r in sim.rebalances)
    return replace(run, outcome=Outcome(rounds, sim.assignment()))


def _one_owner_each(scenario: Scenario, owned: Mapping[str, Iterable[TopicPartition]]) -> None:
    """A classic group's members may claim one partition twice (a custom assignor's answer, a zombie's owned
    list); a consumer-protocol group cannot start that way: its coordinator gives each partition one owner
    (ConsumerGroup.addPartitionEpochs throws when a partition already has an epoch)."""
    owner_of: dict[TopicPartition, str] = {}
    for member, partitions in owned.items():
        for tp in partitions:
            other = owner_of.setdefault(tp, member)
            if other != member:
                raise InputError(
                    f"the starting assignment gives {tp} to both {other} and {member}; under the consumer "
                    "protocol the coordinator gives each partition one owner",
                    scenario.source,
                )


def _consumer(scenario: Scenario, protocol: str) -> ProtocolRun:
    group = scenario.group
    topics = {t.name: t.partitions for t in scenario.cluster.topics}
    ids = {t.name: t.topic_id for t in scenario.cluster.topics if t.topic_id}
    sim = ConsumerSimulation.create(
        topics, scenario.consumer_broker, group.group_id, group.client or "java", ids, scenario.cluster.kafka_version
    )
    owned = {m.member_id: group.assignment.partitions_of(m.member_id) for m in group.members}
    _one_owner_each(scenario, owned)
    for member in group.members:
        sim.add_client(member.member_id, scenario.clients[member.member_id], member.topics)
    if any(owned.values()):
        interval = sim.coordinator.config.heartbeat_interval_ms
        phases = {h: i * interval // len(owned) for i, h in enumerate(owned)}
        sim.load(group.generation or 1, owned, heartbeat_phase=phases, target_order=group.target_order)
    else:
        for client in list(sim.clients.values()):
            sim.at(0, sim.start, client)
    for event in scenario.events:
        sim.at(event.at_ms, apply_event, sim, scenario, event)
    sim.run_until(scenario.duration_ms)
    notes = (_NO_OUTAGE,) if any(e.kind == "outage" for e in scenario.events) else ()
    intervals = _intervals([b.at_ms for b in sim.bumps], sim.stable_at)
    run = _summary(
        protocol,
        scenario,
        len(sim.bumps),
        sim.ledger.timelines(),
        sim.gaps(),
        sim.now,
        intervals,
        sim.created,
        _JAVA_COMMIT_MS,
        notes,
    )
    # Bumps come in time order, as the intervals do (simulated time never goes back).
    rounds = tuple(Round(start, end, bump.group_epoch) for bump, (start, end) in zip(sim.bumps, intervals))
    live = [c for c in sim.clients.values() if c.alive]
    final = {c.handle: tuple(sorted(c.held)) for c in live}
    return replace(run, outcome=Outcome(rounds, final, {c.handle: c.epoch for c in live}))


def _older(scenario: Scenario, protocol: str) -> ProtocolRun:
    """zk-watcher: one model of the group. external: the design coordinates each topic on its own."""
    zk = protocol == "zk-watcher"
    members = [m.member_id for m in scenario.group.members]
    owner_of = {tp: m for m in members for tp in scenario.group.assignment.partitions_of(m)}
    if zk:
        partition_sets = [[TopicPartition(t.name, p) for t in scenario.cluster.topics for p in range(t.partitions)]]
    else:
        partition_sets = [[TopicPartition(t.name, p) for p in range(t.partitions)] for t in scenario.cluster.topics]
    runs = []
    for partitions in partition_sets:
        owners = {tp: owner_of.get(tp) for tp in partitions}
        loaded = all(owners.values())  # a fixture whose assignment covers every partition starts settled
        model: Any = ZkWatcherGroup(partitions) if zk else ExternalCoordinatorGroup(partitions)
        if zk:
            model.load(members if loaded else [], owners if loaded else {})
            if not loaded:
                for member in members:
                    model.start(member)
        else:
            model.load("Stable" if loaded else "Initial", members, owners if loaded else {})
        for number, event in enumerate(scenario.events):
            model.timers.schedule(("event", number), event.at_ms, lambda e=event, m=model: _older_event(m, zk, e))
        model.advance_to(scenario.duration_ms)
        runs.append(model)
    skipped = tuple(i for i, e in enumerate(scenario.events) if e.kind in _NOT_EXPRESSIBLE)
    notes: tuple[str, ...] = ()
    if skipped:
        kinds = sorted({scenario.events[i].kind for i in skipped})
        notes += (f"cannot express: {', '.join(kinds)} (marked * in its cells): {_NOT_EXPRESSIBLE_WHY}",)
    if any(e.kind == "slow-poll" for e in scenario.events):
        notes += (
            "slow-poll: a 0.8 consumer's slow batch stalls its own fetcher (the queue fills); nothing "
            "watches it, so no rebalance follows"
            if zk
            else "slow-poll: the consumer keeps its partitions while it works; nothing watches its batches, so "
            "no rebalance follows",
        )
    if zk:
        failed = sum(m.failed_attempts for m in runs)
        notes += (
            f"herd: {sum(m.notifications for m in runs)} watch notifications, {_rebalances(runs, zk)} "
            f"rebalance attempts, {failed} of them failed on a partition not yet released",
        )
    if zk and any(e.kind == "outage" and e.subject == "service-discovery" for e in scenario.events):
        notes += ("outage service-discovery: this design does not use service discovery",)
    gaps = {tp: g for model in runs for tp, g in model.gaps().items()}
    timelines = {tp: segs for model in runs for tp, segs in model.ledger.timelines().items()}
    created = {tp: at for model in runs for tp, at in model.created.items()}
    now = scenario.duration_ms
    intervals = [
        iv for m in runs for iv in _intervals(m.attempt_times if zk else m.move_times, m.settled if zk else m.stable_at)
    ]
    return _summary(
        protocol,
        scenario,
        _rebalances(runs, zk),
        timelines,
        gaps,
        now,
        intervals,
        created,
        _ZK_CONSUMER_COMMIT_MS,
        notes,
        skipped,
    )


# A 0.8 consumer's subscription is fixed when it creates its message streams, and the external design assigns
# every topic to every live consumer: neither has a way to change one consumer's subscription.
_NOT_EXPRESSIBLE = ("subscribe",)
_NOT_EXPRESSIBLE_WHY = "the design has no way to change one consumer's subscription"


def _rebalances(runs: list[Any], zk: bool) -> int:
    return sum(m.attempts if zk else len(m.move_times) for m in runs)


def _older_event(model: Any, zk: bool, event: ScenarioEvent) -> None:
    kind, name = event.kind, event.subject
    if kind == "outage":
        until = event.at_ms + int(event.fields["duration"])
        if zk and name == "zookeeper":
            model.zookeeper_down()
            model.timers.schedule(("outage-ends", event.index), until, model.zookeeper_up)
        elif not zk:
            flag = "zk_up" if name == "zookeeper" else "sd_up"
            setattr(model, flag, False)
            model.timers.schedule(("outage-ends", event.index), until, lambda: setattr(model, flag, True))
    elif kind == "join":
        model.start(name) if zk else model.register(name)
    elif kind == "gc-pause":
        model.gc_pause(name, int(event.fields["duration"]))
    elif kind == "add-partitions":
        if any(tp.topic == name for tp in model.partitions):
            model.add_partitions([TopicPartition(name, p) for p in range(int(event.fields["total"]))])
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
            model.timers.schedule(
                ("restart", name, event.at_ms),
                event.at_ms + down,
                lambda: model.start(name) if zk else model.register(name),
            )


_RUNNERS = {
    "classic-eager": _classic,
    "classic-cooperative": _classic,
    "consumer": _consumer,
    "zk-watcher": _older,
    "external": _older,
}
