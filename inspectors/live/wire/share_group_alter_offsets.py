"""AlterShareGroupOffsets (API 91, v0, KIP-932): set a share group's start offset per topic-partition.

What `kafka-share-groups.sh --reset-offsets --execute` sends (ShareGroupCommand.resetOffsetsForInactiveGroup,
Admin.alterShareGroupOffsets). The request (AlterShareGroupOffsetsRequest.json of the pinned release) names
the group and, per topic, each partition with its new share-partition start offset; the answer has a
top-level error and, per topic, each partition's error. The coordinator refuses a group that has members
(GroupMetadataManager.alterShareGroupOffsets, throwIfShareGroupIsNotEmpty: NON_EMPTY_GROUP), creates the
share group when it does not exist, answers UNKNOWN_TOPIC_OR_PARTITION for a topic or partition its metadata
does not have, and writes each start offset to the share coordinator (InitializeShareGroupState) before it
answers.

Read as Kafka's admin client reads it (AlterShareGroupOffsetsHandler.handleResponse): a top-level error fails
every partition; COORDINATOR_LOAD_IN_PROGRESS and REBALANCE_IN_PROGRESS are asked again,
COORDINATOR_NOT_AVAILABLE and NOT_COORDINATOR look the coordinator up again (coordinator.on_coordinator). A
resent request is harmless: it sets the same offsets.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from functools import partial

from kgroup.inspectors.live.wire.codec import TAGS_NONE, Reader, compact_array, compact_string
from kgroup.inspectors.live.wire.connection import Connection
from kgroup.inspectors.live.wire.coordinator import LOAD_IN_PROGRESS, ask_coordinator, named
from kgroup.inspectors.live.wire.errors import ProtocolError

API_ALTER_SHARE_GROUP_OFFSETS = 91
OUR_ALTER_SHARE_GROUP_OFFSETS = (0, 0)  # the only version Kafka 4.2 defines
REBALANCE_IN_PROGRESS = 27  # retried like a loading coordinator (AlterShareGroupOffsetsHandler.handleError)


@dataclass(frozen=True)
class AlterShareOffsetsAnswer:
    coordinator: str | None
    error: str | None  # the top-level error: Kafka's name, its message and where it came from; None when none
    partitions: dict[tuple[str, int], str | None] = field(default_factory=dict)  # per partition: error or None
    error_code: int = 0  # the top-level error's code


def offers_alter_share_group_offsets(versions: dict[int, tuple[int, int]]) -> bool:
    low, high = versions.get(API_ALTER_SHARE_GROUP_OFFSETS, (1, 0))
    return low <= OUR_ALTER_SHARE_GROUP_OFFSETS[1] and high >= OUR_ALTER_SHARE_GROUP_OFFSETS[0]


def alter_share_group_offsets(
    config: dict[str, str], group: str, offsets: dict[tuple[str, int], int], timeout_s: float
) -> AlterShareOffsetsAnswer:
    """Send one AlterShareGroupOffsets setting `offsets` ((topic, partition) -> start offset) for `group`.
    Raises BrokerUnreachable / AuthenticationFailed / ProtocolError (naming the address) when no answer can be
    had within timeout_s; a top-level error (including one FindCoordinator answers) is in the answer."""
    send = partial(_alter, group=group, offsets=offsets)
    return ask_coordinator(config, group, timeout_s, send, _refused, retry_code)


def alter_request(group: str, offsets: dict[tuple[str, int], int]) -> bytes:
    """The request body: GroupId, then per topic (in the order first named) its partitions and start offsets."""
    by_topic: dict[str, list[tuple[int, int]]] = {}
    for (topic, partition), offset in offsets.items():
        by_topic.setdefault(topic, []).append((partition, offset))
    topics = [
        compact_string(topic) + compact_array([struct.pack(">iq", p, o) + TAGS_NONE for p, o in partitions]) + TAGS_NONE
        for topic, partitions in by_topic.items()
    ]
    return compact_string(group) + compact_array(topics) + TAGS_NONE


Answer = tuple[int, str | None, dict[tuple[str, int], str | None]]


def read_alter_response(r: Reader) -> Answer:
    """(top-level error code, its message, per partition its error name or None)."""
    r.i32("throttle time")
    code = r.i16("error code")
    message = r.cstring("error message", True)
    partitions: dict[tuple[str, int], str | None] = {}
    for _ in range(r.array_len("responses", True)):
        topic = r.cstring("topic name") or ""
        r.uuid("topic id")
        for _ in range(r.array_len("partitions", True)):
            partition = r.i32("partition index")
            error = r.i16("partition error code")
            why = r.cstring("partition error message", True)
            r.tags("partition")
            partitions[(topic, partition)] = named(error, why) if error else None
        r.tags("topic")
    r.tags("response")
    return code, message, partitions


def _alter(conn: Connection, group: str, offsets: dict[tuple[str, int], int]) -> AlterShareOffsetsAnswer:
    v = conn.pick(API_ALTER_SHARE_GROUP_OFFSETS, OUR_ALTER_SHARE_GROUP_OFFSETS, "AlterShareGroupOffsets")
    doing = f"setting the start offsets of share group {group!r} (AlterShareGroupOffsets v{v})"
    code, message, partitions = read_alter_response(
        conn.request(API_ALTER_SHARE_GROUP_OFFSETS, v, alter_request(group, offsets), True, doing)
    )
    if code:  # a top-level error fails every partition
        where = f"AlterShareGroupOffsets on {conn.address}"
        return AlterShareOffsetsAnswer(conn.address, named(code, message, where), error_code=code)
    missing = [f"{t}-{p}" for t, p in offsets if (t, p) not in partitions]
    if missing:
        raise ProtocolError(f"{conn.address}: AlterShareGroupOffsets answered without {', '.join(missing)}")
    return AlterShareOffsetsAnswer(conn.address, None, partitions)


def _refused(error: int, named_error: str, address: str) -> AlterShareOffsetsAnswer:
    return AlterShareOffsetsAnswer(address, named_error, error_code=error)


def retry_code(code: int) -> int:
    """A top-level error as on_coordinator retries it: REBALANCE_IN_PROGRESS as a loading coordinator
    (AlterShareGroupOffsetsHandler.handleError, DeleteShareGroupOffsetsHandler.handleGroupError)."""
    return LOAD_IN_PROGRESS if code == REBALANCE_IN_PROGRESS else code
