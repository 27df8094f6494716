"""What answered on a Kafka port, from the first bytes of its answer to a Kafka request (no I/O here).

A Kafka response starts with a 4-byte size and the request's correlation id (Kafka's protocol guide,
"Common Request and Response Structure"). Kafka's own client checks the size before anything else:
`NetworkReceive.readFrom` throws InvalidReceiveException ("Invalid receive (size = N)") for a negative
size or one above its limit, and NetworkClient then closes the connection. kgroup does the same check, and
where the bytes say what the peer speaks instead (an HTTP status line, a TLS record, an SSH banner),
it names it.
"""

from __future__ import annotations

import struct

# ApiVersions v0 (API 18) with this correlation id: its bytes 0x0d0a0d0a are "\r\n\r\n", so a server that
# reads a text line (HTTP/1.x, most line protocols) sees a line end at once and answers (an HTTP server:
# "400 Bad Request") instead of waiting for more. A Kafka broker echoes it like any other correlation id.
PROBE_CORRELATION = 0x0D0A0D0A
MAX_RESPONSE = (
    100 * 1024 * 1024
)  # a larger frame is not a plausible ApiVersions answer (socket.request.max.bytes' default)


def api_versions_v0(client_id: str = "kgroup") -> bytes:
    """A whole ApiVersions v0 request frame (header v1: api key, version, correlation id, client id)."""
    name = client_id.encode()
    body = struct.pack(">hhih", 18, 0, PROBE_CORRELATION, len(name)) + name
    return struct.pack(">i", len(body)) + body


def looks_like_kafka(first: bytes, correlation: int = PROBE_CORRELATION) -> bool:
    """A plausible size (NetworkReceive's check) followed by the request's correlation id."""
    if len(first) < 8:
        return False
    size, echoed = struct.unpack(">ii", first[:8])
    return 4 <= size <= MAX_RESPONSE and echoed == correlation


def what_answered(first: bytes) -> str:
    """Name a non-Kafka answer in a few words, from its first bytes."""
    if first.startswith(b"HTTP"):
        status = first.split(b"\r\n", 1)[0].decode("latin-1", "replace")[:40]
        return f"an HTTP server ({status})"
    if first.lstrip()[:1] == b"<" and b"html" in first.lower():  # an HTTP/0.9-style answer: the page alone
        return "an HTTP server (it sent an HTML page)"
    if len(first) >= 2 and first[0] in (0x15, 0x16) and first[1] == 0x03:
        return "a TLS listener (it sent a TLS record)"
    if first.startswith(b"SSH-"):
        return "an SSH server"
    if first[:1] in (b"-", b"+") and first.endswith(b"\r\n"):
        return "a Redis-like text protocol"
    text = first.decode("latin-1")
    if all(c.isprintable() or c in "\r\n\t" for c in text):
        return f"a text protocol ({text.splitlines()[0][:40]!r})"
    if len(first) >= 4:
        size = struct.unpack(">i", first[:4])[0]
        return f"bytes that are not a Kafka response (size field {size})"
    return f"{len(first)} byte(s) that are not a Kafka response"


def not_kafka_line(address: str, answered: str, protocol: str) -> str:
    """The one line kgroup prints for a peer that is not a Kafka listener of the configured protocol."""
    return (
        f"{address} answered but not as a Kafka broker (is it the right port, and does security.protocol "
        f"match?): {answered}, asked with security.protocol={protocol}"
    )
