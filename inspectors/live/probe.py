"""Is there a Kafka broker at the bootstrap address? A quick look when librdkafka has no answer yet.

librdkafka reports a peer that is not Kafka as a transport error or a timeout ("all brokers are down"
after --timeout): an HTTP server, for one, waits for the end of a request line that a Kafka request
never sends. kgroup sends one ApiVersions v0 request itself, in the security.protocol the command uses
(TLS for SSL and SASL_SSL, plain bytes otherwise; no credentials are sent), and reads the first bytes
of the answer (kgroup.inspectors.live.wire.peer). Only a definite answer is reported: a peer that says
nothing within the probe's time, or refuses the connection, is left to the usual error.

A plaintext probe against a TLS listener gets a TLS alert back and is named as such; with SSL configured,
a listener whose TLS handshake fails is asked again in plain bytes, so a PLAINTEXT Kafka listener reached
with security.protocol=SSL is named too, rather than taken for "not Kafka".
"""

from __future__ import annotations

import socket
import ssl
import time

from kgroup.inspectors.live.connection_settings import ConnectionSettings, bootstrap_addresses
from kgroup.inspectors.live.wire.peer import api_versions_v0, looks_like_kafka, not_kafka_line, what_answered

PROBE_S = 2.0  # at most this long per address: a Kafka broker answers ApiVersions in milliseconds


def not_kafka(settings: ConnectionSettings, budget_s: float = PROBE_S) -> str | None:
    """One line naming the first bootstrap address that answered but not as a Kafka broker of the configured
    security.protocol; None when each answered as Kafka, refused, or said nothing in time."""
    protocol = settings.properties.get("security.protocol", "PLAINTEXT").upper()
    found = None
    for host, port in bootstrap_addresses(settings.bootstrap_servers):
        address = f"{host}:{port}"
        deadline = time.monotonic() + budget_s
        tls = protocol in ("SSL", "SASL_SSL")
        first, handshake_failed = _ask(host, port, deadline, tls)
        if tls and handshake_failed:  # not TLS: is it a plaintext Kafka listener, or something else?
            plain, _ = _ask(host, port, deadline, False)
            if plain and looks_like_kafka(plain):
                found = found or (
                    f"{address} answered as a PLAINTEXT Kafka listener, but security.protocol is "
                    f"{protocol}: the TLS handshake failed (is it the right port, and does "
                    "security.protocol match?)"
                )
                continue
            first = plain
        if first and looks_like_kafka(first):
            return None  # a broker of this protocol answers: whatever is slow, it is not the address
        if first:
            found = found or not_kafka_line(address, what_answered(first), protocol)
        elif not tls and _tls_handshake(host, port, deadline):  # plain bytes got nothing: a TLS listener?
            found = found or (
                f"{address} answered as a TLS listener, but security.protocol is {protocol} (is it the "
                "right port, and does security.protocol match? SSL or SASL_SSL)"
            )
    return found


def _tls_handshake(host: str, port: int, deadline: float) -> bool:
    """Whether the peer completes a TLS handshake (its certificate unchecked: nothing is sent after it)."""
    try:
        with socket.create_connection((host, port), timeout=_left(deadline)) as sock:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            with context.wrap_socket(sock, server_hostname=host):
                return True
    except (OSError, ssl.SSLError):
        return False


def _ask(host: str, port: int, deadline: float, tls: bool) -> tuple[bytes, bool]:
    """The first bytes the peer answers to an ApiVersions v0 request, and whether a TLS handshake failed."""
    try:
        sock = socket.create_connection((host, port), timeout=_left(deadline))
    except OSError:
        return b"", False
    try:
        if tls:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # identification only: nothing secret is sent on this connection
            try:
                sock = context.wrap_socket(sock, server_hostname=host)
            except (ssl.SSLError, OSError):
                return b"", True
        sock.settimeout(_left(deadline))
        sock.sendall(api_versions_v0())
        return _read(sock, deadline), False
    except OSError:
        return b"", False
    finally:
        sock.close()


def _read(sock: socket.socket, deadline: float) -> bytes:
    """Up to 64 bytes: what arrives until the peer pauses, closes, or the deadline passes."""
    got = b""
    while len(got) < 64:
        try:
            sock.settimeout(_left(deadline) if not got else min(0.2, _left(deadline)))
            chunk = sock.recv(64 - len(got))
        except (TimeoutError, OSError):
            break
        if not chunk:
            break
        got += chunk
        if len(got) >= 8 and looks_like_kafka(got):
            break
    return got


def _left(deadline: float) -> float:
    return max(0.01, deadline - time.monotonic())
