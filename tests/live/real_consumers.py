"""Real confluent-kafka consumers with their own subscriptions and group.instance.ids, and what each holds.

Each member subscribes to its own topics and may be static, which the live what-if matrix needs. The
group is settled when every partition of a subscribed topic is held by exactly one member, every member
has had an assignment callback since the last change of membership, and nothing has moved for a quiet
spell (a cooperative rebalance's second round would move something).

`Group` is what both clients share (the settle rule, the members' holdings); `Consumers` runs librdkafka's
consumers in this process, `tests.live.java_consumers.JavaConsumers` runs Kafka's Java consumers in a JVM.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer

SETTINGS = {
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 500,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
}
QUIET_S = 2.0

Partition = tuple[str, int]


@dataclass
class Member:
    """One consumer's holdings as its callbacks reported them. `held` is replaced, never changed in place,
    so another thread may read it while a callback runs."""

    name: str
    topics: tuple[str, ...]
    instance_id: str | None
    consumer: Any = None  # librdkafka's Consumer; None for a Java consumer (it lives in the driver's JVM)
    held: frozenset[Partition] = frozenset()
    callbacks: int = 0
    last_change: float = field(default_factory=time.monotonic)
    member_id: str = ""  # as the Java driver reports it; librdkafka's is read from the consumer
    # The generations whose SyncGroup gave this member its assignment, as the Java driver reports them
    # (onPartitionsAssigned runs after every rebalance it completes); librdkafka does not tell them.
    generations: frozenset[int] = frozenset()

    def assigned(self, partitions: set[Partition]) -> None:
        self.held = self.held | partitions
        self.callbacks += 1
        self.last_change = time.monotonic()

    def revoked(self, partitions: set[Partition]) -> None:
        self.held = self.held - partitions
        self.last_change = time.monotonic()

    def on_assign(self, _consumer: Consumer, partitions: list) -> None:
        self.assigned({(tp.topic, tp.partition) for tp in partitions})

    def on_revoke(self, _consumer: Consumer, partitions: list) -> None:
        self.revoked({(tp.topic, tp.partition) for tp in partitions})


class Group:
    """The members of one consumer group and the settle rule; a client's subclass joins, leaves and pumps."""

    client = ""

    def __init__(self, broker: str, group: str, partitions: dict[str, int], strategy: str) -> None:
        self.broker, self.group, self.partitions, self.strategy = broker, group, partitions, strategy
        self.members: dict[str, Member] = {}

    def join(
        self, name: str, topics: tuple[str, ...], instance_id: str | None = None, client_id: str | None = None
    ) -> Member:
        """Start consumer `name` (its client.id `client_id`, else `name`)."""
        raise NotImplementedError

    def leave(self, name: str) -> None:
        raise NotImplementedError

    def member_ids(self) -> dict[str, str]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _pump(self) -> None:
        """Let callbacks run for a moment."""
        time.sleep(0.05)

    def _problem(self) -> str | None:
        """Why the group cannot settle any more (a consumer failed), or None."""
        return None

    def callbacks(self) -> dict[str, int]:
        return {name: m.callbacks for name, m in self.members.items()}

    def generations(self) -> dict[str, frozenset[int]]:
        return {name: m.generations for name, m in self.members.items()}

    def missed(self, before: dict[str, frozenset[int]]) -> dict[str, list[int]]:
        """Per member, the rebalances since `before` (`generations()`) that the others completed and it did
        not: its SyncGroup came after the leader had already rejoined for the next one, so the broker
        answered REBALANCE_IN_PROGRESS (AbstractCoordinator.SyncGroupResponseHandler) and it rejoined with
        what it held a generation earlier. Only the Java driver reports generations; empty for librdkafka."""
        new = {name: m.generations - before.get(name, frozenset()) for name, m in self.members.items()}
        completed = frozenset().union(*new.values())
        missed = {}
        for name, got in new.items():
            if name not in before and not got:
                continue
            expected = completed if name in before else {g for g in completed if g >= min(got)}
            if expected - got:
                missed[name] = sorted(expected - got)
        return missed

    def settle(self, since: dict[str, int], timeout_s: float = 90) -> dict[str, set[Partition]]:
        wanted = sorted(
            (t, p) for t in {t for m in self.members.values() for t in m.topics} for p in range(self.partitions[t])
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self._pump()
            problem = self._problem()
            if problem:
                raise AssertionError(f"a {self.client} consumer failed: {problem}")
            members = list(self.members.values())
            held = sorted(p for m in members for p in m.held)
            answered = all(m.callbacks > since.get(m.name, 0) for m in members)
            quiet = time.monotonic() - max(m.last_change for m in members) >= QUIET_S
            if held == wanted and answered and quiet:
                return {m.name: set(m.held) for m in members}
        raise AssertionError(
            f"the {self.client} group never settled in {timeout_s:.0f} s: "
            f"{ ({n: sorted(m.held) for n, m in self.members.items()}) }"
        )


class Consumers(Group):
    """confluent-kafka consumers in this process; their callbacks run inside `poll`."""

    client = "librdkafka"

    def join(
        self,
        name: str,
        topics: tuple[str, ...],
        instance_id: str | None = None,
        client_id: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Member:
        config = {
            "bootstrap.servers": self.broker,
            "group.id": self.group,
            "client.id": client_id or name,
            "partition.assignment.strategy": self.strategy,
            **SETTINGS,
            **(extra or {}),
        }
        if instance_id:
            config["group.instance.id"] = instance_id
        member = Member(name, topics, instance_id, Consumer(config))
        member.consumer.subscribe(
            list(topics), on_assign=member.on_assign, on_revoke=member.on_revoke, on_lost=member.on_revoke
        )
        self.members[name] = member
        return member

    def leave(self, name: str) -> None:
        self.members.pop(name).consumer.close()  # a dynamic member's close sends LeaveGroup

    def _pump(self) -> None:
        for member in self.members.values():
            member.consumer.poll(0.05)

    def member_ids(self) -> dict[str, str]:
        return {name: m.consumer.memberid() for name, m in self.members.items()}

    def close(self) -> None:
        for member in self.members.values():
            member.consumer.close()
        self.members.clear()
