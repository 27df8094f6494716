"""Consumer groups (classic and consumer-protocol) read from a cluster into kgroup's model (Cluster, Group).

`LiveAdmin` (admin.py) asks the cluster; this module turns what it answers into the model: members and their
subscriptions, the assignment, offsets and log bounds, a consumer-protocol group's epochs and targets. What the
broker reports is kept as reported; what kgroup had to work around is a note on the group (docs/brokers.md:
Tansu reports state UNKNOWN in listings and a Stable group with no members). Also which groups a command reads:
the named ones, --all-groups, or those -r/--regex picks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from kgroup.assignors.model import Assignment, Cluster, Group, Member, PartitionOffsets, TopicPartition, sort_partitions
from kgroup.assignors.model import GroupProtocol
from kgroup.inspectors.errors import AuthorizationError, InputError, NotFoundError
from kgroup.inspectors.live.admin import READ_UNCOMMITTED, Coordinator, LiveAdmin, enum_name, state_label
from kgroup.inspectors.live.leader_view import leader_views


@dataclass(frozen=True)
class LiveGroup:
    """One group as read: the model group (members, assignment, offsets) and what describe adds."""

    group: Group
    type: str
    assignor: str | None
    coordinator: Coordinator | None
    notes: tuple[str, ...] = ()
    # What --verbose adds: the leader epoch stored with each commit, and each member's target assignment
    # (consumer-protocol groups only; classic groups have none, as in Kafka's tool).
    leader_epochs: dict[TopicPartition, int] = field(default_factory=dict)
    target_assignments: dict[str, tuple[TopicPartition, ...]] = field(default_factory=dict)
    # Members whose subscription was inferred from their assignment because their metadata was not read.
    inferred: frozenset[str] = frozenset()
    client_reason: str | None = None  # why Group.client is what it is (or is unknown)
    # A consumer-protocol (KIP-848) group as its coordinator describes it (ConsumerGroupDescribe): the group
    # epoch (also Group.generation), the epoch of the target assignment, and per member its epoch (also
    # Member.generation), regex subscription and type (classic for an upgraded group's classic member).
    # Group.assignment is what each member owns now; `target_assignments` what the target gives it.
    group_epoch: int | None = None
    assignment_epoch: int | None = None
    member_epochs: dict[str, int] = field(default_factory=dict)
    subscribed_regexes: dict[str, str] = field(default_factory=dict)
    member_types: dict[str, str] = field(default_factory=dict)

    def reconciliation(self, member_id: str) -> Reconciliation | None:
        """Where a consumer-protocol member stands against its target; None for a classic group's member.

        A member is reconciled when its epoch is the target assignment's and it owns exactly its target
        (ConsumerGroupMember's MemberState STABLE, CurrentAssignmentBuilder). Otherwise it still has to
        revoke what it owns outside its target (UNREVOKED_PARTITIONS: its epoch stays behind until it
        does) or waits for partitions another member has not released yet (UNRELEASED_PARTITIONS).
        Once the coordinator has told a member what to revoke, those partitions are pending revocation.
        ConsumerGroupDescribe lists them in the member's assignment from Kafka 4.3 on (ConsumerGroupMember.
        asConsumerGroupDescribeMember: assigned and pending revocation), so `to_revoke` holds them until the
        member acknowledges; before 4.3 it listed `assignedPartitions` only, so `to_revoke` holds what it owns
        beyond its target only until it is told, and after that the member shows as behind on epoch, and the
        partitions it still holds as awaited by another member.
        """
        if member_id not in self.member_epochs:
            return None
        owned = set(self.group.assignment.partitions_of(member_id))
        target = set(self.target_assignments.get(member_id, ()))
        behind = self.assignment_epoch is not None and self.member_epochs[member_id] < self.assignment_epoch
        return Reconciliation(
            behind or owned != target, tuple(sort_partitions(owned - target)), tuple(sort_partitions(target - owned))
        )


@dataclass(frozen=True)
class Reconciliation:
    reconciling: bool
    to_revoke: tuple[TopicPartition, ...]  # owned, but not in the member's target: it must give them up
    awaited: tuple[TopicPartition, ...]  # in its target, not owned yet: another member must release them first


@dataclass
class LiveRead:
    cluster: Cluster
    groups: list[LiveGroup] = field(default_factory=list)


def group_pattern(regex: str | None) -> re.Pattern[str] | None:
    """-r/--regex over group ids (rpk's and kgroup's group filter); bad input when it does not compile."""
    if regex is None:
        return None
    try:
        return re.compile(regex)
    except re.error as exc:
        raise InputError(f"{regex!r}: not a regular expression ({exc})", field="--regex") from None


def chosen_group_ids(
    named: list[str], every: bool, pattern: re.Pattern[str] | None, listing: Callable[[], list[str]]
) -> list[str]:
    """The named groups, then those `listing` gives that --all-groups or -r picks; each once, in order.
    `listing` (the cluster's or a fixture's group ids) is called only when something is to be picked."""
    listed = listing() if every or pattern is not None else []
    picked = [g for g in listed if every or (pattern is not None and pattern.search(g))]
    return list(dict.fromkeys(named + picked))


def read_listed_groups(admin: LiveAdmin, group_ids: list[str]) -> tuple[LiveRead, dict[str, str]]:
    """`read_groups` for a listing: a group the principal may list but not read in full (its committed topic
    hidden by ACLs, KafkaApis.handleListOffsetRequest / handleOffsetFetchRequest answering
    TOPIC_AUTHORIZATION_FAILED) does not fail the others. Returns the groups read and, per group that could
    not be, the one line saying why."""
    try:
        return read_groups(admin, group_ids), {}
    except AuthorizationError:
        pass
    read, refused = LiveRead(admin.cluster()), {}
    for group_id in group_ids:
        try:
            one = read_groups(admin, [group_id])
        except AuthorizationError as exc:
            refused[group_id] = str(exc)
            continue
        read.groups.extend(one.groups)
    return read, refused


def read_groups(
    admin: LiveAdmin, group_ids: list[str], isolation: str = READ_UNCOMMITTED, subscriptions: bool = False
) -> LiveRead:
    """Describe each group, read its commits and the log bounds of every partition it touches.

    With `subscriptions`, each classic member is read as its group's leader will read it at the next
    rebalance (`leader_view`): subscribed topics, rack and group.instance.id from its ConsumerProtocol
    metadata, members in the broker's order, and the group's generation. A member whose metadata could not
    be read keeps a subscription inferred from its assignment and is listed in `LiveGroup.inferred`.
    """
    cluster = admin.cluster()
    if subscriptions:  # what a snapshot records: the brokers' release
        cluster = replace(cluster, kafka_version=admin.kafka_version())
    known = {t.name for t in cluster.topics}
    descriptions = admin.describe(group_ids)
    modern, modern_unread = admin.describe_consumer_protocol(
        [g for g in group_ids if enum_name(getattr(descriptions[g], "type", None)) == "consumer"]
    )
    classic_ids = [g for g in group_ids if g not in modern]
    views, unread = (
        leader_views(admin.settings, classic_ids, admin.timeout_s) if subscriptions and classic_ids else ({}, None)
    )
    read = LiveRead(cluster)
    for group_id in group_ids:
        description = descriptions[group_id]
        state = enum_name(description.state)
        if group_id in modern:
            read.groups.append(_consumer_protocol_group(admin, modern[group_id], description, cluster, isolation))
            continue
        if state == "dead":
            raise NotFoundError(f"group {group_id!r} does not exist (the coordinator describes it as Dead)")
        commits = admin.commits(group_id)
        committed = {tp: offset for tp, (offset, _) in commits.items()}
        view = views.get(group_id)
        seen = {v.member_id: v for v in view.members} if view else {}
        order = {member_id: i for i, member_id in enumerate(seen)}
        listed = sorted(description.members, key=lambda m: order.get(m.member_id, len(order)))
        members, owners, targets, inferred, problems = [], {}, {}, set(), []
        for m in listed:
            target = getattr(m, "target_assignment", None)
            if target is not None:
                targets[m.member_id] = tuple(TopicPartition(tp.topic, tp.partition) for tp in target.topic_partitions)
            parts = tuple(TopicPartition(tp.topic, tp.partition) for tp in m.assignment.topic_partitions)
            for tp in parts:
                owners[tp] = m.member_id
            sent = seen.get(m.member_id)
            subscription = sent.subscription if sent else None
            if sent and sent.problem:
                problems.append(sent.problem)
            if sent is None or subscription is None:
                inferred.add(m.member_id)
                members.append(
                    Member(
                        m.member_id,
                        tuple(sorted({tp.topic for tp in parts})),
                        m.group_instance_id,
                        client_id=m.client_id,
                        host=m.host,
                    )
                )
                continue
            # `ConsumerCoordinator.metadata`: the topics in the member's own order, duplicates dropped.
            members.append(
                Member(
                    m.member_id,
                    tuple(dict.fromkeys(subscription.topics)),
                    m.group_instance_id or sent.instance_id,
                    subscription.rack_id or None,
                    client_id=m.client_id,
                    host=m.host,
                )
            )
        touched = sorted(set(committed) | set(owners))
        # DescribeGroups names an assigned or subscribed topic the principal may not DESCRIBE, which Metadata
        # leaves out (KafkaApis.handleTopicMetadataRequest): asked by name it is TOPIC_AUTHORIZATION_FAILED, on
        # which Kafka's ConsumerGroupCommand fails too, rather than a snapshot naming a topic it has no size for.
        admin.check_topics_visible(sorted({tp.topic for tp in touched} | {t for m in members for t in m.topics}))
        bounds = admin.log_bounds([tp for tp in touched if tp.topic in known], isolation)
        offsets = tuple(PartitionOffsets(tp, committed.get(tp), *bounds.get(tp, (None, None))) for tp in touched)
        assignment = Assignment.of({m.member_id: [tp for tp, o in owners.items() if o == m.member_id] for m in members})
        group_type = enum_name(getattr(description, "type", None))
        notes = _notes(state, members, description) + tuple(problems)
        if subscriptions and inferred and members:
            why = unread or (
                "the broker returned no member metadata"
                if view is not None
                else "the broker did not describe the group's members"
            )
            notes += (
                f"{len(inferred)} of {len(members)} members' subscriptions inferred from their assignment: {why}",
            )
        if group_type == "consumer" and modern_unread:
            notes += (modern_unread,)
        client, client_reason = view.client() if view else (None, None)
        read.groups.append(
            LiveGroup(
                Group(
                    group_id,
                    GroupProtocol.CONSUMER if group_type == "consumer" else GroupProtocol.CLASSIC,
                    (),
                    tuple(members),
                    assignment,
                    view.generation() if view else None,
                    state_label(state),
                    offsets,
                    client,
                ),
                group_type,
                description.partition_assignor or None,
                _coordinator(description.coordinator),
                notes,
                {tp: epoch for tp, (_, epoch) in commits.items() if epoch is not None},
                targets,
                frozenset(inferred) if subscriptions else frozenset(m.member_id for m in members),
                client_reason,
            )
        )
    if subscriptions and modern:
        read.cluster = _with_topic_ids(
            admin, read.cluster, [g for g in read.groups if g.group.group_id in modern], modern
        )
    return read


def _with_topic_ids(admin: LiveAdmin, cluster: Cluster, groups: list[LiveGroup], described: dict[str, Any]) -> Cluster:
    """The cluster with Kafka's topic ids for every topic the consumer-protocol `groups` subscribe to, own or
    are assigned: those ConsumerGroupDescribe named, the rest described (`LiveAdmin.topic_ids`). The
    uniform assignor's ties fall by topic id, so a snapshot or a live what-if needs the real ones."""
    ids: dict[str, str] = {}
    for answer in described.values():
        ids.update(answer.topic_ids)
    wanted = {t for live in groups for m in live.group.members for t in m.topics}
    wanted |= {tp.topic for live in groups for parts in live.group.assignment.owners.values() for tp in parts}
    wanted |= {tp.topic for live in groups for parts in live.target_assignments.values() for tp in parts}
    missing = sorted(t for t in wanted if t not in ids and cluster.topic(t) is not None)
    ids.update(admin.topic_ids(missing))
    return replace(cluster, topics=tuple(replace(t, topic_id=ids.get(t.name, t.topic_id)) for t in cluster.topics))


def _consumer_protocol_group(
    admin: LiveAdmin, described: Any, description: Any, cluster: Cluster, isolation: str
) -> LiveGroup:
    """A consumer-protocol group from its coordinator's ConsumerGroupDescribe answer (`described`), with its
    offsets and coordinator read as for any group. Each member's topics are its subscribed names and, for a
    regex subscription, the cluster's topics the regex matches whole (Kafka's coordinator resolves it with
    RE2/J's `Matcher.matches`, GroupMetadataManager.refreshRegularExpressions; Python's `re` agrees on the
    common syntax)."""
    group_id = described.group_id
    commits = admin.commits(group_id)
    committed = {tp: offset for tp, (offset, _) in commits.items()}
    names = [t.name for t in cluster.topics]
    members, current, targets, epochs, regexes, kinds = [], {}, {}, {}, {}, {}
    bad_regex = []
    for m in described.members:
        owned = tuple(TopicPartition(t, p) for t, p in m.assignment)
        topics = tuple(dict.fromkeys(m.subscribed_topics))
        if m.subscribed_regex:
            regexes[m.member_id] = m.subscribed_regex
            try:
                pattern = re.compile(m.subscribed_regex)
                topics = tuple(dict.fromkeys(topics + tuple(n for n in names if pattern.fullmatch(n))))
            except re.error:
                bad_regex.append(m.member_id)
        if m.member_type:
            kinds[m.member_id] = m.member_type
        members.append(
            Member(
                m.member_id,
                topics,
                m.instance_id,
                m.rack_id or None,
                client_id=m.client_id,
                host=m.client_host,
                owned=owned,
                generation=m.member_epoch,
                subscribed_regex=m.subscribed_regex or None,
                member_type=m.member_type,
            )
        )
        current[m.member_id] = owned
        targets[m.member_id] = tuple(TopicPartition(t, p) for t, p in m.target_assignment)
        epochs[m.member_id] = m.member_epoch
    owners = {tp: member for member, parts in current.items() for tp in parts}
    touched = sorted(set(committed) | set(owners))
    known = {t.name for t in cluster.topics}
    bounds = admin.log_bounds([tp for tp in touched if tp.topic in known], isolation)
    offsets = tuple(PartitionOffsets(tp, committed.get(tp), *bounds.get(tp, (None, None))) for tp in touched)
    state = described.state or "Unknown"
    notes = []
    if not members:
        notes.append("no active members")
    classic = [m.member_id for m in members if kinds.get(m.member_id) == "classic"]
    if classic:
        notes.append(
            f"{len(classic)} of {len(members)} members use the classic protocol in this consumer-protocol "
            "group (KIP-848's upgrade path): they take their assignment through JoinGroup/SyncGroup "
            "rebalances, whose timing kgroup cannot predict"
        )
    if bad_regex:
        notes.append(
            f"the subscription regex of {', '.join(bad_regex)} is not one Python can read; its topics "
            "are the subscribed names only"
        )
    if described.unnamed_topics:
        notes.append(f"the coordinator named no topic for id(s) {', '.join(described.unnamed_topics)}")
    group = Group(
        group_id,
        GroupProtocol.CONSUMER,
        (),
        tuple(members),
        Assignment.of(current),
        described.group_epoch,
        state,
        offsets,
        assignment_epoch=described.assignment_epoch,
        heartbeat_interval_ms=admin.consumer_heartbeat_interval(group_id),
    )
    return LiveGroup(
        group,
        "consumer",
        described.assignor or description.partition_assignor or None,
        _coordinator(description.coordinator),
        tuple(notes),
        {tp: epoch for tp, (_, epoch) in commits.items() if epoch is not None},
        targets,
        frozenset(),
        None,
        described.group_epoch,
        described.assignment_epoch,
        epochs,
        regexes,
        kinds,
    )


def _notes(state: str, members: list[Member], description: Any) -> tuple[str, ...]:
    notes = []
    if state == "unknown":
        notes.append("the broker reports the group's state as UNKNOWN")
    if state == "stable" and not members:
        notes.append("the broker reports a Stable group with no members; members and assignment are unknown")
    if not members and state in ("empty", "unknown", "stable"):
        notes.append("no active members")
    assignor = description.partition_assignor or ""
    if assignor and not members and "-" in assignor and len(assignor) > 30:
        notes.append(f"the reported assignor {assignor!r} looks like a member id, not an assignor")
    return tuple(notes)


def _coordinator(node: Any) -> Coordinator | None:
    if node is None:
        return None
    return Coordinator(node.id, node.host, node.port)
