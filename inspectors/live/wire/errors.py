"""What stops a wire request; every message names the broker address and what was being done."""

from __future__ import annotations

# The error codes a describe or an offset deletion can meet, with Kafka's names
# (org.apache.kafka.common.protocol.Errors).
ERRORS = {
    -1: "UNKNOWN_SERVER_ERROR",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE",
    16: "NOT_COORDINATOR",
    24: "INVALID_GROUP_ID",
    29: "TOPIC_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    30: "GROUP_AUTHORIZATION_FAILED",
    33: "UNSUPPORTED_SASL_MECHANISM",
    34: "ILLEGAL_SASL_STATE",
    35: "UNSUPPORTED_VERSION",
    42: "INVALID_REQUEST",
    58: "SASL_AUTHENTICATION_FAILED",
    68: "NON_EMPTY_GROUP",
    69: "GROUP_ID_NOT_FOUND",
    86: "GROUP_SUBSCRIBED_TO_TOPIC",
}

RETRIABLE = {14, 15, 16}  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR


class KafkaClientError(Exception):
    """Anything that stops a describe; the message names the broker address."""


class BrokerUnreachable(KafkaClientError, ConnectionError):
    """No connection (refused, timed out, TLS failure, closed mid-request) to any bootstrap/coordinator address."""


class CoordinatorNotFound(BrokerUnreachable):
    """FindCoordinator kept answering that the group's coordinator is loading or not available until the
    deadline (KafkaApis.getCoordinator: its `__consumer_offsets` partition has no leader, or is loading)."""


class NotKafka(BrokerUnreachable):
    """The address answered, but not as a Kafka broker of the configured security.protocol (an HTTP server,
    a TLS listener asked in plain bytes): no Kafka cluster there, exit 4 like an unreachable one."""


class AuthenticationFailed(KafkaClientError):
    """SASL was refused or the mechanism is not enabled on the broker; or (`untrusted`) the broker's TLS
    certificate did not verify, which Kafka's clients count as authentication (SslAuthenticationException)."""

    def __init__(self, message: str, untrusted: bool = False) -> None:
        super().__init__(message)
        self.untrusted = untrusted


class ProtocolError(KafkaClientError):
    """The broker answered something we cannot use (unsupported versions, bad frame, error codes)."""


class UnsupportedConfig(KafkaClientError, ValueError):
    """A client property this transport cannot honour (e.g. GSSAPI, PKCS#12 keystores)."""
