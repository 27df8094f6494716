"""The coordinator's `uniform` target, computed from the target it issued last: O(members + moved partitions).

Kafka runs `UniformHomogeneousAssignmentBuilder` on every group-epoch bump (TargetAssignmentBuilder), in
Java, over every partition. A simulated rolling restart of 1,000 members on 100,000 partitions bumps the
epoch 2,000 times, and the full builder in Python (kgroup.assignors.server.uniform) is far too slow for that.

This computes the same result as the full builder, visiting only what can change. It applies when every
member subscribes to the same topics and each member's current target is one this object issued, for the
same topics and partition counts: those targets are disjoint and lie inside the subscribed partitions, so
a member's held count is the size of its set, and the partitions nobody holds are exactly those issued to
members that have gone. Otherwise it declines (None) and the caller runs the full assignor, whose result
it then remembers. A hypothesis test checks every result against the full assignor.

Like the full builder it follows a Kafka release (`kgroup.assignors.server.releases`): who keeps the
extra partitions of quota changed in 4.1 (KAFKA-18688).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Mapping, Sequence
from itertools import compress, repeat

from kgroup.assignors.java.hash_order import capacity_by_size, spread, string_order
from kgroup.assignors.java.semantics import java_string_hash
from kgroup.assignors.model import Cluster, Member, TopicPartition
from kgroup.assignors.server.group_spec import HOMOGENEOUS, LISTED, ServerGroup, subscription_type_of
from kgroup.assignors.server.releases import UNIFORM_4_0, uniform_rules
from kgroup.assignors.trace import FILL_QUOTA, KEPT, OVER_QUOTA, Trace, active

Partitions = frozenset[TopicPartition]
Subscription = tuple[str, ...]
_EMPTY: Partitions = frozenset()
_LAST_TOPICS_KEPT = 4096  # a few megabytes of topic sets


class UniformTargets:
    """Remembers the last target issued so the next one can be derived from it."""

    def __init__(self, kafka_version: str | None = None) -> None:
        """`kafka_version`: the broker's release (None: the newest behaviour)."""
        self._extra_to_the_first = uniform_rules(kafka_version) == UNIFORM_4_0
        self._metadata: tuple[Subscription, tuple[tuple[str, int], ...]] | None = None
        self._issued: dict[str, Partitions] = {}
        self._last_metadata: tuple[Cluster, Subscription, tuple[Subscription, tuple[tuple[str, int], ...]]] | None = (
            None
        )
        self._order = _MemberOrder()
        self._spec: tuple[tuple[Cluster, str, Subscription], tuple[ServerGroup, list[str], dict[str, int]]] | None = (
            None
        )
        self._last_topics: dict[tuple[str, ...] | frozenset[str], str] = {}  # _tail's last topic by record or names
        # id(target) -> (that issued target, its partition numbers by topic, ascending), see _by_topic
        self._grouped: dict[int, tuple[Partitions, dict[str, list[int]]]] = {}
        self.changed: list[str] = []  # the members whose target the last derived one changed

    def remember(
        self, cluster: Cluster, subscriptions: Sequence[Subscription], targets: Mapping[str, Partitions]
    ) -> None:
        """Record a target the full assignor computed for members with these subscriptions. Only a homogeneous
        group's is kept: a target derived from it relies on its sets covering exactly the subscribed partitions."""
        homogeneous = bool(subscriptions) and subscription_type_of(subscriptions) == HOMOGENEOUS
        self._metadata = _metadata(cluster, subscriptions) if homogeneous else None
        self._issued = dict(targets) if homogeneous else {}

    def compute(
        self,
        cluster: Cluster,
        member_ids: Sequence[str],
        subscriptions: Sequence[Subscription],
        current: Mapping[str, Partitions],
        records: Mapping[str, tuple[str, ...]] | None = None,
        handed: dict[str, list[tuple[str, int]]] | None = None,
        emptied: dict[str, set[str]] | None = None,
    ) -> Mapping[str, Partitions] | None:
        """The uniform target for the members (ids in the coordinator's order, with their subscriptions),
        or None when this cannot tell. `records`: a member's topics as its last target record lists them
        (`kgroup.assignors.server.target_order`; absent: by name), which decides what it gives up; `handed`
        gets the partitions handed to each member, in order, and `emptied` the topics a member gave up its last
        partition of. The answer is the last issued target this object keeps, read only
        (not copied: a thousand members' entries at every bump); `ConsumerCoordinator._new_target` makes its own."""
        if not member_ids or subscription_type_of(subscriptions) != HOMOGENEOUS:
            return None
        cached = self._last_metadata  # the same cluster and subscription objects as last time, usually
        if cached is not None and cached[0] is cluster and cached[1] is subscriptions[0]:
            metadata = cached[2]
        else:
            metadata = _metadata(cluster, subscriptions)
            self._last_metadata = (cluster, subscriptions[0], metadata)
        if metadata != self._metadata:
            return None
        # Each pass over the members below runs in C (map, set, dict over them): this runs on every group
        # epoch bump of a simulated thousand-member group, so the passes are few.
        by_member = dict(zip(member_ids, map(current.get, member_ids, repeat(_EMPTY))))
        if len(by_member) != len(member_ids):
            return None
        total = sum(n for _, n in metadata[1])
        changes = self._changes(by_member)
        if changes is None:
            gone = self._gone(by_member, total)
            if gone is None:
                return None
            order = self._order.of(member_ids)  # GroupSpec.memberIds(): a HashMap's order
        else:
            gone, joined = changes
            order = self._order.of(member_ids, joined)
        first = order[0]
        group, topic_ids, position = self._group(cluster, first, subscriptions[0])
        if not topic_ids:
            return None
        # Nobody holds these: UniformHomogeneousAssignmentBuilder lists them topic by topic, partitions ascending.
        unassigned = sorted((tp for t in gone for tp in t), key=lambda tp: (position[tp.topic], tp.partition))

        min_quota, extra = divmod(total, len(order))
        sizes = list(map(len, map(by_member.__getitem__, order)))
        trace = active()
        if self._extra_to_the_first or trace is not None:
            plan = _plan_each(sizes, min_quota, extra, self._extra_to_the_first)
        else:
            plan = _plan_skipping(sizes, min_quota, extra)
        over, short_by, quota_of = plan
        revoked: dict[str, list[TopicPartition]] = {}
        for index, excess_count in over:  # maybeRevokePartitions: the first `quota` in record order are kept
            member_id = order[index]
            record = records.get(member_id) if records else None
            target = by_member[member_id]
            excess = self._tail(group, self._by_topic(target), target, excess_count, record)
            unassigned += excess
            revoked[member_id] = excess
        unfilled = [(order[index], short) for index, short in short_by]

        added: dict[str, list[TopicPartition]] = {}
        taken = 0  # assignRemainingPartitions
        for member_id, quota in unfilled:
            chunk = unassigned[taken : taken + quota]
            if chunk:
                added[member_id] = chunk
                if handed is not None:
                    given: list[tuple[str, int]] = list(chunk)
                    handed[member_id] = given
            taken += len(chunk)
        if taken < len(unassigned):
            return None  # the full builder raises "Partitions were left unassigned"

        if trace is not None:
            quotas = {order[index]: quota for index, quota in quota_of.items()}
            _record(trace, order, by_member, revoked, unfilled, added, total, quotas)
        result = dict(by_member)  # most members keep their target: the same set object
        for member_id, excess in revoked.items():
            old = result[member_id]
            kept = result[member_id] = self._regrouped(old, old - frozenset(excess), excess, list.remove)
            if emptied is not None:
                left = self._by_topic(kept)  # carried over from `old` by _regrouped: no regrouping
                last_ones = {tp.topic for tp in excess if tp.topic not in left}
                if last_ones:
                    emptied[member_id] = last_ones
        for member_id, chunk in added.items():
            old = result[member_id]
            result[member_id] = self._regrouped(old, old | frozenset(chunk), chunk, insort)
        self._metadata, self._issued = metadata, result
        self.changed = [*revoked, *added]  # disjoint: a member over its quota is not short of it
        if len(self._grouped) > 2 * len(result) + 64:  # departed members' targets are not kept forever
            issued_ids = set(map(id, result.values()))
            self._grouped = {key: entry for key, entry in self._grouped.items() if key in issued_ids}
        return result

    def _changes(self, by_member: dict[str, Partitions]) -> tuple[list[Partitions], Sequence[str]] | None:
        """When the members hold what this object issued last, except members that left and members that
        joined holding nothing or a departed member's target (a static member's replacement takes it over):
        the departed members' targets nobody holds now, and the members that joined; else None.

        The last target's sets are disjoint and cover the subscribed partitions (it was checked when issued), so
        what holds for it holds here without a pass over every member's set."""
        issued = self._issued
        if not issued:
            return None
        departed = issued.keys() - by_member.keys()
        joined = by_member.keys() - issued.keys()
        expected = dict(issued)
        freed: dict[int, Partitions] = {}
        for member_id in departed:
            target = expected.pop(member_id)
            if target:
                freed[id(target)] = target
        for member_id in joined:
            held = expected[member_id] = by_member[member_id]
            if held and freed.pop(id(held), None) is not held:
                return None
        if expected != by_member:  # a member kept on holds something else: a scenario set its target
            return None
        return list(freed.values()), list(joined)

    def _gone(self, by_member: dict[str, Partitions], total: int) -> list[Partitions] | None:
        """The targets this object issued that nobody holds now, when every member holds nothing or a target
        this object issued, none held twice and together with those gone covering the subscribed partitions;
        else None (`_changes` tells this faster when only members came and went)."""
        nonempty = list(filter(None, by_member.values()))
        issued = list(self._issued.values())
        issued_by_id = dict(zip(map(id, issued), issued))
        held_ids = set(map(id, nonempty))
        if len(held_ids) != len(nonempty) or not held_ids <= issued_by_id.keys():
            return None  # a target this object did not issue, or one object held by two members
        gone = [issued_by_id[i] for i in issued_by_id.keys() - held_ids]
        if sum(map(len, nonempty)) + sum(map(len, gone)) != total:
            return None
        return gone

    def _tail(
        self,
        group: ServerGroup,
        by_topic: dict[str, list[int]],
        partitions: Partitions,
        count: int,
        record: tuple[str, ...] | None = None,
    ) -> list[TopicPartition]:
        """`group.record_tail(partitions, count, record)`, from the last topic's partitions alone when they
        suffice (`by_topic`: `partitions` grouped, see `_by_topic`).

        A record tail orders the topics by the record (else their names) and their ids' buckets alone and
        takes partitions from the last topic backwards, each topic's in an order that depends on its own
        partitions alone. A member over its quota usually gives up one partition, of the last topic: only that
        topic's partitions are then ordered.
        """
        key: tuple[str, ...] | frozenset[str] = record if record is not None else frozenset(by_topic)
        last = self._last_topics.get(key)
        if last is None or last not in by_topic:
            if len(self._last_topics) >= _LAST_TOPICS_KEPT:
                self._last_topics.clear()  # members' topic sets drift over an hour: keep the recent ones
            last = group.last_record_topic(by_topic.keys(), record)
            if record is None or len(record) == len(by_topic):  # a record naming other topics is not reused
                self._last_topics[key] = last
        own = by_topic[last]
        if len(own) >= count:
            return group.topic_tail(last, own, count)
        return group.record_tail(partitions, count, record)

    def _by_topic(self, target: Partitions) -> dict[str, list[int]]:
        """An issued target's partition numbers by topic, ascending. Kept with the target and carried over to
        the member's next target (`_regrouped`), so a member giving up one partition of its hundred does not
        group them all again at every bump. Read only: `_regrouped` changes it."""
        entry = self._grouped.get(id(target))
        if entry is None or entry[0] is not target:
            by_topic: dict[str, list[int]] = {}
            for topic, partition in sorted(target):
                parts = by_topic.get(topic)
                if parts is None:
                    by_topic[topic] = [partition]
                else:
                    parts.append(partition)
            entry = self._grouped[id(target)] = (target, by_topic)
        return entry[1]

    def _regrouped(
        self,
        old: Partitions,
        new: Partitions,
        changed: list[TopicPartition],
        change: Callable[[list[int], int], None],
    ) -> Partitions:
        """`new`, the target that replaces `old` with `changed` removed or added (`change` is list.remove or
        insort): `old`'s grouping, if it has one, moves to `new` with the same change."""
        entry = self._grouped.pop(id(old), None)
        if entry is not None and entry[0] is old:
            by_topic = entry[1]
            for topic, partition in changed:
                parts = by_topic.get(topic)
                if parts is None:
                    parts = by_topic[topic] = []
                change(parts, partition)
                if not parts:
                    del by_topic[topic]
            self._grouped[id(new)] = (new, by_topic)
        return new

    def _group(
        self, cluster: Cluster, first: str, subscription: Subscription
    ) -> tuple[ServerGroup, list[str], dict[str, int]]:
        """The ServerGroup that orders record tails, the first member's topic ids in its HashSet order and
        each topic's place in it by name; kept while the cluster and the first member's subscription stay
        the same, as they all depend on nothing else."""
        key = (cluster, first, subscription)
        if self._spec is None or self._spec[0] != key:
            if self._spec is None or self._spec[0][0] != cluster:
                self._last_topics.clear()  # topic ids, which order the topics, come with the cluster
            group = ServerGroup(cluster, [Member(first, subscription)], LISTED)
            topic_ids = group.id_set_order(group.subscribed_ids(first), len(subscription))
            position = {group.name[t]: i for i, t in enumerate(topic_ids)}
            self._spec = (key, (group, topic_ids, position))
        return self._spec[1]


Plan = tuple[list[tuple[int, int]], list[tuple[int, int]], dict[int, int]]


def _plan_each(sizes: list[int], min_quota: int, extra: int, extra_to_the_first: bool) -> Plan:
    """UniformHomogeneousAssignmentBuilder.maybeRevokePartitions over the members (positions in `sizes`, each
    the size of its current target): who gives up how many, who is short by how many, and the quotas above
    the minimum."""
    over: list[tuple[int, int]] = []
    short_by: list[tuple[int, int]] = []
    quotas: dict[int, int] = {}
    count = len(sizes)
    for index, size in enumerate(sizes):
        quota = min_quota
        claims_extra = extra > 0
        if claims_extra:
            quota += 1
            if extra_to_the_first:
                extra -= 1
        if size > quota:
            over.append((index, size - quota))
        short = quota - size if quota > size else 0
        if claims_extra and not extra_to_the_first:
            if short > 0 and count - index > extra:  # KAFKA-18688: leave the extra to a later member
                short -= 1
            else:
                extra -= 1
        if short > 0:
            short_by.append((index, short))
        if quota != min_quota:
            quotas[index] = quota
    return over, short_by, quotas


def _plan_skipping(sizes: list[int], min_quota: int, extra: int) -> Plan:
    """`_plan_each` under KAFKA-18688's rule (4.1+), visiting only the members whose size is not the minimum
    quota, and those at the end that must take an extra partition; without the quotas (only a trace needs them).

    A member holding exactly the minimum changes nothing while `extra` is 0, or while more members are left
    than extra partitions (it leaves its extra to a later member). Once the members left (itself included) are
    no more than `extra`, every member from there takes one: a member at the minimum is then short by one and
    takes the extra, and any other also uses one up, so the two counts stay equal until `extra` is 0.
    """
    over: list[tuple[int, int]] = []
    short_by: list[tuple[int, int]] = []
    count = len(sizes)
    start = 0  # the first member not visited yet; those before a visited one hold the minimum

    def at_minimum(stop: int) -> None:
        nonlocal extra
        first = max(start, count - extra)
        last = min(stop, first + extra)
        if first < last:
            short_by.extend(zip(range(first, last), repeat(1)))
            extra -= last - first

    for index in compress(range(count), map(min_quota.__ne__, sizes)):
        if extra > 0 and count - extra < index:  # else no member before `index` takes an extra
            at_minimum(index)
        size = sizes[index]
        quota = min_quota
        if extra > 0:
            quota += 1
            if size > quota:
                over.append((index, size - quota))
            short = quota - size if quota > size else 0
            if short > 0 and count - index > extra:
                short -= 1
            else:
                extra -= 1
        else:
            if size > quota:
                over.append((index, size - quota))
            short = quota - size if quota > size else 0
        if short > 0:
            short_by.append((index, short))
        start = index + 1
    at_minimum(count)
    return over, short_by, {}


def _record(
    trace: Trace,
    order: list[str],
    by_member: Mapping[str, Partitions],
    revoked: Mapping[str, list[TopicPartition]],
    unfilled: list[tuple[str, int]],
    added: Mapping[str, list[TopicPartition]],
    total: int,
    quotas: Mapping[str, int],  # the members whose quota is above the minimum
) -> None:
    """The full builder's steps (kgroup.assignors.server.uniform) for this derived target: each member keeps
    its current target up to its quota, the excess is revoked, and the members still short are filled."""
    min_quota, extra = divmod(total, len(order))
    trace.note(
        assignor="uniform",
        subscriptions="homogeneous",
        path="homogeneous, derived from the last target",
        member_order=list(order),
        partitions=total,
        members=len(order),
        min_quota=min_quota,
        members_over=extra,
    )
    for member_id in order:
        target, excess = by_member[member_id], revoked.get(member_id, ())
        quota = quotas.get(member_id, min_quota)
        gone = set(excess)
        for tp in sorted(target - gone):
            trace.record(tp, member_id, KEPT, member=member_id, held=len(target), quota=quota)
        if excess:
            trace.note_entry("kept", member_id, [str(tp) for tp in sorted(target - gone)])
        for tp in excess:
            trace.record(
                tp,
                None,
                OVER_QUOTA,
                member=member_id,
                held=len(target),
                quota=quota,
                order="the current target's record order",
            )
    short = [[member_id, quota] for member_id, quota in unfilled]
    leftovers = sum(len(chunk) for chunk in added.values())
    leftover = 0
    for member_id, quota in unfilled:
        for tp in added.get(member_id, ()):
            trace.record(
                tp, member_id, FILL_QUOTA, short=short, remaining=quota, leftover=leftover, leftovers=leftovers
            )
            leftover += 1


def _metadata(
    cluster: Cluster, subscriptions: Sequence[Subscription]
) -> tuple[Subscription, tuple[tuple[str, int], ...]]:
    """What the last target depends on besides the members: the subscription and those topics' sizes."""
    topics = tuple(sorted(set(subscriptions[0]))) if subscriptions else ()
    sizes = {t.name: t.partitions for t in cluster.topics}
    return topics, tuple((t, sizes[t]) for t in topics if t in sizes)


class _MemberOrder:
    """`string_order(member ids)`: a HashMap iterates by (bucket, insertion order), and from 64 buckets on the
    size alone sets the table (`capacity_by_size`), so the order is a stable sort of the ids by bucket, with
    each id's bucket remembered while the table size stays the same."""

    def __init__(self) -> None:
        self._mask = -1
        self._bucket: dict[str, int] = {}

    def of(self, ids: Sequence[str], new: Sequence[str] | None = None) -> list[str]:
        """`new`: the ids not in the last call's `ids`, when known (the others have their buckets already)."""
        capacity = capacity_by_size(len(ids))
        if capacity is None:
            return string_order(ids)
        if capacity - 1 != self._mask or len(self._bucket) > 4 * len(ids):  # departed ids are not kept forever
            self._mask, self._bucket = capacity - 1, {}
        self._place(ids if new is None else new)
        try:
            return sorted(ids, key=self._bucket.__getitem__)
        except KeyError:  # the table was reset since the last call: the others have no bucket yet
            self._place(ids)
            return sorted(ids, key=self._bucket.__getitem__)

    def _place(self, ids: Sequence[str]) -> None:
        bucket, mask = self._bucket, self._mask
        for m in ids:
            if m not in bucket:
                bucket[m] = spread(java_string_hash(m)) & mask
