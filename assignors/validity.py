"""One validity checker for every assignor's output (built-in, user, or read from a fixture)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain, repeat
from operator import itemgetter, lt
from dataclasses import dataclass

from kgroup.assignors.model import Assignment, Cluster, Member


@dataclass(frozen=True, slots=True)
class Violation:
    rule: str  # unknown-member | not-subscribed | missing-partition | unassigned | duplicate
    detail: str


def check_validity(
    cluster: Cluster,
    members: Sequence[Member],
    assignment: Assignment,
    allow_unassigned: bool = False,
    allow_shared: bool = False,
) -> list[Violation]:
    """Each subscribed existing partition exactly once, and only to a member subscribed to its topic.

    Kafka's tests check the same (`AbstractStickyAssignorTest.verifyValidityAndBalance`).
    `allow_unassigned` admits partitions withheld for a later round (cooperative protocols). `allow_shared`
    admits a partition held by several members: a share group's (KIP-932 `SimpleAssignor` aims for
    ceil(members / partitions) holders per partition).
    """
    violations: list[Violation] = []
    by_id = {m.member_id: m for m in members}
    topic_sets = {topics: set(topics) for topics in set(m.topics for m in members)}  # a large group shares a few
    subscriptions = {m.member_id: topic_sets[m.topics] for m in members}
    sizes = {t.name: t.partitions for t in cluster.topics}
    for member_id, parts in assignment.owners.items():
        if member_id not in by_id:
            if parts:
                violations.append(
                    Violation(
                        "unknown-member", f"{member_id} is not a member of the group but got {len(parts)} partitions"
                    )
                )
            continue
        subscribed_to = subscriptions[member_id]
        numbers = list(map(itemgetter(1), parts))
        if not parts or (
            subscribed_to.issuperset(map(itemgetter(0), parts))
            and min(numbers) >= 0
            and all(map(lt, numbers, map(sizes.get, map(itemgetter(0), parts), repeat(0))))
        ):
            continue  # every partition exists and is subscribed: checked by C iterators, no Python per partition
        # The messages are built only for the few that are wrong.
        for tp in [
            tp for tp in parts if not (tp.topic in subscribed_to and 0 <= tp.partition < sizes.get(tp.topic, 0))
        ]:
            if not cluster.exists(tp):
                violations.append(Violation("missing-partition", f"{member_id} got {tp}, which does not exist"))
            elif tp.topic not in subscribed_to:
                violations.append(
                    Violation("not-subscribed", f"{member_id} got {tp} but is not subscribed to {tp.topic}")
                )
    every = set(chain.from_iterable(assignment.owners.values()))
    if not allow_shared and len(every) < sum(map(len, assignment.owners.values())):  # held twice
        for tp, holders in assignment.owner_map().items():
            if len(holders) > 1:
                violations.append(
                    Violation("duplicate", f"{tp} is assigned to {len(holders)} members: {', '.join(holders)}")
                )
    if not allow_unassigned:
        subscribed = set().union(*subscriptions.values()) if subscriptions else set()
        if not violations and len(every) == sum(size for name, size in sizes.items() if name in subscribed):
            # Each partition held exists, is subscribed and is held once, and there are as many as there
            # are subscribed partitions: every one is held. No count per topic needed.
            return violations
        held = Counter(map(itemgetter(0), every))
        nonexistent = any(v.rule == "missing-partition" for v in violations)
        for topic in cluster.topics:
            if topic.name not in subscribed or (held[topic.name] == topic.partitions and not nonexistent):
                continue  # all held, each once, and none held is out of range: nothing is missing
            missing = [p for p in range(topic.partitions) if (topic.name, p) not in every]
            if missing:
                shown = ", ".join(f"{topic.name}-{p}" for p in missing[:5]) + (" ..." if len(missing) > 5 else "")
                noun = "partition" if len(missing) == 1 else "partitions"
                violations.append(
                    Violation("unassigned", f"no owner for {len(missing)} {noun} of {topic.name}: {shown}")
                )
    return violations
