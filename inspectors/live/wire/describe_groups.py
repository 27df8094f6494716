"""FindCoordinator and DescribeGroups (API 15, v0-v5): each member of a classic group with its raw bytes.

Members come in the order the broker sent them, which is the order its JoinGroup response lists them
(both walk the group's member map; kafka.coordinator.group.GroupMetadata / ClassicGroup.allMembers).
DescribeGroups has no field for a client's software name or version (KIP-511 sends it in ApiVersions,
which brokers use only for metrics).
"""

from __future__ import annotations

import struct
import time
from typing import Any

from kgroup.inspectors.live.wire.codec import TAGS_NONE, _carray, _cstr, _str
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from kgroup.inspectors.live.wire.errors import ERRORS, RETRIABLE, BrokerUnreachable, ProtocolError, UnsupportedConfig

API_DESCRIBE_GROUPS, API_FIND_COORDINATOR = 15, 10
OUR_DESCRIBE_GROUPS = (0, 5)   # v6 (KIP-1043) only adds an error message; v5 is what Kafka 2.4+ speaks
OUR_FIND_COORDINATOR = (0, 4)


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


def _describe(conn: Connection, groups: list[str]) -> tuple[int, list[dict[str, Any]]]:
    v = conn.pick(API_DESCRIBE_GROUPS, OUR_DESCRIBE_GROUPS, "DescribeGroups")
    flexible = v >= 5
    doing = f"describing {', '.join(repr(g) for g in groups)} (DescribeGroups v{v})"
    if flexible:
        body = _carray([_cstr(g) for g in groups]) + (b"\x00" if v >= 3 else b"") + TAGS_NONE
    else:
        body = struct.pack(">i", len(groups)) + b"".join(_str(g) for g in groups) + (b"\x00" if v >= 3 else b"")
    r = conn.request(API_DESCRIBE_GROUPS, v, body, flexible, doing)
    s = (lambda f, n=False: r.cstring(f, n)) if flexible else (lambda f, n=False: r.string(f, n))
    b = (lambda f: r.cbytes(f)) if flexible else (lambda f: r.bytes_(f))
    if v >= 1:
        r.i32("throttle time")
    out = []
    for _ in range(r.array_len("groups", flexible)):
        g: dict[str, Any] = {"error_code": r.i16("error code")}
        g["group_id"] = s("group id")
        g["state"] = s("group state")
        g["protocol_type"] = s("protocol type")
        g["protocol"] = s("protocol data")
        members = []
        for _ in range(r.array_len("members", flexible)):
            m: dict[str, Any] = {"member_id": s("member id")}
            m["group_instance_id"] = s("group instance id", True) if v >= 4 else None
            m["client_id"] = s("client id")
            m["client_host"] = s("client host")
            m["metadata"] = b("member metadata") or b""
            m["assignment"] = b("member assignment") or b""
            if flexible:
                r.tags("member")
            members.append(m)
        g["members"] = members
        if v >= 3:
            r.i32("authorized operations")
        if flexible:
            r.tags("group")
        out.append(g)
    return v, out


# --------------------------------------------------------------------------------------------- public


def _bootstrap(config: dict[str, str], deadline: Deadline) -> Connection:
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


def probe_api_versions(config: dict[str, str], timeout_s: float) -> dict[int, tuple[int, int]]:
    """ApiVersions of the first bootstrap server that answers (for capability checks)."""
    conn = _bootstrap(dict(config), Deadline(timeout_s))
    try:
        return dict(conn.versions)
    finally:
        conn.close()


def describe_classic_members(config: dict[str, str], group_ids: list[str], timeout_s: float) -> dict:
    """Per group: state, protocol_type, protocol (the assignor name), and members in the broker's order, each
    with member_id, group_instance_id (DescribeGroups v4+), client_id, client_host and the raw metadata and
    assignment bytes. Raises BrokerUnreachable (naming the address) when no broker answers within timeout_s.

    A group whose coordinator answers with an error is returned with error_code/error set and no members
    (e.g. GROUP_AUTHORIZATION_FAILED); a Dead/unknown group comes back as the broker describes it.
    """
    if timeout_s <= 0:
        raise ValueError("timeout_s must be positive")
    deadline = Deadline(timeout_s)
    bootstrap = _bootstrap(dict(config), deadline)
    connections = {bootstrap.address: bootstrap}
    results: dict[str, dict] = {}
    try:
        by_coordinator: dict[str, list[str]] = {}
        for group in dict.fromkeys(group_ids):
            attempt = 0
            while True:
                error, host, port, node, message = _find_coordinator(bootstrap, group)
                if error in RETRIABLE and attempt < 20:
                    attempt += 1
                    time.sleep(min(0.1 * attempt, max(0.0, deadline.left(bootstrap.address, "waiting for the "
                                                                         f"coordinator of {group!r}") - 0.05)))
                    continue
                break
            if error:
                results[group] = _failed(group, error, message, f"FindCoordinator via {bootstrap.address}")
                continue
            by_coordinator.setdefault(f"{host}:{port}", []).append(group)
        for address, groups in by_coordinator.items():
            conn = connections.get(address)
            if conn is None:
                conn = connections[address] = Connection(address, dict(config), deadline)
            version, described = _describe(conn, groups)
            for g in described:
                error = g.pop("error_code")
                entry = _failed(g["group_id"], error, None, f"DescribeGroups on {address}") if error else {
                    "error_code": 0, "error": None}
                entry.update(g)
                entry.update(coordinator=address, api_version=version)
                results[g["group_id"]] = entry
        return {group: results[group] for group in dict.fromkeys(group_ids) if group in results}
    finally:
        for conn in connections.values():
            conn.close()


def _failed(group: str, error: int, message: str | None, where: str) -> dict:
    name = ERRORS.get(error, f"error {error}")
    return {"group_id": group, "error_code": error, "error": f"{name}{': ' + message if message else ''} ({where})",
            "state": None, "protocol_type": None, "protocol": None, "members": []}
