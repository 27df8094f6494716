"""The first broker that answers, and the coordinator of a group on it (FindCoordinator, API 10, v0-v4).

Shared by every group request kgroup sends itself (DescribeGroups, OffsetDelete). A coordinator that is
loading or moving is asked again within the deadline, as Kafka's admin client does
(CoordinatorStrategy: COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR retry).
"""

from __future__ import annotations

import time

from kgroup.inspectors.live.wire.codec import TAGS_NONE, _carray, _cstr, _str
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from kgroup.inspectors.live.wire.errors import RETRIABLE, BrokerUnreachable, ProtocolError, UnsupportedConfig

API_FIND_COORDINATOR = 10
OUR_FIND_COORDINATOR = (0, 4)
_ATTEMPTS = 20


def bootstrap(config: dict[str, str], deadline: Deadline) -> Connection:
    """A connection to the first bootstrap server that answers; BrokerUnreachable naming each failure."""
    servers = [s for s in (config.get("bootstrap.servers") or "").split(",") if s.strip()]
    if not servers:
        raise UnsupportedConfig("bootstrap.servers is empty")
    failures = []
    for address in servers:
        try:
            return Connection(address.strip(), config, deadline)
        except BrokerUnreachable as exc:
            failures.append(str(exc))
            if deadline.end - time.monotonic() <= 0:
                break
    raise BrokerUnreachable("no bootstrap server answered: " + "; ".join(failures))


def find_coordinator(conn: Connection, group: str) -> tuple[int, str, int, int, str | None]:
    """(error code, host, port, node id, error message) of the group's coordinator, retrying while the
    coordinator loads or moves (up to the connection's deadline)."""
    attempt = 0
    while True:
        answer = _find_coordinator(conn, group)
        if answer[0] not in RETRIABLE or attempt >= _ATTEMPTS:
            return answer
        attempt += 1
        time.sleep(min(0.1 * attempt, max(0.0, conn.deadline.left(conn.address, "waiting for the coordinator of "
                                                                  f"{group!r}") - 0.05)))


def _find_coordinator(conn: Connection, group: str) -> tuple[int, str, int, int, str | None]:
    v = conn.pick(API_FIND_COORDINATOR, OUR_FIND_COORDINATOR, "FindCoordinator")
    doing = f"finding the coordinator of group {group!r} (FindCoordinator v{v})"
    if v == 0:
        body = _str(group)
    elif v < 3:
        body = _str(group) + b"\x00"
    elif v == 3:
        body = _cstr(group) + b"\x00" + TAGS_NONE
    else:
        body = b"\x00" + _carray([_cstr(group)]) + TAGS_NONE
    r = conn.request(API_FIND_COORDINATOR, v, body, v >= 3, doing)
    if v >= 1:
        r.i32("throttle time")
    if v < 4:
        error = r.i16("error code")
        message = None
        if v >= 1:
            message = r.cstring("error message", True) if v >= 3 else r.string("error message", True)
        node = r.i32("node id")
        host = r.cstring("host") if v >= 3 else r.string("host")
        port = r.i32("port")
        return error, host or "", port, node, message
    count = r.array_len("coordinators", True)
    if count < 1:
        raise ProtocolError(f"{conn.address}: FindCoordinator returned no coordinator for {group!r}")
    r.cstring("key")
    node = r.i32("node id")
    host = r.cstring("host")
    port = r.i32("port")
    error = r.i16("error code")
    message = r.cstring("error message", True)
    return error, host or "", port, node, message
