"""Real consumers in one group on one topic: a `real_consumers.Group` (librdkafka's or Java's) with one subscription.

Each consumer records its rebalance callbacks (see real_consumers); the group is settled when the
members' holdings cover the topic exactly once, every member has had an assignment callback since the
last change of membership, and nothing moves for a quiet spell.
"""

from __future__ import annotations

from typing import Any

from tests.live.real_consumers import Group, Member


class RealGroup:
    """`consumers` (either client) where every member subscribes `topic`."""

    def __init__(self, consumers: Group, topic: str) -> None:
        self.consumers, self.topic = consumers, topic

    def join(self, name: str) -> Member:
        return self.consumers.join(name, (self.topic,))

    def __getattr__(self, name: str) -> Any:  # group, members, leave, settle, callbacks, member_ids, close
        return getattr(self.consumers, name)
