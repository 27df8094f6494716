"""The external-coordinator design of seed 002: service discovery says who is alive, ZooKeeper holds the
assignment and the coordinator's progress, consumers follow what is written for them (docs/scenarios.md,
"Comparing designs").

States per topic: Initial, Starting, Stable, Closing, with toStart / toClose as written under
/consumers/[CLUSTER]/state/[TOPIC]; assignments under /consumers/[CLUSTER]/assignments/[TOPIC]. A moving
partition is assigned to nobody from its old owner's stop until its new owner's start, so it is never
consumed twice, unless an "isolated" consumer is in fact alive (flagged as possible double consumption).
Rules seed 002's design note leaves open are kgroup's, marked [kgroup rule] here: a sticky balanced assignment, checks
every `check_interval_ms`, consumers reacting to the ZooKeeper watch at once.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from kgroup.assignors.coordinator.consumption import ConsumptionLedger, Gap
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.coordinator.timer_queue import TimerQueue, run_due


class ExternalCoordinatorState(StrEnum):
    """A topic's state as the coordinator writes it under /consumers/[CLUSTER]/state/[TOPIC] (seed 002's
    design; Kafka has no counterpart)."""

    INITIAL = "Initial"
    STARTING = "Starting"
    STABLE = "Stable"
    CLOSING = "Closing"


INITIAL, STARTING = ExternalCoordinatorState.INITIAL, ExternalCoordinatorState.STARTING
STABLE, CLOSING = ExternalCoordinatorState.STABLE, ExternalCoordinatorState.CLOSING


@dataclass(frozen=True)
class ExternalConfig:
    check_interval_ms: int = 1_000  # coordinator_check_interval_ms
    # [kgroup rule] how long service discovery's health check tolerates a silent process before isolating it;
    # a crash is taken as isolated at once (seed 002's health checks evict dead processes), a GC pause only once it
    # outlasts this.
    health_timeout_ms: int = 10_000


def sticky_balanced(
    partitions: Iterable[TopicPartition], live: Iterable[str], current: Mapping[TopicPartition, str | None]
) -> dict[TopicPartition, str]:
    """[kgroup rule] Keep up to the balanced count (lowest partitions first); the rest to the least loaded."""
    consumers = sorted(live)
    parts = sorted(partitions)
    if not consumers:
        return {}
    base, extra = divmod(len(parts), len(consumers))
    kept: dict[str, list[TopicPartition]] = {}
    # Each owner's partitions, ascending: one pass over them, not one per consumer.
    held: dict[str | None, list[TopicPartition]] = {}
    for tp in parts:
        held.setdefault(current.get(tp), []).append(tp)
    for consumer in consumers:
        mine = held.get(consumer, [])
        cap = base + (1 if extra and len(mine) > base else 0)
        extra -= cap - base
        kept[consumer] = mine[:cap]
    taken = {tp for mine in kept.values() for tp in mine}
    # Each leftover partition goes to the least loaded consumer that may take one more (fewest, then by name).
    # The least loaded overall always may: the counts add up to the partitions, so while one is left some
    # consumer is under its cap. A heap of (count, name) finds it without a scan of every consumer.
    loads = [(len(kept[c]), c) for c in consumers]
    heapq.heapify(loads)
    for tp in (tp for tp in parts if tp not in taken):
        count, chosen = loads[0]
        kept[chosen].append(tp)
        heapq.heapreplace(loads, (count + 1, chosen))
    return {tp: c for c, mine in kept.items() for tp in mine}


class ExternalCoordinatorGroup:
    """The coordinator, service discovery, ZooKeeper and the consumers of one topic."""

    def __init__(self, partitions: Iterable[TopicPartition], config: ExternalConfig = ExternalConfig()) -> None:
        self.config = config
        self.partitions = tuple(sorted(partitions))
        self.state: ExternalCoordinatorState = INITIAL
        self.to_start: dict[str, list[int]] = {}
        self.to_close: dict[str, list[int]] = {}
        self.assignments: dict[TopicPartition, str | None] = {tp: None for tp in self.partitions}
        # (assignments, each owner's partitions in it), kept until assignments is written
        self._owned: tuple[dict[TopicPartition, str | None], dict[str | None, list[TopicPartition]]] | None = None
        self.target: dict[TopicPartition, str] = {}
        self.registered: set[str] = set()  # in service discovery
        self.alive: set[str] = set()  # processes actually running
        self.consuming: dict[str, set[TopicPartition]] = {}
        self.sd_up = True
        self.zk_up = True
        self.timers = TimerQueue()
        self.ledger = ConsumptionLedger()
        self.now = 0
        self.double_consumption: list[tuple[int, str]] = []  # isolated but alive consumers, and when
        self.stable_at: list[int] = []
        self.created: dict[TopicPartition, int] = {tp: 0 for tp in self.partitions}
        self.paused: set[str] = set()
        self.move_times: list[int] = []  # each Stable -> Closing/Starting
        self.timers.schedule("check", config.check_interval_ms, self._check)

    def load(self, state: str, live: Iterable[str], assignments: Mapping[TopicPartition, str | None]) -> None:
        self.state = ExternalCoordinatorState(state)
        self.registered = set(live)
        self.alive = set(live)
        self.assignments.update(assignments)
        self._owned = None
        self.target = {tp: c for tp, c in self.assignments.items() if c is not None}
        for consumer in self.alive:
            self._follow(consumer)

    # -- the world ----------------------------------------------------------------------------------------

    def register(self, consumer: str) -> None:
        self.registered.add(consumer)
        self.alive.add(consumer)
        self._follow(consumer)

    def crash(self, consumer: str) -> None:
        self.alive.discard(consumer)
        self._set_consuming(consumer, set())

    def isolate(self, consumer: str) -> None:
        """Service discovery evicts the consumer; if it is in fact alive, it keeps consuming (split brain)."""
        self.registered.discard(consumer)
        if consumer in self.alive:
            self.double_consumption.append((self.now, consumer))

    def gc_pause(self, consumer: str, duration: int) -> None:
        """The process stops: it consumes nothing and answers no health check. Past the health timeout service
        discovery isolates it; on waking it re-reads its assignment (the watch fired meanwhile) and passes its
        health check again, so it is registered anew [kgroup rule]."""
        if consumer not in self.alive:
            return
        self.paused.add(consumer)
        self.ledger.stop(consumer, self.now)
        if duration > self.config.health_timeout_ms:
            self.timers.schedule(
                ("isolate", consumer),
                self.now + self.config.health_timeout_ms,
                lambda: self.registered.discard(consumer),
            )
        self.timers.schedule(("wake", consumer), self.now + duration, lambda: self._wake(consumer))

    def _wake(self, consumer: str) -> None:
        self.paused.discard(consumer)
        if consumer not in self.alive:
            return
        self.consuming[consumer] = set()  # the pause closed its segments; it starts again from what is written
        self.registered.add(consumer)
        self._follow(consumer)

    def add_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        """New partitions appear unassigned; the coordinator's next Stable check finds them."""
        new = [tp for tp in partitions if tp not in self.created]
        for tp in new:
            self.created[tp] = self.now
            self.assignments[tp] = None
        self._owned = None
        self.partitions = tuple(sorted(self.partitions + tuple(new)))

    # -- consumers ----------------------------------------------------------------------------------------

    def _follow(self, consumer: str) -> None:
        """A consumer reads its partitions from ZooKeeper: stop (and commit) what is gone, start what is new."""
        if consumer not in self.alive or not self.zk_up:
            return  # a failed read keeps the current set
        self._set_consuming(consumer, set(self._owned_by().get(consumer, ())))

    def _owned_by(self) -> dict[str | None, list[TopicPartition]]:
        """Each consumer's partitions in `assignments`, read once per write: every consumer follows each write."""
        if self._owned is None or self._owned[0] is not self.assignments:
            owned: dict[str | None, list[TopicPartition]] = {}
            for tp, owner in self.assignments.items():
                owned.setdefault(owner, []).append(tp)
            self._owned = (self.assignments, owned)
        return self._owned[1]

    def _set_consuming(self, consumer: str, partitions: set[TopicPartition]) -> None:
        if consumer in self.paused:
            return  # it reads ZooKeeper when it wakes
        before = self.consuming.get(consumer)
        if before == partitions:
            return  # every consumer follows every write; most of them keep what they have
        before = before or set()
        self.ledger.stop(consumer, self.now, before - partitions)
        self.ledger.start(consumer, sorted(partitions - before), self.now)
        self.consuming[consumer] = partitions

    def _write_assignments(self, assignments: Mapping[TopicPartition, str | None]) -> None:
        self.assignments = dict(assignments)
        for consumer in sorted(self.alive):  # the watch fires in every consumer
            self._follow(consumer)

    # -- the coordinator -----------------------------------------------------------------------------------

    def _check(self) -> None:
        self.timers.schedule("check", self.now + self.config.check_interval_ms, self._check)
        if not self.sd_up or not self.zk_up:
            return  # keep the current state and write nothing
        live = set(self.registered)
        if self.state == INITIAL:
            self.target = sticky_balanced(self.partitions, live, {})
            self._start_phase(self.target)
        elif self.state == STABLE:
            self._stable_check(live)
        elif self.state == CLOSING:
            closed = all(
                tp not in self.consuming.get(owner, set()) or owner not in live
                for owner, tp in self._pairs(self.to_close)
            )
            if closed:
                self._start_phase(self.target)
        elif self.state == STARTING:
            stranded = {c for c in self.to_start if c not in live}
            if stranded:  # a target was isolated: move its partitions among the live consumers
                current = {tp: (c if c in live else None) for tp, c in self.target.items()}
                self.target = sticky_balanced(self.partitions, live, current)
                self._start_phase(self.target)
            elif all(tp in self.consuming.get(c, set()) for c, tp in self._pairs(self.to_start)):
                self.state, self.to_start, self.to_close = STABLE, {}, {}
                self.stable_at.append(self.now)

    def _stable_check(self, live: set[str]) -> None:
        if self._owned_by().keys() == live:
            return  # nobody joined or left, and every partition has a live owner (None is never live)
        owners = dict(self.assignments)
        target = sticky_balanced(self.partitions, live, owners)
        if target == owners:
            return
        self.target = target
        self.move_times.append(self.now)
        to_close: dict[str, list[int]] = {}
        to_start: dict[str, list[int]] = {}
        for tp in self.partitions:
            old, new = owners.get(tp), target.get(tp)
            if old != new and old is not None:
                to_close.setdefault(old, []).append(tp.partition)
            if old != new and new is not None:
                to_start.setdefault(new, []).append(tp.partition)
        if to_close:
            self.state, self.to_close, self.to_start = CLOSING, to_close, to_start
            self._write_assignments(
                {tp: (None if old is not None and target.get(tp) != old else old) for tp, old in owners.items()}
            )
        else:
            self._start_phase(target)

    def _start_phase(self, target: Mapping[TopicPartition, str]) -> None:
        """Write the target; toStart is every partition whose written owner changes to its target."""
        previous = self.assignments
        self.to_start = {}
        for tp in self.partitions:
            if target.get(tp) is not None and previous.get(tp) != target[tp]:
                self.to_start.setdefault(target[tp], []).append(tp.partition)
        self.state, self.to_close = STARTING, {}
        self._write_assignments({tp: target.get(tp) for tp in self.partitions})

    def _pairs(self, by_consumer: Mapping[str, list[int]]) -> list[tuple[str, TopicPartition]]:
        topic = self.partitions[0].topic if self.partitions else ""
        return [(c, TopicPartition(topic, p)) for c, ps in by_consumer.items() for p in ps]

    def advance_to(self, instant: int) -> None:
        run_due(self.timers, instant, self)

    def gaps(self) -> dict[TopicPartition, list[Gap]]:
        return self.ledger.gaps(self.created)
