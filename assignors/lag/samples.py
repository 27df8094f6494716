"""The two sample tables of an offset history (docs/lag.md, "The offset-history data set") and the question
asked of them.

A commit sample is what one poll saw of one group's committed offset on one partition, with the
partition's owner at that moment; a log sample is one poll of a partition's log bounds. Times are
integer milliseconds since the epoch, as everywhere in the pure core.
"""

from __future__ import annotations

from dataclasses import dataclass

READ_UNCOMMITTED, READ_COMMITTED = "read_uncommitted", "read_committed"


@dataclass(frozen=True, slots=True)
class CommitSample:
    cluster: str
    group: str
    topic: str
    partition: int
    committed_offset: int | None  # None: the group has no commit for the partition (yet)
    # When the commit happened, as best known: the commit time when read from __consumer_offsets; for a
    # polled history, the first poll that saw this offset (so an unchanged offset keeps its first time).
    commit_ts: int
    member_id: str | None
    client_id: str | None
    host: str | None
    generation: int | None
    observed_ts: int  # the poll that saw it


# What a partition's lag counts (docs/lag.md): from a consumer group's committed offset to the log end, or
# a share group's share-partition lag as its broker reports it (KIP-932 share groups commit no offsets;
# DescribeShareGroupOffsets v1 sends the lag, KIP-1226).
COMMITTED_LAG, SHARE_PARTITION_LAG = "committed", "share-partition"


@dataclass(frozen=True, slots=True)
class ShareSample:
    """One poll of one share group's share-partition (KIP-932): its start offset, every record below which
    the group is done with (acknowledged, archived, or past its delivery count), plays the committed
    offset's part; its lag is the broker's (KIP-1226), never counted by kgroup."""

    cluster: str
    group: str
    topic: str
    partition: int
    start_offset: int | None  # None: the share-partition has no start offset yet
    lag: int | None  # the broker's share-partition lag; None when it sent none (DescribeShareGroupOffsets v0)
    start_ts: int  # the first poll that saw this start offset (as commit_ts for a polled commit)
    members: tuple[str, ...]  # the member ids assigned the partition at the poll (several may read one)
    group_epoch: int | None
    observed_ts: int


@dataclass(frozen=True, slots=True)
class LogSample:
    cluster: str
    topic: str
    partition: int
    log_start_offset: int
    high_watermark: int
    last_stable_offset: int | None
    ts: int

    def end(self, isolation: str) -> int:
        """The offset lag counts to: the LSO for read_committed consumers (when the broker gave one)."""
        if isolation == READ_COMMITTED and self.last_stable_offset is not None:
            return self.last_stable_offset
        return self.high_watermark


@dataclass(frozen=True, slots=True)
class LagQuery:
    """What `lag analyze` asks: the evaluation time, the history's start, Burrow's knobs, the end offset."""

    as_of: int  # "now" for the analysis: --until, or the newest observation in the data
    since: int | None = None
    window: int = 10  # Burrow storage.intervals: commits (and log samples) per partition in the window
    allowed_lag: int = 0  # Burrow evaluator.allowed-lag
    isolation: str = READ_UNCOMMITTED
    bucket_ms: int = 60_000  # the history's time buckets (charts)

    def covers(self, ts: int) -> bool:
        return ts <= self.as_of and (self.since is None or ts >= self.since)
