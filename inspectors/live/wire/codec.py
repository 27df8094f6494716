"""Kafka's wire primitives: int16-length strings, compact strings and arrays, tagged fields, bounded reads."""

from __future__ import annotations

import struct

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


class Reader:
    """Bounds-checked reads; every failure is a ProtocolError naming the field."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data, self.pos, self.what = data, 0, what

    def _take(self, n: int, field: str) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ProtocolError(
                f"{self.what}: truncated reading {field} at byte {self.pos} "
                f"(need {n}, have {len(self.data) - self.pos})"
            )
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def i8(self, f: str) -> int:
        return struct.unpack(">b", self._take(1, f))[0]

    def i16(self, f: str) -> int:
        return struct.unpack(">h", self._take(2, f))[0]

    def i32(self, f: str) -> int:
        return struct.unpack(">i", self._take(4, f))[0]

    def i64(self, f: str) -> int:
        return struct.unpack(">q", self._take(8, f))[0]

    def skip(self, n: int, f: str) -> None:
        self._take(n, f)

    def uuid(self, f: str) -> str:
        """A Kafka Uuid as `Uuid.toString` writes it: URL-safe base64 of its 16 bytes, without padding."""
        import base64

        return base64.urlsafe_b64encode(self._take(16, f)).decode().rstrip("=")

    def uvarint(self, f: str) -> int:
        shift = value = 0
        while True:
            b = self._take(1, f)[0]
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 28:
                raise ProtocolError(f"{self.what}: varint too long in {f}")

    def string(self, f: str, nullable: bool = False) -> str | None:
        n = self.i16(f)
        if n < 0:
            if nullable:
                return None
            raise ProtocolError(f"{self.what}: null {f}")
        return self._take(n, f).decode("utf-8", "replace")

    def bytes_(self, f: str) -> bytes | None:
        n = self.i32(f)
        return None if n < 0 else self._take(n, f)

    def cstring(self, f: str, nullable: bool = False) -> str | None:
        n = self.uvarint(f) - 1
        if n < 0:
            if nullable:
                return None
            raise ProtocolError(f"{self.what}: null {f}")
        return self._take(n, f).decode("utf-8", "replace")

    def cbytes(self, f: str) -> bytes | None:
        n = self.uvarint(f) - 1
        return None if n < 0 else self._take(n, f)

    def array_len(self, f: str, compact: bool) -> int:
        n = self.uvarint(f) - 1 if compact else self.i32(f)
        return max(n, 0)  # a null array is read as empty

    def tags(self, f: str) -> None:
        for _ in range(self.uvarint(f + " tag count")):
            self.uvarint(f + " tag")
            self._take(self.uvarint(f + " tag size"), f + " tag data")
