"""The lag chart `lag analyze --chart` writes: two SVG panels (lag, time lag) over real time, for people.

One line per group, each with its own colour (Okabe-Ito, readable by colour-blind eyes), dash pattern
and marker, so lines lying on top of each other stay tellable apart; a legend; time ticks in UTC; y ticks
at round values. A time lag that is only a lower bound (the history does not reach back to the record's
production) is drawn hollow, with a "≥" in its tooltip, as the tables print `>=`. No script, no network.
"""

from __future__ import annotations

import html
import math
from datetime import datetime, timezone
from typing import Any, Callable

from kgroup.assignors.lag.history import HistoryPoint
from kgroup.cli.render.lag import duration

COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
DASHES = ("", "8 4", "2 3", "10 3 2 3", "4 4")
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 960, 300, 80, 24, 28, 44
_TIME_STEPS_S = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)


def chart_html(history: list[HistoryPoint], groups: list[str], title: str) -> str:
    points = [p for p in history if p.group in groups]
    times = sorted({p.bucket_ts for p in points})
    span = (times[0], times[-1]) if times else (0, 0)
    # groups drawn first get the widest strokes, so a line hidden under a later one still shows as its edge
    style = {
        g: (COLOURS[i % len(COLOURS)], DASHES[i % len(DASHES)], 2.0 + 2.0 * (len(groups) - 1 - i))
        for i, g in enumerate(groups)
    }
    legend = "".join(
        f'<span class="key"><svg width="34" height="12"><line x1="1" y1="6" x2="33" y2="6" stroke="{c}" '
        f'stroke-width="3" stroke-dasharray="{d}"/></svg> {html.escape(g)}</span>'
        for g, (c, d, _) in style.items()
    )
    when = ""
    if times:
        first, last = (datetime.fromtimestamp(t / 1000, tz=timezone.utc) for t in span)
        when = f"{first:%Y-%m-%d %H:%M:%S} to {last:%Y-%m-%d %H:%M:%S} UTC, {len(times)} time buckets"
    panels = [
        _panel(
            points,
            style,
            span,
            "Lag (messages, worst partition of each group)",
            lambda p: p.max_lag,
            lambda p: False,
            _count,
        ),
        _panel(
            points,
            style,
            span,
            "Time lag (worst partition of each group)",
            lambda p: p.max_time_lag_ms,
            lambda p: p.max_time_lag_lower_bound,
            duration,
        ),
    ]
    note = (
        "<p class='note'>Groups listed first are drawn widest, so identical lines show as nested "
        "edges. Hollow markers: the time lag is a lower bound (&ge;), the history does not reach "
        "back to when the first unread record was written; the true value is at least this.</p>"
    )
    return (
        "<!doctype html><meta charset='utf-8'><title>" + html.escape(title) + "</title>"
        "<style>body{font-family:sans-serif;margin:16px;color:#222}.key{margin-right:18px;white-space:nowrap}"
        ".note{color:#555;font-size:13px}h3{margin-bottom:2px}</style>"
        "<body><h3>"
        + html.escape(title)
        + "</h3><div class='note'>"
        + html.escape(when)
        + "</div><p>"
        + legend
        + "</p>"
        + "".join(panels)
        + note
        + "</body>\n"
    )


def _count(value: float) -> str:
    value = int(value)
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if abs(value) >= 10_000:
        return f"{value / 1000:g}k"
    return str(value)


def _panel(
    points: list[HistoryPoint],
    style: dict[str, tuple[str, str, float]],
    span: tuple[int, int],
    label: str,
    value: Callable[[HistoryPoint], Any],
    floor: Callable[[HistoryPoint], bool],
    fmt: Callable[[float], str],
) -> str:
    drawn = [p for p in points if value(p) is not None]
    if not drawn:
        return f"<p>{html.escape(label)}: no data</p>"
    t0, t1 = span
    if t1 == t0:
        t0, t1 = t0 - 30_000, t1 + 30_000  # one bucket: a point in the middle, not a division by zero
    ticks = _y_ticks(max(value(p) for p in drawn), time_axis=fmt is duration)
    top = ticks[-1]
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t: float) -> float:
        return LEFT + (t - t0) * inner_w / (t1 - t0)

    def y(v: float) -> float:
        return TOP + inner_h - v * inner_h / top

    parts = [
        f'<svg width="{WIDTH}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg" font-size="12">',
        f'<text x="{LEFT}" y="16" font-size="14" font-weight="bold">{html.escape(label)}</text>',
    ]
    for tick in ticks:
        parts.append(
            f'<line x1="{LEFT}" y1="{y(tick):.1f}" x2="{WIDTH - RIGHT}" y2="{y(tick):.1f}" '
            f'stroke="{"#888" if tick == 0 else "#e3e3e3"}"/>'
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{html.escape(fmt(tick))}</text>'
        )
    for t in _time_ticks(t0, t1):
        parts.append(
            f'<line x1="{x(t):.1f}" y1="{TOP}" x2="{x(t):.1f}" y2="{TOP + inner_h}" stroke="#f0f0f0"/>'
            f'<line x1="{x(t):.1f}" y1="{TOP + inner_h}" x2="{x(t):.1f}" y2="{TOP + inner_h + 5}" '
            f'stroke="#888"/><text x="{x(t):.1f}" y="{TOP + inner_h + 18}" text-anchor="middle">'
            f"{datetime.fromtimestamp(t / 1000, tz=timezone.utc):%H:%M:%S}</text>"
        )
    parts.append(
        f'<text x="{LEFT + inner_w / 2:.0f}" y="{HEIGHT - 6}" text-anchor="middle" fill="#555">time (UTC)</text>'
    )
    for group, (colour, dash, width) in style.items():
        mine = sorted((p for p in drawn if p.group == group), key=lambda p: p.bucket_ts)
        if not mine:
            continue
        path = " ".join(f"{x(p.bucket_ts):.1f},{y(value(p)):.1f}" for p in mine)
        radius = 3.5 if len(mine) <= 40 else 2.5
        parts.append(
            f'<g class="series" data-group="{html.escape(group)}"><polyline fill="none" stroke="{colour}" '
            f'stroke-width="{width:g}" stroke-dasharray="{dash}" stroke-linejoin="round" points="{path}"/>'
        )
        for p in mine:
            hollow = floor(p)
            when = datetime.fromtimestamp(p.bucket_ts / 1000, tz=timezone.utc)
            tip = f"{group} {when:%H:%M:%S}: {'≥' if hollow else ''}{fmt(value(p))}"
            parts.append(
                f'<circle cx="{x(p.bucket_ts):.1f}" cy="{y(value(p)):.1f}" r="{radius}" stroke="{colour}" '
                f'stroke-width="1.5" fill="{"white" if hollow else colour}"><title>{html.escape(tip)}'
                "</title></circle>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _y_ticks(highest: float, time_axis: bool) -> list[float]:
    """0 and 3 to 6 round steps up to at least `highest` (1-2-5 steps; for times, whole s, m or h)."""
    if highest <= 0:
        return [0, 1000] if time_axis else [0, 1]
    raw = highest / 4
    if time_axis:
        steps = [s * 1000 for s in _TIME_STEPS_S] + [86_400_000 * d for d in (2, 7, 14, 30)]
        step = next((s for s in steps if s >= raw), steps[-1])
    else:
        magnitude = 10 ** math.floor(math.log10(raw)) if raw >= 1 else 1
        step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    return [i * step for i in range(int(math.ceil(highest / step)) + 1)]


def _time_ticks(t0: float, t1: float) -> list[int]:
    """Round UTC times between t0 and t1, 4 to 10 of them."""
    span_s = (t1 - t0) / 1000
    step = next((s for s in _TIME_STEPS_S if span_s / s <= 8), _TIME_STEPS_S[-1]) * 1000
    first = int(math.ceil(t0 / step) * step)
    return list(range(first, int(t1) + 1, step))
