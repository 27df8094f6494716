"""kgroup's own wire transport losing the cluster, as kgroup's errors: one line naming the address; and what
a broker's *_AUTHORIZATION_FAILED answer means, for either transport."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from kgroup.inspectors.errors import AuthenticationError, AuthorizationError, InputError, NotReachableError, RunError
from kgroup.inspectors.errors import CoordinatorUnavailableError
from kgroup.inspectors.live.connection_settings import ConnectionSettings
from kgroup.inspectors.live.wire.errors import (
    AuthenticationFailed,
    BrokerUnreachable,
    CoordinatorNotFound,
    KafkaClientError,
    UnsupportedConfig,
)

AUTHORIZATION_ERRORS = ("GROUP_AUTHORIZATION_FAILED", "TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED")

# The ACL operation each request needs, per resource type, as Kafka 4.0's KafkaApis checks it:
# handleDescribeGroupsRequest (DESCRIBE group), handleConsumerGroupDescribe (DESCRIBE group, DESCRIBE on each
# assigned topic), handleOffsetFetchRequest (DESCRIBE group, DESCRIBE topic), handleOffsetCommitRequest (READ
# group, READ topic), handleOffsetDeleteRequest (DELETE group, READ topic), handleDeleteGroupsRequest (DELETE
# group), handleListOffsetRequest / handleTopicMetadataRequest (DESCRIBE topic), handleFindCoordinatorRequest
# (DESCRIBE group), handleDescribeCluster (DESCRIBE cluster).
NEEDED = {
    ("DescribeGroups", "group"): "DESCRIBE",
    ("DescribeGroups", "topic"): "DESCRIBE",  # ConsumerGroupDescribe
    ("OffsetFetch", "group"): "DESCRIBE",
    ("OffsetFetch", "topic"): "DESCRIBE",
    ("OffsetCommit", "group"): "READ",
    ("OffsetCommit", "topic"): "READ",
    ("OffsetDelete", "group"): "DELETE",
    ("OffsetDelete", "topic"): "READ",
    ("DeleteGroups", "group"): "DELETE",
    ("AlterShareGroupOffsets", "group"): "READ",  # KafkaApis.handleAlterShareGroupOffsetsRequest
    ("AlterShareGroupOffsets", "topic"): "READ",
    ("DeleteShareGroupOffsets", "group"): "DELETE",  # KafkaApis.handleDeleteShareGroupOffsetsRequest
    ("DeleteShareGroupOffsets", "topic"): "READ",
    ("FindCoordinator", "group"): "DESCRIBE",
    ("ListOffsets", "topic"): "DESCRIBE",
    ("Metadata", "topic"): "DESCRIBE",
    ("DescribeCluster", "cluster"): "DESCRIBE",
}
_NAMED = re.compile(r"^(\w+) of '((?:[^'\\]|\\.)*)'")  # "DescribeGroups of 'g'" (repr of the group id)
_PARTITION = re.compile(r"^(\w+) of (.+)-\d+$")  # "ListOffsets of topic-3"


# librdkafka's and Python's ssl words when the broker's certificate does not verify (OpenSSL's reason)
CERT_UNTRUSTED = "certificate verify failed"


def untrusted_certificate(settings: ConnectionSettings, during: str, detail: str) -> str:
    """One line: the broker answered, but its TLS certificate is not trusted; and where the CA is given. A
    certificate signed by a trusted CA for other names than the address kgroup connected to (Python's ssl says
    "Hostname mismatch" or "IP address mismatch") is told as such: giving the CA again would not help."""
    if "mismatch" in detail:  # Kafka's clients: ssl.endpoint.identification.algorithm=https, their default
        return (
            f"the TLS certificate of {settings.bootstrap_servers} (from {settings.origin}) does not name the "
            f"address kgroup connected to ({during}): connect by a name the certificate lists, or give the broker "
            f"a certificate for its advertised host; {detail}"
        )
    return (
        f"the TLS certificate of {settings.bootstrap_servers} (from {settings.origin}) is not trusted ({during}): "
        "give the CA that signed it with ssl.truststore.location (a PEM file, ssl.truststore.type=PEM), "
        f"ssl.truststore.certificates or ssl.ca.location; {detail}"
    )


def is_authorization_error(name: str | None) -> bool:
    return bool(name) and str(name).startswith(AUTHORIZATION_ERRORS)


def authorization_failure(
    error: str, what: str, topic: str | None = None, settings: ConnectionSettings | None = None
) -> AuthorizationError:
    """The AuthorizationError for Kafka's error `error` (GROUP_/TOPIC_/CLUSTER_AUTHORIZATION_FAILED) answered to
    `what` ("DescribeGroups of 'g'", "OffsetCommit of 'g'", "ListOffsets of t-0"); `topic` is the partition's
    topic when the error came per partition (it names the resource of a TOPIC_AUTHORIZATION_FAILED only)."""
    name = error.split(":")[0].split(" ")[0]
    kind = {"GROUP": "group", "TOPIC": "topic", "CLUSTER": "cluster"}[name.split("_")[0]]
    request, named = what.split(" ")[0], None
    group_match, partition_match = _NAMED.match(what), _PARTITION.match(what)
    if kind == "group" and group_match:
        named = group_match.group(2)
    elif kind == "topic":
        named = topic if topic is not None else partition_match.group(2) if partition_match else None
    elif kind == "cluster":
        named = "kafka-cluster"
    operation = NEEDED.get((request, kind), "DESCRIBE")
    detail = ""
    if kind == "topic" and named is None and group_match:
        detail = f"that group {group_match.group(2)!r} consumes"
    shown = "ConsumerGroupDescribe" if request == "DescribeGroups" and kind == "topic" else request
    who = settings.authenticated_as() if settings is not None else None
    return AuthorizationError(
        operation, kind, named, name, shown, detail, who if who and who.startswith("User:") else None
    )


@contextmanager
def cluster_failures(settings: ConnectionSettings, request: str) -> Iterator[None]:
    """A broker that cannot be reached is exit 4, refused credentials (or an untrusted broker certificate)
    exit 7; `request` says which request failed ("for DescribeGroups", "during OffsetDelete"). Other
    transport errors pass through."""
    try:
        yield
    except CoordinatorNotFound as exc:
        raise CoordinatorUnavailableError(
            f"cannot reach {settings.bootstrap_servers} (from {settings.origin}) {request}: {exc}"
        ) from None
    except BrokerUnreachable as exc:
        raise NotReachableError(
            f"cannot reach {settings.bootstrap_servers} (from {settings.origin}) {request}: {exc}"
        ) from None
    except AuthenticationFailed as exc:
        if exc.untrusted:  # Kafka's clients: SslAuthenticationException
            raise AuthenticationError(untrusted_certificate(settings, request, str(exc))) from None
        raise AuthenticationError(
            f"{settings.bootstrap_servers} (from {settings.origin}) refused the credentials {request}: {exc}"
        ) from None


T = TypeVar("T")


def own_transport_call(settings: ConnectionSettings, what: str, call: Callable[[], T]) -> T:
    """`call` (a request through kgroup's own transport) with its failures as kgroup's errors: the cluster lost
    (exit 4), the credentials refused (exit 7), a setting the transport cannot honour (exit 2, naming
    --command-config), an answer it cannot use (exit 1)."""
    try:
        with cluster_failures(settings, f"during {what}"):
            return call()
    except UnsupportedConfig as exc:
        raise InputError(f"{exc} (needed for {what})", field="--command-config") from None
    except KafkaClientError as exc:
        raise RunError(f"{what}: {exc}") from None
