"""Real confluent-kafka consumers in one group, driven from the test's thread, with what each was given.

Each consumer records its rebalance callbacks: on_assign adds what it was given (all of it under an eager
assignor, the increment under cooperative-sticky), on_revoke and on_lost take partitions away. The
group is settled when the members' holdings cover the topic exactly once, every member has had an
assignment callback since the last change of membership, and nothing moves for a quiet spell of four
heartbeat intervals (a cooperative rebalance's second round would move something within it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from confluent_kafka import Consumer

# broker.md §3.3: session 6 s and heartbeats every 0.5 s keep Tansu's joins near 3 s.
SETTINGS = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 500, "enable.auto.commit": False,
            "auto.offset.reset": "earliest"}
QUIET_S = 2.0


@dataclass
class RealMember:
    name: str
    consumer: Consumer
    held: set[tuple[str, int]] = field(default_factory=set)
    callbacks: int = 0  # assignment callbacks so far
    last_change: float = field(default_factory=time.monotonic)

    def on_assign(self, _consumer: Consumer, partitions: list) -> None:
        self.held |= {(tp.topic, tp.partition) for tp in partitions}
        self.callbacks += 1
        self.last_change = time.monotonic()

    def on_revoke(self, _consumer: Consumer, partitions: list) -> None:
        self.held -= {(tp.topic, tp.partition) for tp in partitions}
        self.last_change = time.monotonic()


class RealGroup:
    def __init__(self, broker: str, group: str, topic: str, partitions: int, strategy: str) -> None:
        self.broker, self.group, self.topic, self.partitions, self.strategy = broker, group, topic, partitions, strategy
        self.members: dict[str, RealMember] = {}

    def join(self, name: str) -> RealMember:
        consumer = Consumer({"bootstrap.servers": self.broker, "group.id": self.group, "client.id": name,
                             "partition.assignment.strategy": self.strategy, **SETTINGS})
        member = RealMember(name, consumer)
        consumer.subscribe([self.topic], on_assign=member.on_assign, on_revoke=member.on_revoke,
                           on_lost=member.on_revoke)
        self.members[name] = member
        return member

    def leave(self, name: str) -> None:
        self.members.pop(name).consumer.close()  # a graceful close sends LeaveGroup

    def settle(self, since_callbacks: dict[str, int], timeout_s: float = 60) -> dict[str, set[tuple[str, int]]]:
        """Poll every member until the group is settled (see the module docstring); what each holds."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for member in self.members.values():
                member.consumer.poll(0.05)
            held = [m.held for m in self.members.values()]
            complete = sorted(p for h in held for p in h) == [(self.topic, p) for p in range(self.partitions)]
            answered = all(m.callbacks > since_callbacks.get(name, 0) for name, m in self.members.items())
            quiet = time.monotonic() - max(m.last_change for m in self.members.values()) >= QUIET_S
            if complete and answered and quiet:
                return {name: set(m.held) for name, m in self.members.items()}
        raise AssertionError(f"the group never settled: {({n: sorted(m.held) for n, m in self.members.items()})}")

    def callbacks(self) -> dict[str, int]:
        return {name: m.callbacks for name, m in self.members.items()}

    def member_ids(self) -> dict[str, str]:
        return {name: m.consumer.memberid() for name, m in self.members.items()}

    def close(self) -> None:
        for member in self.members.values():
            member.consumer.close()
        self.members.clear()
