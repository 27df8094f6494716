"""librdkafka's `cooperative-sticky`: its sticky assignment, then the leader's cooperative adjustment.

librdkafka's assignor returns the full sticky assignment; the leader then withholds every partition whose
owner changes and hands back owned partitions the assignor left out (rdkafka_cgrp.c
`rd_kafka_cooperative_protocol_adjust_assignment`). Java's assignor removes the transferring partitions
itself and never hands anything back. Example (real consumers, one 6-partition topic): A owns 0-5 and B
joins: the assignor gives B 0-2, so the first rebalance leaves B empty and A on 3-5; the follow-up gives
B 0-2 (Java keeps A on 0-2).
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assignors.base import gc_paused
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.client.librdkafka.byte_order import partition_key
from kgroup.assignors.client.librdkafka.member_order import same_member
from kgroup.assignors.client.librdkafka.sticky_general import sticky_assignment
from kgroup.assignors.client.sticky.assignors import CooperativeRounds, follow_up_rounds
from kgroup.assignors.trace import HANDED_BACK, WITHHELD, active


def adjust_for_cooperative(
    members: Sequence[Member], assigned: dict[str, list[TopicPartition]]
) -> tuple[dict[str, list[TopicPartition]], dict[TopicPartition, str]]:
    """librdkafka: rdkafka_cgrp.c `rd_kafka_cooperative_protocol_adjust_assignment`.

    What the leader sends in SyncGroup, and what it withholds (partition -> its assignee). The owner of a
    partition is its last claimant in JoinGroup order, whatever the generations. A partition assigned to
    a member other than its owner is withheld; an owned partition the assignor assigned to nobody goes
    back to its owner.
    """
    by_id = {m.member_id: m for m in members}
    assignee = {tp: member.member_id for member in members for tp in assigned.get(member.member_id, ())}
    owner = {tp: member.member_id for member in members for tp in member.owned}
    sent: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    withheld: dict[TopicPartition, str] = {}
    trace = active()

    def send(tp: TopicPartition, member_id: str) -> None:
        claimant = owner.get(tp)
        # One member id is one member (`by_id`), which compares equal to itself.
        if claimant is None or claimant == member_id or same_member(by_id[member_id], by_id[claimant]):
            sent[member_id].append(tp)
        else:
            withheld[tp] = member_id
            if trace is not None:
                trace.record(tp, None, WITHHELD, source=claimant, target=member_id, leader=True)

    lists = [(member.member_id, assigned.get(member.member_id, ())) for member in members]
    if len(by_id) == len(members) and len(assignee) == sum(len(parts) for _, parts in lists):
        # Each partition assigned once: assignee's order is the members' lists in turn, so a member whose
        # partitions nobody else owns is sent them all at once.
        for member_id, parts in lists:
            if set(map(owner.get, parts)) <= {None, member_id}:
                sent[member_id].extend(parts)
            else:
                for tp in parts:
                    send(tp, member_id)
    else:
        for tp, member_id in assignee.items():
            send(tp, member_id)
    for tp in [] if assignee.keys() >= owner.keys() else [tp for tp in owner if tp not in assignee]:  # owner's order
        claimant = owner[tp]
        sent[claimant].append(tp)
        if trace is not None:
            trace.record(tp, claimant, HANDED_BACK, claimants=[m.member_id for m in members if tp in m.owned])
    return sent, withheld


class LibrdkafkaCooperativeStickyAssignor:
    """librdkafka: rdkafka_sticky_assignor.c (`cooperative-sticky`, COOPERATIVE) and the leader's
    adjustment in rdkafka_cgrp.c `rd_kafka_cgrp_assignor_run`."""

    name = "cooperative-sticky"

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        with gc_paused():
            return self.assign_round(cluster, members)[0]

    def assign_round(self, cluster: Cluster, members: Sequence[Member]) -> tuple[Assignment, dict[TopicPartition, str]]:
        """One rebalance: what SyncGroup gives each member, and the partitions withheld until revoked."""
        trace = active()
        if trace is not None:
            trace.note(assignor=self.name)
        sent, withheld = adjust_for_cooperative(members, sticky_assignment(cluster, members))
        return Assignment.of(sent), withheld

    def assignor_output(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        """The assignor's own result, before the leader's adjustment (what librdkafka logs as assigned)."""
        return Assignment.of(sticky_assignment(cluster, members))

    def assign_rounds(
        self, cluster: Cluster, members: Sequence[Member], generation: int | None = None
    ) -> CooperativeRounds:
        """This rebalance and its follow-ups, back to back, until nothing is withheld.

        librdkafka: rdkafka_cgrp.c: a member that lost partitions rejoins at once, reporting what it
        still holds in its sorted group assignment (`rd_kafka_topic_partition_list_sort_by_topic`).
        `generation` is the follow-up's (default: one above the newest the members report).
        """
        with gc_paused():
            return follow_up_rounds(self.assign_round, cluster, members, generation, _sorted_by_topic)


def _sorted_by_topic(partitions: tuple[TopicPartition, ...]) -> tuple[TopicPartition, ...]:
    """What a librdkafka member reports it owns: its assignment, sorted
    (`rd_kafka_topic_partition_list_sort_by_topic`)."""
    return tuple(sorted(partitions, key=partition_key))
