"""Real confluent-kafka consumers in one group on one topic: `real_consumers.Consumers` with one subscription.

Each consumer records its rebalance callbacks (see real_consumers); the group is settled when the
members' holdings cover the topic exactly once, every member has had an assignment callback since the
last change of membership, and nothing moves for a quiet spell.
"""

from __future__ import annotations

from tests.live.real_consumers import Consumers, Member


class RealGroup(Consumers):
    def __init__(self, broker: str, group: str, topic: str, partitions: int, strategy: str) -> None:
        super().__init__(broker, group, {topic: partitions}, strategy)
        self.topic = topic

    def join(self, name: str) -> Member:  # type: ignore[override]
        return super().join(name, (self.topic,))
