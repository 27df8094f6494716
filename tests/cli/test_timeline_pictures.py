"""The --timeline-out pages as people see them: rendered in headless Chromium (Debian `chromium`), and read
back from the SVG for what a reader relies on (one colour per consumer, events on the axis, round ticks).

The browser is required: without it the test fails and says how to install it (.ci/run installs it)."""

from __future__ import annotations

import os
import re
from pathlib import Path


from kgroup.cli.render.timeline_svg import colours, round_ticks
from tests.browser import colours_seen, pixels, screenshot
from tests.cli.helpers import FIXTURES, one_topic_scenario, run

ALL = "classic-eager,classic-cooperative,consumer,zk-watcher,external"
PAUSES = """\
schema: kgroup/v1
kind: scenario
description: pauses and slow batches
cluster: {topics: [{name: orders, partitions: 8}, {name: audit, partitions: 2}]}
groups:
  - group_id: orders-app
    protocol: classic
    assignors: [range]
    members: [{member_id: c1, topics: [orders, audit]}, {member_id: c2, topics: [orders, audit]},
              {member_id: c3, topics: [orders, audit]}]
    generation: 1
    assignment: {c1: {orders: [0, 1, 2], audit: [0]}, c2: {orders: [3, 4, 5], audit: [1]}, c3: {orders: [6, 7]}}
events:
  - slow-poll c3 at 30s processing 400s
  - gc-pause c1 at 1m for 50s
  - subscribe c2 at 3m topics orders
  - add-partitions orders +2 at 4m
"""


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


def test_each_page_renders_in_a_real_browser(tmp_path: Path) -> None:
    scenario = tmp_path / "pauses.yaml"
    scenario.write_text(PAUSES)
    pages = {
        "single.html": ("simulate", str(scenario)),
        "single.svg": ("simulate", str(scenario)),
        "compare.html": ("simulate", str(scenario), "--protocol", ALL),
    }
    for name, args in pages.items():
        result = run(*args, "--timeline-out", str(tmp_path / name))
        assert result.exit_code == 0, result.output
        shot = screenshot(tmp_path / name, tmp_path / f"{name}.png", 1600, 1400)
        width, height, channels, rows = pixels(shot.read_bytes())
        seen = colours_seen(rows, channels)
        assert (width, height) == (1600, 1400)
        # The consumers' colours and the red of unconsumed time are on screen, not just in the file.
        for colour in ("#4e79a7", "#f28e2b", "#59a14f", "#e15759"):
            assert _rgb(colour) in seen, (name, colour)
        assert len(seen) > 20, name


def test_a_comparison_page_keeps_one_colour_per_consumer_and_marks_what_a_design_cannot_express(tmp_path: Path) -> None:
    scenario = tmp_path / "pauses.yaml"
    scenario.write_text(PAUSES)
    out = tmp_path / "compare.html"
    assert run("simulate", str(scenario), "--protocol", ALL, "--timeline-out", str(out)).exit_code == 0
    page = out.read_text()
    fills: dict[str, set[str]] = {}
    for fill, owner in re.findall(r'fill="([^"]+)"><title>(c\d) ', page):
        fills.setdefault(owner, set()).add(fill)
    assert set(fills) == {"c1", "c2", "c3"} and all(len(f) == 1 for f in fills.values()), fills
    assert len({next(iter(f)) for f in fills.values()}) == 3
    # subscribe: neither older design can change one consumer's subscription; each panel says so.
    assert page.count("Not modelled in this design: subscribe c2") == 2
    assert page.count(">not modelled: subscribe c2 topics orders at 180s</text>") == 2
    assert page.count("<title>not modelled: subscribe c2 topics orders at 180s</title>") == 2  # its triangle's
    for event in (
        "slow-poll c3 processing 400s at 30s",
        "gc-pause c1 for 50s at 60s",
        "add-partitions orders to 10 at 240s",
    ):
        assert page.count(f">{event}</text>") == 5, event
    assert "<title>kgroup timeline: pauses.yaml</title>" in page and str(tmp_path) not in page.split("<body>")[0]
    assert "unconsumed</text>" in page and not re.search(r"\b1 rebalances", page)


def test_ticks_fall_on_round_times_and_many_consumers_get_distinct_colours() -> None:
    assert round_ticks(1_200_000) == list(range(0, 1_200_001, 120_000))
    assert round_ticks(330_000) == list(range(0, 330_001, 30_000))
    assert round_ticks(7_000)[:3] == [0, 1_000, 2_000]
    many = colours([f"c{i}" for i in range(40)])
    assert len(set(many.values())) == 40


def test_pictures_are_written_with_the_users_umask(tmp_path: Path) -> None:
    out = tmp_path / "storm.html"
    old = os.umask(0o022)
    try:
        assert run("simulate", "scenario-storm", "--timeline-out", str(out)).exit_code == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644
    assert str(FIXTURES) not in out.read_text().split("<body>")[0]


_BAND_LABEL = re.compile(r'<text x="([\d.]+)" y="([\d.]+)" font-size="12" fill="#333">(#[\d-]+)<title>([^<]*)</title>')


def _band_labels(svg: str) -> list[tuple[float, float, str, str]]:
    return [(float(x), float(y), label, tip) for x, y, label, tip in _BAND_LABEL.findall(svg)]


def test_labels_of_close_rebalances_do_not_overlap_and_every_compared_band_is_numbered(tmp_path: Path) -> None:
    single, compared = tmp_path / "tour.html", tmp_path / "compare.html"
    tour = str(FIXTURES / "scenario-tour.yaml")
    assert run("simulate", tour, "--timeline-out", str(single)).exit_code == 0
    result = run("simulate", tour, "--protocol", ALL, "--timeline-out", str(compared))
    assert result.exit_code == 0, result.output
    # scenario-tour's rebalances #3 and #4 start 4 s apart, a few pixels: they used to print as "#3#4".
    labels = _band_labels(single.read_text())
    assert [label for _, _, label, _ in labels] == [f"#{n}" for n in range(1, 8)]
    for panel in [single.read_text()] + compared.read_text().split("<h2>")[1:]:
        placed = sorted(_band_labels(panel), key=lambda item: (item[1], item[0]))
        for (x1, y1, a, _), (x2, y2, b, _) in zip(placed, placed[1:]):
            if y1 == y2:  # same row: the next label starts after this one's last glyph (7 px per glyph)
                assert x2 >= x1 + 7 * len(a), (a, b, x1, x2)
    # The comparison page promises #N on its grey bands: each band is numbered, and the numbers count every
    # rebalance of the design once (merged overlapping rebalances read "#9-10").
    counts = dict(re.findall(r"^(\S+)\s+(\d+)\s", result.output, flags=re.MULTILINE))
    for panel in compared.read_text().split("<h2>")[1:]:
        protocol = panel.split("</h2>")[0]
        numbers: list[int] = []
        for _, _, label, tip in _band_labels(panel):
            first, _, last = label[1:].partition("-")
            numbers.extend(range(int(first), int(last or first) + 1))
            assert tip.startswith(f"{protocol}: "), tip
        assert numbers == list(range(1, int(counts[protocol]) + 1)), protocol
    assert "numbered in each design's order" in compared.read_text()


def test_a_hundred_events_keep_their_labels_in_a_few_rows_above_the_bars(tmp_path: Path) -> None:
    # 30 eager members, one restart every 6 s: 100 events and two rebalances each, a few pixels apart on a
    # 20-minute axis. Their labels used to stack a row each, down the page, over the bars.
    members = [f"m{i:02}" for i in range(30)]
    restarts = [f"restart {members[k % 30]} at {10 + 6 * k}s down 1s" for k in range(100)]
    scenario = one_topic_scenario(tmp_path / "busy.yaml", members, duration="20m", events=restarts)
    out = tmp_path / "busy.html"
    result = run("simulate", str(scenario), "--timeline-out", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text()
    svg = page.split("<svg", 1)[1]
    event_labels = re.findall(r'<text x="[\d.]+" y="(\d+)"[^>]*>restart m\d\d down 1s at \d+s</text>', svg)
    band_labels = _band_labels(svg)
    assert 0 < len(event_labels) < 100 and len(set(event_labels)) <= 4
    assert len(band_labels) > 0 and len({y for _, y, _, _ in band_labels}) <= 3
    # Every event keeps its triangle, and its label as hover text; the picture says how many are unlabelled.
    assert len(re.findall(r"Z\" fill=\"#222\"><title>restart m\d\d down 1s at \d+s</title>", svg)) == 100
    rebalances = int(re.search(r"\((\d+) rebalances", svg).group(1))  # type: ignore[union-attr]
    assert rebalances > len(band_labels)
    assert (
        f"no label on {100 - len(event_labels)} of 100 events and {rebalances - len(band_labels)} of {rebalances} "
        "rebalance bands (too close together): hover one to read it</text>"
    ) in svg
    # The page lists 20 events and folds the whole list under them.
    assert "restart m19 down 1s at 124s; ... 80 more</p>" in page
    assert "<summary>all 100 events</summary>" in page and "restart m09 down 1s at 604s" in page
    # In a browser, the bars start high enough to show in a short window.
    shot = screenshot(out, tmp_path / "busy.png", 1600, 420)
    width, height, channels, rows = pixels(shot.read_bytes())
    assert _rgb(colours(members)["m00"]) in colours_seen(rows, channels)
