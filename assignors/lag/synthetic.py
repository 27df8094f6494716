"""A synthetic offset history with planted behaviours, so tests and benchmarks know the right answer.

Each partition of each group is given a behaviour; the history is what a reader of __consumer_offsets
would record (one row per commit, at its commit time) plus a log sample per poll. Deterministic: the same
seed gives the same rows.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from kgroup.assignors.lag.burrow_status import OK, REWIND, STALL, STOP, WARN
from kgroup.assignors.lag.samples import CommitSample, LogSample

# behaviour -> the status lag analyze must find at the end of the history
EXPECTED = {
    "keeping-up": OK,
    "slow": WARN,
    "catching-up": OK,
    "stalled": STALL,
    "stopped": STOP,
    "rewound": REWIND,
    "idle": OK,
    "never-committed": OK,
}
BEHAVIOURS = tuple(EXPECTED)


@dataclass(frozen=True)
class SyntheticPartition:
    group: str
    topic: str
    partition: int
    behaviour: str


@dataclass(frozen=True)
class Plan:
    groups: int = 2
    topics: int = 2
    partitions: int = 8  # per topic
    polls: int = 60
    interval_ms: int = 30_000
    start_ts: int = 1_700_000_000_000
    window: int = 10  # the analysis window the planted behaviours must show within
    seed: int = 7
    cluster: str = "synthetic"

    def partitions_planned(self) -> list[SyntheticPartition]:
        """Behaviours cycle over the partitions, so every behaviour is planted when there are enough."""
        planned, i = [], 0
        for g in range(self.groups):
            for t in range(self.topics):
                for p in range(self.partitions):
                    planned.append(SyntheticPartition(f"group-{g}", f"topic-{t}", p, BEHAVIOURS[i % len(BEHAVIOURS)]))
                    i += 1
        return planned

    @property
    def end_ts(self) -> int:
        return self.start_ts + (self.polls - 1) * self.interval_ms


def generate(plan: Plan) -> tuple[list[CommitSample], list[LogSample]]:
    commits: list[CommitSample] = []
    logs: list[LogSample] = []
    for partition, (ends, offsets) in _histories(plan):
        member = f"{partition.group}-member-{partition.partition % 3}"
        host = f"/10.0.{partition.partition % 3}.1"
        if partition.group == "group-0":  # one group's log samples per topic-partition are enough
            logs.extend(
                LogSample(
                    plan.cluster,
                    partition.topic,
                    partition.partition,
                    0,
                    end,
                    end,
                    plan.start_ts + k * plan.interval_ms,
                )
                for k, end in enumerate(ends)
            )
        for k, offset in offsets:
            ts = plan.start_ts + k * plan.interval_ms + 1_000  # commits land a second after the poll
            commits.append(
                CommitSample(
                    plan.cluster,
                    partition.group,
                    partition.topic,
                    partition.partition,
                    offset,
                    ts,
                    member,
                    "client-1",
                    host,
                    3,
                    ts,
                )
            )
    return commits, logs


def _histories(plan: Plan) -> Iterator[tuple[SyntheticPartition, tuple[list[int], list[tuple[int, int | None]]]]]:
    """Per partition: the log end per poll (shared by every group on the topic-partition) and the commits."""
    ends_of: dict[tuple[str, int], list[int]] = {}
    for partition in plan.partitions_planned():
        rng = random.Random(f"{plan.seed}/{partition.group}/{partition.topic}/{partition.partition}")
        key = (partition.topic, partition.partition)
        if key not in ends_of:
            ends_of[key] = _log_ends(random.Random(f"{plan.seed}/{key}"), plan, partition.behaviour == "idle")
        yield partition, (ends_of[key], _commits(rng, plan, partition.behaviour, ends_of[key]))


def _log_ends(rng: random.Random, plan: Plan, goes_quiet: bool) -> list[int]:
    rate = rng.randint(20, 200)  # messages per poll
    ends, end = [], rng.randint(0, 10_000)
    for k in range(plan.polls):
        if not (goes_quiet and k > plan.polls // 3):
            end += rate + rng.randint(-rate // 4, rate // 4)
        elif k == plan.polls // 3 + 1:
            end += 1  # the last transaction's commit marker: the log end passes the last record
        ends.append(end)
    return ends


def _commits(rng: random.Random, plan: Plan, behaviour: str, ends: list[int]) -> list[tuple[int, int | None]]:
    """(poll index, committed offset) per commit."""
    n, half = plan.polls, plan.polls // 2
    commits: list[tuple[int, int | None]] = []
    offset = ends[0] - (ends[-1] - ends[0]) if behaviour == "catching-up" else ends[0]
    for k in range(n):
        produced = ends[k] - ends[k - 1] if k else 0
        if behaviour == "keeping-up":
            offset = ends[k] - (0 if rng.random() < 0.5 else rng.randint(1, 5))
        elif behaviour == "slow":
            offset += produced // 2
        elif behaviour == "catching-up":
            offset = min(ends[k], offset + 2 * produced + 50)
        elif behaviour == "stalled":
            offset = ends[0]
        elif behaviour == "stopped":
            if k >= half:
                break
            offset = ends[k] - rng.randint(0, 3)
        elif behaviour == "rewound":
            if k == n - plan.window // 2:
                offset = max(0, offset - 3 * (ends[-1] - ends[0]))  # replayed from far back
            elif k < n - plan.window // 2:
                offset = ends[k] - rng.randint(0, 3)
            else:
                offset += produced
        elif behaviour == "idle":
            # caught up while the producer writes; once it goes quiet, a transaction marker leaves the log end
            # one past the last record and the consumer has nothing new to commit (librdkafka skips
            # unchanged commits): Burrow would call that STOP
            if k > plan.polls // 3:
                break
            offset = ends[k]
        elif behaviour == "never-committed":
            commits.append((k, None))
            continue
        commits.append((k, offset))
    return commits
