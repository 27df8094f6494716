"""What-if changes to a group: members join or leave, subscriptions change, topics are created or gain partitions.

Pure functions from one `GroupState` to the next. The assignment is left as it was (the members'
current ownership); a departed member's partitions stay listed under it so a diff shows them moving.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kgroup.assignors.model import Group, GroupState, Member, Topic


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
            raise WhatIfError(
                f"group {group.group_id!r} has no members to copy a subscription from; "
                f"give one as {self.member_id}=topic1,topic2"
            )
        if self.instance_id and any(m.instance_id == self.instance_id for m in group.members):
            raise WhatIfError(f"group.instance.id {self.instance_id!r} is already in group {group.group_id!r}")
        member = Member(self.member_id, tuple(dict.fromkeys(topics)), self.instance_id)
        return replace(state, group=replace(group, members=group.members + (member,)))


def named_member(group: Group, name: str) -> Member:
    """The member `name` stands for: its member id; else the static member whose group.instance.id it is (how
    Kafka's admin client names a member to remove, KIP-345: Admin.removeMembersFromConsumerGroup); else the one
    member whose client.id it is. A live group's member ids are random (a UUID, or client.id-UUID), so a user
    names a member by what the application set."""
    found = group.member(name)
    if found is not None:
        return found
    for field, label in (("instance_id", "group.instance.id"), ("client_id", "client.id")):
        matches = [m for m in group.members if getattr(m, field) == name]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise WhatIfError(
                f"{label} {name!r} names {len(matches)} members of group {group.group_id!r}; name one by its "
                f"member id: {', '.join(m.member_id for m in matches)}"
            )
    listed = ", ".join(_described(m) for m in group.members) or "none"
    raise WhatIfError(f"group {group.group_id!r} has no member {name!r} (members: {listed})")


def _described(member: Member) -> str:
    """A member id with what the application named the member by, where that says more."""
    names = [n for n in (member.instance_id, member.client_id) if n and n not in member.member_id]
    return f"{member.member_id} ({', '.join(names)})" if names else member.member_id


@dataclass(frozen=True, slots=True)
class RemoveMember:
    member_id: str  # or a group.instance.id or client.id naming one member (named_member)

    def apply(self, state: GroupState) -> GroupState:
        group = state.group
        gone = named_member(group, self.member_id)
        members = tuple(m for m in group.members if m is not gone)
        return replace(state, group=replace(group, members=members))


@dataclass(frozen=True, slots=True)
class Subscribe:
    member_id: str  # or a group.instance.id or client.id naming one member (named_member)
    topics: tuple[str, ...]

    def apply(self, state: GroupState) -> GroupState:
        group = state.group
        changed = named_member(group, self.member_id)
        members = tuple(
            replace(m, topics=tuple(dict.fromkeys(self.topics))) if m is changed else m for m in group.members
        )
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
        # Kafka's CreatePartitions refuses a count not greater than the current one (INVALID_PARTITIONS).
        if self.partitions < topic.partitions:
            raise WhatIfError(
                f"topic {self.topic!r} has {topic.partitions} partitions; Kafka cannot shrink "
                f"a topic to {self.partitions}"
            )
        if self.partitions == topic.partitions:
            raise WhatIfError(
                f"topic {self.topic!r} already has {topic.partitions} partitions; Kafka refuses "
                "a count that is not greater (INVALID_PARTITIONS)"
            )
        racks = topic.replica_racks
        if racks:  # new partitions get no rack information: nothing is known about their replicas
            racks = racks + tuple(frozenset() for _ in range(self.partitions - topic.partitions))
        grown = replace(topic, partitions=self.partitions, replica_racks=racks)
        # `replace` keeps what else the cluster records (its Kafka release).
        cluster = replace(
            state.cluster, topics=tuple(grown if t.name == self.topic else t for t in state.cluster.topics)
        )
        return replace(state, cluster=cluster)


@dataclass(frozen=True, slots=True)
class AddTopic:
    """A topic is created with `partitions` partitions, as `kafka-topics.sh --create` does; it has no rack
    information (nothing is known about where its replicas will be)."""

    topic: str
    partitions: int

    def apply(self, state: GroupState) -> GroupState:
        existing = state.cluster.topic(self.topic)
        if existing is not None:  # CreateTopics answers TOPIC_ALREADY_EXISTS
            raise WhatIfError(f"topic {self.topic!r} already exists with {existing.partitions} partitions")
        topics = state.cluster.topics + (Topic(self.topic, self.partitions),)
        return replace(state, cluster=replace(state.cluster, topics=topics))


WhatIf = AddMember | RemoveMember | Subscribe | AddTopic | AddPartitions


def unknown_topics(state: GroupState) -> dict[str, tuple[str, ...]]:
    """Topic -> the members subscribed to it, for each subscribed topic the cluster does not have.

    The leader assigns only the partitions of topics in its metadata (ConsumerCoordinator.onLeaderElected
    builds the Cluster from the metadata of every member's topics; librdkafka's rd_kafka_assignor_run
    likewise), so such a topic gets nothing until it is created.
    """
    missing: dict[str, list[str]] = {}
    for member in state.group.members:
        for topic in member.topics:
            if state.cluster.topic(topic) is None:
                missing.setdefault(topic, []).append(member.member_id)
    return {topic: tuple(members) for topic, members in missing.items()}


def apply_all(state: GroupState, changes: list[WhatIf]) -> GroupState:
    for change in changes:
        state = change.apply(state)
    return state
