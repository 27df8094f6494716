"""OffsetDelete (API 47, v0): remove a group's committed offsets for some partitions (KIP-496).

confluent-kafka 2.16 has no call for it, so kgroup sends it itself, to the group's coordinator. The
answer is read as Kafka's admin client reads it (DeleteConsumerGroupOffsetsHandler.handleResponse): a
group-level error (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, ...) fails every partition; otherwise each
partition has its own error code (GROUP_SUBSCRIBED_TO_TOPIC, UNKNOWN_TOPIC_OR_PARTITION) or none.
A loading, moved or lost coordinator is looked up and asked again until the deadline, as that handler and
AdminApiDriver retry (coordinator.on_coordinator). A resent OffsetDelete is harmless: deleting what is
already deleted changes nothing.
"""

from __future__ import annotations

import struct
from functools import partial
from dataclasses import dataclass, field

from kgroup.inspectors.live.wire.codec import string
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from kgroup.inspectors.live.wire.coordinator import Coordinators, LookupRefused, on_coordinator
from kgroup.inspectors.live.wire.errors import ERRORS, ProtocolError

API_OFFSET_DELETE = 47
OUR_OFFSET_DELETE = (0, 0)  # the only version Kafka defines (OffsetDeleteRequest.json)


@dataclass(frozen=True)
class OffsetDeleteAnswer:
    coordinator: str
    error: str | None  # the group-level error's Kafka name, or None
    partitions: dict[tuple[str, int], str | None] = field(default_factory=dict)  # per partition: error name or None


def offers_offset_delete(versions: dict[int, tuple[int, int]]) -> bool:
    """Whether a broker's ApiVersions answer offers a version of OffsetDelete kgroup speaks."""
    low, high = versions.get(API_OFFSET_DELETE, (1, 0))
    return low <= OUR_OFFSET_DELETE[1] and high >= OUR_OFFSET_DELETE[0]


def delete_offsets(
    config: dict[str, str], group: str, partitions: list[tuple[str, int]], timeout_s: float
) -> OffsetDeleteAnswer:
    """Send one OffsetDelete for `partitions` of `group` to its coordinator; BrokerUnreachable,
    AuthenticationFailed or ProtocolError (naming the address) when it cannot be sent or read."""
    links = Coordinators(config, Deadline(timeout_s))
    try:
        try:
            address, (code, deleted) = on_coordinator(
                links, group, partial(_offset_delete, group=group, partitions=partitions), _group_error
            )
        except LookupRefused as refused:
            name = ERRORS.get(refused.error, f"error {refused.error}")
            return OffsetDeleteAnswer(
                refused.address,
                f"{name}{': ' + refused.message if refused.message else ''} (FindCoordinator via {refused.address})",
            )
        return OffsetDeleteAnswer(address, ERRORS.get(code, f"error {code}") if code else None, deleted)
    finally:
        links.close()


def _group_error(answer: tuple[int, dict[tuple[str, int], str | None]]) -> int:
    return answer[0]


def _offset_delete(
    conn: Connection, group: str, partitions: list[tuple[str, int]]
) -> tuple[int, dict[tuple[str, int], str | None]]:
    version = conn.pick(API_OFFSET_DELETE, OUR_OFFSET_DELETE, "OffsetDelete")
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    body = (
        string(group)
        + struct.pack(">i", len(by_topic))
        + b"".join(
            string(topic) + struct.pack(">i", len(numbers)) + b"".join(struct.pack(">i", p) for p in numbers)
            for topic, numbers in by_topic.items()
        )
    )
    doing = f"deleting offsets of group {group!r} (OffsetDelete v{version})"
    r = conn.request(API_OFFSET_DELETE, version, body, False, doing)
    code = r.i16("error code")
    r.i32("throttle time")
    answer: dict[tuple[str, int], str | None] = {}
    for _ in range(r.array_len("topics", False)):
        topic = r.string("topic name") or ""
        for _ in range(r.array_len("partitions", False)):
            partition, error = r.i32("partition index"), r.i16("partition error code")
            answer[(topic, partition)] = ERRORS.get(error, f"error {error}") if error else None
    if not code:
        missing = [f"{t}-{p}" for t, p in partitions if (t, p) not in answer]
        if missing:
            raise ProtocolError(f"{conn.address}: OffsetDelete answered without {', '.join(missing)}")
    return code, answer
