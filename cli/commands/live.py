"""`kgroup groups`, `describe` and `snapshot`: live groups, with the columns kafka-consumer-groups.sh prints."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer
import yaml
from rich.console import Console
from rich.table import Table

from kgroup.assignors.lag.group_lag import LagRow, lag_rows, member_rollup, total_lag
from kgroup.assignors.model import TopicPartition, sort_partitions
from kgroup.cli.errors import handle_errors
from kgroup.cli.render.lag import duration
from kgroup.cli.render.tables import dash, print_wide
from kgroup.cli.options import NOT_LIVE, LiveOptions, live_options
from kgroup.cli.options import IsolationOpt, OutputOpt, isolation_level, load
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.inspectors.errors import InputError, NotFoundError
from kgroup.inspectors.live.admin import READ_UNCOMMITTED, GroupListing
from kgroup.inspectors.live.consumer_groups import (
    LiveGroup,
    chosen_group_ids,
    group_pattern,
    read_groups,
    read_listed_groups,
)
from kgroup.inspectors.files import write_atomically
from kgroup.inspectors.live.record_timestamps import described_time_lags
from kgroup.inspectors.live.snapshot import fixture_document, fixture_group
from kgroup.inspectors.live.share_groups import ShareGroup, read_share_groups
from kgroup.cli.render.share_groups import share_body, share_summary, share_tables

# ListGroups v5's group types (GroupType, KIP-848), as `kafka-groups.sh --list --group-type` takes them.
GROUP_TYPES = ("classic", "consumer", "share", "streams")


@handle_errors
def groups(
    regex: str | None, state: str | None, live: LiveOptions, output: OutputFormat, group_type: str | None = None
) -> None:
    """The listing behind `kgroup groups` (its options are declared on that command, cli/commands/groups.py).

    Share and streams groups are listed with their type, protocol and state only: kgroup describes
    consumer groups (classic and consumer protocol)."""
    if group_type is not None and group_type.lower() not in GROUP_TYPES:
        raise InputError(f"unknown group type {group_type!r}; expected one of {', '.join(GROUP_TYPES)}", field="--type")
    pattern = group_pattern(regex or None)
    admin = live.connect()
    listing = {g.group_id: g for g in admin.list_groups(every_type=True)}
    ids = chosen_group_ids([], pattern is None, pattern, lambda: list(listing))
    if group_type is not None:
        ids = [g for g in ids if listing[g].type == group_type.lower()]
    described = [g for g in ids if listing[g].type not in ("share", "streams")]
    found, refused = read_listed_groups(admin, described) if described else (None, {})
    read = {one.group.group_id: one for one in found.groups} if found else {}
    share_ids = [g for g in ids if listing[g].type == "share"]
    shares = read_share_groups(admin, share_ids) if share_ids else {}
    summaries = [
        _summary(read[g], lag_rows(read[g].group), listing[g].protocol)
        if g in read
        else share_summary(shares[g], listing[g].protocol)
        if g in shares
        else _listed_summary(listing[g], refused.get(g))
        for g in ids
    ]
    summaries = [s for s in summaries if state is None or (s["state"] or "").lower() == state.lower()]
    notes = []  # why the list may be short of groups: in the document, and on stderr
    who = admin.settings.authenticated_as()
    if not summaries and who is not None:  # KafkaApis.handleListGroupsRequest drops what the principal may not DESCRIBE
        notes.append(
            f"no groups listed; Kafka lists only the groups the principal may DESCRIBE, so ACLs may hide groups "
            f"from {who}"
        )
    elif who is not None:
        notes.append(f"the list is limited to the groups {who} may DESCRIBE (Kafka's ListGroups leaves out the others)")
    unlisted = admin.groups_not_listed()
    if unlisted is not None:
        notes.append(unlisted)
    doc = document("groups", {"groups": summaries, "notes": notes})
    emit(doc, output, lambda console: _groups_table(console, summaries))
    for note in notes:
        warn(f"kgroup: note: {note}")
    for group_id, why in refused.items():
        warn(f"kgroup: note: {group_id}: listed, but not read in full: {why}")


def _summary(live: LiveGroup, rows: list[LagRow], protocol: str | None = None) -> dict[str, Any]:
    """`protocol`: the protocol type ListGroups reports (`consumer` for every consumer group; None when not
    listed, e.g. describe from a fixture, where a consumer group's is `consumer` as Kafka's)."""
    if protocol is None and live.type in ("classic", "consumer"):
        protocol = "consumer"
    return {
        "group": live.group.group_id,
        "type": live.type,
        "protocol": protocol,
        "state": live.group.state,
        "members": len(live.group.members),
        "assignor": live.assignor,
        "coordinator": None
        if live.coordinator is None
        else {"id": live.coordinator.id, "host": live.coordinator.host, "port": live.coordinator.port},
        "total_lag": total_lag(rows),
        "notes": list(live.notes),
    }


def _listed_summary(listed: GroupListing, refused: str | None = None) -> dict[str, Any]:
    """A group as ListGroups lists it: a streams group (kgroup does not describe them), or one the principal
    may list but not read in full (`refused`: why)."""
    return {
        "group": listed.group_id,
        "type": listed.type,
        "protocol": listed.protocol,
        "state": listed.state,
        "members": None,
        "assignor": None,
        "coordinator": None,
        "total_lag": None,
        "notes": [refused if refused else f"a {listed.type} group: listed, not described"],
    }


def _groups_table(console: Console, summaries: list[dict[str, Any]]) -> None:
    if not summaries:
        console.print("no groups")
        return
    table = Table(box=None, pad_edge=False)
    for column in ("GROUP", "TYPE", "PROTOCOL", "STATE", "MEMBERS", "ASSIGNOR", "COORDINATOR", "TOTAL-LAG"):
        table.add_column(column, justify="right" if column in ("MEMBERS", "TOTAL-LAG") else "left")
    for s in summaries:
        coordinator = s["coordinator"]
        table.add_row(
            s["group"],
            s["type"],
            s["protocol"] or "-",
            s["state"],
            dash(s["members"]),
            s["assignor"] or "-",
            f"{coordinator['host']}:{coordinator['port']} ({coordinator['id']})" if coordinator else "-",
            dash(s["total_lag"]),
        )
    print_wide(console, table)


@handle_errors
@live_options
def describe(
    group_ids: Annotated[
        Optional[list[str]],
        typer.Argument(help="Group ids (or choose them with --all-groups or -r).", show_default=False, metavar="GROUP"),
    ] = None,
    all_groups: Annotated[bool, typer.Option("--all-groups", help="Every group the cluster lists.")] = False,
    regex: Annotated[
        Optional[str], typer.Option("--regex", "-r", help="Also every group whose id matches.", metavar="PATTERN")
    ] = None,
    only_with_lag: Annotated[
        bool,
        typer.Option(
            "--only-with-lag",
            "-l",
            help="Only partitions with a lag above 0, a never-committed partition counted "
            "from the log start; groups with none are left out.",
        ),
    ] = False,
    members: Annotated[bool, typer.Option("--members", help="One row per member instead of per partition.")] = False,
    state: Annotated[bool, typer.Option("--state", help="One summary line per group.")] = False,
    topics: Annotated[
        Optional[list[str]],
        typer.Option(
            "--topic",
            "-t",
            help="Only this topic's partitions (repeatable); without GROUP, every group that "
            "committed or owns one of them: who consumes this topic.",
            show_default=False,
            metavar="TOPIC",
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="Kafka's verbose columns: LEADER-EPOCH of each commit; with --members each member's "
            "current and target assignment; with --state the group epochs.",
        ),
    ] = False,
    fixture: Annotated[
        Optional[str],
        typer.Option(
            "--fixture",
            "-f",
            help="Describe from a kgroup/v1 fixture (one `kgroup snapshot` saved, or a bundled "
            "one) instead of a cluster; without GROUP, every group in it.",
            show_default=False,
            metavar="FIXTURE",
        ),
    ] = None,
    time_lag: Annotated[
        bool,
        typer.Option(
            "--time-lag",
            help="Also TIME-LAG: now minus the timestamp of the first unread record, read from the "
            "topic (one fetch per lagging partition, nothing joined or committed).",
        ),
    ] = False,
    isolation: IsolationOpt = READ_UNCOMMITTED,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Describe groups with their lag, as `kafka-consumer-groups.sh --describe` does, plus LOG-START-OFFSET.

    Partitions never committed show `-` for CURRENT-OFFSET and LAG; a commit below the log start (data
    lost to retention) is clamped and flagged. Empty groups are described, not errors. With --time-lag,
    each committed partition also gets its exact time lag (0 when caught up; `-` when its record could not
    be read within --timeout). `-o json` is the stable document described in docs/live.md.

    Examples:

      kgroup describe orders-service -b localhost:9092

      kgroup describe orders-service payments --members -o json

      kgroup describe orders-service --time-lag

      kgroup describe --all-groups --only-with-lag -o json

      kgroup describe --fixture orders.yaml      # offline, from `kgroup snapshot`

      kgroup describe --topic orders             # every group reading the topic orders
    """
    if members and state:
        raise InputError("choose one of --members and --state", field="--members")
    pattern = group_pattern(regex)
    level = isolation_level(isolation)
    if fixture is not None:
        if time_lag:
            raise InputError("reads record timestamps from a cluster; a fixture has none", field="--time-lag")
        saved = load(fixture)
        every = all_groups or not (group_ids or pattern)  # a fixture is small: all of it unless told otherwise
        chosen = chosen_group_ids(list(group_ids or []), every, pattern, lambda: [g.group_id for g in saved.groups])
        described = [fixture_group(saved, group_id) for group_id in chosen]
        bodies = [_describe_body(g, None) for g in described]
    else:
        if not group_ids and not all_groups and regex is None and not topics:
            raise InputError("name the groups, or choose them with --all-groups, -r REGEX or --topic", field="GROUP")
        admin = live.connect()
        if topics:
            admin.check_topics_visible(list(topics))  # a topic the ACLs hide is not "does not exist"
            known = set(admin.metadata().topics)
            for topic in topics:
                if topic not in known:
                    raise NotFoundError(f"topic {topic!r} does not exist (--topic)")
            all_groups = all_groups or not (group_ids or pattern)
        chosen = chosen_group_ids(
            list(group_ids or []), all_groups, pattern, lambda: [g.group_id for g in admin.list_groups()]
        )
        unlisted = admin.groups_not_listed() if all_groups or pattern is not None else None
        if unlisted is not None:
            warn(f"kgroup: note: {unlisted}")
        shared: dict[str, ShareGroup] = {}
        try:
            described = read_groups(admin, chosen, level).groups if chosen else []
        except NotFoundError:
            # DescribeGroups describes a share group (KIP-932) as Dead: read the chosen share groups, then the
            # others as before (a group that is neither stays "does not exist").
            shared = read_share_groups(admin, chosen)
            if not shared:
                raise
            rest = [g for g in chosen if g not in shared]
            described = read_groups(admin, rest, level).groups if rest else []
        bodies = [
            _describe_body(
                g, described_time_lags(admin.settings, lag_rows(g.group), level, admin.timeout_s) if time_lag else None
            )
            for g in described
        ]
        if shared:
            order = {g: i for i, g in enumerate(chosen)}
            bodies = sorted(bodies + [share_body(s) for s in shared.values()], key=lambda b: order[b["group"]])
            for share in shared.values():
                for note in share.notes + (("--time-lag: a share group's time lag is not read",) if time_lag else ()):
                    warn(f"kgroup: note: group {share.group_id}: {note}")
    if topics:
        bodies = [
            b
            for b in (
                {**body, "partitions": [p for p in body["partitions"] if p["topic"] in topics]} for body in bodies
            )
            if b["partitions"]
        ]
    if only_with_lag:
        bodies = [b for b in (_only_lagging(body) for body in bodies) if b["partitions"]]
    doc = document("describe", {"isolation": isolation, "groups": bodies})
    if not chosen:
        warn("kgroup: note: no group matched")
    elif not bodies:
        warn(
            "kgroup: note: no partition has lag"
            if only_with_lag
            else f"kgroup: note: no group has a partition of {', '.join(topics or [])}"
        )
    for one in described:
        for note in one.notes:
            warn(f"kgroup: note: group {one.group.group_id}: {note}")
    view = "members" if members else "state" if state else "offsets"
    emit(doc, output, lambda console: _describe_tables(console, bodies, view, verbose))


def _describe_body(live: LiveGroup, time_lags: dict[TopicPartition, int] | None) -> dict[str, Any]:
    """time_lags: None when --time-lag was not asked (the time lag keys are then left out)."""
    group = live.group
    rows = lag_rows(group)
    targets = live.target_assignments
    partitions = [_row_body(group.group_id, r, live.leader_epochs.get(r.tp)) for r in rows]
    members = [
        {
            "member_id": m.member.member_id,
            "instance_id": m.member.instance_id,
            "client_id": m.member.client_id,
            "host": m.member.host,
            "partitions": m.partitions,
            "lag": m.lag,
            "max_lag": m.max_lag,
            "lagging_partitions": m.lagging,
            "assignment": _partition_list(group.assignment.partitions_of(m.member.member_id)),
            "target_assignment": _partition_list(targets[m.member.member_id])
            if m.member.member_id in targets
            else None,
            **_member_epochs(live, m.member.member_id),
        }
        for m in member_rollup(group, rows)
    ]
    body = {
        **_summary(live, rows),
        "group_epoch": live.group_epoch,
        "target_assignment_epoch": live.assignment_epoch,
        "partitions": partitions,
        "member_lag": members,
    }
    if time_lags is not None:
        for p, r in zip(partitions, rows):
            p["time_lag_ms"] = time_lags.get(r.tp)
        for m in members:
            owned = [time_lags.get(TopicPartition(p["topic"], p["partition"])) for p in m["assignment"]]
            m["max_time_lag_ms"] = max((ms for ms in owned if ms is not None), default=None)
        body["max_time_lag_ms"] = max((ms for ms in time_lags.values()), default=None)
    return body


def _member_epochs(live: LiveGroup, member_id: str) -> dict[str, Any]:
    """What ConsumerGroupDescribe says of a consumer-protocol member (all None for a classic group's, or when
    the epochs were not read): Kafka's CURRENT-EPOCH (the member epoch) and TARGET-EPOCH (the group's target
    assignment epoch, ConsumerGroupCommand.collectGroupsMembers), and where its reconciliation stands."""
    member = live.group.member(member_id)
    state = live.reconciliation(member_id)
    return {
        "current_epoch": live.member_epochs.get(member_id),
        "target_epoch": live.assignment_epoch if member_id in live.member_epochs else None,
        "member_type": live.member_types.get(member_id),
        "rack": member.rack if member else None,
        "subscribed_topics": list(member.topics) if member and state is not None else None,
        "subscribed_regex": live.subscribed_regexes.get(member_id),
        "reconciling": None if state is None else state.reconciling,
        "partitions_to_revoke": None if state is None else _partition_list(state.to_revoke),
        "partitions_awaited": None if state is None else _partition_list(state.awaited),
    }


def _only_lagging(body: dict[str, Any]) -> dict[str, Any]:
    """kafkactl's --only-with-lag; a partition nobody committed lags from the log start (KAFKA-7141)."""
    lagging = [
        p for p in body["partitions"] if (p["lag"] if p["lag"] is not None else p.get("lag_from_start") or 0) > 0
    ]
    return {**body, "partitions": lagging}


def _partition_list(parts: tuple[TopicPartition, ...]) -> list[dict[str, Any]]:
    return [{"topic": tp.topic, "partition": tp.partition} for tp in sort_partitions(parts)]


def _assignment_text(parts: list[dict[str, Any]] | None) -> str:
    """Kafka's --members --verbose form: `orders:0,1,2;payments:3`."""
    if not parts:
        return "-"
    by_topic: dict[str, list[str]] = {}
    for p in parts:
        by_topic.setdefault(p["topic"], []).append(str(p["partition"]))
    return ";".join(f"{topic}:{','.join(numbers)}" for topic, numbers in by_topic.items())


def _row_body(group_id: str, row: LagRow, leader_epoch: int | None) -> dict[str, Any]:
    member = row.member
    return {
        "group": group_id,
        "topic": row.tp.topic,
        "partition": row.tp.partition,
        "leader_epoch": leader_epoch,
        "current_offset": row.offsets.committed,
        "log_start_offset": row.offsets.log_start,
        "log_end_offset": row.offsets.log_end,
        "lag": row.lag.lag,
        "lag_from_start": row.lag.lag_from_start,
        "lead": row.lag.lead,
        "flags": list(row.lag.flags),
        "consumer_id": member.member_id if member else None,
        "host": member.host if member else None,
        "client_id": member.client_id if member else None,
    }


def _describe_tables(console: Console, bodies: list[dict[str, Any]], view: str, verbose: bool) -> None:
    for index, body in enumerate(bodies):
        if index:
            console.print()
        if body.get("type") == "share":  # kafka-share-groups.sh's tables (cli/render/share_groups.py)
            share_tables(console, body, view, verbose)
        elif view == "state":
            _state_table(console, body, verbose)
        elif view == "members":
            _members_table(console, body, verbose)
        else:
            _offsets_table(console, body, verbose)


def _offsets_table(console: Console, body: dict[str, Any], verbose: bool) -> None:
    console.print(f"{body['group']}: state {body['state']}, {body['members']} member(s), total lag {body['total_lag']}")
    if not body["partitions"]:
        console.print("no partitions assigned or committed")
        return
    table = Table(box=None, pad_edge=False)
    timed = "max_time_lag_ms" in body
    numeric = (
        "PARTITION",
        "LEADER-EPOCH",
        "CURRENT-OFFSET",
        "LOG-START-OFFSET",
        "LOG-END-OFFSET",
        "LAG",
        "TIME-LAG",
        "LEAD",
    )
    for column in (
        ("GROUP", "TOPIC", "PARTITION")
        + (("LEADER-EPOCH",) if verbose else ())
        + ("CURRENT-OFFSET", "LOG-START-OFFSET", "LOG-END-OFFSET", "LAG")
        + (("TIME-LAG",) if timed else ())
        + ("LEAD", "CONSUMER-ID", "HOST", "CLIENT-ID", "FLAGS")
    ):
        table.add_column(column, justify="right" if column in numeric else "left")
    for p in body["partitions"]:
        epoch = [dash(p["leader_epoch"])] if verbose else []
        time_lag = [duration(p["time_lag_ms"])] if timed else []
        table.add_row(
            p["group"],
            p["topic"],
            str(p["partition"]),
            *epoch,
            dash(p["current_offset"]),
            dash(p["log_start_offset"]),
            dash(p["log_end_offset"]),
            dash(p["lag"]),
            *time_lag,
            dash(p["lead"]),
            dash(p["consumer_id"]),
            dash(p["host"]),
            dash(p["client_id"]),
            ",".join(p["flags"]) or "-",
        )
    print_wide(console, table)


# Kafka's `--members --verbose` columns (ConsumerGroupCommand.printMembers): `-` where a group has no epochs
# (classic groups) or no target assignment. UPGRADED is added, as Kafka adds it, when classic and consumer
# members share a consumer-protocol group (KIP-1099: `true` for a consumer member).
_VERBOSE_MEMBER_COLUMNS = ["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]


def _members_table(console: Console, body: dict[str, Any], verbose: bool) -> None:
    table = Table(box=None, pad_edge=False)
    static = any(m["instance_id"] for m in body["member_lag"])
    timed = "max_time_lag_ms" in body
    kinds = {m.get("member_type") for m in body["member_lag"]}
    upgraded = verbose and {"classic", "consumer"} <= kinds
    reconciling = any(m.get("reconciling") is not None for m in body["member_lag"])
    columns = (
        ["GROUP", "CONSUMER-ID"]
        + (["GROUP-INSTANCE-ID"] if static else [])
        + ["HOST", "CLIENT-ID", "#PARTITIONS", "LAG", "MAX-LAG"]
        + (["MAX-TIME-LAG"] if timed else [])
        + (_VERBOSE_MEMBER_COLUMNS if verbose else [])
        + (["UPGRADED"] if upgraded else [])
        + (["RECONCILING"] if reconciling else [])
    )
    for column in columns:
        table.add_column(
            column, justify="right" if column in ("#PARTITIONS", "LAG", "MAX-LAG", "MAX-TIME-LAG") else "left"
        )
    if not body["member_lag"]:
        console.print(f"{body['group']}: no active members")
        return
    for m in body["member_lag"]:
        cells = (
            [body["group"], m["member_id"]]
            + ([dash(m["instance_id"])] if static else [])
            + [dash(m["host"]), dash(m["client_id"]), str(m["partitions"]), str(m["lag"]), str(m["max_lag"])]
            + ([duration(m["max_time_lag_ms"])] if timed else [])
        )
        if verbose:
            cells += [
                dash(m.get("current_epoch")),
                _assignment_text(m["assignment"]),
                dash(m.get("target_epoch")),
                _assignment_text(m["target_assignment"]),
            ]
        if upgraded:
            cells.append({"consumer": "true", "classic": "false"}.get(m.get("member_type") or "", "-"))
        if reconciling:
            cells.append(_reconciling_text(m, verbose))
        table.add_row(*cells)
    print_wide(console, table)


def _reconciling_text(member: dict[str, Any], verbose: bool) -> str:
    """`-` for a reconciled member; `yes` for one still on its way to its target and, with --verbose, what it
    must still revoke, what it awaits, and its epoch when it is behind the target's (`revoke orders:1 await
    orders:4,5`, `epoch 7 < 8`: a member revoking, whose partitions pending revocation ConsumerGroupDescribe
    lists from Kafka 4.3 on, not before)."""
    if not member.get("reconciling"):
        return "-"
    if not verbose:
        return "yes"
    parts = [
        f"{word} {_assignment_text(member[key])}"
        for word, key in (("revoke", "partitions_to_revoke"), ("await", "partitions_awaited"))
        if member.get(key)
    ]
    current, target = member.get("current_epoch"), member.get("target_epoch")
    if current is not None and target is not None and current < target:
        parts.append(f"epoch {current} < {target}")
    return " ".join(["yes:"] + parts)


def _state_table(console: Console, body: dict[str, Any], verbose: bool) -> None:
    """Kafka's `--state` columns; with --verbose GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH before #MEMBERS, in
    ConsumerGroupCommand.printStates' order (`-` for a classic group, which has no epochs)."""
    table = Table(box=None, pad_edge=False)
    epochs = ("GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH") if verbose else ()
    for column in ("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE") + epochs + ("#MEMBERS",):
        table.add_column(column, justify="right" if column == "#MEMBERS" else "left")
    coordinator = body["coordinator"]
    epoch_cells = [dash(body.get("group_epoch")), dash(body.get("target_assignment_epoch"))] if verbose else []
    table.add_row(
        body["group"],
        f"{coordinator['host']}:{coordinator['port']} ({coordinator['id']})" if coordinator else "-",
        dash(body["assignor"]),
        dash(body["state"]),
        *epoch_cells,
        str(body["members"]),
    )
    print_wide(console, table)


@handle_errors
@live_options
def snapshot(
    group_ids: Annotated[list[str], typer.Argument(help="One or more group ids.", show_default=False, metavar="GROUP")],
    out: Annotated[
        Optional[str],
        typer.Option(
            "--output-file",
            "-o",
            help="Write the fixture to FILE (whole or not at all); default: standard output.",
            metavar="FILE",
        ),
    ] = None,
    isolation: IsolationOpt = READ_UNCOMMITTED,
    live: LiveOptions = NOT_LIVE,
) -> None:
    """Save live groups as a kgroup/v1 fixture: topics, racks, members, assignment and offsets.

    The fixture replays anywhere a fixture is read (simulate, assign, check). Member subscriptions are
    inferred from the assignment (the admin API hides them) and marked `inferred: true`. Connection
    settings and secrets are never written.

    Examples:

      kgroup snapshot orders-service -b localhost:9092 -o orders.yaml

      kgroup simulate orders.yaml --add-member c4
    """
    admin = live.connect()
    try:
        read = read_groups(admin, list(dict.fromkeys(group_ids)), isolation_level(isolation), subscriptions=True)
    except NotFoundError:
        # A share group (KIP-932) is described as Dead by DescribeGroups: read share groups as describe does.
        from kgroup.inspectors.live.share_snapshot import share_groups_document

        shared = share_groups_document(admin, list(dict.fromkeys(group_ids)))
        if shared is None:
            raise
        _write_snapshot(yaml.safe_dump(shared[0], sort_keys=False), out, len(shared[0]["groups"]))
        return
    for one in read.groups:
        for note in one.notes:
            warn(f"kgroup: note: group {one.group.group_id}: {note}")
    text = yaml.safe_dump(fixture_document(read, admin.settings.bootstrap_servers), sort_keys=False)
    _write_snapshot(text, out, len(read.groups))


def _write_snapshot(text: str, out: str | None, groups: int) -> None:
    if out is None:
        typer.echo(text, nl=False)
        return
    write_atomically(out, text, field="--output-file")
    warn(f"kgroup: wrote {out} ({groups} group(s))")
