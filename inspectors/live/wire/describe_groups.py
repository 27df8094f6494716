"""FindCoordinator and DescribeGroups (API 15, v0-v5): each member of a classic group with its raw bytes.

Members come in the order the broker sent them, which is the order its JoinGroup response lists them
(both walk the group's member map; kafka.coordinator.group.GroupMetadata / ClassicGroup.allMembers).
DescribeGroups has no field for a client's software name or version (KIP-511 sends it in ApiVersions,
which brokers use only for metrics).
"""

from __future__ import annotations

import struct
import time
from functools import partial
from typing import Any

from kgroup.inspectors.live.wire.codec import TAGS_NONE, compact_array, compact_string, string
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from kgroup.inspectors.live.wire.coordinator import Coordinators, LookupRefused, bootstrap, on_coordinator, recheck
from kgroup.inspectors.live.wire.errors import ERRORS

API_DESCRIBE_GROUPS = 15
OUR_DESCRIBE_GROUPS = (0, 5)   # v6 (KIP-1043) only adds an error message; v5 is what Kafka 2.4+ speaks


def _describe(conn: Connection, groups: list[str]) -> tuple[int, list[dict[str, Any]]]:
    v = conn.pick(API_DESCRIBE_GROUPS, OUR_DESCRIBE_GROUPS, "DescribeGroups")
    flexible = v >= 5
    doing = f"describing {', '.join(repr(g) for g in groups)} (DescribeGroups v{v})"
    if flexible:
        body = compact_array([compact_string(g) for g in groups]) + (b"\x00" if v >= 3 else b"") + TAGS_NONE
    else:
        body = struct.pack(">i", len(groups)) + b"".join(string(g) for g in groups) + (b"\x00" if v >= 3 else b"")
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


def probe_api_versions(config: dict[str, str], timeout_s: float) -> dict[int, tuple[int, int]]:
    """ApiVersions of the first bootstrap server that answers (for capability checks)."""
    conn = bootstrap(dict(config), Deadline(timeout_s))
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
    links = Coordinators(config, Deadline(timeout_s))
    results: dict[str, dict] = {}
    try:
        for group in dict.fromkeys(group_ids):  # one request per group: each may move on its own
            started, attempt = time.monotonic(), 0
            try:
                while True:
                    address, (version, (g,)) = on_coordinator(links, group, partial(_describe, groups=[group]),
                                                              _group_error)
                    attempt += 1
                    if g["error_code"] or g["state"] != "Dead" or not recheck(attempt, started, links.deadline, links.moved):
                        break
            except LookupRefused as refused:
                results[group] = _failed(group, refused.error, refused.message,
                                         f"FindCoordinator via {refused.address}")
                continue
            error = g.pop("error_code")
            entry = _failed(g["group_id"], error, None, f"DescribeGroups on {address}") if error else {
                "error_code": 0, "error": None}
            entry.update(g)
            entry.update(coordinator=address, api_version=version)
            results[group] = entry
        return {group: results[group] for group in dict.fromkeys(group_ids) if group in results}
    finally:
        links.close()


def _group_error(answer: tuple[int, list[dict[str, Any]]]) -> int:
    return int(answer[1][0]["error_code"])


def _failed(group: str, error: int, message: str | None, where: str) -> dict:
    name = ERRORS.get(error, f"error {error}")
    return {"group_id": group, "error_code": error, "error": f"{name}{': ' + message if message else ''} ({where})",
            "state": None, "protocol_type": None, "protocol": None, "members": []}
