"""librdkafka's sticky assignment (rdkafka_sticky_assignor.c `rd_kafka_sticky_assignor_assign_cb`).

A port of an old Java `AbstractStickyAssignor` general path, used for every input: no constrained path,
no user data (owned partitions and generation come from the subscription). Every map is an `RdMap`
(newest first); where the order is a map's, it is written so. Every sort here has a consistent
comparator, for which glibc's merge sort is stable, so Python's stable sort gives the same order.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from functools import partial
from itertools import chain, compress, cycle, repeat
from operator import attrgetter, is_not

from kgroup.assignors.model import Cluster, Member, TopicPartition
from kgroup.assignors.client.librdkafka.byte_order import byte_key, partition_key
from kgroup.assignors.client.librdkafka.errors import LibrdkafkaCrash
from kgroup.assignors.client.librdkafka.partition_movements import PartitionMovements, PartitionRef, deref
from kgroup.assignors.client.librdkafka.rd_containers import MapEntry, RdMap, remove_first, remove_firsts
from kgroup.assignors.client.librdkafka.subscriptions import eligible_topics, uses_rack_awareness
from kgroup.assignors.trace import (
    BALANCE_MOVE,
    BALANCE_UNDONE,
    CLAIM_CONFLICT,
    KEPT,
    LEAST_LOADED,
    NOT_SUBSCRIBED,
    OLDER_CLAIM,
    RACK_MISMATCH,
    UNASSIGNABLE,
    Trace,
    active,
)

Parts = list[TopicPartition]
Entry = MapEntry[str, Parts]


class _ByCountThenMember:
    """A list of member entries in librdkafka's `rd_list_sort(..., sort_by_map_elem_val_toppar_list_cnt)`
    order: fewest partitions first, then member id.

    librdkafka sorts the whole list again after every partition it places or moves. The comparator is a
    total order (member ids are unique, and so are their UTF-8 encodings), so a sorted list has exactly one
    order, whatever it was before and whatever the sort's steps: keeping the list sorted by that key, by
    taking out a member whose count changed and putting it back by bisection, gives the same list as the
    full sort after every change, at a fraction of the cost. The key is one integer, count * members +
    the member id's rank in byte order (`ranks`), which orders as (count, member id) does.
    """

    __slots__ = ("entries", "_order", "_at", "_ranks", "_size")

    def __init__(self, entries: list[Entry], ranks: dict[str, int]) -> None:
        self._ranks = ranks
        self._size = len(ranks)
        self.entries: list[Entry] = []
        self._order: list[int] = []  # entries[i]'s sort key, as of its last placement
        self._at: dict[str, int] = {}
        self.resort(entries)

    def resort(self, entries: list[Entry]) -> None:
        """The full sort, of `entries` (the list itself is not kept)."""
        keyed = sorted((len(entry.value) * self._size + self._ranks[entry.key], entry) for entry in entries)
        self.entries = [entry for _, entry in keyed]
        self._order = [key for key, _ in keyed]
        self._at = {entry.key: key for key, entry in keyed}

    def touch(self, member_id: str) -> None:
        """The member's partition count changed: put it where the full sort would."""
        old = self._at.get(member_id)
        if old is None:
            return
        order = self._order
        i = bisect_left(order, old)
        entry = self.entries[i]
        new = len(entry.value) * self._size + self._ranks[member_id]
        if new == old:
            return
        del order[i], self.entries[i]
        j = bisect_left(order, new)
        order.insert(j, new)
        self.entries.insert(j, entry)
        self._at[member_id] = new

    def pop(self, i: int = -1) -> Entry:
        del self._order[i]
        entry = self.entries.pop(i)
        del self._at[entry.key]
        return entry

    def __len__(self) -> int:
        return len(self.entries)


class _State:
    """The assignor's maps, named as in librdkafka (Java's names)."""

    def __init__(self, cluster: Cluster, members: Sequence[Member]) -> None:
        self.members = {m.member_id: m for m in members}
        self.unique_ids = len(self.members) == len(members)
        # The members whose current partitions are all in can_take, as sortPartitions found them.
        self.owns_only_potential: set[str] = set()
        self.keys = {member_id: byte_key(member_id) for member_id in self.members}
        # Each member id's place in byte order: the tie-break of every "fewest partitions first" sort.
        self.ranks = {member_id: rank for rank, member_id in enumerate(sorted(self.keys, key=self.keys.__getitem__))}
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
        # consumer2AllPotentialPartitions, for lookups; members with the same subscription share one set.
        self.can_take: dict[str, frozenset[TopicPartition]] = {}
        self.owner: RdMap[TopicPartition, str] = RdMap()  # currentPartitionConsumer
        self.movements = PartitionMovements()
        self.sorted_subscriptions = _ByCountThenMember([], self.ranks)  # sortedCurrentSubscriptions
        self.trace = active()  # None unless someone asked why (kgroup.assignors.trace)
        self.moves = 0  # balancing moves so far, numbered for the trace
        # `balance`'s copies of currentAssignment and currentPartitionConsumer, made at its first move.
        self.snapshot: tuple[RdMap[str, Parts], RdMap[TopicPartition, str]] | None = None
        self.snapshot_due = False

    def count(self, member_id: str | None, what: str) -> int:
        """The length of a member's current list; librdkafka dereferences NULL where it is missing."""
        parts = self.current.get(member_id) if member_id is not None else None
        if parts is None:
            raise LibrdkafkaCrash(f"NULL currentAssignment entry for {what} is dereferenced")
        return len(parts)

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
    owners = [(tp, member.member_id) for member in state.members.values() for tp in member.owned]
    state.owner.update(owners)  # currentPartitionConsumer: the last claimant
    if state.trace is None and len(state.owner) == len(owners):
        # No partition claimed twice: each is its one claimant's, appended newest claim first (the map's
        # order), so a member's list is its claims in reverse. (Recording takes the loop below, which
        # records claim by claim.)
        state.current.update([(member_id, list(reversed(member.owned))) for member_id, member in state.members.items()])
        state.potential_partitions.update([(member_id, []) for member_id in state.members])
        return
    # sortedPartitionConsumersByGeneration: an RdMap with no deletions, so its order is this dict's reversed.
    claims: dict[TopicPartition, list[tuple[str, int]]] = {}
    for member in state.members.values():
        state.current.set(member.member_id, [])
        state.potential_partitions.set(member.member_id, [])
        generation = -1 if member.generation is None else member.generation
        for tp in member.owned:
            listed = claims.get(tp)
            if listed is None:
                listed = claims[tp] = []
            listed.append((member.member_id, generation))
    for tp, listed in reversed(claims.items()):
        if len(listed) == 1:  # one claim: nothing to sort, no two of one generation
            by_generation = listed
        else:
            by_generation = sorted(listed, key=lambda claim: claim[1])  # rd_list_sort by generation: stable
        if len(by_generation) > 1 and any(x[1] == y[1] for x, y in zip(by_generation, by_generation[1:])):
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
                state.trace.record(
                    tp,
                    None,
                    OLDER_CLAIM,
                    loser=loser,
                    loser_generation=_generation(older),
                    winner=winner,
                    generation=_generation(generation),
                )
            state.trace.record(tp, winner, KEPT, member=winner, generation=_generation(generation))
        if len(by_generation) >= 2:
            state.previous.set(tp, by_generation[-2])


def _generation(value: int) -> int | None:
    return None if value == -1 else value


def _populate_potential_maps(state: _State) -> None:
    """librdkafka: `populatePotentialMaps`: topics in metadata order, subscribers in JoinGroup order.

    librdkafka builds a list per member and a list per partition: members x partitions entries (10M on
    1,000 members of 10,000 partitions). Their contents follow from the subscriptions alone: a member's list
    is every partition of the topics it subscribes to, in metadata order, and a partition's is its topic's
    subscribers in JoinGroup order. After this step they are only read, so members that subscribe to the
    same topics share one list (and one lookup set), and the partitions of a topic share one list of
    members; every map keeps librdkafka's keys in librdkafka's insertion order.
    """
    if len({topic.name for topic, _ in state.eligible}) != len(state.eligible) or not state.unique_ids:
        # A topic listed twice (its partitions' lists are the two topics' concatenated) or a member id
        # joined twice (its list is the two members' interleaved by topic).
        _populate_each(state)
        return
    partitions_of: list[Parts] = []
    for topic, subscribers in state.eligible:
        consumers = list(map(attrgetter("member_id"), subscribers))
        # Made as TopicPartition's own constructor makes them (tuple.__new__), without a call per partition.
        partitions_of.append(
            list(map(partial(tuple.__new__, TopicPartition), zip(repeat(topic.name), range(topic.partitions))))
        )
        state.potential_consumers.update(zip(partitions_of[-1], repeat(consumers)))
    index_of = {topic.name: index for index, (topic, _) in enumerate(state.eligible)}
    shared: dict[tuple[str, ...], tuple[Parts, frozenset[TopicPartition]]] = {}  # by the member's topic list
    can_take: dict[str, frozenset[TopicPartition]] = {}
    potential: list[tuple[str, Parts]] = []
    for member_id, member in state.members.items():
        lists = shared.get(member.topics)
        if lists is None:
            # The eligible topics it subscribes to, in metadata order: those whose subscribers list it.
            indexes = sorted({index_of[name] for name in member.topics if name in index_of})
            partitions = list(chain.from_iterable(partitions_of[index] for index in indexes))
            lists = shared[member.topics] = (partitions, frozenset(partitions))
        if lists[0]:
            potential.append((member_id, lists[0]))
        can_take[member_id] = lists[1]
    state.potential_partitions.update(potential)  # every member is a key already: each stays in its place
    state.can_take = can_take


def _populate_each(state: _State) -> None:
    """`populatePotentialMaps` entry by entry, as librdkafka does it."""
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
    state.can_take = {member_id: frozenset(parts) for member_id, parts in state.potential_partitions.items()}


def _subscriptions_identical(state: _State) -> bool:
    """librdkafka: `areSubscriptionsIdentical`: neighbouring consumer lists equal in order, neighbouring
    partition lists equal as sets (`rd_kafka_topic_partition_list_cmp`: count, then containment)."""
    consumer_lists = state.potential_consumers.values()
    unshared = compress(range(len(consumer_lists)), map(is_not, consumer_lists, consumer_lists[1:]))
    if any(consumer_lists[i] != consumer_lists[i + 1] for i in unshared):  # one shared list is equal
        return False
    partition_lists = state.potential_partitions.values()
    for previous, current in zip(partition_lists, partition_lists[1:]):
        if previous is current:  # one shared list: equal
            continue
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
    entries: list[Entry] = []  # the map of each member's existing partitions, by its entries
    for member_id, parts in state.current.items():
        parts.sort()  # (topic, partition): code point order is UTF-8 byte order, partition_key's
        if state.can_take[member_id].issuperset(parts):  # its topics' partitions: all exist
            existing = list(parts)
            state.owns_only_potential.add(member_id)
        else:
            existing = [tp for tp in parts if state.potential_consumers.get(tp) is not None]
        if existing:
            entries.append(MapEntry(member_id, existing))
    # librdkafka re-sorts the members after each partition taken and takes the next from the last (most
    # left, ties: the greatest member id); one taken drops that member below every other member at its
    # count, so the members at the top count each give one, greatest id first, then all at the count below
    # (those that just gave and those that had that many), and so on: this takes in that order.
    previous = state.previous.get if len(state.previous) else None  # prevAssignment does not change here
    by_count: dict[int, list[Entry]] = {}
    for entry in entries:
        by_count.setdefault(len(entry.value), []).append(entry)
    giving: list[Entry] = []  # greatest member id first
    if previous is None:
        # Each gives from its front. From one count at which members join down to the next, the same
        # members give in the same order: their lists' next slices, interleaved.
        counts = sorted(by_count, reverse=True) + [0]
        for count, below in zip(counts, counts[1:]):
            giving = sorted(giving + by_count[count], key=lambda entry: state.ranks[entry.key], reverse=True)
            slices = [entry.value[len(entry.value) - count : len(entry.value) - below] for entry in giving]
            ordered.extend(chain.from_iterable(zip(*slices)))
    else:
        for count in range(max(by_count, default=0), 0, -1):
            if count in by_count:
                giving = sorted(giving + by_count[count], key=lambda entry: state.ranks[entry.key], reverse=True)
            for entry in giving:
                left = entry.value
                with_previous = next((tp for tp in left if previous(tp) is not None), None)
                if with_previous is not None:
                    remove_first(left, with_previous)
                    ordered.append(with_previous)
                else:
                    ordered.append(left.pop(0))
    nothing_added = not ordered
    if ordered:
        taken = set(ordered)
        ordered.extend([tp for tp in state.potential_consumers if tp not in taken])
    else:
        ordered = list(state.potential_consumers)
    if nothing_added:
        ordered.sort()  # as partition_key orders (code points order as UTF-8 bytes do)
    return ordered


def _drop_invalid_owned(state: _State, unassigned: Parts) -> bool:
    """librdkafka: the loop over currentAssignment after `sortPartitions`.

    A partition that no longer exists leaves its member and its owner entry; one the member no longer
    subscribes to (or, rack-aware, is on another rack) leaves the member and requires a revocation, but
    keeps its owner entry. The rest are no longer unassigned. Returns `revocationRequired`.
    """
    revocation_required = False
    placed: Parts = []  # no longer unassigned: taken out of `unassigned` in one pass at the end
    for member_id, parts in state.current.items():
        if (
            state.unique_ids
            and not state.rack_aware
            and (member_id in state.owns_only_potential or state.can_take[member_id].issuperset(parts))
        ):
            # can_take: the partitions of the existing topics the member subscribes to (of every member
            # with that id: hence unique ids only); all of them kept
            placed.extend(parts)
            continue
        topics = state.members[member_id].topics
        kept = []
        trace = state.trace
        for tp in parts:
            if state.potential_consumers.get(tp) is None:
                state.owner.delete(tp)
                if trace is not None:
                    trace.record(tp, None, UNASSIGNABLE, member=member_id)
            elif tp.topic not in topics or (state.rack_aware and state.racks_mismatch(member_id, tp)):
                revocation_required = True
                if trace is not None:
                    _record_released(trace, state, member_id, topics, tp)
            else:
                placed.append(tp)
                kept.append(tp)
        parts[:] = kept
    remove_firsts(unassigned, placed)
    return revocation_required


def _record_released(trace: Trace, state: _State, member_id: str, topics: tuple[str, ...], tp: TopicPartition) -> None:
    if tp.topic not in topics:
        trace.record(tp, None, NOT_SUBSCRIBED, member=member_id, topics=list(topics))
    else:
        trace.record(
            tp,
            None,
            RACK_MISMATCH,
            member=member_id,
            rack=state.member_rack[member_id],
            replica_racks=sorted(state.partition_racks.get(tp) or ()),
        )


def _maybe_assign(state: _State, unassigned: Parts, remove_assigned: bool, check_racks: bool) -> None:
    """librdkafka: `maybeAssignPartition` over a list: each partition to the first member (fewest
    partitions first) that may take it."""
    if state.trace is None and not check_racks and _assign_evenly(state, unassigned, remove_assigned):
        return
    potential_consumers, can_take, current_of = state.potential_consumers.get, state.can_take, state.current.get
    ordered, set_owner = state.sorted_subscriptions, state.owner.set
    i = 0
    while i < len(unassigned):
        tp = unassigned[i]
        placed = False
        if potential_consumers(tp):
            for entry in ordered.entries:
                if tp not in can_take.get(entry.key, ()):
                    continue
                if check_racks and state.racks_mismatch(entry.key, tp):
                    continue
                current = current_of(entry.key)
                assert current is not None
                if state.trace is not None:
                    _record_least_loaded(state, tp, entry.key, check_racks)
                current.append(tp)
                set_owner(tp, entry.key)
                ordered.touch(entry.key)
                placed = True
                break  # the list has changed: no further step of this loop reads it
        if placed and remove_assigned:
            del unassigned[i]
        else:
            i += 1


def _assign_evenly(state: _State, unassigned: Parts, remove_assigned: bool) -> bool:
    """`maybeAssignPartition` over the list when every member may take every partition in it: each to
    the first member, fewest partitions first, then member id. One taken lifts that member above every
    other member at its count, so the members at the lowest count each take one, least member id first,
    then all at the count above (those that just took and those that had that many), and so on: this
    places in that order, then sorts the members once. False (nothing done) when some member may not
    take some partition: then the first member able to take each one decides, one at a time."""
    ordered = state.sorted_subscriptions.entries
    potential_consumers = state.potential_consumers.get
    takes = list(compress(unassigned, map(potential_consumers, unassigned)))
    if not ordered or not takes:
        return False
    distinct = {id(can): can for can in (state.can_take.get(entry.key, frozenset()) for entry in ordered)}
    if not all(can.issuperset(takes) for can in distinct.values()):
        return False
    counts = [len(entry.value) for entry in ordered]
    owners: list[tuple[TopicPartition, str]] = []
    taking: list[Entry] = []  # least member id first
    joined, count, placed = 0, counts[0], 0
    while placed < len(takes):
        start = joined
        while joined < len(ordered) and counts[joined] == count:
            joined += 1
        if joined > start:  # those at one count are in member id order already
            taking = (
                sorted(taking + ordered[start:joined], key=lambda entry: state.ranks[entry.key])
                if taking
                else ordered[start:joined]
            )
        # Up to the next member's count the same members take, one each per count, in the same order.
        rounds = counts[joined] - count if joined < len(ordered) else -(-(len(takes) - placed) // len(taking))
        segment = takes[placed : placed + rounds * len(taking)]
        for i, entry in enumerate(taking):
            entry.value.extend(segment[i :: len(taking)])
        owners.extend(zip(segment, cycle([entry.key for entry in taking])))
        placed += len(segment)
        count += rounds
    state.owner.update(owners)
    state.sorted_subscriptions.resort(ordered)
    if remove_assigned:
        unassigned[:] = [tp for tp in unassigned if not potential_consumers(tp)]
    return True


def _record_least_loaded(state: _State, tp: TopicPartition, member_id: str, check_racks: bool) -> None:
    """The members that could take `tp` at this point, with their loads: the first (fewest, then member
    id) took it."""
    loads = {
        entry.key: len(entry.value)
        for entry in state.sorted_subscriptions.entries
        if tp in state.can_take.get(entry.key, ()) and not (check_racks and state.racks_mismatch(entry.key, tp))
    }
    assert state.trace is not None
    state.trace.record(
        tp,
        member_id,
        LEAST_LOADED,
        held_before=loads[member_id],
        loads=loads,
        tie_break="member id (byte order)",
        rack_pass=check_racks,
        replica_racks=sorted(state.partition_racks.get(tp) or ()),
    )


def _can_participate(state: _State, member_id: str) -> bool:
    """librdkafka: `canConsumerParticipateInReassignment`."""
    current = state.current.get(member_id) or []
    if len(current) < len(state.potential_partitions.get(member_id) or []):
        return True
    return any(len(state.potential_consumers.get(tp) or []) >= 2 for tp in current)


def _move(state: _State, ref: PartitionRef, new: str, asked: TopicPartition, why: Why) -> None:
    """librdkafka: `processPartitionMovement`: the movement is recorded before the pointer is re-read."""
    if state.snapshot_due:  # the first move of `balance`: keep the maps as they were before it
        before: RdMap[str, Parts] = RdMap()
        before.update([(member_id, list(parts)) for member_id, parts in state.current.items()])
        state.snapshot, state.snapshot_due = (before, state.owner.copy()), False
    old = state.owner.get(deref(ref))
    asked_holder = state.owner.get(asked)
    asked_parts = state.current.get(asked_holder) if asked_holder is not None else None
    asked_held = len(asked_parts) if asked_parts is not None else None
    state.movements.move(ref, old, new)
    tp = deref(ref)
    target = state.current.get(new)
    assert target is not None
    if state.trace is not None:
        state.moves += 1
        source = state.current.get(old) if old is not None else None
        state.trace.record(
            tp,
            new,
            BALANCE_MOVE,
            move=state.moves,
            source=old,
            source_held=len(source) if source is not None else None,
            target_held=len(target),
            why=_why(why),
            instead_of=str(asked) if asked != tp else None,
            # the member whose load called for the move, when an earlier move is undone instead (as Java's port)
            **({"asked_holder": asked_holder, "asked_held": asked_held} if asked != tp else {}),
        )
    target.append(tp)
    source = state.current.get(old) if old is not None else None
    if source is None or old is None:
        raise LibrdkafkaCrash("NULL currentAssignment entry for the old consumer is dereferenced")
    remove_first(source, tp)
    state.owner.set(tp, new)
    state.sorted_subscriptions.touch(new)
    state.sorted_subscriptions.touch(old)


Why = tuple[str, str, object]  # (which step of performReassignments, the partition's consumer, its detail)


def _why(why: Why) -> str:
    """A balancing move's reason in words; formatted only when someone asked why."""
    step, consumer, detail = why
    if step == "previous":
        return (
            f"back to its previous owner, which claimed it at generation {detail} and held at least 2 fewer "
            f"than {consumer}"
        )
    rack = "rack step: both on a rack of the partition, " if step == "rack" else ""
    return (
        f"{rack}{consumer} held at least 2 more than {detail}, another subscriber, so the partition may move; "
        "it goes to the subscriber with the fewest partitions, ties by member id"
    )


def _reassign_to(state: _State, tp: TopicPartition, new: str, why: Why) -> None:
    """librdkafka: `reassignPartitionToConsumer`."""
    _move(state, state.movements.actual_partition_to_move(tp, state.owner.get(tp), new), new, tp, why)


def _reassign(state: _State, tp: TopicPartition, why: Why) -> None:
    """librdkafka: `reassignPartition`: to the first member (fewest partitions) that can take it."""
    for entry in state.sorted_subscriptions.entries:
        if tp in state.can_take.get(entry.key, ()):
            _reassign_to(state, tp, entry.key, why)  # the list changes: the loop ends here
            return
    raise LibrdkafkaCrash("rd_assert fails: reassignPartition() found no new consumer")


def _is_balanced(state: _State) -> bool:
    """librdkafka: `isBalanced`."""
    ordered = state.sorted_subscriptions.entries
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
    return sum(abs(a - b) for i, a in enumerate(sizes) for b in sizes[i + 1 :])


def _record_undone(state: _State, before: RdMap[str, Parts]) -> None:
    """Every partition the balancing moved, going back where it was: the score did not improve."""
    assert state.trace is not None
    moved_to = {tp: member_id for member_id, parts in state.current.items() for tp in parts}
    score_before, score_after = _score(before), _score(state.current)
    for member_id, parts in before.items():
        for tp in parts:
            if moved_to.get(tp) != member_id:
                state.trace.record(
                    tp,
                    member_id,
                    BALANCE_UNDONE,
                    moved_to=moved_to.get(tp),
                    score_before=score_before,
                    score_after=score_after,
                )


def _balance(state: _State, sorted_partitions: Parts, unassigned: Parts, revocation_required: bool) -> None:
    """librdkafka: `balance`."""
    initializing = len(state.sorted_subscriptions.entries[-1].value) == 0
    if state.rack_aware:
        left = list(unassigned)
        _maybe_assign(state, left, True, True)
        _maybe_assign(state, left, False, False)
    else:
        _maybe_assign(state, unassigned, False, False)

    # The partitions with fewer than two potential consumers, in map order.
    alone = list(compress(state.potential_consumers, map((2).__gt__, map(len, state.potential_consumers.values()))))
    remove_firsts(sorted_partitions, alone)
    remove_firsts(unassigned, alone)

    fixed: RdMap[str, Parts] = RdMap()
    current_of, potential_of = state.current.get, state.potential_partitions.get
    i = 0
    while i < len(state.sorted_subscriptions):
        member_id = state.sorted_subscriptions.entries[i].key
        # _can_participate's first test, inline: most members have fewer than they could take.
        if len(current_of(member_id) or ()) < len(potential_of(member_id) or ()) or _can_participate(state, member_id):
            i += 1
            continue
        state.sorted_subscriptions.pop(i)
        fixed.set(member_id, list(state.current.get(member_id) or []))
        state.current.delete(member_id)

    # The maps as they are here (preBalanceAssignment, preBalancePartitionConsumers) are read only to undo
    # the moves below, never when initializing: they are copied when the first move is made.
    state.snapshot_due = not initializing
    if not revocation_required and unassigned:
        _perform_reassignments(state, unassigned)
    performed = _perform_reassignments(state, sorted_partitions)
    state.snapshot_due = False

    if (
        not initializing
        and performed
        and state.snapshot is not None
        and _score(state.current) >= _score(state.snapshot[0])
    ):
        before, owners_before = state.snapshot
        if state.trace is not None:
            _record_undone(state, before)
        for member_id, parts in before.items():
            state.current.set(member_id, list(parts))
        state.owner = owners_before.copy()

    if len(fixed):
        entries = list(state.sorted_subscriptions.entries)
        for entry in fixed.entries():
            entries.append(state.current.put(entry.key, entry.value))
        state.sorted_subscriptions.resort(entries)


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
    state.sorted_subscriptions.resort(state.current.entries())
    _balance(state, sorted_partitions, unassigned, revocation_required)
    return {m.member_id: list(state.current.get(m.member_id) or []) for m in members}
