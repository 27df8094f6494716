"""FindCoordinator and DescribeGroups (API 15, v0-v5): each member of a classic group with its raw bytes.

Members come in the order the broker sent them, which is the order its JoinGroup response lists them
(both walk the group's member map; kafka.coordinator.group.GroupMetadata / ClassicGroup.allMembers).
DescribeGroups has no field for a client's software name or version (KIP-511 sends it in ApiVersions,
which brokers use only for metrics).
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass, field, replace
from functools import partial

from kgroup.inspectors.live.wire.codec import TAGS_NONE, compact_array, compact_string, string
from kgroup.inspectors.live.wire.connection import Connection, Deadline
from kgroup.inspectors.live.wire.coordinator import Coordinators, LookupRefused, bootstrap, on_coordinator, recheck
from kgroup.inspectors.live.wire.errors import ERRORS


@dataclass(frozen=True)
class ClassicMemberBytes:
    """One member as DescribeGroups answers it (DescribedGroupMember): its ConsumerProtocol bytes undecoded."""

    member_id: str
    group_instance_id: str | None  # v4+
    client_id: str
    client_host: str
    metadata: bytes  # the subscription the member sent in JoinGroup
    assignment: bytes  # what the leader's SyncGroup gave it


@dataclass(frozen=True)
class DescribedClassicGroup:
    """A group as DescribeGroups answers it (DescribedGroup), or the error that kept it from answering."""

    group_id: str
    error_code: int = 0
    error: str | None = None  # the error's name, message and where it was met; None when it answered
    state: str | None = None
    protocol_type: str | None = None
    protocol: str | None = None  # the assignor name, for a consumer group
    members: tuple[ClassicMemberBytes, ...] = field(default_factory=tuple)
    coordinator: str | None = None  # the address that answered
    api_version: int | None = None


API_DESCRIBE_GROUPS = 15
OUR_DESCRIBE_GROUPS = (0, 5)  # v6 (KIP-1043) only adds an error message; v5 is what Kafka 2.4+ speaks


def _describe(conn: Connection, groups: list[str]) -> tuple[int, list[DescribedClassicGroup]]:
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
        error_code, group_id, state = r.i16("error code"), s("group id"), s("group state")
        protocol_type, protocol = s("protocol type"), s("protocol data")
        members = []
        for _ in range(r.array_len("members", flexible)):
            member_id = s("member id")
            instance_id = s("group instance id", True) if v >= 4 else None
            members.append(
                ClassicMemberBytes(
                    member_id or "",
                    instance_id,
                    s("client id") or "",
                    s("client host") or "",
                    b("member metadata") or b"",
                    b("member assignment") or b"",
                )
            )
            if flexible:
                r.tags("member")
        if v >= 3:
            r.i32("authorized operations")
        if flexible:
            r.tags("group")
        out.append(
            DescribedClassicGroup(group_id or "", error_code, None, state, protocol_type, protocol, tuple(members))
        )
    return v, out


# --------------------------------------------------------------------------------------------- public


def probe_api_versions(config: dict[str, str], timeout_s: float) -> dict[int, tuple[int, int]]:
    """ApiVersions of the first bootstrap server that answers (for capability checks)."""
    conn = bootstrap(dict(config), Deadline(timeout_s))
    try:
        return dict(conn.versions)
    finally:
        conn.close()


def describe_classic_members(
    config: dict[str, str], group_ids: list[str], timeout_s: float
) -> dict[str, DescribedClassicGroup]:
    """Per group: its state, protocol type, protocol (the assignor name) and members in the broker's order,
    each with its raw metadata and assignment bytes. Raises BrokerUnreachable (naming the address) when no
    broker answers within timeout_s.

    A group whose coordinator answers with an error is returned with error_code/error set and no members
    (e.g. GROUP_AUTHORIZATION_FAILED); a Dead/unknown group comes back as the broker describes it.
    """
    if timeout_s <= 0:
        raise ValueError("timeout_s must be positive")
    links = Coordinators(config, Deadline(timeout_s))
    results: dict[str, DescribedClassicGroup] = {}
    try:
        for group in dict.fromkeys(group_ids):  # one request per group: each may move on its own
            started, attempt = time.monotonic(), 0
            try:
                while True:
                    address, (version, (g,)) = on_coordinator(
                        links, group, partial(_describe, groups=[group]), _group_error
                    )
                    attempt += 1
                    if g.error_code or g.state != "Dead" or not recheck(attempt, started, links.deadline, links.moved):
                        break
            except LookupRefused as refused:
                results[group] = _failed(
                    group, refused.error, refused.message, f"FindCoordinator via {refused.address}"
                )
                continue
            if g.error_code:
                g = _failed(g.group_id, g.error_code, None, f"DescribeGroups on {address}")
            results[group] = replace(g, coordinator=address, api_version=version)
        return {group: results[group] for group in dict.fromkeys(group_ids) if group in results}
    finally:
        links.close()


def _group_error(answer: tuple[int, list[DescribedClassicGroup]]) -> int:
    return answer[1][0].error_code


def _failed(group: str, error: int, message: str | None, where: str) -> DescribedClassicGroup:
    name = ERRORS.get(error, f"error {error}")
    return DescribedClassicGroup(group, error, f"{name}{': ' + message if message else ''} ({where})")
