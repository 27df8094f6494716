"""A live share group (KIP-932) as a `kgroup/v1` fixture: what `kgroup snapshot` writes and a live what-if reads.

The group is read as `kafka-share-groups.sh --describe` reads it (ShareGroupDescribe, inspectors/live/share_groups.py):
its state, group epoch, target assignment epoch and assignor (`simple`), and per member its id, client id,
host, rack, epoch, subscribed topic names and assignment. A fixture's share group (`protocol: share`) carries
them; its `assignment` is what each member holds, which is its target once its epoch has reached the
assignment epoch (ShareGroupAssignmentBuilder hands a member its target at its next heartbeat, with no
revocation step), so a member still behind is named in the description. Topics carry Kafka's topic ids: the
simple assignor walks partitions in the HashMap order of `TopicIdPartition`s, so its answer depends on them.

Share-partition start offsets are not written: a fixture's `offsets` are a consumer group's commits.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from kgroup.assignors.model import Cluster, TopicPartition
from kgroup.inspectors.fixtures.field_reader import FieldReader
from kgroup.inspectors.fixtures.group_file import SCHEMA, Fixture, fixture_from_mapping
from kgroup.inspectors.fixtures.partition_ranges import by_topic
from kgroup.inspectors.fixtures.yaml_doc import YamlDoc
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.live.share_groups import ShareGroup, read_share_groups


def share_groups_document(
    admin: LiveAdmin, group_ids: list[str], now: datetime | None = None, named: tuple[str, ...] = ()
) -> tuple[dict[str, Any], Cluster] | None:
    """The named groups as one fixture document when every one is a share group; None when one is not (the
    caller then reports it as it reports a group that does not exist). Also the cluster as read."""
    shares = read_share_groups(admin, group_ids)
    if not group_ids or any(g not in shares for g in group_ids):
        return None
    cluster = replace(admin.cluster(), kafka_version=admin.kafka_version())
    groups = [shares[g] for g in group_ids]
    wanted = set(named)
    for group in groups:
        for m in group.members:
            wanted |= set(m.subscribed_topics) | {t for t, _ in m.assignment}
    topics = [t for t in cluster.topics if t.name in wanted]
    ids = admin.topic_ids([t.name for t in topics])
    topics = [replace(t, topic_id=ids.get(t.name)) for t in topics]
    taken = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    notes = [note for group in groups for note in _behind(group)]
    source = admin.settings.bootstrap_servers
    document = {
        "schema": SCHEMA,
        "description": f"snapshot of share group(s) {', '.join(group_ids)} from {source} at {taken}"
        + "".join(f"; {note}" for note in notes),
        "cluster": {
            "topics": [_topic_body(t.name, t.partitions, t.topic_id) for t in topics],
            **({"kafka_version": cluster.kafka_version} if cluster.kafka_version else {}),
        },
        "groups": [_group_body(g) for g in groups],
    }
    return document, replace(cluster, topics=tuple(topics))


def _behind(group: ShareGroup) -> list[str]:
    return [
        f"{group.group_id}: member {m.member_id} is at epoch {m.member_epoch}, the target at "
        f"{group.assignment_epoch}: what it holds may not be its target yet"
        for m in group.members
        if m.member_epoch != group.assignment_epoch
    ]


def _topic_body(name: str, partitions: int, topic_id: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "partitions": partitions}
    if topic_id:
        body["id"] = topic_id
    return body


def _group_body(group: ShareGroup) -> dict[str, Any]:
    body: dict[str, Any] = {
        "group_id": group.group_id,
        "protocol": "share",
        "assignors": [group.assignor or "simple"],
        "generation": group.group_epoch,
        "assignment_epoch": group.assignment_epoch,
        "state": group.state,
    }
    members = []
    # In the coordinator's order (ShareGroupDescribe's): what-ifs read it as the order the share assignor gets.
    place = {member_id: i for i, member_id in enumerate(group.member_order)}
    for m in sorted(group.members, key=lambda m: place.get(m.member_id, len(place))):
        member: dict[str, Any] = {"member_id": m.member_id}
        for key, value in (("client_id", m.client_id), ("host", m.client_host), ("rack", m.rack_id)):
            if value:
                member[key] = value
        member["topics"] = list(m.subscribed_topics)
        member["generation"] = m.member_epoch
        members.append(member)
    body["members"] = members
    owners = {m.member_id: [TopicPartition(t, p) for t, p in m.assignment] for m in group.members if m.assignment}
    if owners:
        body["assignment"] = {member: by_topic(parts) for member, parts in owners.items()}
    return body


def share_for_what_if(
    admin: LiveAdmin, group_id: str, named: tuple[str, ...] = ()
) -> tuple[Fixture, dict[str, Any], str, str | None, tuple[str, ...]] | None:
    """`snapshot.read_for_what_if` for a share group: the fixture, its document, its source, no leader's client
    (a share group's coordinator assigns), and which of `named` the cluster lacks; None when not a share group."""
    read = share_groups_document(admin, [group_id], named=named)
    if read is None:
        return None
    document, cluster = read
    source = f"live:{admin.settings.bootstrap_servers}"
    fixture = fixture_from_mapping(FieldReader(YamlDoc(source, document)), document)
    absent = tuple(t for t in named if cluster.topic(t) is None)  # `cluster` has every named topic that exists
    return fixture, document, source, "a share group's coordinator assigns (no leader)", absent
