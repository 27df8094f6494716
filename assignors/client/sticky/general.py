"""The sticky assignors' path for groups whose members subscribe to different topics.

Kafka: `AbstractStickyAssignor.GeneralAssignmentBuilder` (3.6+). Kept partitions stay; the rest go one
by one to the least-loaded subscriber; then partitions move from members holding two or more above
another subscriber, back to a previous owner where possible, and the whole balancing is undone if it
did not lower the balance score.

One liberty with the letter of Kafka's code, not its output: Kafka places each unassigned partition
with a walk of its sorted member set. Within one topic the member that receives the next partition is
always the least loaded subscriber, ties to the lower member id, so a topic's partitions can be dealt
in one batch ("water filling") with the same result. The rack-aware pass keeps the per-partition walk.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import deque
from collections.abc import Iterator
from itertools import groupby

from kgroup.assignors.base import AssignorError, topic_partitions
from kgroup.assignors.java.hash_order import JavaHashSet, topic_partition_hash
from kgroup.assignors.java.semantics import java_string_key
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.client.sticky.inputs import DEFAULT_GENERATION, StickyInput, kept_subtracted, second_holder
from kgroup.assignors.trace import (
    BALANCE_MOVE,
    BALANCE_UNDONE,
    KEPT,
    LEAST_LOADED,
    NOT_SUBSCRIBED,
    RACK_MISMATCH,
    active,
)

Entry = tuple[int, bytes, str]  # (assignment size, Java sort key of the member id, member id)


class _SortedMembers:
    """Kafka's `sortedCurrentSubscriptions`: a TreeSet of members by (assignment size, member id)."""

    def __init__(self, sizes_of: dict[str, list[TopicPartition]], keys: dict[str, bytes]) -> None:
        self._lists = sizes_of
        self._keys = keys
        self._entries: list[Entry] = []
        self._entry_of: dict[str, Entry] = {}

    def rebuild(self, members: list[str]) -> None:
        lists, keys = self._lists, self._keys
        self._entry_of = {m: (len(lists[m]), keys[m], m) for m in members}
        self._entries = sorted(self._entry_of.values())

    def add(self, member: str) -> None:
        entry = (len(self._lists[member]), self._keys[member], member)
        self._entry_of[member] = entry
        insort(self._entries, entry)

    def remove(self, member: str) -> None:
        entry = self._entry_of.pop(member, None)
        if entry is not None:
            del self._entries[bisect_left(self._entries, entry)]

    def first(self) -> str:
        return self._entries[0][2]

    def last(self) -> str:
        return self._entries[-1][2]

    def __iter__(self) -> Iterator[str]:
        """Members in order, over a snapshot: callers may move members while they walk."""
        return (entry[2] for entry in list(self._entries))


class _PartitionMovements:
    """Kafka: `AbstractStickyAssignor.PartitionMovements`: where partitions moved during one build."""

    def __init__(self) -> None:
        self._by_topic: dict[str, dict[tuple[str, str], JavaHashSet[TopicPartition]]] = {}
        self._moves: dict[TopicPartition, tuple[str, str]] = {}

    def _remove_record(self, tp: TopicPartition) -> tuple[str, str]:
        pair = self._moves.pop(tp)
        pairs = self._by_topic[tp.topic]
        pairs[pair].discard(tp)
        if not len(pairs[pair]):
            del pairs[pair]
        if not pairs:
            del self._by_topic[tp.topic]
        return pair

    def _add_record(self, tp: TopicPartition, pair: tuple[str, str]) -> None:
        self._moves[tp] = pair
        pairs = self._by_topic.setdefault(tp.topic, {})
        pairs.setdefault(pair, JavaHashSet()).add(tp, topic_partition_hash(tp.topic, tp.partition))

    def move(self, tp: TopicPartition, old: str, new: str) -> None:
        """Kafka: `movePartition`: a move back to where the partition started cancels the record."""
        if tp in self._moves:
            src, _ = self._remove_record(tp)
            if src != new:
                self._add_record(tp, (src, new))
        else:
            self._add_record(tp, (old, new))

    def partition_to_move(self, tp: TopicPartition, old: str, new: str) -> TopicPartition:
        """Kafka: `getTheActualPartitionToBeMoved`: undo an earlier opposite move of the same topic instead."""
        pairs = self._by_topic.get(tp.topic)
        if pairs is None:
            return tp
        if tp in self._moves:
            old = self._moves[tp][0]
        reverse = pairs.get((new, old))
        return tp if reverse is None else reverse.first()


class GeneralBuilder:
    """Kafka: `GeneralAssignmentBuilder.build`."""

    def __init__(self, given: StickyInput) -> None:
        self.given = given
        self.racks = given.racks
        self.per_topic = given.partitions_per_topic
        self.total = sum(self.per_topic.values())
        self.consumers_of: dict[str, list[str]] = {t: [] for t in self.per_topic}  # topic2AllPotentialConsumers
        self.topics_of: dict[str, list[str]] = {}  # consumer2AllPotentialTopics
        for member_id, member in given.members.items():
            subscribed = [t for t in member.topics if t in self.per_topic]
            self.topics_of[member_id] = subscribed
            for topic in subscribed:
                self.consumers_of[topic].append(member_id)
        self.topic_sets = {m: frozenset(ts) for m, ts in self.topics_of.items()}
        self.current: dict[str, list[TopicPartition]] = given.owned  # currentAssignment
        self.owner: dict[TopicPartition, str] = {tp: m for m, parts in self.current.items() for tp in parts}
        self.keys = {m: java_string_key(m) for m in given.members}
        topic_order = sorted(self.per_topic, key=lambda t: (len(self.consumers_of[t]), java_string_key(t)))
        self.sorted_all: list[TopicPartition] = []
        for topic in topic_order:
            self.sorted_all += topic_partitions(topic, self.per_topic[topic])
        self.subs = _SortedMembers(self.current, self.keys)
        self.revocation_required = False
        self.two_holders = False  # a kept partition was handed out again (see inputs.kept_subtracted)
        self.movements = _PartitionMovements()
        self.trace = active()
        self.moves = 0  # balancing moves so far, numbered for the trace
        if self.trace is not None:
            self.trace.note(path="general")

    def build(self) -> dict[str, list[TopicPartition]]:
        prev = self._previous_owners()
        assigned = self._keep_owned()
        unassigned = self.sorted_all
        if assigned:  # Kafka: GeneralAssignmentBuilder.getUnassignedPartitions, ordered by PartitionComparator
            consumers_of = self.consumers_of
            unassigned, self.two_holders = kept_subtracted(
                self.sorted_all,
                assigned,
                lambda tp: (len(consumers_of[tp.topic]), java_string_key(tp.topic), tp.partition),
            )
        self.subs.rebuild(list(self.current))
        self._balance(prev, unassigned)
        return self.current

    def _previous_owners(self) -> dict[TopicPartition, tuple[str, int]]:
        """Kafka: `prepopulateCurrentAssignments`: claims of members older than the newest generation."""
        newest = self.given.max_generation
        prev: dict[TopicPartition, tuple[str, int]] = {}
        for member_id, data in self.given.data.items():
            if data.generation is not None and data.generation < newest:
                generation = data.generation
            elif data.generation is None and newest > DEFAULT_GENERATION:
                generation = DEFAULT_GENERATION
            else:
                continue
            for tp in data.partitions:
                seen = prev.get(tp)
                if seen is None or generation > seen[1]:
                    prev[tp] = (member_id, generation)
        return prev

    def _keep_owned(self) -> list[TopicPartition]:
        """Kafka: `assignOwnedPartitions`: drop what a member no longer subscribes to (or off-rack)."""
        assigned: list[TopicPartition] = []
        racks = self.racks
        rack_aware = racks.enabled
        topic_sets: dict[tuple[str, ...], frozenset[str]] = {}
        for member_id, parts in self.current.items():
            topics = self.given.members[member_id].topics
            raw_topics = topic_sets.get(topics)
            if raw_topics is None:
                raw_topics = topic_sets[topics] = frozenset(topics)
            keep = []
            trace = self.trace
            for tp in parts:
                if tp.topic not in raw_topics or (rack_aware and racks.mismatch(member_id, tp)):
                    # The partition must be revoked first; Kafka leaves its owner entry in place.
                    self.revocation_required = True
                    if trace is not None:
                        if tp.topic not in raw_topics:
                            trace.record(tp, None, NOT_SUBSCRIBED, member=member_id, topics=list(topics))
                        else:
                            trace.record(tp, None, RACK_MISMATCH, **racks.mismatch_facts(member_id, tp))
                else:
                    keep.append(tp)
                    if trace is not None:
                        trace.record(
                            tp, member_id, KEPT, member=member_id, generation=self.given.data[member_id].generation
                        )
            if len(keep) != len(parts):
                parts[:] = keep
            assigned += keep
        return assigned

    # -- placing unassigned partitions -------------------------------------------------------------

    def _place_with_racks(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        """Kafka: `maybeAssign(..., rackInfo, true)`: only to members on one of the partition's racks."""
        left = []
        for tp in partitions:
            if not self.consumers_of[tp.topic] or not self._place_one(tp, with_racks=True):
                left.append(tp)
        return left

    def _place_one(self, tp: TopicPartition, with_racks: bool) -> bool:
        """Kafka: `maybeAssignPartition`: the first member in (size, id) order that may take tp."""
        for member in self.subs:
            if tp.topic in self.topic_sets[member] and not (with_racks and self.racks.mismatch(member, tp)):
                if self.trace is not None:
                    self.trace.record(
                        tp,
                        member,
                        LEAST_LOADED,
                        held_before=len(self.current[member]),
                        loads=self._loads(self.consumers_of[tp.topic]),
                        rack_pass=with_racks,
                        rack=self.racks.consumer_racks.get(member) if with_racks else None,
                        replica_racks=sorted(self.racks.partition_racks.get(tp, ())) if with_racks else None,
                        tie_break="member id",
                        **self._second_holder(tp),
                    )
                self.subs.remove(member)
                self.current[member].append(tp)
                self.owner[tp] = member
                self.subs.add(member)
                return True
        return False

    def _place_by_topic(self, partitions: list[TopicPartition]) -> None:
        """Kafka: `maybeAssign(..., null, false)`, one topic's run of partitions at a time."""
        current, keys = self.current, self.keys
        for topic, run in groupby(partitions, key=lambda tp: tp.topic):
            eligible = self.consumers_of[topic]
            if not eligible:
                continue
            parts = list(run)
            ranked = sorted((len(current[m]), keys[m], m) for m in set(eligible))
            receivers = _water_fill(ranked, len(parts))
            if self.trace is not None:
                self._record_water_fill(parts, receivers, ranked)
            deque(map(list.append, [current[m] for m in receivers], parts), maxlen=0)
            self.owner.update(zip(parts, receivers))
        self.subs.rebuild(list(current))

    def _loads(self, members: list[str]) -> dict[str, int]:
        return {m: len(self.current[m]) for m in sorted(set(members), key=self.keys.__getitem__)}

    def _record_water_fill(self, parts: list[TopicPartition], receivers: list[str], ranked: list[Entry]) -> None:
        """Each partition went to the least loaded subscriber at that moment, ties to the lower member id."""
        loads = {m: size for size, _, m in ranked}
        for tp, member in zip(parts, receivers):
            self.trace.record(  # type: ignore[union-attr]
                tp,
                member,
                LEAST_LOADED,
                held_before=loads[member],
                loads=dict(loads),
                tie_break="member id",
                **self._second_holder(tp),
            )
            loads[member] += 1

    def _second_holder(self, tp: TopicPartition) -> dict[str, str]:
        return second_holder(tp, self.owner.get(tp) if self.two_holders else None, self.current)

    # -- balancing -------------------------------------------------------------------------------

    def _balance(self, prev: dict[TopicPartition, tuple[str, int]], unassigned: list[TopicPartition]) -> None:
        """Kafka: `balance`."""
        initializing = not self.current[self.subs.last()]
        to_place = unassigned
        if self.racks.enabled:
            to_place = self._place_with_racks(list(unassigned))
        self._place_by_topic(to_place)

        fixed_topics = {t for t, consumers in self.consumers_of.items() if len(consumers) < 2}
        if fixed_topics:
            self.sorted_all = [tp for tp in self.sorted_all if tp.topic not in fixed_topics]
            unassigned = [tp for tp in unassigned if tp.topic not in fixed_topics]
        fixed: dict[str, list[TopicPartition]] = {}
        for member in self.topics_of:
            if not self._can_participate(member):
                self.subs.remove(member)
                fixed[member] = self.current.pop(member)

        before = {m: list(parts) for m, parts in self.current.items()}
        before_owner = dict(self.owner)
        if not self.revocation_required:
            self._reassign(unassigned, prev)
        moved = self._reassign(self.sorted_all, prev)
        if not initializing and moved and _balance_score(self.current) >= _balance_score(before):
            if self.trace is not None:
                score_after, score_before = _balance_score(self.current), _balance_score(before)
                for tp, owner in before_owner.items():
                    if self.owner.get(tp) != owner:
                        self.trace.record(
                            tp,
                            owner,
                            BALANCE_UNDONE,
                            moved_to=self.owner.get(tp),
                            score_before=score_before,
                            score_after=score_after,
                        )
            self.current.clear()
            self.current.update(before)
            self.owner = before_owner
        self.current.update(fixed)

    def _max_size(self, member: str) -> int:
        """Kafka: `getMaxAssignmentSize`."""
        topics = self.topics_of[member]
        if len(topics) == len(self.per_topic):
            return self.total
        return sum(self.per_topic[t] for t in topics)

    def _can_participate(self, member: str) -> bool:
        """Kafka: `canConsumerParticipateInReassignment`."""
        parts = self.current[member]
        if len(parts) < self._max_size(member):
            return True
        return any(len(self.consumers_of[tp.topic]) >= 2 for tp in parts)

    def _is_balanced(self) -> bool:
        """Kafka: `isBalanced`: sizes within one, or no partition could go to a member two below its holder."""
        current = self.current
        smallest = len(current[self.subs.first()])
        largest = len(current[self.subs.last()])
        if smallest >= largest - 1:
            return True
        owner = self.owner
        if self.two_holders:
            # Kafka's isBalanced maps each partition to the last member of currentAssignment (HashMap
            # order) that lists it, not to its recorded owner; they differ for a partition held twice.
            owner = {tp: member for member, parts in current.items() for tp in parts}
        for member in self.subs:
            count = len(current[member])
            if count == self._max_size(member):
                continue
            for topic in self.topics_of[member]:
                for p in range(self.per_topic[topic]):
                    holder = owner.get(TopicPartition(topic, p))
                    if holder != member and count + 1 < _size(current, holder):
                        return False
        return True

    def _reassign(self, partitions: list[TopicPartition], prev: dict[TopicPartition, tuple[str, int]]) -> bool:
        """Kafka: `performReassignments`: passes over `partitions` until one moves nothing."""
        current, owner = self.current, self.owner
        performed = False
        modified = True
        while modified:
            modified = False
            for tp in partitions:
                if self._is_balanced():
                    break
                holder = owner.get(tp)
                size = _size(current, holder)
                previous = prev.get(tp)
                if previous is not None and size > _size(current, previous[0]) + 1:
                    self._move(tp, previous[0], "back to its previous owner", previous[1])
                    performed = modified = True
                    continue
                # Kafka first tries rack-local candidates, but moves to the same target either way.
                for other in self.consumers_of[tp.topic]:
                    if size > _size(current, other) + 1:
                        self._move(tp, self._least_loaded_subscriber(tp.topic))
                        performed = modified = True
                        break
        return performed

    def _least_loaded_subscriber(self, topic: str) -> str:
        for member in self.subs:
            if topic in self.topic_sets[member]:
                return member
        raise AssignorError("AssertionError", f"no member subscribes to {topic}")

    def _move(
        self, tp: TopicPartition, new: str, why: str = "to the least loaded subscriber", generation: int | None = None
    ) -> None:
        """Kafka: `reassignPartition` + `processPartitionMovement`."""
        actual = self.movements.partition_to_move(tp, self.owner[tp], new)
        old = self.owner[actual]
        if self.trace is not None:
            self.moves += 1
            # Undoing an earlier move, Kafka takes `actual` from its holder, which need not be the member whose
            # load called for the move (`tp`'s holder): both are recorded, so the rule that fired can be checked.
            self.trace.record(
                actual,
                new,
                BALANCE_MOVE,
                move=self.moves,
                source=old,
                source_held=len(self.current[old]),
                target_held=len(self.current[new]),
                why=why,
                previous_generation=generation,
                instead_of=str(tp) if actual != tp else None,
                **(
                    {"asked_holder": self.owner[tp], "asked_held": len(self.current[self.owner[tp]])}
                    if actual != tp
                    else {}
                ),
            )
        self.subs.remove(old)
        self.subs.remove(new)
        self.movements.move(actual, old, new)
        self.current[old].remove(actual)
        self.current[new].append(actual)
        self.owner[actual] = new
        self.subs.add(new)
        self.subs.add(old)


def _size(current: dict[str, list[TopicPartition]], member: str | None) -> int:
    """A member's assignment size; Kafka throws where the member is not in the balanced set."""
    parts = current.get(member) if member is not None else None
    if parts is None:
        raise AssignorError("NullPointerException", f"member {member!r} has no assignment in the set being balanced")
    return len(parts)


def _water_fill(ranked: list[Entry], count: int) -> list[str]:
    """The members that receive `count` partitions one at a time, each to the least loaded.

    `ranked` is sorted by (size, id key). Receiving a partition lifts a member one level, behind every
    member already at that level with a lower id; so the receivers are the `count` smallest
    (level, id) pairs, level running from each member's size upwards.
    """
    receivers: list[str] = []
    active: list[tuple[bytes, str]] = []  # members at or below the current level, by id
    i, n = 0, len(ranked)
    level = ranked[0][0]
    while len(receivers) < count:
        joined = []
        while i < n and ranked[i][0] == level:
            joined.append((ranked[i][1], ranked[i][2]))
            i += 1
        if joined:
            active = sorted(active + joined) if active else joined
        need = count - len(receivers)
        receivers += [m for _, m in (active if need >= len(active) else active[:need])]
        level += 1
    return receivers


def _balance_score(assignment: dict[str, list[TopicPartition]]) -> int:
    """Kafka: `getBalanceScore`: the sum of |size difference| over all pairs of members."""
    sizes = sorted(len(parts) for parts in assignment.values())
    n = len(sizes)
    return sum(size * (2 * i - n + 1) for i, size in enumerate(sizes))
