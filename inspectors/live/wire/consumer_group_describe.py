"""ConsumerGroupDescribe (API 69, v0-v1, KIP-848): what a consumer-protocol group's coordinator knows.

DescribeGroups shows a KIP-848 group as Dead or empty; ConsumerGroupDescribe answers with the group's
state (Empty, Assigning, Reconciling, Stable), its group epoch, the epoch of its target assignment, the
server assignor, and per member its epoch, subscription (topic names and regex), current and target
assignment, and (v1, KIP-1099) whether it speaks the classic protocol: an upgraded group's classic member
(`ConsumerGroupMember.asConsumerGroupDescribeMember`, group coordinator).

The request goes to each group's coordinator with the same connection settings (TLS, SASL) as every
other request kgroup sends itself. Errors follow Kafka's admin client
(`DescribeConsumerGroupsHandler.handleError`): COORDINATOR_LOAD_IN_PROGRESS is asked again,
COORDINATOR_NOT_AVAILABLE and NOT_COORDINATOR look the coordinator up again, anything else is the
group's answer (GROUP_ID_NOT_FOUND also for a group that is not a consumer-protocol group).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kgroup.inspectors.live.wire.codec import TAGS_NONE, Reader, compact_array, compact_string
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from kgroup.inspectors.live.wire.coordinator import bootstrap, find_coordinator
from kgroup.inspectors.live.wire.errors import ERRORS, RETRIABLE

API_CONSUMER_GROUP_DESCRIBE = 69
OUR_CONSUMER_GROUP_DESCRIBE = (0, 1)  # v1 adds MemberType (KIP-1099)
# ConsumerGroupDescribeResponse's MemberType: -1 unknown (v0), 0 a classic member, 1 a consumer member.
MEMBER_TYPES = {0: "classic", 1: "consumer"}
_ATTEMPTS = 10

Partitions = tuple[tuple[str, int], ...]  # (topic, partition), sorted


@dataclass(frozen=True)
class DescribedMember:
    member_id: str
    instance_id: str | None
    rack_id: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topics: tuple[str, ...]
    subscribed_regex: str | None
    assignment: Partitions  # what the member owns now (its current assignment)
    target_assignment: Partitions  # what the coordinator's target assignment gives it
    member_type: str | None  # classic | consumer; None before v1 (Kafka 4.0) or when the broker says -1


@dataclass(frozen=True)
class DescribedGroup:
    group_id: str
    error_code: int
    error: str | None  # Kafka's error name, its message and where it came from; None when described
    state: str | None  # ConsumerGroup.ConsumerGroupState's name: Empty, Assigning, Reconciling, Stable, Dead
    group_epoch: int | None
    assignment_epoch: int | None
    assignor: str | None
    members: tuple[DescribedMember, ...] = ()
    coordinator: str | None = None
    api_version: int | None = None
    unnamed_topics: tuple[str, ...] = ()  # topic ids the broker sent without a name (deleted meanwhile)
    topic_ids: dict[str, str] = field(default_factory=dict)  # name -> Kafka's topic id, for the topics assigned


def offers_consumer_group_describe(versions: dict[int, tuple[int, int]]) -> bool:
    return API_CONSUMER_GROUP_DESCRIBE in versions


def describe_consumer_groups(
    config: dict[str, str], group_ids: list[str], timeout_s: float, topic_names: dict[str, str] | None = None
) -> dict[str, DescribedGroup]:
    """Per group id, its coordinator's answer. `topic_names` maps topic ids to names for a topic the
    broker sends without its name. Raises BrokerUnreachable / AuthenticationFailed / ProtocolError
    (naming the address) when no answer can be had within timeout_s; a group-level error is returned
    in the group (error_code, error), never raised."""
    if timeout_s <= 0:
        raise ValueError("timeout_s must be positive")
    deadline = Deadline(timeout_s)
    first = bootstrap(dict(config), deadline)
    connections = {first.address: first}
    results: dict[str, DescribedGroup] = {}
    pending = list(dict.fromkeys(group_ids))
    try:
        for attempt in range(_ATTEMPTS):
            by_coordinator: dict[str, list[str]] = {}
            for group in pending:
                error, host, port, _node, message = find_coordinator(first, group)
                if error:
                    results[group] = _failed(group, error, message, f"FindCoordinator via {first.address}")
                    continue
                by_coordinator.setdefault(f"{host}:{port}", []).append(group)
            retry = []
            for address, groups in by_coordinator.items():
                conn = connections.get(address)
                if conn is None:
                    conn = connections[address] = Connection(address, dict(config), deadline)
                for answer in _describe(conn, groups, topic_names or {}):
                    if answer.error_code in RETRIABLE and attempt < _ATTEMPTS - 1:
                        retry.append(answer.group_id)
                    results[answer.group_id] = answer
            if not retry:
                break
            pending = retry
            time.sleep(
                min(0.1 * (attempt + 1), max(0.0, deadline.left(first.address, "waiting for a coordinator") - 0.05))
            )
        return {group: results[group] for group in dict.fromkeys(group_ids) if group in results}
    finally:
        for conn in connections.values():
            conn.close()


def _describe(conn: Connection, groups: list[str], topic_names: dict[str, str]) -> list[DescribedGroup]:
    v = conn.pick(API_CONSUMER_GROUP_DESCRIBE, OUR_CONSUMER_GROUP_DESCRIBE, "ConsumerGroupDescribe")
    doing = f"describing {', '.join(repr(g) for g in groups)} (ConsumerGroupDescribe v{v})"
    body = (
        compact_array([compact_string(g) for g in groups]) + b"\x00" + TAGS_NONE
    )  # IncludeAuthorizedOperations: false
    r = conn.request(API_CONSUMER_GROUP_DESCRIBE, v, body, True, doing)
    r.i32("throttle time")
    out = []
    for _ in range(r.array_len("groups", True)):
        error = r.i16("error code")
        message = r.cstring("error message", True)
        group_id = r.cstring("group id") or ""
        state = r.cstring("group state") or None
        group_epoch = r.i32("group epoch")
        assignment_epoch = r.i32("assignment epoch")
        assignor = r.cstring("assignor name") or None
        unnamed: list[str] = []
        ids: dict[str, str] = {}
        members = tuple(_member(r, v, topic_names, unnamed, ids) for _ in range(r.array_len("members", True)))
        r.i32("authorized operations")
        r.tags("group")
        if error:
            failed = _failed(group_id, error, message, f"ConsumerGroupDescribe on {conn.address}")
            out.append(
                DescribedGroup(
                    failed.group_id,
                    failed.error_code,
                    failed.error,
                    None,
                    None,
                    None,
                    None,
                    coordinator=conn.address,
                    api_version=v,
                )
            )
            continue
        out.append(
            DescribedGroup(
                group_id,
                0,
                None,
                state,
                group_epoch,
                assignment_epoch,
                assignor,
                members,
                conn.address,
                v,
                tuple(dict.fromkeys(unnamed)),
                ids,
            )
        )
    r.tags("response")
    return out


def _member(r: Reader, v: int, topic_names: dict[str, str], unnamed: list[str], ids: dict[str, str]) -> DescribedMember:
    member_id = r.cstring("member id") or ""
    instance_id = r.cstring("instance id", True)
    rack_id = r.cstring("rack id", True)
    epoch = r.i32("member epoch")
    client_id = r.cstring("client id") or ""
    client_host = r.cstring("client host") or ""
    topics = tuple(r.cstring("subscribed topic name") or "" for _ in range(r.array_len("subscribed topics", True)))
    regex = r.cstring("subscribed topic regex", True)
    current = _assignment(r, "assignment", topic_names, unnamed, ids)
    target = _assignment(r, "target assignment", topic_names, unnamed, ids, topics_as_listed=True)
    member_type = MEMBER_TYPES.get(r.i8("member type") if v >= 1 else -1)
    r.tags("member")
    return DescribedMember(
        member_id, instance_id, rack_id, epoch, client_id, client_host, topics, regex, current, target, member_type
    )


def _assignment(
    r: Reader,
    what: str,
    topic_names: dict[str, str],
    unnamed: list[str],
    ids: dict[str, str],
    topics_as_listed: bool = False,
) -> Partitions:
    """An Assignment struct: per topic its id, name and partitions. The coordinator fills the name from its
    metadata image (`topicPartitionsFromMap`); an id it sends without a name is named from `topic_names`.
    Each name's id goes into `ids`. Sorted, or with `topics_as_listed` the topics in the order the coordinator
    iterated its map (for a target, the order uniform gives up partitions in: Group.target_order), each
    topic's partitions ascending."""
    found: list[tuple[str, int]] = []
    for _ in range(r.array_len(f"{what} topics", True)):
        topic_id = r.uuid(f"{what} topic id")
        name = r.cstring(f"{what} topic name") or topic_names.get(topic_id)
        if not name:
            unnamed.append(topic_id)
            name = topic_id
        else:
            ids[name] = topic_id
        partitions = [r.i32(f"{what} partition") for _ in range(r.array_len(f"{what} partitions", True))]
        r.tags(f"{what} topic")
        found.extend((name, p) for p in partitions)
    r.tags(what)
    if not topics_as_listed:
        return tuple(sorted(set(found)))
    rank = {name: i for i, name in enumerate(dict.fromkeys(name for name, _ in found))}
    return tuple(sorted(set(found), key=lambda tp: (rank[tp[0]], tp[1])))


def _failed(group: str, error: int, message: str | None, where: str) -> DescribedGroup:
    name = ERRORS.get(error, f"error {error}")
    return DescribedGroup(group, error, f"{name}{': ' + message if message else ''} ({where})", None, None, None, None)
