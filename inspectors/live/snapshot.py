"""A live group as a `kgroup/v1` fixture: `kgroup snapshot` writes it, live what-ifs run on it.

What the admin API reports is copied as is: members in the broker's order (id, client id, host,
group.instance.id), their assignment (per topic, runs of partitions in the range notation), the committed offsets with each partition's log start and end, and
the racks of every partition's replicas when brokers have racks. Each member's subscription (topics,
rack) and the group's generation come from the ConsumerProtocol metadata DescribeGroups returns
(`leader_view`). Where a broker returns none, the subscription is inferred from the member's assignment
and the member is marked `inferred: true`; a member that owns nothing then gets the topics the group owns
or commits. The connection settings never go into the fixture.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from kgroup.assignors.model import Assignment, Cluster, Group, Member, Topic, TopicPartition
from kgroup.inspectors.assignor_lookup import known_assignor_names, resolve
from kgroup.inspectors.fixtures.group_file import (
    CONSUMER_PROTOCOL_NAMES,
    DEFAULT_ASSIGNORS,
    SCHEMA,
    Fixture,
    fixture_from_mapping,
)
from kgroup.inspectors.fixtures.field_reader import FieldReader
from kgroup.inspectors.fixtures.partition_ranges import by_topic
from kgroup.inspectors.fixtures.yaml_doc import YamlDoc
from kgroup.inspectors.errors import InputError, NotFoundError
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.live.consumer_groups import LiveGroup, LiveRead, read_groups


def group_topics(group: Group) -> list[str]:
    """The topics a group owns or has committed, in name order."""
    owned = {tp.topic for parts in group.assignment.owners.values() for tp in parts}
    return sorted(owned | {o.tp.topic for o in group.offsets})


def _for_what_ifs(live: LiveGroup) -> Group:
    """The group with its assignors named as a fixture names them, and every member subscribed to something."""
    group = live.group
    fallback = tuple(group_topics(group))
    members = tuple(m if m.topics else replace(m, topics=fallback) for m in group.members)
    return replace(group, assignors=_assignors(live), members=members)


def _assignors(live: LiveGroup) -> tuple[str, ...]:
    """The group's assignor when the broker names a known one (Tansu names the leader's member id)."""
    protocol = live.group.protocol
    if live.assignor and live.assignor in known_assignor_names():
        # A consumer-protocol group's `range` is the coordinator's, as when a fixture is read.
        return (CONSUMER_PROTOCOL_NAMES.get(live.assignor, live.assignor) if protocol == "consumer" else live.assignor,)
    return DEFAULT_ASSIGNORS[protocol]


def as_fixture(read: LiveRead, source: str, named: tuple[str, ...] = ()) -> Fixture:
    """The live state as a Fixture, for what-ifs: the topics the groups touch or subscribe to, and the
    `named` ones (those a what-if names: a newcomer's or a new subscription's topics, topics it creates
    or grows). A member's regex subscription reaches the broker already matched: the classic protocol's
    metadata carries the topic names (ConsumerCoordinator.metadata; librdkafka the same), so its topics
    are among the members' topics."""
    groups = tuple(_for_what_ifs(g) for g in read.groups)
    wanted = {t for g in groups for t in group_topics(g)} | {t for g in groups for m in g.members for t in m.topics}
    wanted |= set(named)
    cluster = Cluster(
        tuple(t for t in read.cluster.topics if t.name in wanted), kafka_version=read.cluster.kafka_version
    )
    return Fixture(source, cluster, groups)


def untrusted(live: LiveGroup) -> str | None:
    """What the broker failed to report that a prediction needs, or None when its answer can be used.

    Tansu, for one, describes every group as a Stable or Unknown `consumer` group with no members while
    its consumers commit, and names the leader's member id as the assignor (docs/brokers.md). A prediction
    made from that would be one for an empty group; a Kafka broker never answers so.
    """
    group = live.group
    if not group.members and group.state in ("Unknown", "Stable", "PreparingRebalance", "CompletingRebalance"):
        return (
            f"the broker reported group {group.group_id!r} in state {group.state} with no members, so its "
            "members, subscriptions and assignment are unknown"
        )
    if live.type == "consumer" and live.assignor and live.assignor not in ("uniform", "range"):
        return (
            f"the broker labels group {group.group_id!r} a KIP-848 'consumer' group but names "
            f"{live.assignor!r} as its assignor, which no KIP-848 coordinator uses"
        )
    return None


def read_for_what_if(
    admin: LiveAdmin, group_id: str, named: tuple[str, ...] = ()
) -> tuple[Fixture, dict[str, Any], str, str | None, tuple[str, ...]]:
    """A live group as `kgroup snapshot` would save it, with the topics a what-if names (`named`): the
    fixture, its document, its source, why its leader's client is what it is, and which of `named` the
    cluster does not have. Refused (InputError, exit 2) when the broker's answer cannot be trusted.

    Kafka's leader assigns the topics in its metadata, which it fetches for every member's subscription
    (ConsumerCoordinator.onLeaderElected, metadata.requestUpdateForNewTopics): a newcomer's topic the
    group does not consume yet is assigned at its join, so its size is read here, not left out."""
    try:
        read = read_groups(admin, [group_id], subscriptions=True)
    except NotFoundError:
        # DescribeGroups describes a share group (KIP-932) as Dead: read it as kafka-share-groups.sh does.
        from kgroup.inspectors.live.share_snapshot import share_for_what_if

        shared = share_for_what_if(admin, group_id, named)
        if shared is None:
            raise
        return shared
    problem = untrusted(read.groups[0])
    if problem:
        raise InputError(
            f"no live what-if: {problem}; save the group with `kgroup snapshot`, complete it and simulate the file",
            field="--group",
        )
    source = f"live:{admin.settings.bootstrap_servers}"
    absent = tuple(t for t in named if read.cluster.topic(t) is None)
    return (
        live_fixture(read, source, named),
        fixture_document(read, source, named=named),
        source,
        read.groups[0].client_reason,
        absent,
    )


def live_fixture(read: LiveRead, source: str, named: tuple[str, ...] = ()) -> Fixture:
    """The live state exactly as `kgroup snapshot` would save it and a fixture load would read it back.

    A live what-if is `snapshot` followed by the offline what-if, in memory: the document goes through
    the same loader a file does, so what a member owns and from which generation is decided once.
    """
    document = fixture_document(read, source, named=named)
    return fixture_from_mapping(FieldReader(YamlDoc(source, document)), document)


def fixture_document(
    read: LiveRead, source: str, now: datetime | None = None, named: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A `kgroup/v1` document of the live state (see the module docstring), with the `named` topics."""
    fixture = as_fixture(read, source, named)
    taken = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    inferred = {live.group.group_id: live.inferred for live in read.groups}
    # A consumer-protocol group's `assignment` is its target assignment; each member's `owned` its current one.
    targets = {
        live.group.group_id: live.target_assignments
        for live in read.groups
        if live.group.protocol == "consumer" and live.member_epochs
    }
    notes = [f"{live.group.group_id}: {note}" for live in read.groups for note in live.notes]
    return {
        "schema": SCHEMA,
        "description": f"snapshot of {', '.join(g.group_id for g in fixture.groups)} from {source} at {taken}; "
        "members marked inferred: true have a subscription inferred from their assignment"
        + "".join(f"; {note}" for note in notes),
        "cluster": {
            "topics": [_topic_body(t) for t in fixture.cluster.topics],
            **({"kafka_version": fixture.cluster.kafka_version} if fixture.cluster.kafka_version else {}),
        },
        "groups": [
            _group_body(g, inferred.get(g.group_id, frozenset()), targets.get(g.group_id)) for g in fixture.groups
        ],
    }


def _topic_body(topic: Topic) -> dict[str, Any]:
    body: dict[str, Any] = {"name": topic.name, "partitions": topic.partitions}
    if topic.topic_id:  # read for consumer-protocol groups: the uniform assignor's ties fall by topic id
        body["id"] = topic.topic_id
    if topic.replica_racks:
        body["replica_racks"] = [sorted(racks) for racks in topic.replica_racks]
    return body


def _group_body(
    group: Group, inferred: frozenset[str], targets: dict[str, tuple[TopicPartition, ...]] | None = None
) -> dict[str, Any]:
    """`targets`: a consumer-protocol group's target assignment as its coordinator described it. The group's
    `assignment` is then the target, and each member's `owned` (with its member epoch as `generation`) what
    it owns now, so a member still reconciling keeps both."""
    body: dict[str, Any] = {
        "group_id": group.group_id,
        "protocol": str(group.protocol),  # yaml.safe_dump writes plain strings only
        "assignors": list(group.assignors),
    }
    if group.generation is not None:
        body["generation"] = group.generation
    if group.assignment_epoch is not None:
        body["assignment_epoch"] = group.assignment_epoch
    if group.heartbeat_interval_ms is not None:
        body["heartbeat_interval_ms"] = group.heartbeat_interval_ms
    if group.client:
        body["client"] = group.client
    if group.state:
        body["state"] = group.state
    body["members"] = [_member_body(m, m.member_id in inferred, targets is not None) for m in group.members]
    owners = {m: parts for m, parts in (targets if targets is not None else group.assignment.owners).items() if parts}
    if owners:
        body["assignment"] = {member: by_topic(parts) for member, parts in owners.items()}
    if group.offsets:
        body["offsets"] = {
            f"{o.tp.topic}-{o.tp.partition}": {
                k: v
                for k, v in (("committed", o.committed), ("log_start", o.log_start), ("log_end", o.log_end))
                if v is not None
            }
            for o in group.offsets
        }
    return body


def _member_body(member: Member, inferred: bool, consumer_protocol: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {"member_id": member.member_id}
    for key, value in (
        ("instance_id", member.instance_id),
        ("client_id", member.client_id),
        ("host", member.host),
        ("rack", member.rack),
    ):
        if value:
            body[key] = value
    body["topics"] = list(member.topics)
    if consumer_protocol:
        if member.subscribed_regex:
            body["subscribed_regex"] = member.subscribed_regex
        if member.member_type:
            body["member_type"] = member.member_type
        body["owned"] = by_topic(member.owned)  # `{}` when it owns nothing yet: kept so by the loader
        if member.generation is not None:
            body["generation"] = member.generation
    if inferred:
        body["inferred"] = True
    return body


def fixture_group(saved: Fixture, group_id: str) -> LiveGroup:
    """A fixture's group as describe shows a live one (the inverse of as_fixture): its first assignor under
    the name the broker reports, and no coordinator, which a fixture does not record."""
    group = saved.group(group_id)
    if group.protocol == "share":
        raise InputError(
            f"group {group.group_id!r} is a share group: describe --fixture does not show saved share groups yet "
            "(describe -b reads live ones; simulate, assign and explain read the file)",
            saved.source,
        )
    assignor = group.assignors[0] if group.assignors else None
    if assignor is not None and ":" in assignor:
        # A user assignor: the broker reports the protocol name its members send, the assignor's own `name`
        # (ConsumerPartitionAssignor.name() in ConsumerCoordinator.metadata).
        try:
            assignor = resolve(assignor).name
        except InputError as exc:
            raise InputError(f"group {group.group_id!r}: assignors: {exc.message}", saved.source) from None
    if group.protocol == "consumer" and assignor is not None:
        broker_names = {fixture_name: broker_name for broker_name, fixture_name in CONSUMER_PROTOCOL_NAMES.items()}
        assignor = broker_names.get(assignor, assignor)
        # The fixture's `assignment` is the target; what each member owns now is its `owned` (the loader
        # fills it from the target when a member does not say), as describe shows a live group.
        current = replace(group, assignment=Assignment.of({m.member_id: m.owned for m in group.members}))
        return LiveGroup(
            current,
            group.protocol,
            assignor,
            None,
            target_assignments={m.member_id: group.target_of(m.member_id) for m in group.members},
            group_epoch=group.generation,
            assignment_epoch=group.assignment_epoch,
            member_epochs={m.member_id: m.generation for m in group.members if m.generation is not None},
            subscribed_regexes={m.member_id: m.subscribed_regex for m in group.members if m.subscribed_regex},
            member_types={m.member_id: m.member_type for m in group.members if m.member_type},
        )
    return LiveGroup(group, group.protocol, assignor, None)
