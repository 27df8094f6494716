"""A live group as a `kgroup/v1` fixture: `kgroup snapshot` writes it, live what-ifs run on it.

What the admin API reports is copied as is: members (id, client id, host, group.instance.id), their
assignment, the committed offsets with each partition's log start and end, and the racks of every
partition's replicas when brokers have racks. A member's subscription is not in what confluent-kafka
returns (it hides the ConsumerProtocol metadata bytes), so it is inferred from the member's assignment
and the member is marked `inferred: true`; a member that owns nothing gets the topics the group owns
or commits. The connection settings never go into the fixture.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from kgroup.assignors.model import Cluster, Group, Member, Topic
from kgroup.inspectors.assignor_lookup import known_assignor_names
from kgroup.inspectors.fixtures import SCHEMA, Fixture
from kgroup.inspectors.live import LiveGroup, LiveRead


def group_topics(group: Group) -> list[str]:
    """The topics a group owns or has committed, in name order."""
    owned = {tp.topic for parts in group.assignment.owners.values() for tp in parts}
    return sorted(owned | {o.tp.topic for o in group.offsets})


def _with_inferred_topics(group: Group) -> Group:
    fallback = tuple(group_topics(group))
    members = tuple(m if m.topics else Member(m.member_id, fallback, m.instance_id, m.rack, m.client_id, m.host)
                    for m in group.members)
    return Group(group.group_id, group.protocol, group.assignors, members, group.assignment, group.generation,
                 group.state, group.offsets)


def _assignors(live: LiveGroup) -> tuple[str, ...]:
    """The group's assignor when the broker names a known one (Tansu names the leader's member id)."""
    known = known_assignor_names()
    if live.assignor and live.assignor in known:
        return (live.assignor,)
    return ("uniform",) if live.group.protocol == "consumer" else ("range",)


def as_fixture(read: LiveRead, source: str) -> Fixture:
    """The live state as a Fixture, for what-ifs; only the topics the groups touch."""
    groups = tuple(_with_inferred_topics(Group(
        g.group.group_id, g.group.protocol, _assignors(g), g.group.members, g.group.assignment, g.group.generation,
        g.group.state, g.group.offsets)) for g in read.groups)
    wanted = {t for g in groups for t in group_topics(g)} | {t for g in groups for m in g.members for t in m.topics}
    cluster = Cluster(tuple(t for t in read.cluster.topics if t.name in wanted))
    return Fixture(source, cluster, groups)


def fixture_document(read: LiveRead, source: str, now: datetime | None = None) -> dict[str, Any]:
    """A `kgroup/v1` document of the live state (see the module docstring)."""
    fixture = as_fixture(read, source)
    taken = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "schema": SCHEMA,
        "description": f"snapshot of {', '.join(g.group_id for g in fixture.groups)} from {source} at {taken}; "
                       "members marked inferred: true have a subscription inferred from their assignment",
        "cluster": {"topics": [_topic_body(t) for t in fixture.cluster.topics]},
        "groups": [_group_body(g, live) for g, live in zip(fixture.groups, read.groups)],
    }


def _topic_body(topic: Topic) -> dict[str, Any]:
    body: dict[str, Any] = {"name": topic.name, "partitions": topic.partitions}
    if topic.replica_racks:
        body["replica_racks"] = [sorted(racks) for racks in topic.replica_racks]
    return body


def _group_body(group: Group, live: LiveGroup) -> dict[str, Any]:
    body: dict[str, Any] = {"group_id": group.group_id, "protocol": group.protocol, "assignors": list(group.assignors)}
    if group.state:
        body["state"] = group.state
    body["members"] = [_member_body(m) for m in group.members]
    owners = {m: parts for m, parts in group.assignment.owners.items() if parts}
    if owners:
        body["assignment"] = {member: _by_topic(parts) for member, parts in owners.items()}
    if group.offsets:
        body["offsets"] = {f"{o.tp.topic}-{o.tp.partition}": {k: v for k, v in (
            ("committed", o.committed), ("log_start", o.log_start), ("log_end", o.log_end)) if v is not None}
            for o in group.offsets}
    return body


def _member_body(member: Member) -> dict[str, Any]:
    body: dict[str, Any] = {"member_id": member.member_id}
    for key, value in (("instance_id", member.instance_id), ("client_id", member.client_id),
                       ("host", member.host), ("rack", member.rack)):
        if value:
            body[key] = value
    body["topics"] = list(member.topics)
    body["inferred"] = True
    return body


def _by_topic(parts: tuple[Any, ...]) -> dict[str, list[int]]:
    result: dict[str, list[int]] = {}
    for tp in parts:
        result.setdefault(tp.topic, []).append(tp.partition)
    return result

