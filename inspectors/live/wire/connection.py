"""One broker connection: TCP, optional TLS and SASL, ApiVersions, and request/response framing.

One deadline covers everything a call does: each connect, handshake and request gets what is left of it,
and nothing runs in a background thread.
"""

from __future__ import annotations

import os
import socket
import struct
import time

from kgroup.inspectors.live.wire.codec import TAGS_NONE, Reader, string
from kgroup.inspectors.live.wire.errors import (
    ERRORS,
    AuthenticationFailed,
    BrokerUnreachable,
    NotKafka,
    ProtocolError,
    UnsupportedConfig,
)
from kgroup.inspectors.live.wire.peer import MAX_RESPONSE, not_kafka_line, what_answered
from kgroup.inspectors.live.wire.sasl import sasl_messages

CLIENT_ID = "kgroup"
API_API_VERSIONS, API_SASL_HANDSHAKE, API_SASL_AUTHENTICATE = 18, 17, 36


def _split_address(address: str) -> tuple[str, int]:
    address = address.strip()
    for prefix in ("PLAINTEXT://", "SSL://", "SASL_SSL://", "SASL_PLAINTEXT://"):
        if address.upper().startswith(prefix):
            address = address[len(prefix) :]
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise UnsupportedConfig(f"bootstrap server {address!r}: expected HOST:PORT")
    return host.strip("[]"), int(port)


class Deadline:
    def __init__(self, timeout_s: float) -> None:
        self.end = time.monotonic() + timeout_s
        self.timeout_s = timeout_s

    def left(self, address: str, doing: str) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            raise BrokerUnreachable(f"{address}: timed out after {self.timeout_s:g} s while {doing}")
        return left


class Connection:
    def __init__(self, address: str, config: dict[str, str], deadline: Deadline) -> None:
        self.address, self.config, self.deadline = address, config, deadline
        self.correlation = 0
        self.client_id = config.get("client.id", CLIENT_ID)
        self.versions: dict[int, tuple[int, int]] = {}
        host, port = _split_address(address)
        protocol = config.get("security.protocol", "plaintext").upper()
        if protocol not in ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"):
            raise UnsupportedConfig(
                f"security.protocol={protocol!r}: expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"
            )
        try:
            self.sock = socket.create_connection((host, port), timeout=deadline.left(address, "connecting"))
        except socket.timeout:
            raise BrokerUnreachable(f"{address}: connect timed out after {deadline.timeout_s:g} s") from None
        except OSError as exc:
            raise BrokerUnreachable(f"{address}: cannot connect: {exc.strerror or exc}") from None
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if protocol in ("SSL", "SASL_SSL"):
                self._start_tls(host)
            self.versions = self._api_versions()
            if protocol.startswith("SASL_"):
                self._sasl(host)
        except BaseException:
            self.close()
            raise

    # -- framing

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def _recv_exact(self, n: int, doing: str) -> bytes:
        chunks, got = [], 0
        while got < n:
            self.sock.settimeout(self.deadline.left(self.address, doing))
            try:
                chunk = self.sock.recv(min(n - got, 1 << 20))
            except socket.timeout:
                raise BrokerUnreachable(
                    f"{self.address}: no answer within {self.deadline.timeout_s:g} s while {doing}"
                ) from None
            except OSError as exc:
                raise BrokerUnreachable(
                    f"{self.address}: connection failed while {doing}: {exc.strerror or exc}"
                ) from None
            if not chunk:
                raise BrokerUnreachable(f"{self.address}: connection closed by the broker while {doing}")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _send_frame(self, payload: bytes, doing: str) -> None:
        self.sock.settimeout(self.deadline.left(self.address, doing))
        try:
            self.sock.sendall(struct.pack(">i", len(payload)) + payload)
        except socket.timeout:
            raise BrokerUnreachable(f"{self.address}: send timed out while {doing}") from None
        except OSError as exc:
            raise BrokerUnreachable(f"{self.address}: connection failed while {doing}: {exc.strerror or exc}") from None

    def _recv_frame(self, doing: str) -> bytes:
        raw = self._recv_exact(4, doing)
        size = struct.unpack(">i", raw)[0]
        if size < 4 or size > MAX_RESPONSE:  # NetworkReceive.readFrom: InvalidReceiveException, the peer is not Kafka
            protocol = self.config.get("security.protocol", "plaintext").upper()
            raise NotKafka(not_kafka_line(self.address, what_answered(raw), protocol) + f" (while {doing})")
        return self._recv_exact(size, doing)

    def request(self, api_key: int, version: int, body: bytes, flexible: bool, doing: str) -> Reader:
        self.correlation += 1
        header = struct.pack(">hhi", api_key, version, self.correlation) + string(self.client_id)
        if flexible:
            header += TAGS_NONE
        self._send_frame(header + body, doing)
        reader = Reader(self._recv_frame(doing), f"{self.address}: {doing}")
        correlation = reader.i32("correlation id")
        if correlation != self.correlation:
            raise ProtocolError(f"{self.address}: correlation id {correlation} != {self.correlation} while {doing}")
        if flexible and api_key != API_API_VERSIONS:  # ApiVersions responses always use header v0
            reader.tags("response header")
        return reader

    def pick(self, api_key: int, ours: tuple[int, int], what: str) -> int:
        if api_key not in self.versions:
            raise ProtocolError(f"{self.address}: the broker does not offer {what} (API {api_key})")
        low, high = self.versions[api_key]
        version = min(high, ours[1])
        if version < max(low, ours[0]):
            raise ProtocolError(
                f"{self.address}: {what} versions {low}-{high} on the broker, {ours[0]}-{ours[1]} "
                "here: no common version"
            )
        return version

    # -- handshakes

    def _api_versions(self) -> dict[int, tuple[int, int]]:
        r = self.request(API_API_VERSIONS, 0, b"", False, "asking for API versions (ApiVersions v0)")
        error = r.i16("error code")
        if error:
            raise ProtocolError(f"{self.address}: ApiVersions failed with {ERRORS.get(error, error)}")
        versions = {}
        for _ in range(r.array_len("api keys", False)):
            key, low, high = r.i16("api key"), r.i16("min version"), r.i16("max version")
            versions[key] = (low, high)
        return versions

    def _start_tls(self, host: str) -> None:
        import ssl

        cfg = self.config
        for unsupported in ("ssl.keystore.location", "ssl.engine.location", "ssl.providers"):
            if cfg.get(unsupported):
                raise UnsupportedConfig(
                    f"{unsupported}: not supported by kgroup's describe transport; give PEM "
                    "files with ssl.certificate.location and ssl.key.location"
                )
        verify = cfg.get("enable.ssl.certificate.verification", "true").lower() not in ("false", "0", "no")
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
        ca = cfg.get("ssl.ca.location")
        try:
            if ca and ca != "probe":
                if os.path.isdir(ca):
                    context.load_verify_locations(capath=ca)
                else:
                    context.load_verify_locations(cafile=ca)
            if cfg.get("ssl.ca.pem"):
                context.load_verify_locations(cadata=cfg["ssl.ca.pem"])
            cert, key = cfg.get("ssl.certificate.location"), cfg.get("ssl.key.location")
            password = cfg.get("ssl.key.password")
            if cfg.get("ssl.certificate.pem") or cfg.get("ssl.key.pem"):
                # ssl takes a chain only from files: write inline PEMs to private temporary files and
                # remove them as soon as they are loaded, so no key stays on disk.
                cert, key = self._pem_files(cfg.get("ssl.certificate.pem"), cfg.get("ssl.key.pem"))
                try:
                    if cert:
                        context.load_cert_chain(cert, key or None, password=password or None)
                finally:
                    for path in (cert, key):
                        if path:
                            os.unlink(path)
            elif cert:
                context.load_cert_chain(cert, key or None, password=password or None)
        except (OSError, ssl.SSLError) as exc:
            raise UnsupportedConfig(f"SSL settings: {exc}") from None
        algorithm = cfg.get("ssl.endpoint.identification.algorithm", "https").lower()
        context.check_hostname = verify and algorithm == "https"
        if not verify:
            context.verify_mode = ssl.CERT_NONE
        self.sock.settimeout(self.deadline.left(self.address, "TLS handshake"))
        try:
            self.sock = context.wrap_socket(self.sock, server_hostname=host)
        except socket.timeout:
            raise BrokerUnreachable(f"{self.address}: TLS handshake timed out") from None
        except ssl.SSLCertVerificationError as exc:  # Kafka's clients: SslAuthenticationException
            raise AuthenticationFailed(
                f"{self.address}: TLS handshake failed: certificate verify failed: {exc.verify_message}", untrusted=True
            ) from None
        except (ssl.SSLError, OSError) as exc:
            raise BrokerUnreachable(f"{self.address}: TLS handshake failed: {exc} (is this an SSL listener?)") from None

    @staticmethod
    def _pem_files(cert_pem: str | None, key_pem: str | None) -> tuple[str | None, str | None]:
        import tempfile

        paths = []
        for text in (cert_pem, key_pem):
            if not text:
                paths.append(None)
                continue
            handle, path = tempfile.mkstemp(suffix=".pem")
            with os.fdopen(handle, "w") as f:
                f.write(text)
            paths.append(path)
        return paths[0], paths[1]

    def _sasl(self, host: str) -> None:
        mechanism = (self.config.get("sasl.mechanism") or self.config.get("sasl.mechanisms") or "GSSAPI").upper()
        if mechanism not in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"):
            raise UnsupportedConfig(
                f"sasl.mechanism={mechanism}: kgroup's describe transport supports PLAIN, "
                "SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER"
            )
        handshake_v = self.pick(API_SASL_HANDSHAKE, (0, 1), "SaslHandshake")
        r = self.request(API_SASL_HANDSHAKE, handshake_v, string(mechanism), False, "SASL handshake")
        error = r.i16("error code")
        enabled = [r.string("mechanism") for _ in range(r.array_len("mechanisms", False))]
        if error:
            raise AuthenticationFailed(
                f"{self.address}: SASL mechanism {mechanism} not enabled on the broker "
                f"(it offers {', '.join(m for m in enabled if m) or 'none'})"
            )
        if handshake_v == 0:
            raise ProtocolError(f"{self.address}: the broker only has SaslHandshake v0 (Kafka < 1.0); not supported")
        auth_v = self.pick(API_SASL_AUTHENTICATE, (0, 1), "SaslAuthenticate")
        steps = sasl_messages(mechanism, self.config, self.deadline.left(self.address, "SASL"))
        server: bytes = b""
        while True:
            try:
                message = steps.send(server) if server else next(steps)
            except StopIteration:
                return
            except AuthenticationFailed as exc:
                raise AuthenticationFailed(f"{self.address}: {exc}") from None
            r = self.request(
                API_SASL_AUTHENTICATE,
                auth_v,
                struct.pack(">i", len(message)) + message,
                False,
                f"SASL {mechanism} authentication",
            )
            error = r.i16("error code")
            text = r.string("error message", nullable=True)
            server = r.bytes_("auth bytes") or b""
            if error:
                raise AuthenticationFailed(
                    f"{self.address}: SASL {mechanism} authentication failed: {text or ERRORS.get(error, error)}"
                )
            if not server:
                server = b"\x00"  # let the generator finish (PLAIN / OAUTHBEARER end after one round)
