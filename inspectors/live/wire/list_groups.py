"""ListGroups (API 16, v0-v5) to every broker: each group with its type, protocol type and state.

Each broker lists the groups it coordinates, so Kafka's admin client asks every broker and merges the
answers (`Admin.listGroups`, ListGroupsHandler over AllBrokersStrategy); `kafka-groups.sh --list` prints
GROUP, TYPE (v5: classic, consumer, share, streams; KIP-848) and PROTOCOL (the protocol type: `consumer`
for consumer groups, another name for Connect's or any other classic group, empty for a group that only
commits offsets) from it (GroupsCommand.printGroupDetails). v4 adds the state (KIP-518). Without a filter
every group is listed; the broker leaves out those the principal may not DESCRIBE
(KafkaApis.handleListGroupsRequest).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kgroup.inspectors.live.wire.codec import TAGS_NONE, Reader
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from kgroup.inspectors.live.wire.errors import ERRORS, RETRIABLE, ProtocolError

API_LIST_GROUPS = 16
OUR_LIST_GROUPS = (0, 5)
_ATTEMPTS = 10


@dataclass(frozen=True)
class ListedGroup:
    group_id: str
    protocol_type: str
    state: str | None  # v4+: the state's name as the coordinator spells it (Stable, Assigning, ...)
    type: str | None  # v5+: classic | consumer | share | streams


def list_groups(config: dict[str, str], addresses: list[str], timeout_s: float) -> list[ListedGroup]:
    """Every group every broker in `addresses` coordinates (each group once). Raises BrokerUnreachable,
    AuthenticationFailed or ProtocolError naming the broker when one cannot answer within timeout_s."""
    deadline = Deadline(timeout_s)
    found: dict[str, ListedGroup] = {}
    for address in dict.fromkeys(addresses):
        conn = Connection(address, dict(config), deadline)
        try:
            for group in _listed(conn):
                found.setdefault(group.group_id, group)
        finally:
            conn.close()
    return sorted(found.values(), key=lambda g: g.group_id)


def _listed(conn: Connection) -> list[ListedGroup]:
    v = conn.pick(API_LIST_GROUPS, OUR_LIST_GROUPS, "ListGroups")
    flexible = v >= 3
    doing = f"listing groups (ListGroups v{v})"
    body = b""
    if v >= 4:
        body += b"\x01"  # StatesFilter: an empty compact array
    if v >= 5:
        body += b"\x01"  # TypesFilter: an empty compact array
    if flexible:
        body += TAGS_NONE
    for attempt in range(_ATTEMPTS):
        r = conn.request(API_LIST_GROUPS, v, body, flexible, doing)
        if v >= 1:
            r.i32("throttle time")
        error = r.i16("error code")
        if error in RETRIABLE and attempt < _ATTEMPTS - 1:  # COORDINATOR_LOAD_IN_PROGRESS: Kafka's admin retries
            time.sleep(min(0.1 * (attempt + 1), max(0.0, conn.deadline.left(conn.address, doing) - 0.05)))
            continue
        if error:
            raise ProtocolError(f"{conn.address}: ListGroups failed with {ERRORS.get(error, error)}")
        return _groups(r, v)
    raise AssertionError("unreachable")  # the last attempt returns or raises


def _groups(r: Reader, v: int) -> list[ListedGroup]:
    flexible = v >= 3

    def text(field: str) -> str:
        return (r.cstring(field) if flexible else r.string(field)) or ""

    groups = []
    for _ in range(r.array_len("groups", flexible)):
        group_id, protocol_type = text("group id"), text("protocol type")
        state = text("group state") if v >= 4 else None
        kind = text("group type") if v >= 5 else None
        if flexible:
            r.tags("group")
        groups.append(ListedGroup(group_id, protocol_type, state or None, kind or None))
    return groups
