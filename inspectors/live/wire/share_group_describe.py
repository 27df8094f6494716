"""ShareGroupDescribe (API 77, v1, KIP-932): what a share group's coordinator knows of it.

A share group (Kafka 4.2's queues: several members read one partition, records acquired and acknowledged
one by one) is described by its coordinator only through this request: DescribeGroups does not describe
it. The answer (ShareGroupDescribeResponse.json of the pinned release) has the group's state (Empty,
Stable, Dead), its group epoch, the epoch of its target assignment, the share assignor's name (`simple`),
and per member its id, rack, epoch, client id and host, subscribed topic names and current assignment.
Version 0 was Kafka 4.0's early access and was removed in 4.1; v1 is the first stable version.

The coordinator is found with FindCoordinator key type 0, as for every group (Kafka's admin client keys
share groups with `CoordinatorKey.byGroupId`). Errors follow `DescribeShareGroupsHandler.handleError`:
COORDINATOR_LOAD_IN_PROGRESS is asked again, COORDINATOR_NOT_AVAILABLE and NOT_COORDINATOR look the
coordinator up again (coordinator.on_coordinator), anything else is the group's answer: GROUP_ID_NOT_FOUND
also for a group that exists but is not a share group (GroupMetadataManager.shareGroup).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from kgroup.inspectors.live.wire.codec import TAGS_NONE, Reader, compact_array, compact_string
from kgroup.inspectors.live.wire.connection import Connection
from kgroup.inspectors.live.wire.coordinator import ask_coordinator, named

API_SHARE_GROUP_DESCRIBE = 77
OUR_SHARE_GROUP_DESCRIBE = (1, 1)  # v0 (Kafka 4.0's early access) was removed in Kafka 4.1

Partitions = tuple[tuple[str, int], ...]  # (topic, partition), sorted


@dataclass(frozen=True)
class ShareMember:
    member_id: str
    rack_id: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topics: tuple[str, ...]
    assignment: Partitions


@dataclass(frozen=True)
class DescribedShareGroup:
    group_id: str
    error_code: int
    error: str | None  # Kafka's error name, its message and where it came from; None when described
    state: str | None  # ShareGroup.ShareGroupState's name: Empty, Stable, Dead
    group_epoch: int | None
    assignment_epoch: int | None
    assignor: str | None
    members: tuple[ShareMember, ...] = ()
    coordinator: str | None = None  # host:port of the coordinator that answered
    api_version: int | None = None
    # The member ids in the answer's order: the coordinator's own (ShareGroup.members, a TimelineHashMap), which
    # decides the share assignor's member order where two ids share a bucket (share_simple.coordinator_member_order).
    broker_order: tuple[str, ...] = ()


def offers_share_group_describe(versions: dict[int, tuple[int, int]]) -> bool:
    """Whether a broker's ApiVersions answer offers a version of ShareGroupDescribe kgroup speaks."""
    low, high = versions.get(API_SHARE_GROUP_DESCRIBE, (1, 0))
    return low <= OUR_SHARE_GROUP_DESCRIBE[1] and high >= OUR_SHARE_GROUP_DESCRIBE[0]


def describe_share_group(config: dict[str, str], group: str, timeout_s: float) -> DescribedShareGroup:
    """The coordinator's answer for `group`. Raises BrokerUnreachable / AuthenticationFailed / ProtocolError
    (naming the address) when no answer can be had within timeout_s; a group-level error (including one
    FindCoordinator answers) is returned in the group (error_code, error), never raised."""
    return ask_coordinator(config, group, timeout_s, partial(_describe, group=group), partial(_refused, group))


def _describe(conn: Connection, group: str) -> DescribedShareGroup:
    v = conn.pick(API_SHARE_GROUP_DESCRIBE, OUR_SHARE_GROUP_DESCRIBE, "ShareGroupDescribe")
    doing = f"describing share group {group!r} (ShareGroupDescribe v{v})"
    body = compact_array([compact_string(group)]) + b"\x00" + TAGS_NONE  # IncludeAuthorizedOperations: false
    r = conn.request(API_SHARE_GROUP_DESCRIBE, v, body, True, doing)
    r.i32("throttle time")
    found: DescribedShareGroup | None = None
    for _ in range(r.array_len("groups", True)):
        error = r.i16("error code")
        message = r.cstring("error message", True)
        group_id = r.cstring("group id") or ""
        state = r.cstring("group state") or None
        group_epoch = r.i32("group epoch")
        assignment_epoch = r.i32("assignment epoch")
        assignor = r.cstring("assignor name") or None
        members = tuple(_member(r) for _ in range(r.array_len("members", True)))
        r.i32("authorized operations")
        r.tags("group")
        if group_id != group:
            continue
        if error:
            failed = _failed(group, error, message, f"ShareGroupDescribe on {conn.address}")
            found = DescribedShareGroup(
                group, error, failed.error, None, None, None, None, coordinator=conn.address, api_version=v
            )
        else:
            found = DescribedShareGroup(
                group,
                0,
                None,
                state,
                group_epoch,
                assignment_epoch,
                assignor,
                tuple(sorted(members, key=lambda m: m.member_id)),
                conn.address,
                v,
                tuple(m.member_id for m in members),
            )
    r.tags("response")
    if found is None:  # ShareGroupDescribeResponse answers every group asked; a missing one is the broker's bug
        return _failed(group, -1, "the answer did not name the group", f"ShareGroupDescribe on {conn.address}")
    return found


def _member(r: Reader) -> ShareMember:
    member_id = r.cstring("member id") or ""
    rack_id = r.cstring("rack id", True)
    epoch = r.i32("member epoch")
    client_id = r.cstring("client id") or ""
    client_host = r.cstring("client host") or ""
    topics = tuple(r.cstring("subscribed topic name") or "" for _ in range(r.array_len("subscribed topics", True)))
    found: list[tuple[str, int]] = []
    for _ in range(r.array_len("assignment topics", True)):  # the Assignment struct's TopicPartitions
        topic_id = r.uuid("assignment topic id")
        name = r.cstring("assignment topic name") or topic_id  # the coordinator names it from its metadata image
        found.extend((name, r.i32("assignment partition")) for _ in range(r.array_len("assignment partitions", True)))
        r.tags("assignment topic")
    r.tags("assignment")
    r.tags("member")
    return ShareMember(member_id, rack_id, epoch, client_id, client_host, topics, tuple(sorted(set(found))))


def _failed(group: str, error: int, message: str | None, where: str) -> DescribedShareGroup:
    return _refused(group, error, named(error, message, where))


def _refused(group: str, error: int, named_error: str, _address: str | None = None) -> DescribedShareGroup:
    return DescribedShareGroup(group, error, named_error, None, None, None, None)
