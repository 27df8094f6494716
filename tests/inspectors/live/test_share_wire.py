"""ShareGroupDescribe and DescribeShareGroupOffsets answers, encoded by hand from the pinned release's JSON
message definitions, read as Kafka's admin client reads them (DescribeShareGroupsHandler,
ListShareGroupOffsetsHandler)."""

from __future__ import annotations

import struct
from typing import Any

from kgroup.inspectors.live.wire.codec import Reader
from kgroup.inspectors.live.wire.share_group_describe import _describe
from kgroup.inspectors.live.wire.share_group_offsets import SharePartitionOffset, _offsets


def _s(text: str | None) -> bytes:  # a compact (nullable) string
    return b"\x00" if text is None else bytes([len(text.encode()) + 1]) + text.encode()


def _n(count: int) -> bytes:  # a compact array's length
    return bytes([count + 1])


TOPIC_ID = bytes(range(16))


class FakeConnection:
    address = "broker:9092"

    def __init__(self, version: int, answer: bytes) -> None:
        self.version, self.answer = version, answer
        self.sent: list[Any] = []

    def pick(self, api_key: int, ours: tuple[int, int], what: str) -> int:
        return self.version

    def request(self, api_key: int, version: int, body: bytes, flexible: bool, doing: str) -> Reader:
        self.sent.append((api_key, version, body))
        return Reader(self.answer, doing)


def _offsets_answer(version: int) -> bytes:
    lag = (lambda n: struct.pack(">q", n)) if version >= 1 else (lambda n: b"")

    def partition(index: int, start: int, epoch: int, lag_value: int, error: int) -> bytes:
        return (
            struct.pack(">iqi", index, start, epoch)
            + lag(lag_value)
            + struct.pack(">h", error)
            + _s("boom" if error else None)
            + b"\x00"
        )

    topic = (
        _s("orders")
        + TOPIC_ID
        + _n(4)
        + partition(0, 10, 3, 7, 0)
        + partition(1, -1, -1, -1, 0)
        + partition(2, 5, -1, -1, 0)
        + partition(3, 0, 0, 0, 3)
        + b"\x00"
    )
    group = _s("g") + _n(1) + topic + struct.pack(">h", 0) + _s(None) + b"\x00"
    return struct.pack(">i", 0) + _n(1) + group + b"\x00"


def test_offsets_v1_read_as_kafkas_admin_reads_them() -> None:
    conn = FakeConnection(1, _offsets_answer(1))
    answer = _offsets(conn, group="g")  # type: ignore[arg-type]
    assert conn.sent[0][:2] == (90, 1)
    assert conn.sent[0][2] == _n(1) + _s("g") + b"\x00" + b"\x00" + b"\x00"  # Topics null: every partition
    assert answer.partitions == (
        SharePartitionOffset("orders", 0, 10, 3, 7),
        SharePartitionOffset("orders", 1, None, None, None),  # no start offset yet
        SharePartitionOffset("orders", 2, 5, None, None),
    )  # epoch and lag unknown
    assert answer.skipped == ("orders-3: UNKNOWN_TOPIC_OR_PARTITION: boom",)
    assert answer.error is None


def test_offsets_v0_have_no_lag() -> None:
    answer = _offsets(FakeConnection(0, _offsets_answer(0)), group="g")  # type: ignore[arg-type]
    assert [p.lag for p in answer.partitions] == [None, None, None]
    assert answer.partitions[0].start_offset == 10


def _member(member_id: str, partitions: list[int]) -> bytes:
    assignment = (
        _n(1)
        + TOPIC_ID
        + _s("orders")
        + _n(len(partitions))
        + b"".join(struct.pack(">i", p) for p in partitions)
        + b"\x00"
        + b"\x00"
    )
    return (
        _s(member_id)
        + _s("rack-a")
        + struct.pack(">i", 4)
        + _s("client-1")
        + _s("/10.0.0.1")
        + _n(1)
        + _s("orders")
        + assignment
        + b"\x00"
    )


def test_describe_reads_members_sorted_and_epochs() -> None:
    group = (
        struct.pack(">h", 0)
        + _s(None)
        + _s("g")
        + _s("Stable")
        + struct.pack(">ii", 5, 4)
        + _s("simple")
        + _n(2)
        + _member("zz", [2, 0])
        + _member("aa", [1])
        + struct.pack(">i", -2147483648)
        + b"\x00"
    )
    conn = FakeConnection(1, struct.pack(">i", 0) + _n(1) + group + b"\x00")
    described = _describe(conn, group="g")  # type: ignore[arg-type]
    assert conn.sent[0] == (77, 1, _n(1) + _s("g") + b"\x00" + b"\x00")
    assert (described.state, described.group_epoch, described.assignment_epoch, described.assignor) == (
        "Stable",
        5,
        4,
        "simple",
    )
    assert [m.member_id for m in described.members] == ["aa", "zz"]
    zz = described.members[1]
    assert (zz.rack_id, zz.member_epoch, zz.client_id, zz.client_host, zz.subscribed_topics) == (
        "rack-a",
        4,
        "client-1",
        "/10.0.0.1",
        ("orders",),
    )
    assert zz.assignment == (("orders", 0), ("orders", 2))


def test_describe_not_found_is_the_groups_answer() -> None:
    group = (
        struct.pack(">h", 69)
        + _s("Group g is not a share group.")
        + _s("g")
        + _s("")
        + struct.pack(">ii", -1, -1)
        + _s("")
        + _n(0)
        + struct.pack(">i", -2147483648)
        + b"\x00"
    )
    described = _describe(
        FakeConnection(1, struct.pack(">i", 0) + _n(1) + group + b"\x00"),  # type: ignore[arg-type]
        group="g",
    )
    assert described.error_code == 69 and described.state is None
    assert described.error is not None and described.error.startswith("GROUP_ID_NOT_FOUND: Group g is not a share")
