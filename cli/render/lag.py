"""Tables and the chart for lag results: worst first, time lag next to message lag, the method shown."""

from __future__ import annotations

import html
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.table import Table

from kgroup.assignors.lag.burrow_status import burrow_group_status
from kgroup.assignors.lag.history import HistoryPoint, PartitionReport
from kgroup.assignors.lag.rollup import Rollup
from kgroup.cli.render.tables import dash, print_wide

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
    found = [name for name, on in (("never-committed", r.never_committed), ("below-log-start", r.below_log_start),
                                   ("idle", r.idle)) if on]
    return ",".join(found) or "-"


def rollup_table(console: Console, rows: list[Rollup], level: str, title: str) -> None:
    table = Table(box=None, pad_edge=False, title=title, title_justify="left")
    heads = {"group": "GROUP", "topic": "TOPIC", "member": "CONSUMER-ID"}
    leading = ["GROUP"] if level == "group" else ["GROUP", heads[level]]
    for column in (*leading, "STATUS", "PARTITIONS", "LAGGING", "LAG", "MAX-LAG", "MAX-TIME-LAG", "TREND", "ETA",
                   *(["MEMBERS"] if level == "group" else [])):
        table.add_column(column, justify="right" if column not in ("GROUP", "TOPIC", "CONSUMER-ID", "STATUS") else "left")
    for r in rows:
        names = [r.group] if level == "group" else [r.group, r.name]
        members = [str(r.members) if r.members else "0 (no active members)"] if level == "group" else []
        table.add_row(*names, r.status, str(r.partitions), str(r.lagging), str(r.lag), str(r.max_lag),
                      time_lag(r.max_time_lag_ms, r.max_time_lag_method), trend(r.trend), eta(r.eta_s, r.lag), *members)
    print_wide(console, table)


def partition_table(console: Console, rows: list[PartitionReport], title: str) -> None:
    table = Table(box=None, pad_edge=False, title=title, title_justify="left")
    for column in ("GROUP", "TOPIC", "PARTITION", "STATUS", "LAG", "TIME-LAG", "CURRENT-OFFSET", "LOG-END-OFFSET",
                   "CONSUMER-ID", "HOST", "FLAGS"):
        table.add_column(column, justify="right" if column in ("PARTITION", "LAG", "TIME-LAG", "CURRENT-OFFSET",
                                                                "LOG-END-OFFSET") else "left")
    for r in rows:
        table.add_row(r.group, r.topic, str(r.partition), r.status, dash(r.lag), time_lag(r.time_lag_ms,
                      r.time_lag_method), dash(r.committed_offset), dash(r.log_end_offset), dash(r.member_id),
                      dash(r.host), flags(r))
    print_wide(console, table)


def method_legend(console: Console) -> None:
    console.print("TIME-LAG: ~ interpolated, >= lower bound, plain: exact or caught up", markup=False)


def report_body(r: PartitionReport) -> dict[str, Any]:
    return asdict(r)


def rollup_body(r: Rollup) -> dict[str, Any]:
    return {**asdict(r), "burrow_status": burrow_group_status(r.status)}


_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd")


def chart_html(history: list[HistoryPoint], groups: list[str], title: str) -> str:
    """Two SVG panels (lag, time lag) with one line per group, for people, with no script or network."""
    panels = []
    for label, value, fmt in (("lag (messages, worst partition)", lambda p: p.max_lag, str),
                              ("time lag (worst partition)", lambda p: p.max_time_lag_ms, duration)):
        panels.append(_panel(history, groups, label, value, fmt))
    legend = "".join(f'<span style="color:{_COLOURS[i % len(_COLOURS)]}">&#9632; {html.escape(g)}</span> '
                     for i, g in enumerate(groups))
    return ("<!doctype html><meta charset='utf-8'><title>" + html.escape(title) + "</title>"
            "<body style='font-family:sans-serif'><h3>" + html.escape(title) + "</h3><p>" + legend + "</p>"
            + "".join(panels) + "</body>\n")


def _panel(history: list[HistoryPoint], groups: list[str], label: str, value: Any, fmt: Any) -> str:
    width, height, pad = 900, 260, 60
    points = [p for p in history if p.group in groups and value(p) is not None]
    if not points:
        return f"<p>{html.escape(label)}: no data</p>"
    t0, t1 = min(p.bucket_ts for p in points), max(p.bucket_ts for p in points)
    top = max(value(p) for p in points) or 1
    x = lambda t: pad + (t - t0) * (width - 2 * pad) / max(1, t1 - t0)  # noqa: E731
    y = lambda v: height - pad / 2 - v * (height - pad) / top  # noqa: E731
    lines = []
    for i, group in enumerate(groups):
        mine = sorted((p.bucket_ts, value(p)) for p in points if p.group == group)
        if mine:
            path = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in mine)
            lines.append(f'<polyline fill="none" stroke="{_COLOURS[i % len(_COLOURS)]}" stroke-width="2" '
                         f'points="{path}"/>')
    return (f'<svg width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
            f'<text x="{pad}" y="14" font-size="13">{html.escape(label)}</text>'
            f'<text x="4" y="{y(top) + 4:.0f}" font-size="11">{html.escape(fmt(top))}</text>'
            f'<text x="4" y="{y(0):.0f}" font-size="11">0</text>'
            f'<line x1="{pad}" y1="{y(0):.1f}" x2="{width - pad}" y2="{y(0):.1f}" stroke="#999"/>'
            + "".join(lines) + "</svg>")
