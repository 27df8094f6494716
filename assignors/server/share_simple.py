"""KIP-932 share groups' `simple` assignor (Kafka `org.apache.kafka.coordinator.group.assignor.SimpleAssignor`, 4.2.1).

A share group may hand one partition to several members. The assignor aims for each partition to have
`desiredSharing = ceil(members / partitions)` members and each member a near-equal share of the
`desiredSharing * partitions` assignments, keeping what members already hold where it can. Its choices
depend on Java `HashMap`/`HashSet` iteration (member indices, partition numbers, `TopicIdPartition`
records), so this port replays those collections with the capacities Kafka gives them
(`kgroup.assignors.java.hash_map.JavaHashMap`: bucket by bucket, each chain as `put` and `computeIfAbsent`
built it).

The group is given as the coordinator's `TargetAssignmentBuilder` builds its `GroupSpec` (see
`group_spec.ServerGroup`): members in a HashMap of member ids, subscriptions as `TopicIds` over a HashSet of
names, the current target as `HashMap<Uuid, HashSet<Integer>>` read back from its record. Every partition
is assignable (`GroupSpecImpl.isPartitionAssignable` with no allowed-partitions map).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from kgroup.assignors.base import AssignorError
from kgroup.assignors.java.hash_map import DEFAULT_CAPACITY, JavaHashMap
from kgroup.assignors.java.hash_order import capacity_for_collection, table_size_for, uuid_of
from kgroup.assignors.java.semantics import to_int32
from kgroup.assignors.java.timeline_table import timeline_capacity, timeline_slot
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.server.group_spec import HOMOGENEOUS, ServerGroup, derived_topic_id, subscription_type

TopicIdPartition = tuple[str, int]  # (topic id text, partition)


def _int_hash(value: int) -> int:
    return value


def _uuid_hash(topic_id: str) -> int:
    return uuid_of(topic_id).hash_code()


def _tip_hash(tp: TopicIdPartition) -> int:
    """`TopicIdPartition` is a record: its hashCode is 31 * topicId.hashCode() + partitionId (ObjectMethods)."""
    return to_int32(31 * _uuid_hash(tp[0]) + tp[1])


def _expected_capacity(n: int) -> int:
    """`AssignorHelpers.newHashMap(n)` / `newHashSet(n)`: (int) ((n + 1) / 0.75f + 1)."""
    return table_size_for(int((n + 1) / 0.75 + 1))


IntSet = JavaHashMap[int, None]
Partitions = JavaHashMap[str, IntSet]  # a member's assignment: topic id -> partitions


def _int_set(capacity: int = DEFAULT_CAPACITY) -> IntSet:
    return JavaHashMap(capacity, _int_hash)


def _deep_copy(assignment: Partitions) -> Partitions:
    """`AssignorHelpers.deepCopyAssignment`: `new HashMap<>(size)` of `new HashSet<>(set)` values."""
    copy: Partitions = JavaHashMap(table_size_for(len(assignment)), _uuid_hash)
    for topic_id, partitions in assignment.items():
        values = partitions.in_order()
        copied = _int_set(capacity_for_collection(len(values)))
        for p in values:
            copied.add(p)
        copy.put(topic_id, copied)
    return copy


def _desired_counts(desired_sharing: int, num_partitions: int, num_members: int) -> list[int]:
    """The constructors' `desiredAssignmentCount`: ceil(precise * (i + 1)) - ceil(precise * i), in doubles."""
    precise = desired_sharing * num_partitions / num_members
    return [math.ceil(precise * (i + 1)) - math.ceil(precise * i) for i in range(num_members)]


def _sharing(num_members: int, num_partitions: int) -> int:
    return 0 if num_partitions == 0 else (num_members + num_partitions - 1) // num_partitions


class _Cycle:
    """The unfilled-members iterator of `assignRemainingPartitions`: restarted from the set's start,
    removing only the member it is at."""

    def __init__(self, members: IntSet) -> None:
        self.members = members
        self.restart()

    def restart(self) -> None:
        self._order = self.members.in_order()
        self._at = 0

    def has_next(self) -> bool:
        return self._at < len(self._order)

    def next(self) -> int:
        if self._at >= len(self._order):
            raise AssignorError("NoSuchElementException", "no unfilled member left to iterate")
        self._at += 1
        return self._order[self._at - 1]

    def remove_current(self) -> None:
        self.members.remove(self._order[self._at - 1])


class _Spec:
    """What both builders' constructors read from the GroupSpec."""

    def __init__(self, cluster: Cluster, members: Sequence[Member]) -> None:
        self.group = ServerGroup(cluster, members)
        self.member_ids = self.group.member_ids  # `new ArrayList<>(groupSpec.memberIds())`
        self.names: dict[str, str] = dict(self.group.name)
        count = len(self.member_ids)
        # oldGroupAssignment: member index -> the current target as the record reads back.
        self.old: JavaHashMap[int, Partitions] = JavaHashMap(_expected_capacity(count), _int_hash)
        self.new: JavaHashMap[int, Partitions] = JavaHashMap(_expected_capacity(count), _int_hash)
        for index, member_id in enumerate(self.member_ids):
            for tp in self.group.members[member_id].owned:
                if tp.topic not in self.group.uuid:  # a deleted topic's partitions keep a name-derived id
                    self.names.setdefault(derived_topic_id(tp.topic), tp.topic)
            target: Partitions = JavaHashMap(DEFAULT_CAPACITY, _uuid_hash)
            for topic_id, partitions in self.group.current_target(member_id).items():
                values = _int_set(capacity_for_collection(len(partitions)))
                for p in partitions:
                    values.add(p)
                target.put(topic_id, values)
            self.old.put(index, target)

    def member_assignment(self, index: int) -> Partitions:
        current = self.new.get(index)
        return current if current is not None else self.old.get(index)  # type: ignore[return-value]

    def copy_on_write(self, index: int) -> Partitions:
        current = self.new.get(index)
        if current is None:
            current = _deep_copy(self.old.get(index))  # type: ignore[arg-type]
            self.new.put(index, current)
        return current

    def result(self) -> Assignment:
        """`build`'s last step: each member's new assignment, else its old one."""
        owners: dict[str, list[TopicPartition]] = {}
        for index, member_id in enumerate(self.member_ids):
            assignment = self.member_assignment(index)
            owners[member_id] = [
                TopicPartition(self.names.get(topic_id, topic_id), p)
                for topic_id, partitions in assignment.items()
                for p in partitions
            ]
        return Assignment.of(owners)


class ShareSimpleAssignor:
    """Kafka: `SimpleAssignor.assign` (4.2.1), for share groups (KIP-932)."""

    name = "share-simple"

    def assign(self, cluster: Cluster, members: Sequence[Member], forced_type: str | None = None) -> Assignment:
        """`forced_type` replays a GroupSpec whose subscription type a Kafka test set by hand."""
        if not members:
            return Assignment.of({})
        spec = _Spec(cluster, members)
        if (forced_type or subscription_type(members)) == HOMOGENEOUS:
            return _homogeneous(spec)
        return _heterogeneous(spec)


def _target_partitions(spec: _Spec, topic_id: str) -> list[int]:
    """`computeTargetPartitions`: a subscribed topic's partitions (every one is assignable here)."""
    count = spec.group.num_partitions(topic_id)
    if count == -1:
        raise AssignorError(
            "PartitionAssignorException",
            f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.",
        )
    return list(range(count))


def _homogeneous(spec: _Spec) -> Assignment:
    """`SimpleHomogeneousAssignmentBuilder`: its constructor and `build`, with `revokeUnassignablePartitions`,
    `revokeOverfilledMembers`, `revokeOversharedPartitions` and `assignRemainingPartitions`."""
    subscribed = spec.group.subscribed_ids(spec.member_ids[0])
    subscribed_set = set(subscribed)
    if not subscribed:
        return Assignment.of({})
    num_members = len(spec.member_ids)
    targets: list[TopicIdPartition] = [(t, p) for t in subscribed for p in _target_partitions(spec, t)]
    sharing = _sharing(num_members, len(targets))
    desired = _desired_counts(sharing, len(targets), num_members)
    by_partition: JavaHashMap[TopicIdPartition, IntSet] = JavaHashMap(_expected_capacity(len(targets)), _tip_hash)
    by_member: JavaHashMap[int, JavaHashMap[TopicIdPartition, None]] = JavaHashMap(
        _expected_capacity(num_members), _int_hash
    )
    unfilled = _int_set(_expected_capacity(num_members))
    overfilled = _int_set(_expected_capacity(num_members))

    def member_set() -> JavaHashMap[TopicIdPartition, None]:
        return JavaHashMap(DEFAULT_CAPACITY, _tip_hash)

    # revokeUnassignablePartitions: keep subscribed partitions, drop unsubscribed topics.
    for index, old in spec.old.items():
        kept = 0
        copied: Partitions | None = None
        for topic_id, partitions in old.items():
            if topic_id in subscribed_set:
                for p in partitions:
                    kept += 1
                    by_partition.compute_if_absent((topic_id, p), _int_set).add(index)
                    by_member.compute_if_absent(index, member_set).add((topic_id, p))
                    if kept >= desired[index] and copied is None:
                        copied = _deep_copy(old)
            else:
                if copied is None:
                    copied = _deep_copy(old)
                copied.remove(topic_id)
        if copied is not None:
            spec.new.put(index, copied)
        if kept < desired[index]:
            unfilled.add(index)
        elif kept > desired[index]:
            overfilled.add(index)

    # revokeOverfilledMembers: drop partitions in the member's set order until it holds its share.
    for index in overfilled:
        held = by_member.get(index)
        assert held is not None
        if len(held) > desired[index]:
            for tp in held.in_order():
                spec.new.get(index).get(tp[0]).remove(tp[1])  # type: ignore[union-attr]
                by_partition.get(tp).remove(index)  # type: ignore[union-attr]
                held.remove(tp)
                if len(held) == desired[index]:
                    break

    # revokeOversharedPartitions: members beyond the desired sharing lose the partition.
    for tp, assigned in by_partition.items():
        count = len(assigned)
        if count > sharing:
            for index in assigned.in_order():
                topic_set = spec.copy_on_write(index).get(tp[0])
                if topic_set is not None and topic_set.remove(tp[1]):
                    count -= 1
                    assigned.remove(index)
                    by_member.get(index).remove(tp)  # type: ignore[union-attr]
                    unfilled.add(index)
                if count <= sharing:
                    break

    for tp in targets:
        by_partition.compute_if_absent(tp, _int_set)

    # assignRemainingPartitions: one pass over the partitions, cycling through the unfilled members.
    if len(unfilled):
        cycle = _Cycle(unfilled)
        assigned_this_pass = False
        for tp, assigned in by_partition.items():
            if len(assigned) < sharing:
                to_make = sharing - len(assigned)
                while to_make > 0:
                    if not cycle.has_next():
                        if not assigned_this_pass:
                            break
                        cycle.restart()
                        assigned_this_pass = False
                    index = cycle.next()
                    if index not in assigned:
                        spec.copy_on_write(index).compute_if_absent(tp[0], _int_set).add(tp[1])
                        held_now = by_member.compute_if_absent(index, member_set)
                        held_now.add(tp)
                        to_make -= 1
                        assigned_this_pass = True
                        if len(held_now) >= desired[index]:
                            cycle.remove_current()
            if not len(unfilled):
                break
    return spec.result()


def _heterogeneous(spec: _Spec) -> Assignment:
    """`SimpleHeterogeneousAssignmentBuilder`: its constructor, `build`, `computeTargetPartitions`,
    `computeSubscribedMembers`, and `TopicAssignmentPartialBuilder` topic by topic."""
    num_members = len(spec.member_ids)
    subscribed: JavaHashMap[str, None] = JavaHashMap(DEFAULT_CAPACITY, _uuid_hash)
    subscribers: dict[str, list[int]] = {}
    for index, member_id in enumerate(spec.member_ids):
        for topic_id in spec.group.subscribed_ids(member_id):
            subscribed.add(topic_id)
            subscribers.setdefault(topic_id, []).append(index)
    topic_ids = subscribed.in_order()
    if not topic_ids:
        return Assignment.of({})
    targets = {t: _target_partitions(spec, t) for t in topic_ids}
    for topic_id in topic_ids:
        _assign_topic(spec, topic_id, targets[topic_id], subscribers[topic_id], num_members)
    return spec.result()


def _assign_topic(spec: _Spec, topic_id: str, targets: list[int], members: list[int], num_members: int) -> None:
    """`TopicAssignmentPartialBuilder.build` for one topic.

    Its `revokeUnassignablePartitions` checks the topic against every subscribed topic, so a member keeps
    (and counts) this topic's partitions even when only others subscribe to it; its desired count of 0
    then revokes them in `revokeOverfilledMembers`.
    """
    sharing = _sharing(len(members), len(targets))
    desired = [0] * num_members
    if members:
        for position, count in enumerate(_desired_counts(sharing, len(targets), len(members))):
            desired[members[position]] = count
    by_partition: JavaHashMap[int, IntSet] = JavaHashMap(_expected_capacity(len(targets)), _int_hash)
    by_member: JavaHashMap[int, IntSet] = JavaHashMap(_expected_capacity(len(members)), _int_hash)

    # revokeUnassignablePartitions
    for index, old in spec.old.items():
        if not len(old):
            continue
        held = old.get(topic_id)
        if held is not None:
            for p in held:
                by_partition.compute_if_absent(p, _int_set).add(index)
                by_member.compute_if_absent(index, _int_set).add(p)

    # revokeOverfilledMembers
    for index, partitions in by_member.items():
        if len(partitions) > desired[index]:
            for p in partitions.in_order():
                if len(partitions) <= desired[index]:
                    break
                by_partition.get(p).remove(index)  # type: ignore[union-attr]
                partitions.remove(p)
                spec.copy_on_write(index).get(topic_id).remove(p)  # type: ignore[union-attr]

    # revokeOversharedPartitions
    for p, assigned in by_partition.items():
        count = len(assigned)
        if count > sharing:
            for index in assigned.in_order():
                topic_set = spec.copy_on_write(index).get(topic_id)
                if topic_set is not None and topic_set.remove(p):
                    count -= 1
                    assigned.remove(index)
                    by_member.get(index).remove(p)  # type: ignore[union-attr]
                if count <= sharing:
                    break

    for p in targets:
        by_partition.compute_if_absent(p, lambda: _int_set(_expected_capacity(len(members))))

    # assignRemainingPartitions
    unfilled = _int_set(_expected_capacity(num_members))
    for index in members:
        held = by_member.get(index)
        if (0 if held is None else len(held)) < desired[index]:
            unfilled.add(index)
    cycle = _Cycle(unfilled)
    assigned_this_pass = False
    for p, assigned in by_partition.items():
        if len(assigned) < sharing:
            to_make = sharing - len(assigned)
            while to_make > 0:
                if not cycle.has_next():
                    if not assigned_this_pass:
                        break
                    cycle.restart()
                    assigned_this_pass = False
                index = cycle.next()
                if index not in assigned:
                    spec.copy_on_write(index).compute_if_absent(topic_id, _int_set).add(p)
                    held_now = by_member.compute_if_absent(index, _int_set)
                    held_now.add(p)
                    to_make -= 1
                    assigned_this_pass = True
                    if len(held_now) >= desired[index]:
                        cycle.remove_current()
        if not len(unfilled):
            break


# How a share group's coordinator holds its members: `ModernGroup.members`, a `TimelineHashMap` (Kafka's
# org.apache.kafka.timeline.BaseHashTable). `TargetAssignmentBuilder.build` puts them into its member HashMap in
# that map's iteration order, so where two member ids share a HashMap bucket, that order decides which comes first
# in `GroupSpec.memberIds()`, and SimpleAssignor's desired counts and its cycle over unfilled members follow it.
# A share group's new member is in that map before the target is built (`ShareGroup.getOrMaybeCreateMember`).
def coordinator_member_order(present: Sequence[str], added: Sequence[str] = ()) -> list[str]:
    """The members in the order the coordinator iterates them once `added` have joined.

    `present` is the order the coordinator iterates them now (ShareGroupDescribe lists them so). Iteration is
    slot by slot and, within a slot, newest first (`SnapshottableHashTable.CurrentIterator` takes a slot's
    array from its end; a rehash keeps each array in insertion order). The table is taken to have grown only to
    the group's present size plus the newcomers: a group that was larger once keeps a larger table, which
    kgroup cannot see.
    """
    capacity = timeline_capacity(len(present) + len(added))
    order = sorted(present, key=lambda m: timeline_slot(m, capacity))  # stable: a finer split keeps slot order
    for member_id in added:
        slot = timeline_slot(member_id, capacity)
        at = next((i for i, m in enumerate(order) if timeline_slot(m, capacity) >= slot), len(order))
        order.insert(at, member_id)
    return order
