"""Real confluent-kafka consumers with their own subscriptions and group.instance.ids, and what each holds.

Like real_group.RealGroup, but each member subscribes to its own topics and may be static, which the
live what-if matrix needs. The group is settled when every partition of a subscribed topic is held by
exactly one member, every member has had an assignment callback since the last change of membership,
and nothing has moved for a quiet spell (a cooperative rebalance's second round would move something).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from confluent_kafka import Consumer

SETTINGS = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 500, "enable.auto.commit": False,
            "auto.offset.reset": "earliest"}
QUIET_S = 2.0
# broker.md: noida-db does not finish a cooperative rebalance when the leader rejoins at once for the
# follow-up round; a short pause in the revoke callback lets it (measured by the session that found it).
COOPERATIVE_REVOKE_PAUSE_S = 0.3


@dataclass
class Member:
    name: str
    consumer: Consumer
    topics: tuple[str, ...]
    instance_id: str | None
    pause_s: float
    held: set[tuple[str, int]] = field(default_factory=set)
    callbacks: int = 0
    last_change: float = field(default_factory=time.monotonic)

    def on_assign(self, _consumer: Consumer, partitions: list) -> None:
        self.held |= {(tp.topic, tp.partition) for tp in partitions}
        self.callbacks += 1
        self.last_change = time.monotonic()

    def on_revoke(self, _consumer: Consumer, partitions: list) -> None:
        self.held -= {(tp.topic, tp.partition) for tp in partitions}
        self.last_change = time.monotonic()
        if self.pause_s and partitions:
            time.sleep(self.pause_s)


class Consumers:
    def __init__(self, broker: str, group: str, partitions: dict[str, int], strategy: str) -> None:
        self.broker, self.group, self.partitions, self.strategy = broker, group, partitions, strategy
        self.members: dict[str, Member] = {}

    def join(self, name: str, topics: tuple[str, ...], instance_id: str | None = None) -> Member:
        config = {"bootstrap.servers": self.broker, "group.id": self.group, "client.id": name,
                  "partition.assignment.strategy": self.strategy, **SETTINGS}
        if instance_id:
            config["group.instance.id"] = instance_id
        pause = COOPERATIVE_REVOKE_PAUSE_S if self.strategy == "cooperative-sticky" else 0.0
        member = Member(name, Consumer(config), topics, instance_id, pause)
        member.consumer.subscribe(list(topics), on_assign=member.on_assign, on_revoke=member.on_revoke,
                                  on_lost=member.on_revoke)
        self.members[name] = member
        return member

    def leave(self, name: str) -> None:
        self.members.pop(name).consumer.close()  # a dynamic member's close sends LeaveGroup

    def callbacks(self) -> dict[str, int]:
        return {name: m.callbacks for name, m in self.members.items()}

    def settle(self, since: dict[str, int], timeout_s: float = 90) -> dict[str, set[tuple[str, int]]]:
        wanted = sorted((t, p) for t in {t for m in self.members.values() for t in m.topics}
                        for p in range(self.partitions[t]))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for member in self.members.values():
                member.consumer.poll(0.05)
            held = sorted(p for m in self.members.values() for p in m.held)
            answered = all(m.callbacks > since.get(name, 0) for name, m in self.members.items())
            quiet = time.monotonic() - max(m.last_change for m in self.members.values()) >= QUIET_S
            if held == wanted and answered and quiet:
                return {name: set(m.held) for name, m in self.members.items()}
        raise AssertionError(f"the group never settled: {({n: sorted(m.held) for n, m in self.members.items()})}")

    def member_ids(self) -> dict[str, str]:
        return {name: m.consumer.memberid() for name, m in self.members.items()}

    def close(self) -> None:
        for member in self.members.values():
            member.consumer.close()
        self.members.clear()
