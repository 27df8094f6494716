"""Per group, topic and member: what an on-call engineer reads first (docs/lag.md: the rollups)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from kgroup.assignors.lag.burrow_status import RANK, LagStatus, worst
from kgroup.assignors.lag.history import PartitionReport

GROUP, TOPIC, MEMBER = "group", "topic", "member"
# Among partitions tied at the rollup's max time lag, the least certain method speaks for the max: one
# lower bound among them makes the group's figure a lower bound too.
METHOD_RANK = {"none": 0, "caught-up": 1, "exact": 2, "interpolated": 3, "lower-bound": 4}


def ordered_sum(values: list[float]) -> float:
    """Floating-point sums depend on their order; summed smallest first, Spark (array_sort, aggregate) and
    Python give the same bits whatever order the partitions arrive in."""
    total = 0.0
    for value in sorted(values):
        total += value
    return total


@dataclass(frozen=True, slots=True)
class Rollup:
    level: str  # group | topic | member
    cluster: str
    group: str
    name: str  # the group id, the topic, or the member id ("-" for partitions nobody owns)
    partitions: int
    lag: int
    max_lag: int
    max_time_lag_ms: int | None
    max_time_lag_method: str  # how the max was found; "lower-bound" when it is only a floor (see METHOD_RANK)
    lagging: int  # partitions with lag > 0
    status: LagStatus  # the worst partition status
    trend: float | None  # messages/s, > 0 growing
    eta_s: float | None  # when the slowest lagging partition catches up; None if one is not catching up
    members: int  # distinct owners (0: a group with no active members)


def rollups(reports: list[PartitionReport]) -> list[Rollup]:
    buckets: dict[tuple[str, str, str, str], list[PartitionReport]] = defaultdict(list)
    for r in reports:
        buckets[(GROUP, r.cluster, r.group, r.group)].append(r)
        buckets[(TOPIC, r.cluster, r.group, r.topic)].append(r)
        for member in r.readers or (r.member_id or "-",):  # a share partition counts for each of its members
            buckets[(MEMBER, r.cluster, r.group, member)].append(r)
    return sorted((_rollup(key, parts) for key, parts in buckets.items()), key=rollup_order)


def _rollup(key: tuple[str, str, str, str], parts: list[PartitionReport]) -> Rollup:
    level, cluster, group, name = key
    lags = [p.lag or 0 for p in parts]
    late = [p.time_lag_ms for p in parts if p.time_lag_ms is not None]
    trends = [p.trend for p in parts if p.trend is not None]
    lagging = [p for p in parts if p.lag]
    etas = [p.eta_s for p in lagging]
    top = max(late) if late else None
    method = max(
        (p.time_lag_method for p in parts if top is not None and p.time_lag_ms == top),
        key=lambda m: METHOD_RANK.get(m, 0),
        default="none",
    )
    return Rollup(
        level,
        cluster,
        group,
        name,
        len(parts),
        sum(lags),
        max(lags),
        top,
        method,
        len(lagging),
        worst([p.status for p in parts]),
        ordered_sum(trends) if trends else None,
        (max(etas) if etas else 0.0) if None not in etas else None,  # type: ignore[type-var]
        len({m for p in parts for m in (p.readers or (p.member_id,)) if m}),
    )


def rollup_order(r: Rollup) -> tuple:
    return (
        {GROUP: 0, TOPIC: 1, MEMBER: 2}[r.level],
        -RANK[r.status],
        -(r.max_time_lag_ms or 0),
        -r.lag,
        r.cluster,
        r.group,
        r.name,
    )
