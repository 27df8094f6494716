"""What a classic simulation keeps for its reports: the event log and one record per rebalance."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgroup.assignors.model import TopicPartition


@dataclass(slots=True)
class LogEntry:
    at_ms: int
    kind: str
    member: str | None
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class RebalanceRecord:
    """One join phase, from PreparingRebalance until the group is Stable or Empty again."""

    index: int
    start: int
    trigger: str
    members_before: tuple[str, ...]
    end: int | None = None
    outcome: str | None = None
    generation: int | None = None
    leader: str | None = None
    assignor: str | None = None
    members_after: tuple[str, ...] = ()
    revoked: dict[str, list[TopicPartition]] = field(default_factory=dict)
    lost: dict[str, list[TopicPartition]] = field(default_factory=dict)
    assigned: dict[str, list[TopicPartition]] = field(default_factory=dict)

    @property
    def joined(self) -> tuple[str, ...]:
        before = set(self.members_before)  # a set: a thousand-member group would compare every pair
        return tuple(m for m in self.members_after if m not in before)

    @property
    def left(self) -> tuple[str, ...]:
        if self.end is None:
            return ()  # still running: nobody has been dropped yet
        after = set(self.members_after)
        return tuple(m for m in self.members_before if m not in after)
