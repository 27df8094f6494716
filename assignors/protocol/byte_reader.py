"""One bounds-checked reader of Kafka's big-endian byte formats (standard library only).

The consumer protocol's embedded structures (consumer_protocol.py) and kgroup's own wire client
(kgroup.inspectors.live.wire.codec) both read with it: a format adds its own field types on top
(nullable strings, arrays, varints). Every read names its field; a read past the end raises the
error the format chose through `fail`, one line with the field and the byte offset, never IndexError
or struct.error.
"""

from __future__ import annotations

import struct

__all__ = ["ByteFormatError", "ByteReader"]

_I8, _I16, _I32, _I64 = struct.Struct(">b"), struct.Struct(">h"), struct.Struct(">i"), struct.Struct(">q")


class ByteFormatError(ValueError):
    """The bytes do not hold the structure being read; `offset` is where reading stopped."""

    def __init__(self, what: str, message: str, offset: int) -> None:
        super().__init__(f"{what}: {message} (at byte {offset})")
        self.what, self.offset = what, offset


class ByteReader:
    """Reads `data` front to back; `what` (the structure's name) starts every error message."""

    __slots__ = ("data", "pos", "what")

    def __init__(self, data: bytes, what: str) -> None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{what}: expected bytes, got {type(data).__name__}")
        self.data, self.pos, self.what = bytes(data), 0, what

    def fail(self, message: str, at: int | None = None) -> Exception:
        """The error to raise for `message` at byte `at` (default: where reading stands). A format whose
        callers expect another exception type overrides this."""
        return ByteFormatError(self.what, message, self.pos if at is None else at)

    def take(self, n: int, field: str) -> bytes:
        if n < 0:
            raise self.fail(f"negative length {n} for {field}")
        if self.pos + n > len(self.data):
            raise self.fail(f"truncated: {field} needs {n} byte(s), {len(self.data) - self.pos} left")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def i8(self, field: str) -> int:
        return int(_I8.unpack(self.take(1, field))[0])

    def i16(self, field: str) -> int:
        return int(_I16.unpack(self.take(2, field))[0])

    def i32(self, field: str) -> int:
        return int(_I32.unpack(self.take(4, field))[0])

    def i64(self, field: str) -> int:
        return int(_I64.unpack(self.take(8, field))[0])

    def skip(self, n: int, field: str) -> None:
        self.take(n, field)

    @property
    def left(self) -> int:
        return len(self.data) - self.pos
