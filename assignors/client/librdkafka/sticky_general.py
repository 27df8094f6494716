"""librdkafka's sticky assignment (rdkafka_sticky_assignor.c `rd_kafka_sticky_assignor_assign_cb`).

A port of an old Java `AbstractStickyAssignor` general path, used for every input: no constrained path,
no user data (owned partitions and generation come from the subscription). Every map is an `RdMap`
(newest first); where the order is a map's, it is written so. Every sort here has a consistent
comparator, for which glibc's merge sort is stable, so Python's stable sort gives the same order.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assignors.model import Cluster, Member, TopicPartition
from kgroup.assignors.client.librdkafka.byte_order import byte_key, partition_key
from kgroup.assignors.client.librdkafka.errors import LibrdkafkaCrash
from kgroup.assignors.client.librdkafka.partition_movements import PartitionMovements, PartitionRef, deref
from kgroup.assignors.client.librdkafka.rd_containers import MapEntry, RdMap, remove_first
from kgroup.assignors.client.librdkafka.subscriptions import eligible_topics, uses_rack_awareness
from kgroup.assignors.trace import (BALANCE_MOVE, BALANCE_UNDONE, CLAIM_CONFLICT, KEPT, LEAST_LOADED, NOT_SUBSCRIBED,
                                    OLDER_CLAIM, RACK_MISMATCH, UNASSIGNABLE, Trace, active)

Parts = list[TopicPartition]
Entry = MapEntry[str, Parts]


def _by_count_then_member(entries: list[Entry], keys: dict[str, bytes]) -> None:
    """librdkafka: `rd_list_sort(..., sort_by_map_elem_val_toppar_list_cnt)`: fewest partitions first, then
    member id (a total order: member ids are unique). `keys`: each member id's byte key."""
    entries.sort(key=lambda entry: (len(entry.value), keys[entry.key]))


class _State:
    """The assignor's maps, named as in librdkafka (Java's names)."""

    def __init__(self, cluster: Cluster, members: Sequence[Member]) -> None:
        self.members = {m.member_id: m for m in members}
        self.keys = {member_id: byte_key(member_id) for member_id in self.members}
        eligible = eligible_topics(cluster, members)
        # librdkafka: `rd_kafka_rack_info_new`: rack data only when the whole group is rack-aware.
        self.rack_aware = uses_rack_awareness(eligible)
        self.member_rack: dict[str, str] = {}
        self.partition_racks: dict[TopicPartition, frozenset[str]] = {}
        if self.rack_aware:
            for topic, subscribers in eligible:
                self.member_rack.update((m.member_id, m.rack) for m in subscribers if m.rack is not None)
                for p in range(topic.partitions):
                    self.partition_racks[TopicPartition(topic.name, p)] = topic.racks_of(p)
        self.eligible = eligible
        self.current: RdMap[str, Parts] = RdMap()  # currentAssignment
        self.previous: RdMap[TopicPartition, tuple[str, int]] = RdMap()  # prevAssignment
        self.potential_partitions: RdMap[str, Parts] = RdMap()  # consumer2AllPotentialPartitions
        self.potential_consumers: RdMap[TopicPartition, list[str]] = RdMap()  # partition2AllPotentialConsumers
        self.can_take: dict[str, set[TopicPartition]] = {}  # consumer2AllPotentialPartitions, for lookups
        self.owner: RdMap[TopicPartition, str] = RdMap()  # currentPartitionConsumer
        self.movements = PartitionMovements()
        self.sorted_subscriptions: list[Entry] = []  # sortedCurrentSubscriptions
        self.trace = active()  # None unless someone asked why (kgroup.assignors.trace)
        self.moves = 0  # balancing moves so far, numbered for the trace

    def count(self, member_id: str | None, what: str) -> int:
        """The length of a member's current list; librdkafka dereferences NULL where it is missing."""
        parts = self.current.get(member_id) if member_id is not None else None
        if parts is None:
            raise LibrdkafkaCrash(f"NULL currentAssignment entry for {what} is dereferenced")
        return len(parts)

    def resort(self) -> None:
        _by_count_then_member(self.sorted_subscriptions, self.keys)

    def racks_mismatch(self, member_id: str, tp: TopicPartition) -> bool:
        """librdkafka: `rd_kafka_racks_mismatch`: a racked member mismatches a partition without rack data."""
        if not self.rack_aware or member_id not in self.member_rack:
            return False
        racks = self.partition_racks.get(tp)
        return racks is None or self.member_rack[member_id] not in racks


def _prepopulate(state: _State) -> None:
    """librdkafka: `prepopulateCurrentAssignments`.

    Every member is a key (in JoinGroup order), so the "fresh assignment" case never happens. The last
    claimant in JoinGroup order is the partition's current consumer whatever the generations; any two
    claims of one generation void the partition for everybody.
    """
    claims: RdMap[TopicPartition, list[tuple[str, int]]] = RdMap()  # sortedPartitionConsumersByGeneration
    for member in state.members.values():
        state.current.set(member.member_id, [])
        state.potential_partitions.set(member.member_id, [])
        generation = -1 if member.generation is None else member.generation
        for tp in member.owned:
            listed = claims.get(tp)
            if listed is None:
                listed = []
                claims.set(tp, listed)
            listed.append((member.member_id, generation))
            state.owner.set(tp, member.member_id)
    for tp, listed in claims.items():
        by_generation = sorted(listed, key=lambda claim: claim[1])  # rd_list_sort by generation: stable
        if any(x[1] == y[1] for x, y in zip(by_generation, by_generation[1:])):
            state.owner.delete(tp)
            if state.trace is not None:
                x, y = next((x, y) for x, y in zip(by_generation, by_generation[1:]) if x[1] == y[1])
                state.trace.record(tp, None, CLAIM_CONFLICT, claimants=[x[0], y[0]], generation=_generation(x[1]))
            continue
        current = state.current.get(by_generation[-1][0])
        assert current is not None
        current.append(tp)
        if state.trace is not None:
            winner, generation = by_generation[-1]
            for loser, older in by_generation[:-1]:
                state.trace.record(tp, None, OLDER_CLAIM, loser=loser, loser_generation=_generation(older),
                                   winner=winner, generation=_generation(generation))
            state.trace.record(tp, winner, KEPT, member=winner, generation=_generation(generation))
        if len(by_generation) >= 2:
            state.previous.set(tp, by_generation[-2])


def _generation(value: int) -> int | None:
    return None if value == -1 else value


def _populate_potential_maps(state: _State) -> None:
    """librdkafka: `populatePotentialMaps`: topics in metadata order, subscribers in JoinGroup order."""
    for topic, subscribers in state.eligible:
        for member in subscribers:
            partitions = state.potential_partitions.get(member.member_id)
            assert partitions is not None
            for p in range(topic.partitions):
                tp = TopicPartition(topic.name, p)
                partitions.append(tp)
                consumers = state.potential_consumers.get(tp)
                if consumers is None:
                    consumers = []
                    state.potential_consumers.set(tp, consumers)
                consumers.append(member.member_id)
    state.can_take = {member_id: set(parts) for member_id, parts in state.potential_partitions.items()}


def _subscriptions_identical(state: _State) -> bool:
    """librdkafka: `areSubscriptionsIdentical`: neighbouring consumer lists equal in order, neighbouring
    partition lists equal as sets (`rd_kafka_topic_partition_list_cmp`: count, then containment)."""
    consumer_lists = [consumers for _, consumers in state.potential_consumers.items()]
    if any(a != b for a, b in zip(consumer_lists, consumer_lists[1:])):
        return False
    partition_lists = [parts for _, parts in state.potential_partitions.items()]
    for previous, current in zip(partition_lists, partition_lists[1:]):
        if len(current) != len(previous) or not set(previous).issuperset(current):
            return False
    return True


def _sort_partitions(state: _State) -> Parts:
    """librdkafka: `sortPartitions`.

    Different subscriptions: by number of potential consumers, then (topic, partition). Identical ones:
    take partitions in turn from the member with the most (a partition with a previous owner first), then
    append the rest in map order (last topic first, partitions descending). It sorts each member's
    current list in place, which later steps see.
    """
    if not _subscriptions_identical(state):
        counted = [(tp, len(consumers)) for tp, consumers in state.potential_consumers.items()]
        counted.sort(key=lambda item: (item[1], partition_key(item[0])))
        return [tp for tp, _ in counted]
    ordered: Parts = []
    remaining: RdMap[str, Parts] = RdMap()
    consumers: list[Entry] = []
    for member_id, parts in state.current.items():
        parts.sort(key=partition_key)
        existing = [tp for tp in parts if state.potential_consumers.get(tp) is not None]
        if existing:
            consumers.append(remaining.set(member_id, existing))
    _by_count_then_member(consumers, state.keys)
    while consumers:
        left = consumers[-1].value
        with_previous = [tp for tp in left if state.previous.get(tp) is not None]
        if with_previous:
            remove_first(left, with_previous[0])
            ordered.append(with_previous[0])
        elif left:
            ordered.append(left.pop(0))
        else:
            consumers.pop()
            continue
        _by_count_then_member(consumers, state.keys)
    nothing_added = not ordered
    for tp in state.potential_consumers:
        if tp not in ordered:
            ordered.append(tp)
    if nothing_added:
        ordered.sort(key=partition_key)
    return ordered


def _drop_invalid_owned(state: _State, unassigned: Parts) -> bool:
    """librdkafka: the loop over currentAssignment after `sortPartitions`.

    A partition that no longer exists leaves its member and its owner entry; one the member no longer
    subscribes to (or, rack-aware, is on another rack) leaves the member and requires a revocation, but
    keeps its owner entry. The rest are no longer unassigned. Returns `revocationRequired`.
    """
    revocation_required = False
    for member_id, parts in state.current.items():
        topics = state.members[member_id].topics
        kept = []
        trace = state.trace
        for tp in parts:
            if state.potential_consumers.get(tp) is None:
                state.owner.delete(tp)
                if trace is not None:
                    trace.record(tp, None, UNASSIGNABLE, member=member_id)
            elif tp.topic not in topics or state.racks_mismatch(member_id, tp):
                revocation_required = True
                if trace is not None:
                    _record_released(trace, state, member_id, topics, tp)
            else:
                remove_first(unassigned, tp)
                kept.append(tp)
        parts[:] = kept
    return revocation_required


def _record_released(trace: Trace, state: _State, member_id: str, topics: tuple[str, ...],
                     tp: TopicPartition) -> None:
    if tp.topic not in topics:
        trace.record(tp, None, NOT_SUBSCRIBED, member=member_id, topics=list(topics))
    else:
        trace.record(tp, None, RACK_MISMATCH, member=member_id, rack=state.member_rack[member_id],
                     replica_racks=sorted(state.partition_racks.get(tp) or ()))


def _maybe_assign(state: _State, unassigned: Parts, remove_assigned: bool, check_racks: bool) -> None:
    """librdkafka: `maybeAssignPartition` over a list: each partition to the first member (fewest
    partitions first) that may take it."""
    i = 0
    while i < len(unassigned):
        tp = unassigned[i]
        placed = False
        if state.potential_consumers.get(tp):
            for entry in list(state.sorted_subscriptions):
                if tp not in state.can_take.get(entry.key, ()):
                    continue
                if check_racks and state.racks_mismatch(entry.key, tp):
                    continue
                current = state.current.get(entry.key)
                assert current is not None
                if state.trace is not None:
                    _record_least_loaded(state, tp, entry.key, check_racks)
                current.append(tp)
                state.owner.set(tp, entry.key)
                state.resort()
                placed = True
                break
        if placed and remove_assigned:
            del unassigned[i]
        else:
            i += 1


def _record_least_loaded(state: _State, tp: TopicPartition, member_id: str, check_racks: bool) -> None:
    """The members that could take `tp` at this point, with their loads: the first (fewest, then member
    id) took it."""
    loads = {entry.key: len(entry.value) for entry in state.sorted_subscriptions
             if tp in state.can_take.get(entry.key, ()) and not (check_racks and state.racks_mismatch(entry.key, tp))}
    assert state.trace is not None
    state.trace.record(tp, member_id, LEAST_LOADED, held_before=loads[member_id], loads=loads,
                       tie_break="member id (byte order)", rack_pass=check_racks,
                       replica_racks=sorted(state.partition_racks.get(tp) or ()))


def _can_participate(state: _State, member_id: str) -> bool:
    """librdkafka: `canConsumerParticipateInReassignment`."""
    current = state.current.get(member_id) or []
    if len(current) < len(state.potential_partitions.get(member_id) or []):
        return True
    return any(len(state.potential_consumers.get(tp) or []) >= 2 for tp in current)


def _move(state: _State, ref: PartitionRef, new: str, asked: TopicPartition, why: Why) -> None:
    """librdkafka: `processPartitionMovement`: the movement is recorded before the pointer is re-read."""
    old = state.owner.get(deref(ref))
    state.movements.move(ref, old, new)
    tp = deref(ref)
    target = state.current.get(new)
    assert target is not None
    if state.trace is not None:
        state.moves += 1
        source = state.current.get(old) if old is not None else None
        state.trace.record(tp, new, BALANCE_MOVE, move=state.moves, source=old,
                           source_held=len(source) if source is not None else None, target_held=len(target),
                           why=_why(why), instead_of=str(asked) if asked != tp else None)
    target.append(tp)
    source = state.current.get(old) if old is not None else None
    if source is None:
        raise LibrdkafkaCrash("NULL currentAssignment entry for the old consumer is dereferenced")
    remove_first(source, tp)
    state.owner.set(tp, new)
    state.resort()


Why = tuple[str, str, object]  # (which step of performReassignments, the partition's consumer, its detail)


def _why(why: Why) -> str:
    """A balancing move's reason in words; formatted only when someone asked why."""
    step, consumer, detail = why
    if step == "previous":
        return (f"back to its previous owner, which claimed it at generation {detail} and held at least 2 fewer "
                f"than {consumer}")
    rack = "rack step: both on a rack of the partition, " if step == "rack" else ""
    return (f"{rack}{consumer} held at least 2 more than {detail}, another subscriber, so the partition may move; "
            "it goes to the subscriber with the fewest partitions, ties by member id")


def _reassign_to(state: _State, tp: TopicPartition, new: str, why: Why) -> None:
    """librdkafka: `reassignPartitionToConsumer`."""
    _move(state, state.movements.actual_partition_to_move(tp, state.owner.get(tp), new), new, tp, why)


def _reassign(state: _State, tp: TopicPartition, why: Why) -> None:
    """librdkafka: `reassignPartition`: to the first member (fewest partitions) that can take it."""
    for entry in list(state.sorted_subscriptions):
        if tp in state.can_take.get(entry.key, ()):
            _reassign_to(state, tp, entry.key, why)
            return
    raise LibrdkafkaCrash("rd_assert fails: reassignPartition() found no new consumer")


def _is_balanced(state: _State) -> bool:
    """librdkafka: `isBalanced`."""
    ordered = state.sorted_subscriptions
    if len(ordered[0].value) >= len(ordered[-1].value) - 1:
        return True
    holder: dict[TopicPartition, str] = {}
    for member_id, parts in state.current.items():  # later entries overwrite earlier ones
        for tp in parts:
            holder[tp] = member_id
    for entry in ordered:
        potential = state.potential_partitions.get(entry.key) or []
        if len(entry.value) == len(potential):
            continue
        for tp in potential:
            if tp in entry.value:
                continue
            if len(entry.value) < state.count(holder.get(tp), "a partition's holder"):
                return False
    return True


def _perform_reassignments(state: _State, reassignable: Parts) -> bool:
    """librdkafka: `performReassignments`."""
    performed = False
    while True:
        modified = False
        i = 0
        while i < len(reassignable) and not _is_balanced(state):
            tp = reassignable[i]
            i += 1
            consumers = state.potential_consumers.get(tp) or []
            consumer = state.owner.get(tp)
            if consumer is None:
                raise LibrdkafkaCrash("rd_assert(consumer) fails in performReassignments")
            held = state.count(consumer, "the partition's consumer")
            previous = state.previous.get(tp)
            if previous is not None and held > state.count(previous[0], "the previous consumer") + 1:
                _reassign_to(state, tp, previous[0], ("previous", consumer, previous[1]))
                performed = modified = True
                continue
            if state.rack_aware and _rack_move(state, tp, consumer, consumers, held):
                performed = modified = True
                continue
            for other in consumers:
                if other != consumer and held > state.count(other, "another consumer") + 1:
                    _reassign(state, tp, ("fewer", consumer, other))
                    performed = modified = True
                    break
        if not modified:
            return performed


def _rack_move(state: _State, tp: TopicPartition, consumer: str, consumers: list[str], held: int) -> bool:
    """librdkafka: `performReassignments`' rack step: a consumer on the partition's rack gives it up when
    another consumer on that rack has at least two fewer."""
    racks = state.partition_racks.get(tp)
    if not racks or state.member_rack.get(consumer) not in racks:
        return False
    for other in consumers:
        if state.member_rack.get(other) in racks and held > state.count(other, "another consumer") + 1:
            _reassign(state, tp, ("rack", consumer, other))
            return True
    return False


def _score(current: RdMap[str, Parts]) -> int:
    """librdkafka: `getBalanceScore`: the sum over all member pairs of their size difference."""
    sizes = [len(parts) for _, parts in current.items()]
    return sum(abs(a - b) for i, a in enumerate(sizes) for b in sizes[i + 1:])


def _record_undone(state: _State, before: RdMap[str, Parts]) -> None:
    """Every partition the balancing moved, going back where it was: the score did not improve."""
    assert state.trace is not None
    moved_to = {tp: member_id for member_id, parts in state.current.items() for tp in parts}
    score_before, score_after = _score(before), _score(state.current)
    for member_id, parts in before.items():
        for tp in parts:
            if moved_to.get(tp) != member_id:
                state.trace.record(tp, member_id, BALANCE_UNDONE, moved_to=moved_to.get(tp),
                                   score_before=score_before, score_after=score_after)


def _balance(state: _State, sorted_partitions: Parts, unassigned: Parts, revocation_required: bool) -> None:
    """librdkafka: `balance`."""
    initializing = len(state.sorted_subscriptions[-1].value) == 0
    if state.rack_aware:
        left = list(unassigned)
        _maybe_assign(state, left, True, True)
        _maybe_assign(state, left, False, False)
    else:
        _maybe_assign(state, unassigned, False, False)

    for tp, consumers in state.potential_consumers.items():
        if len(consumers) < 2:
            remove_first(sorted_partitions, tp)
            remove_first(unassigned, tp)

    fixed: RdMap[str, Parts] = RdMap()
    i = 0
    while i < len(state.sorted_subscriptions):
        member_id = state.sorted_subscriptions[i].key
        if _can_participate(state, member_id):
            i += 1
            continue
        del state.sorted_subscriptions[i]
        fixed.set(member_id, list(state.current.get(member_id) or []))
        state.current.delete(member_id)

    before: RdMap[str, Parts] = RdMap()
    for member_id, parts in state.current.items():
        before.set(member_id, list(parts))
    owners_before: RdMap[TopicPartition, str] = RdMap()
    for tp, member_id in state.owner.items():
        owners_before.set(tp, member_id)

    if not revocation_required and unassigned:
        _perform_reassignments(state, unassigned)
    performed = _perform_reassignments(state, sorted_partitions)

    if not initializing and performed and _score(state.current) >= _score(before):
        if state.trace is not None:
            _record_undone(state, before)
        for member_id, parts in before.items():
            state.current.set(member_id, list(parts))
        state.owner = RdMap()
        for tp, member_id in owners_before.items():
            state.owner.set(tp, member_id)

    if len(fixed):
        for entry in fixed.entries():
            state.sorted_subscriptions.append(state.current.set(entry.key, entry.value))
        state.resort()


def sticky_assignment(cluster: Cluster, members: Sequence[Member]) -> dict[str, Parts]:
    """librdkafka: `rd_kafka_sticky_assignor_assign_cb`: member id -> partitions (the assignor's output,
    before the leader's cooperative adjustment)."""
    if not members:  # a leader is always a member: librdkafka never runs this without one
        return {}
    state = _State(cluster, members)
    if state.trace is not None:
        state.trace.note(client="librdkafka", path="librdkafka general (no constrained path)")
        state.trace.note_librdkafka_order(members)
    _prepopulate(state)
    _populate_potential_maps(state)
    sorted_partitions = _sort_partitions(state)
    unassigned = list(sorted_partitions)
    revocation_required = _drop_invalid_owned(state, unassigned)
    state.sorted_subscriptions = state.current.entries()
    state.resort()
    _balance(state, sorted_partitions, unassigned, revocation_required)
    return {m.member_id: list(state.current.get(m.member_id) or []) for m in members}
