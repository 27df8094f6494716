"""DeleteShareGroupOffsets (API 92, v0, KIP-932): delete a share group's state for whole topics.

What `kafka-share-groups.sh --delete-offsets` sends (ShareGroupCommand.deleteOffsets,
Admin.deleteShareGroupOffsets). The request (DeleteShareGroupOffsetsRequest.json of the pinned release) names
the group and topics, never partitions: a share group's offsets are deleted a topic at a time. The answer has
a top-level error and, per topic, its error. The coordinator refuses a group that is not Empty
(GroupCoordinatorShard.initiateDeleteShareGroupOffsets, ShareGroup.validateDeleteGroup: NON_EMPTY_GROUP),
answers GROUP_ID_NOT_FOUND for a group that is not a share group, and UNKNOWN_TOPIC_OR_PARTITION ("There is no
offset information to delete.") for a topic the group has no initialized state for
(GroupMetadataManager.sharePartitionsEligibleForOffsetDeletion).

Read as Kafka's admin client reads it (DeleteShareGroupOffsetsHandler): a top-level error is the group's
answer; COORDINATOR_LOAD_IN_PROGRESS and REBALANCE_IN_PROGRESS are asked again, COORDINATOR_NOT_AVAILABLE and
NOT_COORDINATOR look the coordinator up again (coordinator.on_coordinator). A resent request is harmless: a
topic already deleted is answered UNKNOWN_TOPIC_OR_PARTITION, and the caller reads the offsets back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from kgroup.inspectors.live.wire.codec import TAGS_NONE, Reader, compact_array, compact_string
from kgroup.inspectors.live.wire.connection import Connection
from kgroup.inspectors.live.wire.coordinator import ask_coordinator, named
from kgroup.inspectors.live.wire.share_group_alter_offsets import retry_code

API_DELETE_SHARE_GROUP_OFFSETS = 92
OUR_DELETE_SHARE_GROUP_OFFSETS = (0, 0)  # the only version Kafka 4.2 defines


@dataclass(frozen=True)
class DeleteShareOffsetsAnswer:
    coordinator: str | None
    error: str | None  # the top-level error: Kafka's name, its message and where it came from; None when none
    topics: dict[str, str | None] = field(default_factory=dict)  # per topic answered: its error, or None
    error_code: int = 0  # the top-level error's code


def offers_delete_share_group_offsets(versions: dict[int, tuple[int, int]]) -> bool:
    low, high = versions.get(API_DELETE_SHARE_GROUP_OFFSETS, (1, 0))
    return low <= OUR_DELETE_SHARE_GROUP_OFFSETS[1] and high >= OUR_DELETE_SHARE_GROUP_OFFSETS[0]


def delete_share_group_offsets(
    config: dict[str, str], group: str, topics: list[str], timeout_s: float
) -> DeleteShareOffsetsAnswer:
    """Send one DeleteShareGroupOffsets for `topics` of `group`. Raises BrokerUnreachable / AuthenticationFailed
    / ProtocolError (naming the address) when no answer can be had within timeout_s; a top-level error
    (including one FindCoordinator answers) is in the answer."""
    send = partial(_delete, group=group, topics=topics)
    return ask_coordinator(config, group, timeout_s, send, _refused, retry_code)


def delete_request(group: str, topics: list[str]) -> bytes:
    """The request body: GroupId and the topic names."""
    return (
        compact_string(group)
        + compact_array([compact_string(t) + TAGS_NONE for t in dict.fromkeys(topics)])
        + TAGS_NONE
    )


Answer = tuple[int, str | None, dict[str, str | None]]


def read_delete_response(r: Reader) -> Answer:
    """(top-level error code, its message, per topic its error name or None)."""
    r.i32("throttle time")
    code = r.i16("error code")
    message = r.cstring("error message", True)
    topics: dict[str, str | None] = {}
    for _ in range(r.array_len("responses", True)):
        topic = r.cstring("topic name", True)
        r.uuid("topic id")
        error = r.i16("topic error code")
        why = r.cstring("topic error message", True)
        r.tags("topic")
        if topic is not None:  # a topic deleted meanwhile may come back without a name: not one asked for
            topics[topic] = named(error, why) if error else None
    r.tags("response")
    return code, message, topics


def _delete(conn: Connection, group: str, topics: list[str]) -> DeleteShareOffsetsAnswer:
    v = conn.pick(API_DELETE_SHARE_GROUP_OFFSETS, OUR_DELETE_SHARE_GROUP_OFFSETS, "DeleteShareGroupOffsets")
    doing = f"deleting offsets of share group {group!r} (DeleteShareGroupOffsets v{v})"
    code, message, answered = read_delete_response(
        conn.request(API_DELETE_SHARE_GROUP_OFFSETS, v, delete_request(group, topics), True, doing)
    )
    if code:  # the group's answer
        where = f"DeleteShareGroupOffsets on {conn.address}"
        return DeleteShareOffsetsAnswer(conn.address, named(code, message, where), error_code=code)
    return DeleteShareOffsetsAnswer(conn.address, None, answered)


def _refused(error: int, named_error: str, address: str) -> DeleteShareOffsetsAnswer:
    return DeleteShareOffsetsAnswer(address, named_error, error_code=error)
