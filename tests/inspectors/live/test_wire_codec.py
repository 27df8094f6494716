"""kgroup's wire reader (codec.Reader, on the shared bounds-checked ByteReader): a flexible answer encoded by
hand reads back field by field; cut short or garbled, every read fails with one ProtocolError line naming the
answer, the field and the byte, never IndexError or struct.error."""

from __future__ import annotations

import random
import struct

import pytest

from kgroup.inspectors.live.wire.codec import Reader
from kgroup.inspectors.live.wire.errors import ProtocolError

TOPIC_ID = bytes(range(16))
# int32 throttle, compact string "orders" (length 6 + 1), a topic id, int64 offset, nullable int16 string
# (null), int32-length bytes "ab", compact array of 2, uvarint 300 (0xAC 0x02), one tagged field (tag 0, 2
# bytes), then nothing more.
ANSWER = (
    struct.pack(">i", 7)
    + b"\x07orders"
    + TOPIC_ID
    + struct.pack(">q", 2**40)
    + struct.pack(">h", -1)
    + struct.pack(">i", 2)
    + b"ab"
    + b"\x03"
    + b"\xac\x02"
    + b"\x01\x00\x02zz"
)


def read_all(data: bytes) -> tuple[object, ...]:
    r = Reader(data, "broker:9092: ShareGroupDescribe")
    values = (
        r.i32("throttle_time_ms"),
        r.cstring("topic"),
        r.uuid("topic_id"),
        r.i64("offset"),
        r.string("error_message", nullable=True),
        r.bytes_("metadata"),
        r.array_len("members", compact=True),
        r.uvarint("epoch"),
    )
    r.tags("answer")
    return (*values, r.left)


def test_a_hand_encoded_answer_reads_back() -> None:
    assert read_all(ANSWER) == (7, "orders", "AAECAwQFBgcICQoLDA0ODw", 2**40, None, b"ab", 2, 300, 0)


def test_every_truncation_is_one_protocol_error_line() -> None:
    for cut in range(len(ANSWER)):
        with pytest.raises(ProtocolError) as info:
            read_all(ANSWER[:cut])
        message = str(info.value)
        assert message.startswith("broker:9092: ShareGroupDescribe: truncated: ")
        assert "(at byte " in message
        assert "\n" not in message


def test_a_cut_names_the_field_and_the_bytes_left() -> None:
    with pytest.raises(ProtocolError) as info:
        read_all(ANSWER[:10])  # 4 bytes of throttle, then "orders" needs 6 with 5 left
    assert str(info.value) == "broker:9092: ShareGroupDescribe: truncated: topic needs 6 byte(s), 5 left (at byte 5)"


def test_a_varint_longer_than_five_bytes_is_refused() -> None:
    with pytest.raises(ProtocolError, match="varint too long in epoch"):
        Reader(b"\xff" * 6, "answer").uvarint("epoch")


def test_random_bytes_only_ever_raise_protocol_error() -> None:
    rng = random.Random(20261126)
    for i in range(2000):
        if i % 2:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 64)))
        else:  # flip bytes of the real answer
            blob = bytearray(ANSWER)
            for _ in range(rng.randrange(1, 4)):
                blob[rng.randrange(len(blob))] = rng.getrandbits(8)
            data = bytes(blob)
        try:
            read_all(data)
        except ProtocolError as exc:
            assert "\n" not in str(exc)
