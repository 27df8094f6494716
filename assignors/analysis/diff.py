"""Compare two assignments: what moves, what each member loses and gains, balance and stickiness."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, compress, filterfalse, repeat
from operator import itemgetter, lt, ne
from typing import NamedTuple

from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition, sort_partitions


@dataclass(frozen=True, slots=True)
class MemberChange:
    member_id: str
    before: tuple[TopicPartition, ...]
    after: tuple[TopicPartition, ...]
    kept: tuple[TopicPartition, ...]
    revoked: tuple[TopicPartition, ...]
    gained: tuple[TopicPartition, ...]


class Move(NamedTuple):
    """A NamedTuple, not a dataclass: adding a member can move a million partitions, built in C."""

    tp: TopicPartition
    source: str | None  # None: nobody owned it before
    target: str | None  # None: nobody owns it after


@dataclass(frozen=True, slots=True)
class AssignmentDiff:
    members: tuple[MemberChange, ...]
    moves: tuple[Move, ...]

    @property
    def moved(self) -> int:
        """Partitions whose owner changed from one member to another (not newly created or dropped)."""
        # No move lacks both; counted by C over the columns, not by Python over a million moves.
        return (
            len(self.moves)
            - list(map(itemgetter(1), self.moves)).count(None)
            - list(map(itemgetter(2), self.moves)).count(None)
        )


def diff(old: Assignment, new: Assignment) -> AssignmentDiff:
    """Linear in the partitions: an Assignment holds each member's partitions in Kafka's order already,
    so filtering them keeps that order; only the partitions that moved are sorted."""
    names = list(old.owners) + [m for m in new.owners if m not in old.owners]
    if old.owners == new.owners:  # `check` compares the current assignment with itself: nothing moves
        return AssignmentDiff(
            tuple(
                MemberChange(n, old.partitions_of(n), old.partitions_of(n), old.partitions_of(n), (), ()) for n in names
            ),
            (),
        )
    changes = []
    for name in names:
        before_parts, after_parts = old.partitions_of(name), new.partitions_of(name)
        if before_parts == after_parts:
            changes.append(MemberChange(name, before_parts, after_parts, before_parts, (), ()))
            continue
        before, after = set(before_parts), set(after_parts)
        changes.append(
            MemberChange(
                name,
                before_parts,
                after_parts,
                tuple(filter(after.__contains__, before_parts)),
                tuple(filterfalse(after.__contains__, before_parts)),
                tuple(filterfalse(before.__contains__, after_parts)),
            )
        )
    old_owner, new_owner = _first_owner(old), _first_owner(new)
    changed = list(compress(old_owner, map(ne, map(new_owner.get, old_owner), old_owner.values())))
    changed += filterfalse(old_owner.__contains__, new_owner)
    changed = sort_partitions(changed)
    moves = map(tuple.__new__, repeat(Move), zip(changed, map(old_owner.get, changed), map(new_owner.get, changed)))
    return AssignmentDiff(tuple(changes), tuple(moves))


def shared_diff(old: Assignment, new: Assignment) -> AssignmentDiff:
    """`diff` for a share group, where a partition may have several holders (KIP-932).

    A partition moves relative to each holder: per partition, the members that stop holding it are paired
    with those that start (in member id order) as moves from one to the other; a holder left over with no
    partner is a share given up (`target` None) or a new share (`source` None). So `moved` counts holders
    replaced, and a partition that gains or loses a sharer while its other holders keep it is listed without
    being counted as moved.
    """
    names = list(old.owners) + [m for m in new.owners if m not in old.owners]
    changes = []
    for name in names:
        was_held, now_held = old.partitions_of(name), new.partitions_of(name)
        kept_set, had = set(now_held), set(was_held)
        changes.append(
            MemberChange(
                name,
                was_held,
                now_held,
                tuple(tp for tp in was_held if tp in kept_set),
                tuple(tp for tp in was_held if tp not in kept_set),
                tuple(tp for tp in now_held if tp not in had),
            )
        )
    members = tuple(changes)
    before, after = old.owner_map(), new.owner_map()
    moves: list[Move] = []
    for tp in sort_partitions(set(before) | set(after)):
        was, now = set(before.get(tp, ())), set(after.get(tp, ()))
        lost, gained = sorted(was - now), sorted(now - was)
        for i in range(max(len(lost), len(gained))):
            moves.append(Move(tp, lost[i] if i < len(lost) else None, gained[i] if i < len(gained) else None))
    return AssignmentDiff(members, tuple(moves))


def _first_owner(assignment: Assignment) -> dict[TopicPartition, str]:
    """Partition -> the first member (in the assignment's order) that holds it; later entries of a dict
    built from the reversed order win, so the first holder is the one kept."""
    owners = list(reversed(assignment.owners.items()))
    return dict(
        zip(
            chain.from_iterable(map(itemgetter(1), owners)),
            chain.from_iterable(map(repeat, map(itemgetter(0), owners), map(len, map(itemgetter(1), owners)))),
        )
    )


@dataclass(frozen=True, slots=True)
class Spread:
    minimum: int
    maximum: int

    @property
    def spread(self) -> int:
        return self.maximum - self.minimum


@dataclass(frozen=True, slots=True)
class Balance:
    counts: tuple[tuple[str, int], ...]  # member -> number of partitions, every member listed
    overall: Spread
    per_topic: tuple[tuple[str, Spread], ...]  # over the topic's subscribers
    kafka_balanced: bool
    kafka_unbalance: str | None  # why not, when not
    # Members with identical subscriptions, keyed by their (sorted) topics: where Kafka's balancing
    # assignors promise at most one partition's difference (AbstractStickyAssignor's
    # ConstrainedAssignmentBuilder; UniformHomogeneousAssignmentBuilder). Members subscribed to different
    # topics cannot always be balanced against each other, whatever the assignor.
    per_subscription: tuple[tuple[tuple[str, ...], Spread], ...] = ()


def _spread(values: list[int]) -> Spread:
    return Spread(min(values), max(values)) if values else Spread(0, 0)


def _kafka_balance_issue(members: Sequence[Member], assignment: Assignment) -> str | None:
    """Kafka's test rule (`AbstractStickyAssignorTest.verifyValidityAndBalance`): two members whose
    counts differ by more than one are acceptable only if the smaller is subscribed to none of the
    larger one's topics (no partition could move to it)."""
    counts = [(m.member_id, len(assignment.partitions_of(m.member_id))) for m in members]
    if not counts or max(c for _, c in counts) - min(c for _, c in counts) <= 1:
        return None  # no pair differs by two or more: balanced without looking at pairs
    if not _some_partition_could_move(members, assignment, dict(counts)):
        return None  # linear in the partitions held: the pairs below are looked at only to name one
    subs = {m.member_id: set(m.topics) for m in members}
    for i, (a, len_a) in enumerate(counts):
        for b, len_b in counts[i + 1 :]:
            if abs(len_a - len_b) <= 1:
                continue
            big, small = (a, b) if len_a > len_b else (b, a)
            movable = [tp for tp in assignment.partitions_of(big) if tp.topic in subs[small]]
            if movable:
                return (
                    f"{big} has {max(len_a, len_b)} partitions and {small} has {min(len_a, len_b)}, "
                    f"but {small} subscribes to {movable[0].topic}"
                )
    return None


def _some_partition_could_move(members: Sequence[Member], assignment: Assignment, counts: dict[str, int]) -> bool:
    """Whether some member holds a partition of a topic that a member with two or more fewer subscribes to:
    per topic, the largest count among its holders, against each subscriber's count."""
    largest: dict[str, int] = {}
    for member in sorted(members, key=lambda m: counts[m.member_id]):  # ascending: the last write is the largest
        largest.update(
            dict.fromkeys(map(itemgetter(0), assignment.partitions_of(member.member_id)), counts[member.member_id])
        )
    # Per distinct subscription (a large group has few), the largest holder of any of its topics.
    reach = {topics: max(map(largest.get, topics, repeat(-1)), default=-1) for topics in {m.topics for m in members}}
    return any(reach[m.topics] >= counts[m.member_id] + 2 for m in members)


def balance(cluster: Cluster, members: Sequence[Member], assignment: Assignment) -> Balance:
    counts = tuple((m.member_id, len(assignment.partitions_of(m.member_id))) for m in members)
    per_member_topic = {
        m.member_id: Counter(map(itemgetter(0), assignment.partitions_of(m.member_id))) for m in members
    }
    # Per topic, over its subscribers: linear in the partitions held, not members x topics. A subscriber
    # holding none of a topic's partitions makes the minimum 0.
    subscribers: Counter[str] = Counter()
    for topics, count in Counter(frozenset(m.topics) for m in members).items():
        for topic_name in topics:
            subscribers[topic_name] += count
    low: dict[str, int] = {}
    high: dict[str, int] = {}
    holding: Counter[str] = Counter()
    for m in members:
        subscribed = set(m.topics)
        for topic_name, count in per_member_topic[m.member_id].items():
            if topic_name in subscribed:
                holding[topic_name] += 1
                low[topic_name] = min(low.get(topic_name, count), count)
                high[topic_name] = max(high.get(topic_name, count), count)
    per_topic = []
    for topic in cluster.topics:
        total = subscribers[topic.name]
        if total:
            per_topic.append(
                (topic.name, Spread(low[topic.name] if holding[topic.name] == total else 0, high.get(topic.name, 0)))
            )
    issue = _kafka_balance_issue(members, assignment)
    by_subscription: dict[tuple[str, ...], list[int]] = {}
    for member, count in zip(members, (c for _, c in counts)):
        by_subscription.setdefault(tuple(sorted(set(member.topics))), []).append(count)
    per_subscription = tuple((topics, _spread(values)) for topics, values in by_subscription.items())
    return Balance(counts, _spread([c for _, c in counts]), tuple(per_topic), issue is None, issue, per_subscription)


@dataclass(frozen=True, slots=True)
class Stickiness:
    kept: int
    keepable: int  # partitions owned before by a member that is still in the group, still existing

    @property
    def ratio(self) -> float | None:
        return self.kept / self.keepable if self.keepable else None


def stickiness(cluster: Cluster, members: Sequence[Member], old: Assignment, new: Assignment) -> Stickiness:
    """Share of the partitions that surviving members owned before and still own after."""
    kept = keepable = 0
    sizes = {t.name: t.partitions for t in cluster.topics}
    for member in members:
        parts = old.partitions_of(member.member_id)
        # Still existing: by C iterators over the columns, no Python step per partition.
        before = list(
            compress(parts, map(lt, map(itemgetter(1), parts), map(sizes.get, map(itemgetter(0), parts), repeat(0))))
        )
        keepable += len(before)
        after_parts = new.partitions_of(member.member_id)
        kept += len(before) if parts == after_parts else sum(map(set(after_parts).__contains__, before))
    return Stickiness(kept, keepable)
