"""The timeline picture: one row per partition, a coloured bar per consumer, red where nobody consumed,
grey bands for rebalances, and the scenario's events on the time axis. Plain SVG (or SVG in a small HTML
page), viewable in any browser and readable at 1600 px.

The numbers on the picture are the text output's: rebalances carry their `#N`, events their time and
kind. On a `--protocol` page a consumer has one colour in every panel.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

from kgroup.assignors.coordinator.consumption import Gap, Segment, distinct
from kgroup.assignors.model import TopicPartition
from kgroup.cli.render.scenario import EVENTS_SHOWN, event_text, settle_cells
from kgroup.inspectors.simulation.protocol_comparison import ProtocolRun
from kgroup.inspectors.simulation.scenario_run import ScenarioOutcome

MAX_ROWS = 200
_PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#b07aa1",
    "#76b7b2",
    "#edc948",
    "#9c755f",
    "#17becf",
    "#8c564b",
    "#bcbd22",
    "#1f77b4",
    "#ff9da7",
)
UNCONSUMED = "#e15759"
REBALANCING = "#bdbdbd"  # the legend swatch: the bands' grey at their opacity over white
_LEFT, _WIDTH, _ROW, _FONT = 150, 1300, 16, 13
# Rows of event labels and of rebalance-band labels at most: a rolling restart of a large group is hundreds of
# events and rebalances, whose labels would stack down the page over the bars. Past these rows a marker or band
# keeps only its hover text, and the picture says how many are unlabelled.
EVENT_LABEL_ROWS, BAND_LABEL_ROWS = 4, 3
# Past this many events their lines down the plot are drawn lighter, so the bars still show between them.
_DENSE_EVENTS = 40


@dataclass(frozen=True)
class Marker:
    at_ms: int
    label: str
    kind: str = "event"  # event | not-modelled


def colours(owners: Sequence[str]) -> dict[str, str]:
    """One colour per consumer: the palette, then hues spread by the golden angle, so none repeats."""
    result = {}
    for i, owner in enumerate(owners):
        if i < len(_PALETTE):
            result[owner] = _PALETTE[i]
        else:
            hue = (i - len(_PALETTE)) * 137.508 % 360
            result[owner] = f"hsl({hue:.0f}, {55 + 20 * (i % 2)}%, {42 + 12 * (i % 3)}%)"
    return result


def round_ticks(end_ms: int, most: int = 12) -> list[int]:
    """Tick instants at a round step (1, 2 or 5 times a power of ten seconds, or whole minutes)."""
    steps = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400]
    span = max(end_ms, 1) / 1000
    step = next((s for s in steps if span / s <= most), steps[-1] * (int(span / steps[-1] / most) + 1))
    if span < most:
        step = next(s for s in (0.1, 0.2, 0.5, 1) if span / s <= most)
    step_ms = max(int(step * 1000), 1)
    return list(range(0, end_ms + 1, step_ms))


def _tick_label(ms: int, step_ms: int) -> str:
    """Minutes when every tick falls on a whole minute, else seconds: one unit along the axis."""
    if step_ms % 60_000 == 0:
        return f"{ms / 60_000:g}m"
    return f"{ms / 1000:g}s"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def page_title(source: str) -> str:
    """The scenario's file name, never the folder it sits in on the user's machine."""
    return os.path.basename(source)


def _event_markers(events: Sequence[object], skipped: Sequence[int] = ()) -> list[Marker]:
    markers = []
    for i, event in enumerate(events):
        text = f"{event_text(event)} at {event.at_ms / 1000:g}s"  # type: ignore[attr-defined]
        if i in skipped:
            markers.append(Marker(event.at_ms, f"not modelled: {text}", "not-modelled"))  # type: ignore[attr-defined]
        else:
            markers.append(Marker(event.at_ms, text))  # type: ignore[attr-defined]
    return markers


def timeline_svg(outcome: ScenarioOutcome) -> str:
    sim = outcome.simulation
    end = max(sim.now, 1)
    title = (
        f"{outcome.scenario.group.group_id}: partition ownership over {end / 1000:g} s "
        f"({plural(len(sim.rebalances), 'rebalance')}, {outcome.total_unconsumed_ms / 1000:.1f} "
        "partition-seconds unconsumed)"
    )
    bands = []
    for r, why in zip(sim.rebalances, outcome.explanations):
        still = "" if r.end is not None else " (still open)"
        bands.append(
            (
                r.start,
                r.end if r.end is not None else end,
                f"#{r.index}{still}",
                f"rebalance #{r.index}: {why.trigger}{still}",
            )
        )
    ranked = sorted(sim.created, key=lambda tp: (-outcome.unconsumed_ms(tp), tp))
    owners = list(sim.clients)
    return _picture(
        title,
        end,
        ranked,
        owners,
        colours(owners),
        sim.ledger.timelines(ranked[:MAX_ROWS]),
        outcome.gaps,
        bands,
        _event_markers(outcome.scenario.events),
    )


def timeline_html(outcome: ScenarioOutcome) -> str:
    scenario = outcome.scenario
    return _page(page_title(scenario.source), scenario, [timeline_svg(outcome)], scenario.rejected_settings)


def comparison_html(scenario: object, runs: list[ProtocolRun]) -> str:
    """One timeline per design, on the same scenario, one under the other; a consumer keeps its colour."""
    # The group's members in file order, then anyone who joined later: the order a single run's page uses too.
    members = [m.member_id for m in scenario.group.members]  # type: ignore[attr-defined]
    seen = {owner for run in runs if run.timeline for owner in run.timeline.owners}
    everyone = members + sorted(seen - set(members))
    palette = colours(everyone)
    panels = []
    for run in runs:
        picture = run.timeline
        assert picture is not None
        end = max(picture.end_ms, 1)
        # Partitions that moved together share one list of gaps: each list is summed once.
        per_list = {id(gs): sum(g.length(end) for g in gs) for gs, _ in distinct(picture.gaps)}
        unconsumed = {tp: per_list[id(gs)] for tp, gs in picture.gaps.items()}
        ranked = sorted(set(picture.segments) | set(picture.gaps), key=lambda tp: (-unconsumed.get(tp, 0), tp))
        settle = settle_cells(run)
        title = (
            f"{run.protocol}: {plural(run.rebalances, 'rebalance')}, {run.unconsumed_ms / 1000:.1f} "
            f"partition-seconds unconsumed, longest outage {run.longest_outage_ms / 1000:g} s"
        )
        bands = _numbered_bands(run.protocol, picture.bands)
        # Above the picture, where the page wraps it: a line of SVG text would run off the edge with many events.
        heading = f"<h2>{escape(run.protocol)}</h2><p>Time to stable per event: {escape(settle or '-')}</p>"
        if run.not_modelled:
            names = ", ".join(event_text(scenario.events[i]) for i in run.not_modelled)  # type: ignore[attr-defined]
            heading += (
                f'<p class="not-modelled">Not modelled in this design: {escape(names)}. Its numbers '
                "leave these events out (marked * in the text output).</p>"
            )
        owners = [o for o in everyone if o in picture.owners]
        markers = _event_markers(scenario.events, run.not_modelled)  # type: ignore[attr-defined]
        panels.append(
            heading + _picture(title, end, ranked, owners, palette, picture.segments, picture.gaps, bands, markers)
        )
    return _page(
        page_title(scenario.source),  # type: ignore[attr-defined]
        scenario,
        panels,
        scenario.rejected_settings,  # type: ignore[attr-defined]
        _COMPARED_BANDS,
    )


def _numbered_bands(protocol: str, merged: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, str, str]]:
    """Each band labelled with the rebalances it shades, counted in the design's order of start: "#3" or, where
    several overlapped and were merged into one band, "#3-5"."""
    bands, first = [], 1
    for start, stop, count in merged:
        label = f"#{first}" if count == 1 else f"#{first}-{first + count - 1}"
        what = "rebalance" if count == 1 else f"{count} overlapping rebalances"
        bands.append((start, stop, label, f"{protocol}: {what} {label}, {start / 1000:g}-{stop / 1000:g} s"))
        first += count
    return bands


_SINGLE_BANDS = "Grey bands: rebalancing (#N as in the text output)."
_COMPARED_BANDS = "Grey bands: rebalancing, numbered in each design's order (#3-5: three rebalances that overlapped)."


def _page(
    title: str, scenario: object, panels: list[str], warnings: Sequence[str], bands_note: str = _SINGLE_BANDS
) -> str:
    every = [f"{event_text(e)} at {e.at_ms / 1000:g}s" for e in scenario.events]  # type: ignore[attr-defined]
    description = getattr(scenario, "description", None)
    parts = [
        "<!doctype html>",
        '<html><head><meta charset="utf-8">',
        f"<title>kgroup timeline: {escape(title)}</title>",
        "<style>body{font-family:sans-serif;margin:16px;max-width:1560px}h1{font-size:22px;margin:0 0 4px}"
        "h2{font-size:18px;margin:18px 0 4px}p{font-size:14px;margin:4px 0}"
        ".warning{color:#8a4b00;font-weight:bold}.not-modelled{color:#8a4b00}</style>",
        "</head>",
        "<body>",
    ]
    for line in warnings:
        parts.append(f'<p class="warning">{escape(line)}</p>')
    parts.append(f"<h1>{escape(title)}" + (f": {escape(description)}" if description else "") + "</h1>")
    if len(every) <= EVENTS_SHOWN:
        parts.append(f"<p>Events: {escape('; '.join(every)) if every else 'none'}</p>")
    else:
        parts.append(
            f"<p>Events: {escape('; '.join(every[:EVENTS_SHOWN]))}; ... {len(every) - EVENTS_SHOWN} more</p>"
            f"<details><summary>all {len(every)} events</summary><p>{escape('; '.join(every))}</p></details>"
        )
    parts.extend(panels)
    parts.append(
        "<p>Each colour is one consumer (the same in every panel). Red: nobody consumed the partition. "
        f"{bands_note} Triangles: the scenario's events. Hover a "
        "bar for details.</p>"
    )
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _picture(
    title: str,
    end: int,
    ranked: list[TopicPartition],
    owners: list[str],
    colour: Mapping[str, str],
    timelines: Mapping[TopicPartition, list[Segment]],
    gaps: Mapping[TopicPartition, list[Gap]],
    bands: list[tuple[int, int, str, str]],
    markers: list[Marker],
) -> str:
    """`ranked`: partitions, most unconsumed first; the first MAX_ROWS are drawn, in partition order."""
    rows = sorted(ranked[:MAX_ROWS])
    left, width, row_h = _LEFT, _WIDTH, _ROW
    x = lambda ms: left + (width * ms) / end  # noqa: E731
    lanes = _marker_lanes(markers, end, width)
    unlabelled_events = sum(1 for lane in lanes.values() if lane >= EVENT_LABEL_ROWS)
    # the labelled rows, then one row of bare triangles for the events past them
    event_rows = min(max(lanes.values(), default=-1) + 1, EVENT_LABEL_ROWS) + (1 if unlabelled_events else 0)
    band_lanes = _band_label_lanes([(x(start), label) for start, _stop, label, _tip in bands])
    unlabelled_bands = sum(1 for (_, _, label, _), lane in zip(bands, band_lanes) if label and lane >= BAND_LABEL_ROWS)
    band_rows = min(max(band_lanes, default=-1) + 1, BAND_LABEL_ROWS)
    # title, event labels, then one row per lane of band labels (close rebalances stack, not overlap)
    top = 34 + 18 * event_rows + 14 * max(band_rows, 1) + 4
    plot_h = row_h * len(rows)
    legend_items = [(h, colour.get(h, "#888")) for h in owners] + [
        ("unconsumed", UNCONSUMED),
        ("rebalancing", REBALANCING),
    ]
    per_line = 8
    height = top + plot_h + 40 + 20 * ((len(legend_items) - 1) // per_line + 1) + 24
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 30}" height="{height}" '
        f'font-family="sans-serif" font-size="{_FONT}">',
        f'<text x="{left}" y="20" font-size="15" font-weight="bold">{escape(title)}</text>',
    ]
    for i, tp in enumerate(rows):
        y = top + i * row_h
        out.append(f'<text x="{left - 6}" y="{y + row_h - 4}" text-anchor="end">{escape(str(tp))}</text>')
        for gap in gaps.get(tp, ()):
            stop = gap.end if gap.end is not None else end
            if stop == gap.start:
                continue
            out.append(
                f'<rect x="{x(gap.start):.1f}" y="{y + 2}" width="{max(x(stop) - x(gap.start), 1):.1f}" '
                f'height="{row_h - 4}" fill="{UNCONSUMED}"><title>{escape(str(tp))} unconsumed '
                f"{gap.start / 1000:g}-{stop / 1000:g} s</title></rect>"
            )
        for seg in timelines.get(tp, ()):
            stop = seg.end if seg.end is not None else end
            out.append(
                f'<rect x="{x(seg.start):.1f}" y="{y + 2}" width="{max(x(stop) - x(seg.start), 0.5):.1f}" '
                f'height="{row_h - 4}" fill="{colour.get(seg.owner, "#888")}"><title>{escape(seg.owner)} '
                f"{seg.start / 1000:g}-{stop / 1000:g} s</title></rect>"
            )
    # Over the bars, see-through: a rebalance shows even where every partition is being consumed.
    for (start, stop, label, tip), lane in zip(bands, band_lanes):
        out.append(
            f'<rect x="{x(start):.1f}" y="{top - 4}" width="{max(x(stop) - x(start), 2):.1f}" '
            f'height="{plot_h + 8}" fill="#9a9a9a" fill-opacity="0.45" stroke="#666" stroke-width="0.5">'
            f"<title>{escape(tip)}</title></rect>"
        )
        if label and lane < BAND_LABEL_ROWS:
            out.append(
                f'<text x="{x(start):.1f}" y="{top - 8 - 14 * lane}" font-size="12" fill="#333">'
                f"{escape(label)}<title>{escape(tip)}</title></text>"
            )
    line_opacity = "0.25" if len(markers) > _DENSE_EVENTS else "0.7"
    for marker in markers:
        lane = lanes[id(marker)]
        labelled = lane < EVENT_LABEL_ROWS
        mx = x(marker.at_ms)
        ly = 34 + 18 * (lane if labelled else event_rows - 1) + 12
        fill = "#8a4b00" if marker.kind == "not-modelled" else "#222"
        dash = ' stroke-dasharray="4 3"' if marker.kind == "not-modelled" else ""
        out.append(
            f'<line x1="{mx:.1f}" y1="{ly + 2}" x2="{mx:.1f}" y2="{top + plot_h + 4}" stroke="{fill}" '
            f'stroke-width="1"{dash} opacity="{line_opacity}"/>'
        )
        out.append(
            f'<path d="M{mx - 5:.1f},{ly - 9} L{mx + 5:.1f},{ly - 9} L{mx:.1f},{ly} Z" fill="{fill}">'
            f"<title>{escape(marker.label)}</title></path>"
        )
        if not labelled:
            continue
        if _flipped(marker, end, width):
            out.append(f'<text x="{mx - 7:.1f}" y="{ly}" fill="{fill}" text-anchor="end">{escape(marker.label)}</text>')
        else:
            out.append(f'<text x="{mx + 7:.1f}" y="{ly}" fill="{fill}">{escape(marker.label)}</text>')
    axis_y = top + plot_h + 8
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + width}" y2="{axis_y}" stroke="#444"/>')
    ticks = round_ticks(end)
    step_ms = ticks[1] - ticks[0] if len(ticks) > 1 else 1000
    for ms in ticks:
        out.append(
            f'<line x1="{x(ms):.1f}" y1="{axis_y}" x2="{x(ms):.1f}" y2="{axis_y + 5}" stroke="#444"/>'
            f'<text x="{x(ms):.1f}" y="{axis_y + 19}" text-anchor="middle">{_tick_label(ms, step_ms)}</text>'
        )
    legend_y = axis_y + 44
    for i, (name, fill) in enumerate(legend_items):
        lx = left + (i % per_line) * 160
        ly = legend_y + (i // per_line) * 20
        out.append(
            f'<rect x="{lx}" y="{ly - 11}" width="13" height="13" fill="{fill}"/>'
            f'<text x="{lx + 18}" y="{ly}">{escape(name)}</text>'
        )
    notes = []
    if len(ranked) > len(rows):
        notes.append(f"showing the {len(rows)} partitions with the most unconsumed time of {len(ranked)}")
    if unlabelled_events or unlabelled_bands:
        left_off = [
            f"{count} of {total} {what}"
            for count, total, what in (
                (unlabelled_events, len(markers), "events"),
                (unlabelled_bands, sum(1 for band in bands if band[2]), "rebalance bands"),
            )
            if count
        ]
        notes.append(f"no label on {' and '.join(left_off)} (too close together): hover one to read it")
    if notes:
        out.append(f'<text x="{left}" y="{height - 6}">{escape("; ".join(notes))}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _marker_lanes(markers: list[Marker], end: int, width: int) -> dict[int, int]:
    """A label lane per marker, so that labels of nearby events do not overlap."""
    lanes: dict[int, int] = {}
    lane_ends: list[float] = []
    for marker in sorted(markers, key=lambda m: _extent(m, end, width)[0]):
        start, stop = _extent(marker, end, width)
        lane = next((i for i, taken in enumerate(lane_ends) if taken < start), len(lane_ends))
        if lane == len(lane_ends):
            lane_ends.append(stop)
        else:
            lane_ends[lane] = stop
        lanes[id(marker)] = lane
    return lanes


def _band_label_lanes(labels: list[tuple[float, str]]) -> list[int]:
    """A row per band label, in band order: a label that would touch the one before it goes a row higher."""
    lanes: list[int] = []
    lane_ends: list[float] = []
    for at, label in labels:
        if not label:
            lanes.append(0)
            continue
        lane = next((i for i, taken in enumerate(lane_ends) if taken + 3 < at), len(lane_ends))
        stop = at + 7.2 * len(label)  # font-size 12
        if lane == len(lane_ends):
            lane_ends.append(stop)
        else:
            lane_ends[lane] = stop
        lanes.append(lane)
    return lanes


def _label_width(marker: Marker) -> float:
    return 10 + 7.4 * len(marker.label)


def _flipped(marker: Marker, end: int, width: int) -> bool:
    """A label that would run off the right edge is written to the left of its marker."""
    return width * marker.at_ms / end + _label_width(marker) > width + 20


def _extent(marker: Marker, end: int, width: int) -> tuple[float, float]:
    at = width * marker.at_ms / end
    return (at - _label_width(marker), at) if _flipped(marker, end, width) else (at, at + _label_width(marker))
