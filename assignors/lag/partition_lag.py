"""Lag of one partition from its committed offset and its log bounds.

Kafka's tool (`ConsumerGroupCommand.getLag`) prints `-` for a partition with no commit and subtracts
without clamping; rpk (franz-go `kadm.CalculateGroupLag`) counts a never-committed partition as lagging
from the log start and clamps at zero. kgroup keeps both facts: `lag` is Kafka's number (None without a
commit), clamped into [log start, log end]; `lag_from_start` is rpk's for a partition nobody committed;
`flags` says when clamping hid something. `lead` is kafkactl's LEAD (`describe consumer-group`): the
committed offset minus the log start, how far the group is from the retention edge; below 0 the group has
already lost records (the `below-log-start` flag).
"""

from __future__ import annotations

from dataclasses import dataclass

NEVER_COMMITTED = "never-committed"
BELOW_LOG_START = "below-log-start"  # the commit points at data retention has deleted
AHEAD_OF_LOG_END = "ahead-of-log-end"  # a commit past the end (a truncated log, or a stale end offset)


@dataclass(frozen=True)
class PartitionLag:
    lag: int | None
    lag_from_start: int | None
    flags: tuple[str, ...]
    lead: int | None = None


def partition_lag(committed: int | None, log_start: int | None, log_end: int | None) -> PartitionLag:
    """`committed`, `log_start`, `log_end`: None when unknown (no commit, or the broker did not say)."""
    if committed is None or committed < 0:
        from_start = log_end - log_start if log_end is not None and log_start is not None else log_end
        return PartitionLag(None, from_start, (NEVER_COMMITTED,))
    lead = committed - log_start if log_start is not None else None
    if log_end is None:
        return PartitionLag(None, None, (), lead)
    flags = []
    position = committed
    if log_start is not None and committed < log_start:
        flags.append(BELOW_LOG_START)
        position = log_start
    if position > log_end:
        flags.append(AHEAD_OF_LOG_END)
        position = log_end
    return PartitionLag(log_end - position, None, tuple(flags), lead)
