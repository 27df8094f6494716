"""`kgroup describe` of a share group (KIP-932): the JSON body and kafka-share-groups.sh's three tables.

The columns are ShareGroupCommand's (kafka-tools of the pinned release): printOffsets (GROUP, TOPIC,
PARTITION, LEADER-EPOCH with --verbose, START-OFFSET, LAG), printMembers (GROUP, CONSUMER-ID, HOST,
CLIENT-ID, #PARTITIONS, MEMBER-EPOCH with --verbose, ASSIGNMENT) and printStates (GROUP, COORDINATOR (ID),
STATE, GROUP-EPOCH and ASSIGNMENT-EPOCH with --verbose, #MEMBERS). A value the broker did not send is `-`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from kgroup.cli.render.tables import dash, print_wide
from kgroup.inspectors.live.share_groups import ShareGroup, total_lag


def share_body(group: ShareGroup) -> dict[str, Any]:
    """The documented body (docs/live.md, "Share groups"); `partitions` rows keep the keys --topic and
    --only-with-lag filter on (topic, lag)."""
    coordinator = group.coordinator
    return {
        "group": group.group_id,
        "type": "share",
        "protocol": None,
        "state": group.state,
        "members": len(group.members),
        "assignor": group.assignor,
        "coordinator": None
        if coordinator is None
        else {"id": coordinator.id, "host": coordinator.host, "port": coordinator.port},
        "total_lag": total_lag(group),
        "notes": list(group.notes),
        "group_epoch": group.group_epoch,
        "target_assignment_epoch": group.assignment_epoch,
        "partitions": [
            {
                "group": group.group_id,
                "topic": p.topic,
                "partition": p.partition,
                "leader_epoch": p.leader_epoch,
                "start_offset": p.start_offset,
                "lag": p.lag,
            }
            for p in group.partitions
        ],
        "share_members": [
            {
                "member_id": m.member_id,
                "client_id": m.client_id,
                "host": m.client_host,
                "rack": m.rack_id,
                "member_epoch": m.member_epoch,
                "subscribed_topics": list(m.subscribed_topics),
                "partitions": len(m.assignment),
                "assignment": [{"topic": t, "partition": p} for t, p in m.assignment],
            }
            for m in group.members
        ],
    }


def share_summary(group: ShareGroup, protocol: str | None) -> dict[str, Any]:
    """A share group's `groups` entry: the fields of a describe entry up to `notes` (TOTAL-LAG: the sum of
    the share-partition lags the broker sent, KIP-1226)."""
    body = share_body(group)
    return {
        key: body[key]
        for key in ("group", "type", "protocol", "state", "members", "assignor", "coordinator", "total_lag", "notes")
    } | {"protocol": protocol}


def share_tables(console: Console, body: dict[str, Any], view: str, verbose: bool) -> None:
    if view == "state":
        _states(console, body, verbose)
    elif view == "members":
        _members(console, body, verbose)
    else:
        _offsets(console, body, verbose)


def _offsets(console: Console, body: dict[str, Any], verbose: bool) -> None:
    console.print(
        f"{body['group']}: share group, state {body['state']}, {body['members']} member(s), "
        f"total lag {dash(body['total_lag'])}"
    )
    if not body["partitions"]:
        console.print(f"Share group '{body['group']}' has no offset information.")
        return
    table = Table(box=None, pad_edge=False)
    columns = ("GROUP", "TOPIC", "PARTITION") + (("LEADER-EPOCH",) if verbose else ()) + ("START-OFFSET", "LAG")
    for column in columns:
        table.add_column(column, justify="left" if column in ("GROUP", "TOPIC") else "right")
    for p in body["partitions"]:
        epoch = [dash(p["leader_epoch"])] if verbose else []
        table.add_row(p["group"], p["topic"], str(p["partition"]), *epoch, dash(p["start_offset"]), dash(p["lag"]))
    print_wide(console, table)


def _assignment_text(parts: list[dict[str, Any]]) -> str:
    """ShareGroupCommand.getAssignmentString: `orders:0,1;payments:3`, topics and partitions sorted."""
    by_topic: dict[str, list[int]] = {}
    for p in parts:
        by_topic.setdefault(p["topic"], []).append(p["partition"])
    return ";".join(f"{t}:{','.join(str(n) for n in sorted(ns))}" for t, ns in sorted(by_topic.items())) or "-"


def _members(console: Console, body: dict[str, Any], verbose: bool) -> None:
    if not body["share_members"]:
        console.print(f"Share group '{body['group']}' has no active members.")
        return
    table = Table(box=None, pad_edge=False)
    columns = (
        ("GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS")
        + (("MEMBER-EPOCH",) if verbose else ())
        + ("ASSIGNMENT",)
    )
    for column in columns:
        table.add_column(column, justify="right" if column in ("#PARTITIONS", "MEMBER-EPOCH") else "left")
    for m in body["share_members"]:
        epoch = [str(m["member_epoch"])] if verbose else []
        table.add_row(
            body["group"],
            m["member_id"],
            dash(m["host"]),
            dash(m["client_id"]),
            str(m["partitions"]),
            *epoch,
            _assignment_text(m["assignment"]),
        )
    print_wide(console, table)


def _states(console: Console, body: dict[str, Any], verbose: bool) -> None:
    table = Table(box=None, pad_edge=False)
    epochs = ("GROUP-EPOCH", "ASSIGNMENT-EPOCH") if verbose else ()
    for column in ("GROUP", "COORDINATOR (ID)", "STATE") + epochs + ("#MEMBERS",):
        table.add_column(column, justify="left" if column in ("GROUP", "COORDINATOR (ID)", "STATE") else "right")
    coordinator = body["coordinator"]
    cells = [str(body["group_epoch"]), str(body["target_assignment_epoch"])] if verbose else []
    table.add_row(
        body["group"],
        f"{coordinator['host']}:{coordinator['port']} ({coordinator['id']})" if coordinator else "-",
        body["state"],
        *cells,
        str(body["members"]),
    )
    print_wide(console, table)
