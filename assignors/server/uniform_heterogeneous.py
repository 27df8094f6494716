"""`uniform` for members with different subscriptions.

Kafka: `UniformHeterogeneousAssignmentBuilder` (4.0, KAFKA-17710). Members are numbered in the
coordinator's member order; a topic's subscribers are kept in that numbering. Members keep the partitions
of topics they still subscribe to. Topics are then visited most partitions per subscriber first; each
topic's unassigned partitions are dealt over its subscribers sorted by (load, number), every member of
the least-loaded range taking one per round. Finally, for at most 16 passes over the topics with two or
more subscribers, partitions of a topic move from its most to its least loaded subscribers until their
loads differ by at most one.

In a steady round a member whose partitions did not change gets its current target tuple back, and only
the other members' targets are built (`ServerGroup.to_assignment`, `BUILT_TARGETS`).
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Sequence
from itertools import chain, compress, filterfalse, islice
from operator import add

from kgroup.assignors.base import AssignorError
from kgroup.assignors.java.hash_order import Uuid
from kgroup.assignors.model import Assignment, TopicPartition
from kgroup.assignors.server.group_spec import BUILT_TARGETS, ServerGroup
from kgroup.assignors.trace import BALANCE_MOVE, KEPT, LEAST_LOADED, NOT_SUBSCRIBED, UNASSIGNABLE, active

MAX_ITERATION_COUNT = 16  # UniformHeterogeneousAssignmentBuilder.MAX_ITERATION_COUNT


class _Balancer:
    """Kafka: `UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer`.

    One list of a topic's subscribers sorted by (load, member number) serves both ends: a pointer walks
    up the least-loaded range and another walks down the most-loaded range; each range widens by one
    load level when its pointer runs past it.
    """

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.members: list[int] = []
        self.least_end = 0  # exclusive
        self.least_level = -1
        self.next_least = 0
        self.most_start = 0  # inclusive
        self.most_end = 0  # exclusive
        self.most_level = 1
        self.next_most = -1

    def initialize(self, members: list[int]) -> int:
        sizes = self.sizes
        # `members` is ascending, so a stable sort by load alone orders by (load, number).
        self.members = sorted(members, key=sizes.__getitem__)
        n = len(self.members)
        self.least_end = 0
        self.least_level = sizes[self.members[0]] - 1
        self.next_least = 0
        self.most_start = n
        self.most_end = n
        self.most_level = sizes[self.members[-1]] + 1
        self.next_most = n - 1
        return sizes[self.members[-1]] - sizes[self.members[0]]

    def next_least_loaded(self) -> int:
        if self.next_least >= self.least_end:
            self.least_level += 1
            while self.least_end < len(self.members) and self.sizes[self.members[self.least_end]] == self.least_level:
                self.least_end += 1
            self.next_least = 0
        member = self.members[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded(self) -> int:
        sizes, members = self.sizes, self.members
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                # Every member of the top range was excluded: restart from the member just below it.
                self.most_level = sizes[members[self.most_start - 1]]
            else:
                self.most_level -= 1
            while self.most_start > 0 and sizes[members[self.most_start - 1]] == self.most_level:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = members[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        """Swap the member just returned to the end of the top range and shrink the range past it."""
        members = self.members
        i, last = self.next_most + 1, self.most_end - 1
        members[i], members[last] = members[last], members[i]
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_level - self.least_level <= 1


class _Ranking:
    """A subscriber list ordered by (load, member number), kept while only a few loads change.

    Loads only grow while unassigned partitions are dealt. Members whose load is unchanged since the order
    was taken stay in order among themselves, so the k least loaded are among the first k of those and
    the changed ones.
    """

    def __init__(self, subscribers: list[int], sizes: list[int]) -> None:
        self.subscribers = subscribers
        self.sizes = sizes
        self.order = sorted(subscribers, key=sizes.__getitem__)  # `subscribers` is ascending: stable by load
        self.members = set(subscribers)
        self.changed: set[int] = set()

    def least(self, k: int) -> list[int]:
        """The k least loaded by (load, number), in that order."""
        changed = self.changed
        unchanged = list(islice(filterfalse(changed.__contains__, self.order), k)) if changed else self.order[:k]
        sizes = self.sizes
        return heapq.nsmallest(k, [*unchanged, *changed], key=lambda m: (sizes[m], m))

    def loads_changed(self, members: list[int]) -> bool:
        """Note these members' new loads; False when so many changed that a fresh order is cheaper."""
        self.changed.update(filter(self.members.__contains__, members))
        return len(self.changed) * 8 <= len(self.order)


class HeterogeneousBuilder:
    """Kafka: `UniformHeterogeneousAssignmentBuilder.build`; returns member -> topic id -> partitions."""

    def __init__(self, group: ServerGroup) -> None:
        self.group = group
        self.member_ids = group.member_ids
        self.sizes = [0] * len(self.member_ids)
        self.subscribed: list[frozenset[str]] = []
        # Members sharing a subscription are handled together: subscribers lists stay ascending because
        # each distinct subscription's members are collected in member order and merged at the end.
        by_subscription: dict[tuple[str, ...], list[int]] = {}
        shared: dict[tuple[str, ...], frozenset[str]] = {}
        for index, member_id in enumerate(self.member_ids):
            topics = group.members[member_id].topics
            by_subscription.setdefault(topics, []).append(index)
            if topics not in shared:
                shared[topics] = frozenset(group.subscribed_ids(member_id))
            self.subscribed.append(shared[topics])
        per_topic_runs: dict[str, list[list[int]]] = {}
        for topics, indices in by_subscription.items():
            for topic_id in group.subscribed_ids(group.member_ids[indices[0]]):
                if group.num_partitions(topic_id) == -1:
                    raise AssignorError(
                        "PartitionAssignorException",
                        f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.",
                    )
                per_topic_runs.setdefault(topic_id, []).append(indices)
        self.subscribers: dict[str, list[int]] = {
            t: runs[0] if len(runs) == 1 else sorted(i for run in runs for i in run)
            for t, runs in per_topic_runs.items()
        }
        self.owners = {t: [-1] * group.num_partitions(t) for t in self.subscribers}
        self.uuid_keys = {t: Uuid(t).sort_key() for t in self.subscribers}
        self.trace = active()
        self.moves = 0
        self.pass_number = 0
        self.balance_moves = 0  # moves made by `_balance` so far: loads change only with one
        # Subscriber list (by identity) -> `balance_moves` when its loads were last found within one:
        # they cannot have changed since unless a move was made. Many topics share one subscriber list.
        self.balanced_at: dict[int, int] = {}
        # Member index -> its current target when its new one is that same tuple (it kept it all, in
        # TopicPartition order, and neither gained nor lost a partition since), else None: a steady round
        # hands most members' targets back unchanged, and `ServerGroup.to_assignment` then reuses them.
        self.unchanged: list[tuple[TopicPartition, ...] | None] = [None] * len(self.member_ids)
        self.reusable = 0  # how many are not None (a first round has none to track)
        self.all_known = True  # every current target is listed as a target is (BUILT_TARGETS.known), or empty
        self.gained: dict[int, list[tuple[str, int]]] = {}  # member index -> (topic id, partition) it changed
        # When a list: each (member index, topic id, partition) given or taken, in order (the coordinator's record
        # of the member's target lists its topics in the order its map got them: target_order.after_moves).
        self.moves_log: list[tuple[int, str, int]] | None = None
        if self.trace is not None:
            self.trace.note(path="heterogeneous")

    def build(self) -> dict[str, list[int]] | None:
        """Topic id -> owner index per partition; None when nobody subscribes to an existing topic."""
        if not self.subscribers:
            return None
        self._keep_subscribed()
        self._assign_unassigned()
        self._balance()
        return self.owners

    def assignment(self) -> Assignment | None:
        """`build` as kgroup's Assignment; None when nobody subscribes to an existing topic."""
        owners = self.build()
        if owners is None:
            return None
        # A current target not known there may be in any order: then every target is built from `owners`.
        return self.group.to_assignment(owners, self.unchanged if self.all_known else (), self.gained)

    def _changed(self, topic_id: str, partitions: Iterable[int], members: Iterable[int]) -> None:
        """Each member was given, or gave up, the partition beside it: its new target is not its current
        one, and the partition is among those its new target is looked for in (`to_assignment`)."""
        if self.moves_log is not None:
            partitions, members = list(partitions), list(members)
            self.moves_log.extend((m, topic_id, p) for p, m in zip(partitions, members))
        if self.reusable:
            unchanged, gained = self.unchanged, self.gained
            for p, member in zip(partitions, members):
                unchanged[member] = None
                gained.setdefault(member, []).append((topic_id, p))

    def _topic_order(self, topic_ids: list[str]) -> list[str]:
        """Kafka's topic comparator: partitions per subscriber descending, subscribers ascending, id."""

        def key(t: str) -> tuple[float, int, tuple[int, int]]:
            count, subscribers = self.group.num_partitions(t), len(self.subscribers[t])
            return (-(count / subscribers), subscribers, self.uuid_keys[t])

        return sorted(topic_ids, key=key)

    def _keep_subscribed(self) -> None:
        """Kafka: `maybeRevokePartitions`: members keep the partitions of topics they still subscribe to."""
        uuid = self.group.uuid
        trace = self.trace
        holders_of: dict[frozenset[str], dict[str, list[int]]] = {}
        unchanged = self.unchanged
        for index, member_id in enumerate(self.member_ids):
            mine = self.subscribed[index]
            holders = holders_of.get(mine)
            if holders is None:
                holders = holders_of[mine] = {name: self.owners[u.text] for name, u in uuid.items() if u.text in mine}
            owned = self.group.members[member_id].owned
            try:
                if trace is None:
                    try:
                        # Usually every owned topic is still subscribed: no per-partition check then.
                        for topic, partition in owned:
                            holders[topic][partition] = index
                        self.sizes[index] += len(owned)
                        # Reusable as its new target if listed as to_assignment lists one (strictly ascending,
                        # so no duplicate, and no negative number, which a list index wraps).
                        if owned:
                            if BUILT_TARGETS.known(owned):
                                unchanged[index] = owned
                                self.reusable += 1
                            else:
                                self.all_known = False
                        continue
                    except KeyError:
                        pass  # a dropped topic: the loop below writes the same owners again, and counts
                if owned:
                    self.all_known = False
                kept = 0
                for topic, partition in owned:
                    owners = holders.get(topic)
                    if owners is not None:
                        owners[partition] = index
                        kept += 1
                        if trace is not None:
                            trace.record(TopicPartition(topic, partition), member_id, KEPT, member=member_id)
                    elif trace is not None:
                        # Not kept: the member dropped the topic (or the topic is gone); say which.
                        rule = NOT_SUBSCRIBED if topic in uuid else UNASSIGNABLE
                        trace.record(TopicPartition(topic, partition), None, rule, member=member_id)
            except IndexError:
                raise AssignorError(
                    "ArrayIndexOutOfBoundsException",
                    f"{member_id} holds a partition beyond its topic's partition count",
                ) from None
            self.sizes[index] += kept

    def _assign_unassigned(self) -> None:
        """Kafka: `computeUnassignedPartitions` + `assignRemainingPartitions`, one round per load level."""
        unassigned: dict[str, Sequence[int]] = {}
        held = 0
        for t, owners in self.owners.items():
            free = owners.count(-1)
            held += len(owners) - free
            if not free:
                continue
            if free == len(owners):
                unassigned[t] = range(free)
            elif free > 16:
                unassigned[t] = list(compress(range(len(owners)), map((-1).__eq__, owners)))
            else:  # a few: list.index finds each in a C scan
                found = [owners.index(-1)]
                for _ in range(free - 1):
                    found.append(owners.index(-1, found[-1] + 1))
                unassigned[t] = found
        sizes = self.sizes
        if held != sum(sizes):  # a partition kept by two members: the later one has it, so keep no tuple
            self.unchanged = [None] * len(sizes)
            self.reusable = 0
        load = sizes.__getitem__
        rankings: dict[int, _Ranking] = {}  # subscriber list (by identity) -> its members by load, kept
        masks: dict[int, list[int]] = {}  # subscriber list (by identity) -> 1 for its members, else 0
        for topic_id in self._topic_order(list(unassigned)):
            parts = unassigned[topic_id]
            subscribers = self.subscribers[topic_id]
            # Subscribers by (load, number). Only the first len(parts) can receive one (each round takes
            # a prefix of at most what is left), so a few unassigned partitions need only the few least
            # loaded, which a kept ranking of the topic's subscribers gives without a sort. An explanation
            # lists every subscriber's load, so it takes them all.
            few = self.trace is None and len(parts) * 4 < len(subscribers)
            if few:
                ranking = rankings.get(id(subscribers))
                if ranking is None:
                    ranking = rankings[id(subscribers)] = _Ranking(subscribers, sizes)
                ranked = ranking.least(len(parts))
            else:
                rankings.clear()  # most subscribers' loads change: rankings are rebuilt when next needed
                ranked = sorted(subscribers, key=load)  # `subscribers` is ascending: stable by load alone
            rounds: list[int] = []  # each round deals one partition to each of the first n ranked
            if load(ranked[0]) == load(ranked[-1]):  # one load level: each round takes them all, but the last
                full, rest = divmod(len(parts), len(ranked))
                rounds += [len(ranked)] * full + ([rest] if rest else [])
            else:
                level, dealt = load(ranked[0]) - 1, 0
                while dealt < len(parts):
                    level += 1  # the least-loaded range widens by one load level per round
                    rounds.append(min(bisect_right(ranked, level, key=load), len(parts) - dealt))
                    dealt += rounds[-1]
            receivers = (
                ranked[: rounds[0]] if len(rounds) == 1 else list(chain.from_iterable(ranked[:n] for n in rounds))
            )
            self._changed(topic_id, parts, receivers)
            if few:
                for other in list(rankings.values()):
                    if not other.loads_changed(receivers):
                        del rankings[id(other.subscribers)]
            owners = self.owners[topic_id]
            if self.trace is None:
                if len(parts) == len(owners):  # every partition was unassigned: parts is range(len(owners))
                    owners[:] = receivers
                else:
                    deque(map(owners.__setitem__, parts, receivers), maxlen=0)
                for n in rounds:  # a round raises the load of each of the first n ranked by one
                    if n == len(subscribers):  # all of them: add the list's 0/1 per member to every load
                        mask = masks.get(id(subscribers))
                        if mask is None:
                            mask = masks[id(subscribers)] = [0] * len(sizes)
                            for m in subscribers:
                                mask[m] = 1
                        sizes[:] = map(add, sizes, mask)
                    else:
                        deque(map(sizes.__setitem__, ranked[:n], map((1).__add__, map(load, ranked[:n]))), maxlen=0)
                continue
            loads = {self.member_ids[i]: sizes[i] for i in ranked}
            for p, member in zip(parts, receivers):
                owners[p] = member
                self.trace.record(
                    TopicPartition(self.group.name[topic_id], p),
                    self.member_ids[member],
                    LEAST_LOADED,
                    held_before=sizes[member],
                    loads=dict(loads),
                    tie_break="the coordinator's member order",
                )
                loads[self.member_ids[member]] += 1
                sizes[member] += 1

    def _balance(self) -> None:
        """Kafka: `balance` + `balanceTopics`."""
        topics = self._topic_order([t for t, subs in self.subscribers.items() if len(subs) >= 2])
        if not topics:
            return
        balancer = _Balancer(self.sizes)
        last_moved = -1
        for iteration in range(MAX_ITERATION_COUNT):
            self.pass_number = iteration + 1
            for index, topic_id in enumerate(topics):
                if index == last_moved:
                    return
                moved = self._balance_topic(topic_id, balancer)
                if moved > 0 or last_moved == -1:
                    last_moved = index

    def _balance_topic(self, topic_id: str, balancer: _Balancer) -> int:
        """Kafka: `balanceTopic`: move each most-loaded member's last partition (by owner, number)."""
        subscribers = self.subscribers[topic_id]
        if self.balanced_at.get(id(subscribers)) == self.balance_moves:
            return 0
        sizes = self.sizes
        loads = list(map(sizes.__getitem__, subscribers))
        if max(loads) - min(loads) <= 1:
            self.balanced_at[id(subscribers)] = self.balance_moves
            return 0  # `initialize` would report imbalance <= 1; its state is rebuilt before the next use
        balancer.initialize(subscribers)
        owners = self.owners[topic_id]
        partitions = sorted(range(len(owners)), key=owners.__getitem__)  # by (owner, number): stable
        start: dict[int, int] = {}
        end: dict[int, int] = {}  # exclusive
        for i, p in enumerate(partitions):
            start.setdefault(owners[p], i)
            end[owners[p]] = i + 1
        moved = 0
        while not balancer.is_balanced():
            donor = balancer.next_most_loaded()
            while donor != -1 and end.get(donor, 0) - start.get(donor, 0) <= 0:
                balancer.exclude_most_loaded()
                donor = balancer.next_most_loaded()
            if donor == -1:
                break
            end[donor] -= 1
            partition = partitions[end[donor]]
            receiver = balancer.next_least_loaded()
            if balancer.is_balanced():
                break
            owners[partition] = receiver
            self._changed(topic_id, (partition, partition), (receiver, donor))
            if self.trace is not None:
                self.moves += 1
                self.trace.record(
                    TopicPartition(self.group.name[topic_id], partition),
                    self.member_ids[receiver],
                    BALANCE_MOVE,
                    move=self.moves,
                    balancing_pass=self.pass_number,
                    source=self.member_ids[donor],
                    source_held=sizes[donor],
                    target_held=sizes[receiver],
                    why="from the topic's most loaded subscriber to its least loaded",
                )
            sizes[donor] -= 1
            sizes[receiver] += 1
            moved += 1
        self.balance_moves += moved
        return moved
