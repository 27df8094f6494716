"""kgroup's own wire transport losing the cluster, as kgroup's errors: one line naming the address."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from kgroup.inspectors.errors import AuthenticationError, NotReachableError
from kgroup.inspectors.live.connection import ConnectionSettings
from kgroup.inspectors.live.wire.errors import AuthenticationFailed, BrokerUnreachable


@contextmanager
def cluster_failures(settings: ConnectionSettings, request: str) -> Iterator[None]:
    """A broker that cannot be reached is exit 4, refused credentials exit 7; `request` says which request
    failed ("for DescribeGroups", "during OffsetDelete"). Other transport errors pass through."""
    try:
        yield
    except BrokerUnreachable as exc:
        raise NotReachableError(f"cannot reach {settings.bootstrap_servers} (from {settings.origin}) {request}: "
                                f"{exc}") from None
    except AuthenticationFailed as exc:
        raise AuthenticationError(f"{settings.bootstrap_servers} (from {settings.origin}) refused the credentials "
                                  f"{request}: {exc}") from None
