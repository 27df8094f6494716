"""Share groups (KIP-932) in the offset history: their own table, read back, analyzed with the broker's lag,
and the sampler's reading of them (a v0 broker's missing lag said once)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from kgroup.assignors.lag.samples import CommitSample, LagQuery, LogSample, ShareSample
from kgroup.inspectors.errors import InputError, NotFoundError
from kgroup.inspectors.lag import dataset
from kgroup.inspectors.lag import sampler as sampler_module
from kgroup.inspectors.lag.analysis import IN_PROCESS, Selection, run
from kgroup.inspectors.lag.sampler import GroupChooser, Sampler
from kgroup.inspectors.live.share_groups import ShareGroup
from kgroup.inspectors.live.wire.share_group_describe import ShareMember
from kgroup.inspectors.live.wire.share_group_offsets import SharePartitionOffset

pytest.importorskip("pyarrow", reason="the offset history is Parquet (the spark extra)")

T0 = 1_700_000_000_000


def _history(path: str) -> None:
    dataset.create(path)
    dataset.append(
        path,
        [CommitSample("c", "consumers", "t", 0, 8, T0, "m", "cl", "h", 1, T0)],
        [LogSample("c", "t", 0, 0, 20, None, T0), LogSample("c", "t", 1, 0, 9, None, T0)],
        [
            ShareSample("c", "shared", "t", 0, 10, 4, T0, ("a", "b"), 3, T0),
            ShareSample("c", "shared", "t", 1, None, None, T0, (), 3, T0),
        ],
    )


def test_share_samples_go_to_their_own_table_and_read_back(tmp_path: Any) -> None:
    path = str(tmp_path / "h")
    _history(path)
    assert dataset.read_shares(path) == [
        ShareSample("c", "shared", "t", 0, 10, 4, T0, ("a", "b"), 3, T0),
        ShareSample("c", "shared", "t", 1, None, None, T0, (), 3, T0),
    ]
    commits, _ = dataset.read_samples(path)
    assert [c.group for c in commits] == ["consumers"]  # nothing of the share group among the commits
    assert json.loads((tmp_path / "h" / dataset.MARKER).read_text())["version"] == 1
    # a resumed recording dates an unchanged start offset from when it was first seen, as a commit
    resumed, _ = dataset.newest_commits(path)
    assert resumed[("c", "shared", "t", 0)] == (10, T0) and resumed[("c", "consumers", "t", 0)] == (8, T0)


def test_a_lag_kind_this_kgroup_does_not_know_is_refused(tmp_path: Any) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = str(tmp_path / "h")
    _history(path)
    (file,) = dataset.table_files(path, dataset.SHARES)
    table = pq.read_table(file)
    kinds = table.column_names.index("lag_kind")
    pq.write_table(table.set_column(kinds, "lag_kind", pa.array(["records"] * len(table))), file)
    with pytest.raises(InputError, match="share_partitions.lag_kind: expected 'share-partition'"):
        dataset.read_shares(path)


def test_lag_analyze_in_process_reports_share_partitions_with_their_lag_kind(tmp_path: Any) -> None:
    path = str(tmp_path / "h")
    _history(path)
    result = run(path, IN_PROCESS, lambda newest: LagQuery(as_of=newest), Selection())
    rows = {(r.group, r.partition): (r.lag, r.lag_kind, r.status, r.readers) for r in result.partitions}
    # one poll, lag above 0: Burrow's rule 4 (every commit the same offset) for both kinds; the share lag is
    # the broker's 4, not 20 - 10; no lag from the broker is UNKNOWN
    assert rows == {
        ("consumers", 0): (12, "committed", "STALL", []),
        ("shared", 0): (4, "share-partition", "STALL", ["a", "b"]),
        ("shared", 1): (None, "share-partition", "UNKNOWN", []),
    }
    only = run(path, IN_PROCESS, lambda newest: LagQuery(as_of=newest), Selection(("shared",)))
    assert {r.group for r in only.partitions} == {"shared"}


def test_a_history_of_share_groups_only_is_not_sent_to_spark(tmp_path: Any) -> None:
    path = str(tmp_path / "h")
    dataset.create(path)
    dataset.append(
        path, [], [LogSample("c", "t", 0, 0, 20, None, T0)], [ShareSample("c", "s", "t", 0, 1, 2, T0, (), 1, T0)]
    )
    with pytest.raises(InputError, match="--engine in-process"):
        run(path, "local[1]", lambda newest: LagQuery(as_of=newest), Selection())


class _Admin:
    def __init__(self) -> None:
        self.settings = SimpleNamespace(bootstrap_servers="b:9092")

    def metadata(self) -> Any:
        return SimpleNamespace(cluster_id="c")

    def forget_metadata(self) -> None:
        pass

    def log_bounds(self, partitions: list[Any], isolation: str) -> dict[Any, tuple[int, int]]:
        return {tp: (0, 20) for tp in partitions}

    def log_ends(self, partitions: list[Any], isolation: str) -> dict[Any, int]:
        return {tp: 20 for tp in partitions}


def test_a_share_group_is_polled_and_a_v0_brokers_missing_lag_is_said_once(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[list[str]] = []

    def read_groups(admin: Any, group_ids: list[str], isolation: str) -> Any:
        asked.append(list(group_ids))
        raise NotFoundError(f"group {group_ids[0]!r} does not exist")

    note = "the broker's DescribeShareGroupOffsets is v0, which has no lag (KIP-1226 adds it in v1): LAG is unknown"
    member = ShareMember("a", None, 3, "client", "/h", ("t",), (("t", 0),))
    group = ShareGroup(
        "s", "Stable", 3, 3, "simple", None, (member,), (SharePartitionOffset("t", 0, 10, 0, None),), 0, (note,)
    )
    monkeypatch.setattr(sampler_module, "read_groups", read_groups)
    monkeypatch.setattr(sampler_module, "read_share_groups", lambda admin, ids: {"s": group} if "s" in ids else {})
    sampler = Sampler(_Admin(), GroupChooser(("s",)))  # type: ignore[arg-type]
    first = sampler.poll_all(T0)
    second = sampler.poll_all(T0 + 1_000)
    assert first.shares == [ShareSample("c", "s", "t", 0, 10, None, T0, ("a",), 3, T0)]
    assert second.shares == [ShareSample("c", "s", "t", 0, 10, None, T0, ("a",), 3, T0 + 1_000)]
    assert [log.high_watermark for log in first.logs] == [20]
    assert (first.notes, second.notes) == ([f"group s: {note}"], [])
    assert asked == [["s"]]  # known to be a share group after the first poll: not asked as a consumer group again
    assert first.commits == [] and sampler.poll(T0 + 2_000)[0] == []


def test_a_group_that_is_neither_is_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    def read_groups(admin: Any, group_ids: list[str], isolation: str) -> Any:
        raise NotFoundError("group 'x' does not exist")

    monkeypatch.setattr(sampler_module, "read_groups", read_groups)
    monkeypatch.setattr(sampler_module, "read_share_groups", lambda admin, ids: {})
    with pytest.raises(NotFoundError, match="'x' does not exist"):
        Sampler(_Admin(), GroupChooser(("x",))).poll_all(T0)  # type: ignore[arg-type]
