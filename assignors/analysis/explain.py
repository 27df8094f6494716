"""Which partitions to explain, and each one's steps from the assignor's own trace.

The steps come from `kgroup.assignors.trace`, recorded by the assignor while it ran; nothing here
re-derives a decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kgroup.assignors.model import Assignment, TopicPartition
from kgroup.assignors.trace import Step, Trace


@dataclass(frozen=True)
class Explanation:
    """Why `tp` went from `before` to `after` (either None: nobody), in the assignor's recorded steps."""

    tp: TopicPartition
    before: str | None
    after: str | None
    steps: tuple[Step, ...]
    context: dict[int, dict[str, Any]]  # round -> inputs every step of that round read


def moved(current: Assignment, result: Assignment) -> list[TopicPartition]:
    """Partitions whose owner differs between the two assignments (gained, lost or changed)."""
    old = {tp: holders[0] for tp, holders in current.owner_map().items()}
    new = {tp: holders[0] for tp, holders in result.owner_map().items()}
    return sorted(tp for tp in set(old) | set(new) if old.get(tp) != new.get(tp))


def explain(
    trace: Trace, current: Assignment, result: Assignment, partitions: Iterable[TopicPartition] | None = None
) -> list[Explanation]:
    """One explanation per partition asked for (default: every partition that moved)."""
    chosen = moved(current, result) if partitions is None else list(partitions)
    old = {tp: holders[0] for tp, holders in current.owner_map().items()}
    new = {tp: holders[0] for tp, holders in result.owner_map().items()}
    by_partition: dict[TopicPartition, list[Step]] = {}
    wanted = set(chosen)
    for step in trace.steps:
        if step.partition in wanted:
            by_partition.setdefault(step.partition, []).append(step)
    return [Explanation(tp, old.get(tp), new.get(tp), tuple(by_partition.get(tp, ())), trace.context) for tp in chosen]
