"""Tables and the chart for lag results: worst first, time lag next to message lag, the method shown."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from rich.console import Console
from kgroup.cli.render.titled import Table

from kgroup.assignors.lag.burrow_status import burrow_group_status
from kgroup.assignors.lag.history import PartitionReport
from kgroup.assignors.lag.rollup import Rollup
from kgroup.assignors.lag.samples import SHARE_PARTITION_LAG
from kgroup.cli.render.tables import dash, print_wide

if TYPE_CHECKING:
    from kgroup.inspectors.lag.analysis import Analysis

_METHOD_MARK = {"interpolated": "~", "lower-bound": ">=", "exact": "", "caught-up": "", "none": ""}


def duration(ms: float | None) -> str:
    if ms is None:
        return "-"
    if ms == 0:
        return "0s"
    seconds = int(ms // 1000)
    if seconds < 60:
        return f"{ms / 1000:.1f}s" if ms < 10_000 else f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours < 48 else f"{hours // 24}d{hours % 24:02d}h"


def time_lag(ms: int | None, method: str) -> str:
    return "-" if ms is None else f"{_METHOD_MARK.get(method, '')}{duration(ms)}"


def trend(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}/s"


def eta(seconds: float | None, lag: int | None) -> str:
    if not lag:
        return "-"
    return "never" if seconds is None else duration(seconds * 1000)


def flags(r: PartitionReport) -> str:
    found = [
        name
        for name, on in (
            ("never-committed", r.never_committed),
            ("below-log-start", r.below_log_start),
            ("idle", r.idle),
        )
        if on
    ]
    return ",".join(found) or "-"


def rollup_table(console: Console, rows: list[Rollup], level: str, title: str) -> None:
    table = Table(box=None, pad_edge=False, title=title, title_justify="left")
    heads = {"group": "GROUP", "topic": "TOPIC", "member": "CONSUMER-ID"}
    leading = ["GROUP"] if level == "group" else ["GROUP", heads[level]]
    for column in (
        *leading,
        "STATUS",
        "PARTITIONS",
        "LAGGING",
        "LAG",
        "MAX-LAG",
        "MAX-TIME-LAG",
        "TREND",
        "ETA",
        *(["MEMBERS"] if level == "group" else []),
    ):
        table.add_column(
            column, justify="right" if column not in ("GROUP", "TOPIC", "CONSUMER-ID", "STATUS") else "left"
        )
    for r in rows:
        names = [r.group] if level == "group" else [r.group, r.name]
        members = [str(r.members) if r.members else "0 (no active members)"] if level == "group" else []
        table.add_row(
            *names,
            r.status,
            str(r.partitions),
            str(r.lagging),
            str(r.lag),
            str(r.max_lag),
            time_lag(r.max_time_lag_ms, r.max_time_lag_method),
            trend(r.trend),
            eta(r.eta_s, r.lag),
            *members,
        )
    print_wide(console, table)


def partition_table(console: Console, rows: list[PartitionReport], title: str) -> None:
    table = Table(box=None, pad_edge=False, title=title, title_justify="left")
    for column in (
        "GROUP",
        "TOPIC",
        "PARTITION",
        "STATUS",
        "LAG",
        "TIME-LAG",
        "CURRENT-OFFSET",
        "LOG-END-OFFSET",
        "CONSUMER-ID",
        "HOST",
        "FLAGS",
    ):
        table.add_column(
            column,
            justify="right"
            if column in ("PARTITION", "LAG", "TIME-LAG", "CURRENT-OFFSET", "LOG-END-OFFSET")
            else "left",
        )
    for r in rows:
        table.add_row(
            r.group,
            r.topic,
            str(r.partition),
            r.status,
            dash(r.lag),
            time_lag(r.time_lag_ms, r.time_lag_method),
            dash(r.committed_offset),
            dash(r.log_end_offset),
            ", ".join(r.readers) if r.readers else dash(r.member_id),  # a share partition's members all read it
            dash(r.host),
            flags(r),
        )
    print_wide(console, table)


def share_legend(console: Console, rows: list[PartitionReport]) -> None:
    """What LAG and CURRENT-OFFSET mean for share groups, when any is shown (docs/lag.md, "Share groups")."""
    groups = sorted({r.group for r in rows if r.lag_kind == SHARE_PARTITION_LAG})
    if groups:
        console.print(
            f"share group(s) {', '.join(groups)}: LAG is the share-partition lag the broker reports (KIP-1226), "
            "not committed-offset lag; CURRENT-OFFSET is the share-partition start offset; CONSUMER-ID lists "
            "every member reading the partition",
            markup=False,
        )


def method_legend(console: Console) -> None:
    console.print("TIME-LAG: ~ interpolated, >= lower bound, plain: exact or caught up", markup=False)


def report_body(r: PartitionReport) -> dict[str, Any]:
    return asdict(r)


def rollup_body(r: Rollup) -> dict[str, Any]:
    return {**asdict(r), "burrow_status": burrow_group_status(r.status)}


def analysis_body(dataset: str, result: Analysis) -> dict[str, Any]:
    """`lag analyze`'s JSON body (docs/lag.md): the question as answered, the rollups, the partitions, the
    recorder's gaps and the history behind the chart."""
    q = result.query
    return {
        "dataset": dataset,
        "as_of": q.as_of,
        "since": q.since,
        "window": q.window,
        "allowed_lag": q.allowed_lag,
        "isolation": q.isolation,
        "bucket_ms": q.bucket_ms,
        "groups": [rollup_body(r) for r in result.rollups if r.level == "group"],
        "topics": [rollup_body(r) for r in result.rollups if r.level == "topic"],
        "members": [rollup_body(r) for r in result.rollups if r.level == "member"],
        "partitions": [report_body(r) for r in result.partitions],
        "gaps": [
            {
                "cluster": g["cluster"],
                "start_ts": g["start_ts"],
                "end_ts": g["end_ts"],
                "attempts": g["attempts"],
                "reason": g["reason"],
            }
            for g in result.gaps
        ],
        "history": [
            {
                "cluster": h.cluster,
                "group": h.group,
                "bucket_ts": h.bucket_ts,
                "max_lag": h.max_lag,
                "max_time_lag_ms": h.max_time_lag_ms,
                "max_time_lag_lower_bound": h.max_time_lag_lower_bound,
            }
            for h in result.history
        ],
    }


def analysis_tables(console: Console, result: Analysis, top: int) -> None:
    """Groups, then the ten worst members, then the `top` worst partitions (0: all)."""
    if not result.partitions:
        console.print("no partitions in the selected history")
        return
    rollup_table(console, [r for r in result.rollups if r.level == "group"], "group", "Groups, worst first")
    console.print()
    members = [r for r in result.rollups if r.level == "member"][:10]
    rollup_table(console, members, "member", "Members, worst first")
    console.print()
    shown = result.partitions if top == 0 else result.partitions[:top]
    partition_table(console, shown, f"Partitions, worst first ({len(shown)} of {len(result.partitions)})")
    method_legend(console)
    share_legend(console, result.partitions)
