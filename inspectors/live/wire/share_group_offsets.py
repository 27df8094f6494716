"""DescribeShareGroupOffsets (API 90, v0-v1, KIP-932; v1 adds Lag, KIP-1226): a share group's offsets.

A share group commits no offsets; per topic-partition its share coordinator keeps the share-partition's
state, whose start offset has every record below it acknowledged, archived or past its delivery count (as
last written by the partition's leader: it may trail the acknowledgements). The answer
(DescribeShareGroupOffsetsResponse.json of the pinned release) has per partition that START-OFFSET, the
leader epoch of the state, and from v1 the share-partition's LAG as the broker counts it (KIP-1226: the
records between the start offset and the high watermark not yet acknowledged); -1 when it is not known.
kgroup asks for every partition the group has a state for (Topics null), as `Admin.listShareGroupOffsets`
with an empty spec does for `kafka-share-groups.sh --describe`.

Read as Kafka's admin client reads it (ListShareGroupOffsetsHandler.handleResponse): a partition answering
with an error is left out; a negative start offset means no start offset yet (the tool prints `-` for
START-OFFSET, LEADER-EPOCH and LAG); a negative leader epoch or lag is unknown. Group errors follow
ListShareGroupOffsetsHandler.handleGroupError: COORDINATOR_LOAD_IN_PROGRESS is asked again,
COORDINATOR_NOT_AVAILABLE and NOT_COORDINATOR look the coordinator up again (coordinator.on_coordinator),
anything else is the group's answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from kgroup.inspectors.live.wire.codec import TAGS_NONE, compact_array, compact_string
from kgroup.inspectors.live.wire.connection import Connection
from kgroup.inspectors.live.wire.coordinator import ask_coordinator, named

API_DESCRIBE_SHARE_GROUP_OFFSETS = 90
OUR_DESCRIBE_SHARE_GROUP_OFFSETS = (0, 1)  # v1 adds Lag (KIP-1226)


@dataclass(frozen=True)
class SharePartitionOffset:
    topic: str
    partition: int
    start_offset: int | None  # None: no start offset yet (the broker sent a negative one)
    leader_epoch: int | None  # None when unknown (negative) or there is no start offset
    lag: int | None  # None before v1, when the broker does not know it (-1), or there is no start offset


@dataclass(frozen=True)
class ShareGroupOffsets:
    group_id: str
    error_code: int
    error: str | None  # Kafka's error name, its message and where it came from; None when read
    partitions: tuple[SharePartitionOffset, ...] = ()  # sorted by topic, partition
    skipped: tuple[str, ...] = ()  # `topic-partition: ERROR` for each partition answered with an error
    coordinator: str | None = None
    api_version: int | None = None


def offers_share_group_offsets(versions: dict[int, tuple[int, int]]) -> bool:
    low, high = versions.get(API_DESCRIBE_SHARE_GROUP_OFFSETS, (1, 0))
    return low <= OUR_DESCRIBE_SHARE_GROUP_OFFSETS[1] and high >= OUR_DESCRIBE_SHARE_GROUP_OFFSETS[0]


def describe_share_group_offsets(config: dict[str, str], group: str, timeout_s: float) -> ShareGroupOffsets:
    """Every share-partition offset of `group` its coordinator has. Raises BrokerUnreachable /
    AuthenticationFailed / ProtocolError (naming the address) when no answer can be had within timeout_s;
    a group-level error is returned in the answer (error_code, error), never raised."""
    return ask_coordinator(config, group, timeout_s, partial(_offsets, group=group), partial(_refused, group))


def _offsets(conn: Connection, group: str) -> ShareGroupOffsets:
    v = conn.pick(API_DESCRIBE_SHARE_GROUP_OFFSETS, OUR_DESCRIBE_SHARE_GROUP_OFFSETS, "DescribeShareGroupOffsets")
    doing = f"reading the offsets of share group {group!r} (DescribeShareGroupOffsets v{v})"
    body = compact_array([compact_string(group) + b"\x00" + TAGS_NONE]) + TAGS_NONE  # Topics: null, every partition
    r = conn.request(API_DESCRIBE_SHARE_GROUP_OFFSETS, v, body, True, doing)
    r.i32("throttle time")
    found: ShareGroupOffsets | None = None
    for _ in range(r.array_len("groups", True)):
        group_id = r.cstring("group id") or ""
        rows: list[SharePartitionOffset] = []
        skipped: list[str] = []
        for _ in range(r.array_len("topics", True)):
            topic = r.cstring("topic name") or ""
            r.uuid("topic id")
            for _ in range(r.array_len("partitions", True)):
                partition = r.i32("partition index")
                start = r.i64("start offset")
                epoch = r.i32("leader epoch")
                lag = r.i64("lag") if v >= 1 else -1
                error = r.i16("partition error code")
                message = r.cstring("partition error message", True)
                r.tags("partition")
                if error:
                    skipped.append(f"{topic}-{partition}: {named(error, message)}")
                elif start < 0:
                    rows.append(SharePartitionOffset(topic, partition, None, None, None))
                else:
                    rows.append(
                        SharePartitionOffset(
                            topic, partition, start, epoch if epoch >= 0 else None, lag if lag >= 0 else None
                        )
                    )
            r.tags("topic")
        error = r.i16("error code")
        message = r.cstring("error message", True)
        r.tags("group")
        if group_id != group:
            continue
        if error:
            failed = _failed(group, error, message, f"DescribeShareGroupOffsets on {conn.address}")
            found = ShareGroupOffsets(group, error, failed.error, coordinator=conn.address, api_version=v)
        else:
            found = ShareGroupOffsets(
                group,
                0,
                None,
                tuple(sorted(rows, key=lambda o: (o.topic, o.partition))),
                tuple(skipped),
                conn.address,
                v,
            )
    r.tags("response")
    if found is None:
        return _failed(group, -1, "the answer did not name the group", f"DescribeShareGroupOffsets on {conn.address}")
    return found


def _failed(group: str, error: int, message: str | None, where: str) -> ShareGroupOffsets:
    return _refused(group, error, named(error, message, where))


def _refused(group: str, error: int, named_error: str, _address: str | None = None) -> ShareGroupOffsets:
    return ShareGroupOffsets(group, error, named_error)
