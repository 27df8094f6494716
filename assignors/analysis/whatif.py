"""What-if changes to a group: members join or leave, subscriptions change, topics gain partitions.

Pure functions from one `GroupState` to the next. The assignment is left as it was (the members'
current ownership); a departed member's partitions stay listed under it so a diff shows them moving.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kgroup.assignors.model import Cluster, GroupState, Member


class WhatIfError(ValueError):
    """A what-if change that cannot apply to this group (unknown member, shrinking a topic, ...)."""


@dataclass(frozen=True, slots=True)
class AddMember:
    member_id: str
    topics: tuple[str, ...] | None = None  # None: the same topics as the group's first member
    instance_id: str | None = None  # group.instance.id: a static member

    def apply(self, state: GroupState) -> GroupState:
        group = state.group
        if group.member(self.member_id):
            raise WhatIfError(f"member {self.member_id!r} is already in group {group.group_id!r}")
        if self.topics is not None:
            topics = self.topics
        elif group.members:
            topics = group.members[0].topics
        else:
            raise WhatIfError(f"group {group.group_id!r} has no members to copy a subscription from; "
                              f"give one as {self.member_id}=topic1,topic2")
        if self.instance_id and any(m.instance_id == self.instance_id for m in group.members):
            raise WhatIfError(f"group.instance.id {self.instance_id!r} is already in group {group.group_id!r}")
        member = Member(self.member_id, tuple(dict.fromkeys(topics)), self.instance_id)
        return replace(state, group=replace(group, members=group.members + (member,)))


@dataclass(frozen=True, slots=True)
class RemoveMember:
    member_id: str

    def apply(self, state: GroupState) -> GroupState:
        group = state.group
        if not group.member(self.member_id):
            raise WhatIfError(f"group {group.group_id!r} has no member {self.member_id!r} "
                              f"(members: {', '.join(m.member_id for m in group.members) or 'none'})")
        members = tuple(m for m in group.members if m.member_id != self.member_id)
        return replace(state, group=replace(group, members=members))


@dataclass(frozen=True, slots=True)
class Subscribe:
    member_id: str
    topics: tuple[str, ...]

    def apply(self, state: GroupState) -> GroupState:
        group = state.group
        if not group.member(self.member_id):
            raise WhatIfError(f"group {group.group_id!r} has no member {self.member_id!r}")
        members = tuple(replace(m, topics=tuple(dict.fromkeys(self.topics))) if m.member_id == self.member_id else m
                        for m in group.members)
        return replace(state, group=replace(group, members=members))


@dataclass(frozen=True, slots=True)
class AddPartitions:
    """Grow a topic to `partitions` in total, as `kafka-topics.sh --alter --partitions N` does."""

    topic: str
    partitions: int

    def apply(self, state: GroupState) -> GroupState:
        topic = state.cluster.topic(self.topic)
        if topic is None:
            raise WhatIfError(f"topic {self.topic!r} is not in the cluster")
        if self.partitions < topic.partitions:
            raise WhatIfError(f"topic {self.topic!r} has {topic.partitions} partitions; Kafka cannot shrink "
                              f"a topic to {self.partitions}")
        racks = topic.replica_racks
        if racks:  # new partitions get no rack information: nothing is known about their replicas
            racks = racks + tuple(frozenset() for _ in range(self.partitions - topic.partitions))
        grown = replace(topic, partitions=self.partitions, replica_racks=racks)
        cluster = Cluster(tuple(grown if t.name == self.topic else t for t in state.cluster.topics))
        return replace(state, cluster=cluster)


WhatIf = AddMember | RemoveMember | Subscribe | AddPartitions


def apply_all(state: GroupState, changes: list[WhatIf]) -> GroupState:
    for change in changes:
        state = change.apply(state)
    return state

