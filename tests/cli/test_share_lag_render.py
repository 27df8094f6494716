"""The lag tables name a share group's lag kind and every member reading its partitions (docs/lag.md,
"Share groups"); a consumer group's tables are as before."""

from __future__ import annotations

import io

from rich.console import Console

from kgroup.assignors.lag.samples import LagQuery, LogSample, ShareSample
from kgroup.assignors.lag.share_lag import analyze_shares
from kgroup.cli.render.lag import partition_table, share_legend

T0 = 1_700_000_000_000


def _rendered(rows: list) -> str:
    console = Console(width=300, record=True, file=io.StringIO())
    partition_table(console, rows, "Partitions")
    share_legend(console, rows)
    return console.export_text()


def test_a_share_partition_lists_its_readers_and_the_lag_kind_is_said() -> None:
    reports, _ = analyze_shares(
        [ShareSample("c", "queue", "t", 0, 10, 4, T0, ("member-a", "member-b"), 1, T0)],
        [LogSample("c", "t", 0, 0, 20, None, T0)],
        LagQuery(as_of=T0),
    )
    text = _rendered(reports)
    assert "member-a, member-b" in text
    assert "share group(s) queue: LAG is the share-partition lag the broker reports (KIP-1226)" in text


def test_no_share_line_without_share_groups() -> None:
    assert "share group" not in _rendered([])
