"""The lag chart as a person sees it: drawn by headless Chromium (Debian's `chromium`; .ci/run installs it),
the screenshot's pixels checked for each group's line, on the README walk-through's short history."""

from __future__ import annotations

import os
from pathlib import Path


from kgroup.assignors.lag.samples import CommitSample, LogSample
from kgroup.cli.render.lag_chart import COLOURS
from kgroup.inspectors.lag.dataset import write_all
from tests.browser import pixels, screenshot
from tests.cli.helpers import run


def _walk_through(path: Path, groups: list[str]) -> None:
    """The README's history: 6 polls 5 s apart over 25 s; `orders-0` grows 10/s past a stopped group, and
    every group lags by a different amount."""
    start = 1_795_000_000_000
    commits, logs = [], []
    for poll in range(6):
        ts = start + poll * 5_000
        logs.append(LogSample("c", "orders", 0, 0, 30 + 50 * poll, None, ts))
        for i, group in enumerate(groups):
            commits.append(CommitSample("c", group, "orders", 0, 10 + 5 * i, start, None, None, None, None, ts))
    write_all(str(path), commits, logs)


def _count(rows: list[bytes], channels: int, colour: str) -> int:
    want = bytes.fromhex(colour[1:])
    return sum(1 for row in rows for x in range(0, len(row), channels) if row[x : x + 3] == want)


def test_the_walk_through_chart_draws_a_line_per_group_on_a_time_axis(tmp_path: Path) -> None:
    groups = ["billing", "audit", "search"]
    history = tmp_path / "history"
    _walk_through(history, groups)
    chart = tmp_path / "lag.html"
    os.umask(0o022)

    result = run("lag", "analyze", str(history), "--window", "6", "--chart", str(chart))

    assert result.exit_code == 0, result.output
    assert chart.stat().st_mode & 0o777 == 0o644  # the user's umask, not mkstemp's 0600
    text = chart.read_text()
    assert text.count('class="series"') == 2 * len(groups)  # every group, in both panels
    assert all(f">11:0{t}<" in text for t in ("6:45", "6:50", "6:55", "7:00", "7:05"))  # UTC times, 5 s apart
    assert text.count("<circle") == 2 * 6 * len(groups)  # 1 s buckets from the 25 s span: every poll a point
    shot = screenshot(chart, tmp_path / "lag.png", 1000, 800)
    _, _, channels, rows = pixels(shot.read_bytes())
    for i, group in enumerate(groups):
        assert _count(rows, channels, COLOURS[i]) > 200, f"no line drawn for {group} ({COLOURS[i]})"
