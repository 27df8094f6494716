"""The timeline picture: one row per partition, a coloured bar per consumer, red where nobody consumed,
grey bands for rebalances. Plain SVG (or SVG in a small HTML page), viewable in any browser."""

from __future__ import annotations

from html import escape

from collections.abc import Mapping

from kgroup.assignors.coordinator.consumption import Gap, Segment
from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.simulation.protocol_comparison import ProtocolRun
from kgroup.inspectors.simulation.scenario_run import ScenarioOutcome

MAX_ROWS = 200
_PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac",
            "#17becf", "#8c564b", "#bcbd22", "#1f77b4")


def timeline_svg(outcome: ScenarioOutcome) -> str:
    sim = outcome.simulation
    end = max(sim.now, 1)
    title = (f"{outcome.scenario.group.group_id}: partition ownership over {end / 1000:g} s "
             f"({len(sim.rebalances)} rebalances, {outcome.total_unconsumed_ms / 1000:.1f} partition-seconds "
             "unconsumed)")
    bands = [(r.start, r.end if r.end is not None else end, f"rebalance {r.index}: {r.trigger}") for r in sim.rebalances]
    ranked = sorted(sim.created, key=lambda tp: (-outcome.unconsumed_ms(tp), tp))
    return _picture(title, end, ranked, list(sim.clients), sim.ledger.timelines(ranked[:MAX_ROWS]), outcome.gaps,
                    bands)


def comparison_html(source: str, runs: list[ProtocolRun]) -> str:
    """One timeline per design, on the same scenario, one under the other."""
    parts = [f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>kgroup: {escape(source)}</title>"
             "</head>\n<body>"]
    for run in runs:
        picture = run.timeline
        assert picture is not None
        end = max(picture.end_ms, 1)
        unconsumed = {tp: sum(g.length(end) for g in gs) for tp, gs in picture.gaps.items()}
        ranked = sorted(set(picture.segments) | set(picture.gaps), key=lambda tp: (-unconsumed.get(tp, 0), tp))
        title = (f"{run.protocol}: {run.rebalances} rebalances, {run.unconsumed_ms / 1000:.1f} partition-seconds "
                 f"unconsumed, longest outage {run.longest_outage_ms / 1000:g} s")
        bands = [(start, stop, "rebalancing") for start, stop in picture.bands]
        parts.append(f"<h3>{escape(run.protocol)}</h3>")
        parts.append(_picture(title, end, ranked, list(picture.owners), picture.segments, picture.gaps, bands))
    parts.append("<p>Red: nobody consumed the partition. Grey bands: rebalancing. Hover a bar for details.</p>"
                 "\n</body></html>\n")
    return "\n".join(parts)


def _picture(title: str, end: int, ranked: list[TopicPartition], owners: list[str],
             timelines: Mapping[TopicPartition, list[Segment]], gaps: Mapping[TopicPartition, list[Gap]],
             bands: list[tuple[int, int, str]]) -> str:
    """`ranked`: partitions, most unconsumed first; the first MAX_ROWS are drawn, in partition order."""
    rows = sorted(ranked[:MAX_ROWS])
    colour = {h: _PALETTE[i % len(_PALETTE)] for i, h in enumerate(owners)}
    left, top, row_h, width = 120, 40, 14, 900
    height = top + row_h * len(rows) + 60 + 14 * ((len(owners) - 1) // 8 + 1)
    x = lambda ms: left + (width * ms) / end  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="16" font-size="13">{escape(title)}</text>']
    for start, stop, label in bands:
        out.append(f'<rect x="{x(start):.1f}" y="{top - 4}" width="{max(x(stop) - x(start), 1):.1f}" '
                   f'height="{row_h * len(rows) + 8}" fill="#dddddd"><title>{escape(label)}</title></rect>')
    for i, tp in enumerate(rows):
        y = top + i * row_h
        out.append(f'<text x="{left - 6}" y="{y + row_h - 4}" text-anchor="end">{escape(str(tp))}</text>')
        for gap in gaps.get(tp, ()):
            stop = gap.end if gap.end is not None else end
            out.append(f'<rect x="{x(gap.start):.1f}" y="{y + 2}" width="{max(x(stop) - x(gap.start), 1):.1f}" '
                       f'height="{row_h - 4}" fill="#e15759"><title>{escape(str(tp))} unconsumed '
                       f'{gap.start / 1000:g}-{stop / 1000:g} s</title></rect>')
        for seg in timelines.get(tp, ()):
            stop = seg.end if seg.end is not None else end
            out.append(f'<rect x="{x(seg.start):.1f}" y="{y + 2}" width="{max(x(stop) - x(seg.start), 0.5):.1f}" '
                       f'height="{row_h - 4}" fill="{colour.get(seg.owner, "#888")}"><title>{escape(seg.owner)} '
                       f'{seg.start / 1000:g}-{stop / 1000:g} s</title></rect>')
    axis_y = top + row_h * len(rows) + 14
    for k in range(11):
        ms = end * k // 10
        out.append(f'<text x="{x(ms):.1f}" y="{axis_y}" text-anchor="middle">{ms / 1000:g}s</text>')
    legend_y = axis_y + 20
    for i, h in enumerate(owners):
        lx = left + (i % 8) * 110
        ly = legend_y + (i // 8) * 14
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{colour[h]}"/>'
                   f'<text x="{lx + 14}" y="{ly}">{escape(h)}</text>')
    if len(ranked) > len(rows):
        out.append(f'<text x="{left}" y="{height - 4}">showing the {len(rows)} partitions with the most unconsumed '
                   f'time of {len(ranked)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def timeline_html(outcome: ScenarioOutcome) -> str:
    title = escape(f"kgroup timeline: {outcome.scenario.group.group_id}")
    return (f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body>\n"
            f"{timeline_svg(outcome)}\n<p>Red: nobody consumed the partition. Grey bands: rebalances. "
            "Hover a bar for details.</p>\n</body></html>\n")
