"""Decode the classic consumer protocol's member metadata and assignment bytes (standard library only).

What a live group's DescribeGroups returns per member, as the group leader sees it:

* `decode_subscription(data)`  ConsumerProtocolSubscription v0-v3 (apache/kafka
  clients/src/main/resources/common/message/ConsumerProtocolSubscription.json):
  int16 version, [string] topics, nullable bytes user_data, v1+ [topic, [int32]] owned_partitions,
  v2+ int32 generation_id (default -1), v3+ nullable string rack_id (default null).
* `decode_assignment(data)`  ConsumerProtocolAssignment v0-v3: int16 version, [topic, [int32]] assigned_partitions,
  nullable bytes user_data (the layout is the same in every version).
* `decode_sticky_user_data(data)`  the user data of Java's StickyAssignor ("sticky"), which librdkafka's
  cooperative-sticky assignor also writes: [topic, [int32]] previous_assignment, then (v1) int32 generation. The
  bytes carry no version: like StickyAssignor.deserializeTopicPartitionAssignment, v1 is tried first and v0
  (no generation) is the fallback. kafka-python 3.0.12's sticky assignor prefixes an int16 version (1); that
  layout is recognised too and reported as layout="kafka-python".
* `decode_cooperative_user_data(data)`  Java's CooperativeStickyAssignor user data: int32 generation.
* `decode_user_data(protocol, data)`  picks one of the two above from the assignor name.

These schemas are not flexible (no tagged fields, no compact encodings). Like Java's ConsumerProtocol, a version
above the highest known one is read with the highest known layout (new versions may only append fields), and
bytes left after the known fields are tolerated: their count is kept in `trailing_bytes`. A negative version,
a truncated buffer or a negative length (other than -1 for a nullable field) raises ConsumerProtocolError, a
ValueError, with the field, the byte offset and what was wrong; never IndexError or struct.error.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.protocol.byte_reader import ByteFormatError, ByteReader

__all__ = [
    "ConsumerProtocolError",
    "Subscription",
    "Assignment",
    "StickyUserData",
    "CooperativeUserData",
    "decode_subscription",
    "decode_assignment",
    "decode_sticky_user_data",
    "decode_cooperative_user_data",
    "decode_user_data",
    "SUBSCRIPTION_MAX_VERSION",
    "ASSIGNMENT_MAX_VERSION",
]

SUBSCRIPTION_MAX_VERSION = 3
ASSIGNMENT_MAX_VERSION = 3
TopicPartitions = tuple[tuple[str, tuple[int, ...]], ...]  # ((topic, (partition, ...)), ...) in wire order


class ConsumerProtocolError(ByteFormatError):
    """The bytes are not a valid consumer-protocol structure; `offset` is where decoding stopped."""


@dataclass(frozen=True)
class Subscription:
    version: int  # as written; fields were read with min(version, 3)
    topics: tuple[str, ...]
    user_data: bytes | None  # None when the member sent null
    owned_partitions: TopicPartitions  # () before v1
    generation_id: int  # -1 before v2 (the schema default)
    rack_id: str | None  # None before v3 or when null; librdkafka sends "" when client.rack is unset
    trailing_bytes: int = 0

    def owned(self) -> list[tuple[str, int]]:
        return [(t, p) for t, ps in self.owned_partitions for p in ps]


@dataclass(frozen=True)
class Assignment:
    version: int
    assigned_partitions: TopicPartitions
    user_data: bytes | None
    trailing_bytes: int = 0

    def partitions(self) -> list[tuple[str, int]]:
        return [(t, p) for t, ps in self.assigned_partitions for p in ps]


@dataclass(frozen=True)
class StickyUserData:
    version: int  # 1 when a generation follows the assignment, else 0 (inferred, not on the wire)
    previous_assignment: TopicPartitions
    generation: int | None  # None for v0
    trailing_bytes: int = 0
    layout: str = "java"  # "kafka-python": kafka-python 3.0.x puts an int16 version (1) in front

    def partitions(self) -> list[tuple[str, int]]:
        return [(t, p) for t, ps in self.previous_assignment for p in ps]


@dataclass(frozen=True)
class CooperativeUserData:
    generation: int
    trailing_bytes: int = 0


class _Reader(ByteReader):
    """The consumer protocol's field types, strict: a length below -1 (or -1 where null is not allowed) and
    a string that is not UTF-8 are errors, not guesses."""

    __slots__ = ()

    def fail(self, message: str, at: int | None = None) -> ConsumerProtocolError:
        return ConsumerProtocolError(self.what, message, self.pos if at is None else at)

    def string(self, field: str, nullable: bool = False) -> str | None:
        at = self.pos
        n = self.i16(f"{field} length")
        if n == -1 and nullable:
            return None
        if n < 0:
            raise self.fail(
                f"{'negative' if n < -1 else 'null'} length {n} for {'nullable ' if nullable else ''}string {field}", at
            )
        raw = self.take(n, field)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.fail(f"{field} is not UTF-8 ({exc.reason})", at) from None

    def bytes_(self, field: str) -> bytes | None:
        at = self.pos
        n = self.i32(f"{field} length")
        if n == -1:
            return None
        if n < 0:
            raise self.fail(f"negative length {n} for bytes {field}", at)
        return self.take(n, field)

    def count(self, field: str) -> int:
        at = self.pos
        n = self.i32(f"{field} count")
        if n < 0:
            raise self.fail(f"negative array length {n} for {field}", at)
        # every element takes at least 2 bytes (an int16 length) or 4 (an int32): refuse absurd counts early
        if n * 2 > len(self.data) - self.pos:
            raise self.fail(
                f"truncated: {field} claims {n} element(s), only {len(self.data) - self.pos} byte(s) left", at
            )
        return n

    def topic_partitions(self, field: str) -> TopicPartitions:
        out = []
        for i in range(self.count(field)):
            topic = self.string(f"{field}[{i}].topic")
            parts = tuple(
                self.i32(f"{field}[{i}].partitions[{j}]") for j in range(self.count(f"{field}[{i}].partitions"))
            )
            out.append((topic, parts))
        return tuple(out)

    def version(self, field: str) -> int:
        at = self.pos
        v = self.i16(field)
        if v < 0:
            raise self.fail(f"bad version {v} (negative)", at)
        return v


def decode_subscription(data: bytes) -> Subscription:
    r = _Reader(data, "ConsumerProtocolSubscription")
    version = r.version("version")
    v = min(version, SUBSCRIPTION_MAX_VERSION)
    topics = tuple(r.string(f"topics[{i}]") for i in range(r.count("topics")))
    user_data = r.bytes_("user_data")
    owned = r.topic_partitions("owned_partitions") if v >= 1 else ()
    generation = r.i32("generation_id") if v >= 2 else -1
    rack = r.string("rack_id", nullable=True) if v >= 3 else None
    return Subscription(version, topics, user_data, owned, generation, rack, r.left)  # type: ignore[arg-type]


def decode_assignment(data: bytes) -> Assignment:
    r = _Reader(data, "ConsumerProtocolAssignment")
    version = r.version("version")
    assigned = r.topic_partitions("assigned_partitions")
    user_data = r.bytes_("user_data")
    return Assignment(version, assigned, user_data, r.left)


def decode_sticky_user_data(data: bytes) -> StickyUserData:
    """StickyAssignor user data: v1 (assignment + generation) if a generation follows, else v0."""
    r = _Reader(data, "StickyAssignorUserData")
    try:
        previous = r.topic_partitions("previous_assignment")
    except ConsumerProtocolError as java_error:
        # kafka-python 3.0.12 (StickyAssignorUserData.json, "always encodes with version 1") writes an int16
        # version first, which Java's StickyAssignor cannot read (it then ignores the previous assignment).
        if bytes(data[:2]) != b"\x00\x01":
            raise
        r = _Reader(data, "StickyAssignorUserData (kafka-python layout)")
        r.pos = 2
        try:
            previous = r.topic_partitions("previous_assignment")
            generation = r.i32("generation")
        except ConsumerProtocolError:
            raise java_error from None
        return StickyUserData(1, previous, generation, r.left, "kafka-python")
    if r.left >= 4:
        return StickyUserData(1, previous, r.i32("generation"), r.left)
    return StickyUserData(0, previous, None, r.left)


def decode_cooperative_user_data(data: bytes) -> CooperativeUserData:
    r = _Reader(data, "CooperativeStickyAssignorUserData")
    return CooperativeUserData(r.i32("generation"), r.left)


def decode_user_data(protocol: str, data: bytes | None) -> StickyUserData | CooperativeUserData | bytes | None:
    """The assignor's own user data, decoded where the format is known.

    "sticky": StickyAssignor's format. "cooperative-sticky": exactly 4 bytes is Java's CooperativeStickyAssignor
    (generation only); anything longer is librdkafka's (the sticky v1 format, always at least 8 bytes). Empty or
    null user data (range, roundrobin, a member with no previous assignment) and unknown assignors are returned
    as given.
    """
    if not data:
        return data
    if protocol == "sticky":
        return decode_sticky_user_data(data)
    if protocol == "cooperative-sticky":
        if len(data) == 4:
            return decode_cooperative_user_data(data)
        return decode_sticky_user_data(data)
    return data
