"""Kafka's wire primitives: int16-length strings, compact strings and arrays, tagged fields, bounded reads."""

from __future__ import annotations

import struct

from kgroup.assignors.protocol.byte_reader import ByteReader
from kgroup.inspectors.live.wire.errors import ProtocolError


def string(s: str | None) -> bytes:
    if s is None:
        return struct.pack(">h", -1)
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def compact_string(s: str | None) -> bytes:  # compact (nullable) string
    if s is None:
        return uvarint(0)
    b = s.encode()
    return uvarint(len(b) + 1) + b


def compact_array(items: list[bytes]) -> bytes:
    return uvarint(len(items) + 1) + b"".join(items)


TAGS_NONE = b"\x00"


class Reader(ByteReader):
    """Bounds-checked reads of Kafka's request and response fields (the shared ByteReader, kgroup.assignors.protocol);
    every failure is a ProtocolError naming the field. As in Kafka's generated message readers, any negative
    length is a null string or bytes, and bytes that are not UTF-8 are replaced (Utils.utf8), not refused."""

    __slots__ = ()

    def fail(self, message: str, at: int | None = None) -> ProtocolError:
        return ProtocolError(f"{self.what}: {message} (at byte {self.pos if at is None else at})")

    def uuid(self, f: str) -> str:
        """A Kafka Uuid as `Uuid.toString` writes it: URL-safe base64 of its 16 bytes, without padding."""
        import base64

        return base64.urlsafe_b64encode(self.take(16, f)).decode().rstrip("=")

    def uvarint(self, f: str) -> int:
        shift = value = 0
        while True:
            b = self.take(1, f)[0]
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 28:
                raise self.fail(f"varint too long in {f}")

    def string(self, f: str, nullable: bool = False) -> str | None:
        n = self.i16(f)
        if n < 0:
            if nullable:
                return None
            raise self.fail(f"null {f}")
        return self.take(n, f).decode("utf-8", "replace")

    def bytes_(self, f: str) -> bytes | None:
        n = self.i32(f)
        return None if n < 0 else self.take(n, f)

    def cstring(self, f: str, nullable: bool = False) -> str | None:
        n = self.uvarint(f) - 1
        if n < 0:
            if nullable:
                return None
            raise self.fail(f"null {f}")
        return self.take(n, f).decode("utf-8", "replace")

    def cbytes(self, f: str) -> bytes | None:
        n = self.uvarint(f) - 1
        return None if n < 0 else self.take(n, f)

    def array_len(self, f: str, compact: bool) -> int:
        n = self.uvarint(f) - 1 if compact else self.i32(f)
        return max(n, 0)  # a null array is read as empty

    def tags(self, f: str) -> None:
        for _ in range(self.uvarint(f + " tag count")):
            self.uvarint(f + " tag")
            self.take(self.uvarint(f + " tag size"), f + " tag data")
