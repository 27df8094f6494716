"""KIP-848 server-side `uniform` (Kafka `org.apache.kafka.coordinator.group.assignor.UniformAssignor`, 4.0-4.2).

The consumer protocol's default assignor. It computes the group's *target* assignment from each
member's current target. With identical subscriptions (homogeneous) every member keeps up to its quota
of what it has; `total % members` members may keep one partition over the minimum quota, and the rest is
dealt to members still short. Which members those are depends on the broker's release
(`kgroup.assignors.server.releases`): in 4.0 the first `total % members` members in the coordinator's
member order; from 4.1 (KAFKA-18688) any member that already holds more than the minimum keeps its extra
one, and a member short of it gives up the claim unless it is among the last members that must take one.
Otherwise (heterogeneous, unchanged from 4.0 to 4.2) members keep what they still subscribe to, each
topic's unassigned partitions go to its least-loaded subscribers, and then topic by topic partitions move
from the most to the least loaded subscriber.

The release is `Cluster.kafka_version` (the broker's release, read live or written in a fixture) unless
`assign` is given one; with none, the newest behaviour (4.2).

Ties are decided by Java HashMap/HashSet iteration order over member ids, topic ids and partition
numbers, emulated exactly (see `kgroup.assignors.java.hash_order`). A group with members but no subscribed topic gets an empty
map: the members are absent from the result, as in Kafka.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import filterfalse, repeat

from kgroup.assignors.base import AssignorError, gc_paused
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.trace import FILL_QUOTA, KEPT, OVER_QUOTA, active
from kgroup.assignors.server.group_spec import HASH, HOMOGENEOUS, ServerGroup, subscription_type
from kgroup.assignors.server.releases import UNIFORM_4_0, uniform_rules
from kgroup.assignors.server.uniform_heterogeneous import HeterogeneousBuilder


def release_of(cluster: Cluster, kafka_version: str | None = None) -> str | None:
    """The Kafka release a server assignor follows: the one given, else the cluster's (`Cluster.kafka_version`)."""
    return kafka_version or cluster.kafka_version


class UniformAssignor:
    """Kafka: `UniformAssignor.assign`."""

    name = "uniform"

    def assign(
        self,
        cluster: Cluster,
        members: Sequence[Member],
        forced_type: str | None = None,
        member_order: str = HASH,
        owned_order: str = HASH,
        kafka_version: str | None = None,
        handed: dict[str, list[tuple[str, int]]] | None = None,
    ) -> Assignment:
        """`forced_type`, `member_order` and `owned_order` replay a Kafka unit test's GroupSpec;
        `kafka_version` is the broker's release (default: the cluster's, else the newest). `handed`, when
        given, gets for each member whose target changed the partitions given to it, in the order they were
        handed out, and in a heterogeneous group also those taken from it, in order
        (`kgroup.assignors.server.target_order`: after_uniform, after_moves)."""
        if not members:
            return Assignment.of({})
        with gc_paused():
            group = ServerGroup(cluster, members, member_order, owned_order)
            kind = forced_type or subscription_type(members)
            trace = active()
            if trace is not None:
                # The coordinator's member order: Java HashMap order of the member ids (TargetAssignmentBuilder).
                trace.note(assignor=self.name, subscriptions=kind.lower(), member_order=list(group.member_ids))
            if kind == HOMOGENEOUS:
                rules = uniform_rules(release_of(cluster, kafka_version))
                if trace is not None:
                    trace.note(kafka_rules=rules)
                by_index: dict[int, list[tuple[str, int]]] | None = {} if handed is not None else None
                owners = _homogeneous(group, extra_to_the_first=rules == UNIFORM_4_0, handed=by_index)
                if handed is not None and by_index:
                    for index, given in by_index.items():
                        handed[group.member_ids[index]] = [(group.name[t], p) for t, p in given]
            else:
                builder = HeterogeneousBuilder(group)
                if handed is not None:
                    builder.moves_log = []
                built = builder.assignment()
                if handed is not None and builder.moves_log:
                    for index, topic_id, p in builder.moves_log:
                        handed.setdefault(group.member_ids[index], []).append((group.name[topic_id], p))
                return Assignment.of({}) if built is None else built
            if owners is None:
                return Assignment.of({})  # nothing subscribed: Kafka returns an empty map
            return group.to_assignment(owners)


def _homogeneous(
    group: ServerGroup, extra_to_the_first: bool, handed: dict[int, list[tuple[str, int]]] | None = None
) -> dict[str, list[int]] | None:
    """Kafka: `UniformHomogeneousAssignmentBuilder.build`.

    `extra_to_the_first`: Kafka 4.0's `maybeRevokePartitions`, where the first `total % members` members in
    the coordinator's order get the extra partition of quota, whatever they hold. Otherwise 4.1's and 4.2's
    (KAFKA-18688): each member still claims it while extras are left, but one that holds less than the raised
    quota gives the claim up (its quota drops back to the minimum) unless no more members follow than extras
    remain, so members already over the minimum keep their extra partition and fewer partitions move.

    Returns topic id -> owner index per partition; None when the first member subscribes to nothing.
    `handed` gets member index -> each (topic id, partition) handed to it, in order.
    """
    first = group.member_ids[0]
    first_ids = group.subscribed_ids(first)
    topics = group.id_set_order(first_ids, len(group.members[first].topics))
    if not topics:
        return None
    targets = [group.current_target(m) for m in group.member_ids]
    taken: set[tuple[str, int]] = set()  # GroupSpec.isPartitionAssigned
    for grouped in targets:
        for topic_id, parts in grouped.items():
            taken.update(zip(repeat(topic_id), parts))
    unassigned: list[tuple[str, int]] = []
    total = 0
    for topic_id in topics:
        count = group.num_partitions(topic_id)
        if count == -1:
            raise AssignorError(
                "PartitionAssignorException",
                f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.",
            )
        unassigned += filterfalse(taken.__contains__, zip(repeat(topic_id), range(count)))
        total += count
    wanted = set(topics)
    min_quota, extra = divmod(total, len(group.member_ids))

    owners = {t: [-1] * group.num_partitions(t) for t in topics}
    unfilled: list[tuple[int, int]] = []
    trace = active()
    if trace is not None:
        trace.note(
            path="homogeneous", partitions=total, members=len(group.member_ids), min_quota=min_quota, members_over=extra
        )
    member_count = len(group.member_ids)
    for index in range(member_count):  # maybeRevokePartitions
        quota = min_quota
        claims_extra = extra > 0
        if claims_extra:
            quota += 1
            if extra_to_the_first:
                extra -= 1
        if trace is not None:
            _record_revocations(trace, group, index, targets[index], wanted, quota)
        grouped = targets[index]
        held = sum(len(parts) for t, parts in grouped.items() if t in wanted)
        # The map and set order only decide what is revoked, so it is computed only when something is.
        entries = grouped.items() if held <= quota else group.in_record_order(grouped)
        for topic_id, parts in entries:
            if topic_id not in wanted:
                continue
            holders = owners[topic_id]
            keep = parts if len(parts) <= quota else parts[:quota]
            for p in keep:
                holders[p] = index
            quota -= len(keep)
            unassigned += [(topic_id, p) for p in parts[len(keep) :]]
        if not extra_to_the_first and claims_extra:
            # KAFKA-18688: short of the raised quota, it leaves the extra partition to a later member unless
            # it is one of the last `extra` members (memberCount - memberIndex > remainingMembersToGet...).
            if quota > 0 and member_count - index > extra:
                quota -= 1
            else:
                extra -= 1
        if quota > 0:
            unfilled.append((index, quota))

    taken_count = 0  # assignRemainingPartitions
    short = [[group.member_ids[i], q] for i, q in unfilled] if trace is not None else None
    for index, quota in unfilled:
        for topic_id, p in unassigned[taken_count : taken_count + quota]:
            owners[topic_id][p] = index
        if handed is not None and taken_count < len(unassigned):
            handed[index] = unassigned[taken_count : taken_count + quota]
        if trace is not None:
            for i, (topic_id, p) in enumerate(unassigned[taken_count : taken_count + quota], start=taken_count):
                trace.record(
                    TopicPartition(group.name[topic_id], p),
                    group.member_ids[index],
                    FILL_QUOTA,
                    short=short,
                    remaining=quota,
                    leftover=i,
                    leftovers=len(unassigned),
                )
        taken_count += min(quota, len(unassigned) - taken_count)
    if taken_count < len(unassigned):
        raise AssignorError("PartitionAssignorException", "Partitions were left unassigned")
    return owners


def _record_revocations(  # type: ignore[no-untyped-def]
    trace,
    group: ServerGroup,
    index: int,
    grouped: dict[str, list[int]],
    wanted: set[str],
    quota: int,
) -> None:
    """What `maybeRevokePartitions` keeps of one member's current target, and what it revokes."""
    member = group.member_ids[index]
    held = sum(len(parts) for t, parts in grouped.items() if t in wanted)
    left = quota
    kept: list[str] = []
    for topic_id, parts in grouped.items() if held <= quota else group.in_record_order(grouped):
        if topic_id not in wanted:
            continue
        for i, p in enumerate(parts):
            tp = TopicPartition(group.name[topic_id], p)
            if i < left:
                trace.record(tp, member, KEPT, member=member, held=held, quota=quota)
                kept.append(str(tp))
            else:
                trace.record(
                    tp,
                    None,
                    OVER_QUOTA,
                    member=member,
                    held=held,
                    quota=quota,
                    order="the current target's record order",
                )
        left -= min(left, len(parts))
    if held > quota:  # which ones it kept is Java's HashMap order, so the answer lists them
        trace.note_entry("kept", member, kept)
