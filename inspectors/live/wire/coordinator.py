"""The first broker that answers, and the coordinator of a group on it (FindCoordinator, API 10, v0-v4).

Shared by every group request kgroup sends itself (DescribeGroups, OffsetDelete, the share groups'
ShareGroupDescribe, DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets), which go
through `on_coordinator` (`ask_coordinator` for one request on connections of its own): a coordinator that is
loading, moving or gone is looked up again and asked again until the deadline, as Kafka's admin client does:
- FindCoordinator answering COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS is retried
  (CoordinatorStrategy.handleError);
- the group request answering NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE sends the group back to the
  lookup, COORDINATOR_LOAD_IN_PROGRESS retries it (DescribeConsumerGroupsHandler.handleError,
  DeleteConsumerGroupOffsetsHandler.handleGroupError);
- a coordinator that cannot be reached or drops the connection sends the group back to the lookup, "a
  chance to find a new coordinator" (AdminApiDriver.onFailure on a DisconnectException); a bootstrap server
  that went away is replaced by the next one that answers;
- between attempts it waits retry.backoff.ms doubling up to retry.backoff.max.ms, 100 ms to 1 s by default
  (AdminApiDriver's ExponentialBackoff, KIP-580).
When the deadline passes, BrokerUnreachable names the address last tried.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from kgroup.inspectors.live.wire.codec import TAGS_NONE, compact_array, compact_string, string
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from kgroup.inspectors.live.wire.errors import (
    ERRORS,
    RETRIABLE,
    BrokerUnreachable,
    CoordinatorNotFound,
    ProtocolError,
    UnsupportedConfig,
)

API_FIND_COORDINATOR = 10
OUR_FIND_COORDINATOR = (0, 4)
BACKOFF_S, BACKOFF_MAX_S = 0.1, 1.0  # retry.backoff.ms and retry.backoff.max.ms (CommonClientConfigs)
# A coordinator that has just taken a group over answers reads at its last committed offset
# (CoordinatorRuntime.scheduleReadOperation), and a new leader of `__consumer_offsets` commits nothing until
# its followers have fetched (Partition.maybeIncrementLeaderHW): for a moment it describes every group as
# Dead. A Dead answer is asked again for this long before it is believed. Where the command saw the coordinator
# move or a broker go away, the moment lasts until the controller fences the lost broker and the ISR shrinks
# (broker.session.timeout.ms, 9 s by default, then longer on a loaded machine): a Dead answer is then asked
# again until --timeout.
DEAD_RECHECK_S = 2.0
LOAD_IN_PROGRESS = 14
T = TypeVar("T")


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


def backoff(attempt: int, deadline: Deadline, address: str, doing: str) -> None:
    """Sleep before retry `attempt` (1, 2, ...): 100 ms doubling up to 1 s, never past the deadline; past it,
    BrokerUnreachable naming `address`."""
    pause = min(BACKOFF_S * 2 ** (attempt - 1), BACKOFF_MAX_S)
    left = deadline.left(address, doing)
    if left <= pause:
        time.sleep(left)
        deadline.left(address, doing)  # raises: the deadline has passed
    time.sleep(pause)


def recheck(attempt: int, started: float, deadline: Deadline, moved: bool = False) -> bool:
    """Whether a Dead answer (DEAD_RECHECK_S) is to be asked again, after sleeping the backoff of `attempt`;
    `moved`: the coordinator moved or a broker was lost during the call (until the deadline, then)."""
    pause = min(BACKOFF_S * 2 ** (attempt - 1), BACKOFF_MAX_S)
    if (not moved and time.monotonic() - started + pause > DEAD_RECHECK_S) or deadline.end - time.monotonic() <= pause:
        return False
    time.sleep(pause)
    return True


def find_coordinator(conn: Connection, group: str) -> tuple[int, str, int, int, str | None]:
    """(error code, host, port, node id, error message) of the group's coordinator, retrying while the
    coordinator loads or moves, up to the connection's deadline (then BrokerUnreachable)."""
    attempt = 0
    while True:
        answer = _find_coordinator(conn, group)
        if answer[0] not in RETRIABLE:
            return answer
        attempt += 1
        waiting = f"waiting for the coordinator of {group!r} ({named(answer[0], answer[4])})"
        try:
            backoff(attempt, conn.deadline, conn.address, waiting)
        except BrokerUnreachable as exc:  # the deadline passed with the lookup still answering so
            raise CoordinatorNotFound(str(exc)) from None


class Coordinators:
    """The connections of one call: one to a bootstrap server, for FindCoordinator, and one per coordinator."""

    def __init__(self, config: dict[str, str], deadline: Deadline) -> None:
        self.config, self.deadline = dict(config), deadline
        self.first = bootstrap(self.config, deadline)
        self.connections = {self.first.address: self.first}
        servers = [s.strip() for s in (self.config.get("bootstrap.servers") or "").split(",") if s.strip()]
        # a coordinator or bootstrap connection was lost or refused during this call
        self.moved = bool(servers) and self.first.address != servers[0]

    def find(self, group: str) -> tuple[int, str, int, int, str | None]:
        """find_coordinator through the bootstrap connection, or, if it broke, through the next server that
        answers."""
        if self.first.address not in self.connections:  # dropped as a coordinator that was also the bootstrap
            self.first = bootstrap(self.config, self.deadline)
            self.connections[self.first.address] = self.first
        try:
            return find_coordinator(self.first, group)
        except CoordinatorNotFound:
            raise  # the bootstrap server answered, all along: another would say the same
        except BrokerUnreachable:
            self.drop(self.first.address)
            self.deadline.left(self.first.address, f"finding the coordinator of {group!r}")
            self.first = bootstrap(self.config, self.deadline)
            self.connections[self.first.address] = self.first
            return find_coordinator(self.first, group)

    def connect(self, address: str) -> Connection:
        conn = self.connections.get(address)
        if conn is None:
            conn = self.connections[address] = Connection(address, self.config, self.deadline)
        return conn

    def drop(self, address: str) -> None:
        self.moved = True
        conn = self.connections.pop(address, None)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        for conn in self.connections.values():
            conn.close()
        self.connections.clear()


class LookupRefused(Exception):
    """FindCoordinator answered an error that is not retried (e.g. GROUP_AUTHORIZATION_FAILED)."""

    def __init__(self, address: str, error: int, message: str | None) -> None:
        super().__init__(address, error, message)
        self.address, self.error, self.message = address, error, message


def on_coordinator(
    links: Coordinators, group: str, send: Callable[[Connection], T], error_of: Callable[[T], int]
) -> tuple[str, T]:
    """Send `send` to `group`'s coordinator until it answers something other than a coordinator error (module
    docstring): (coordinator address, the answer). LookupRefused (naming the bootstrap address) when the
    lookup itself is refused."""
    attempt = 0
    while True:
        error, host, port, _node, message = links.find(group)
        if error:
            raise LookupRefused(links.first.address, error, message)
        address = f"{host}:{port}"
        try:
            answer = send(links.connect(address))
        except BrokerUnreachable as exc:
            links.drop(address)  # gone, or going: look the coordinator up again
            attempt += 1
            backoff(attempt, links.deadline, address, f"waiting for a new coordinator of {group!r} (last: {exc})")
            continue
        code = error_of(answer)
        if code not in RETRIABLE:
            return address, answer
        attempt += 1
        if code != LOAD_IN_PROGRESS:
            links.drop(address)
        backoff(attempt, links.deadline, address, f"waiting for the coordinator of {group!r} to load it")


class GroupAnswer(Protocol):
    """An answer that carries its group-level error code (0: none)."""

    @property
    def error_code(self) -> int: ...


A = TypeVar("A", bound=GroupAnswer)


def ask_coordinator(
    config: dict[str, str],
    group: str,
    timeout_s: float,
    send: Callable[[Connection], A],
    refused: Callable[[int, str, str], A],
    retry_as: Callable[[int], int] = int,  # by default, the code as it is
) -> A:
    """One group request, `send`, answered by `group`'s coordinator within timeout_s (on_coordinator retries a
    loading, moving or lost one, reading the answer's error code as `retry_as` maps it): its answer, or, when
    FindCoordinator refuses the lookup, `refused(error code, the error named, the bootstrap address)`. Raises
    BrokerUnreachable / AuthenticationFailed / ProtocolError (naming the address) when no answer can be had in
    time."""
    if timeout_s <= 0:
        raise ValueError("timeout_s must be positive")
    links = Coordinators(config, Deadline(timeout_s))
    try:
        return on_coordinator(links, group, send, lambda answer: retry_as(answer.error_code))[1]
    except LookupRefused as lookup:
        where = f"FindCoordinator via {lookup.address}"
        return refused(lookup.error, named(lookup.error, lookup.message, where), lookup.address)
    finally:
        links.close()


def named(error: int, message: str | None, where: str | None = None) -> str:
    """Kafka's name of `error`, its message, and where it came from."""
    text = f"{ERRORS.get(error, f'error {error}')}{': ' + message if message else ''}"
    return f"{text} ({where})" if where else text


def _find_coordinator(conn: Connection, group: str) -> tuple[int, str, int, int, str | None]:
    v = conn.pick(API_FIND_COORDINATOR, OUR_FIND_COORDINATOR, "FindCoordinator")
    doing = f"finding the coordinator of group {group!r} (FindCoordinator v{v})"
    if v == 0:
        body = string(group)
    elif v < 3:
        body = string(group) + b"\x00"
    elif v == 3:
        body = compact_string(group) + b"\x00" + TAGS_NONE
    else:
        body = b"\x00" + compact_array([compact_string(group)]) + TAGS_NONE
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
