"""A scenario partition's story: the rebalances that moved it and why each unconsumed stretch began and ended.

Read from what the classic simulation already keeps (its rebalance records, the consumption ledger's
gaps and the event log); nothing here runs the coordinator again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.simulation.scenario_run import ScenarioOutcome

# Log entries that explain why a member stopped consuming (Kafka client behaviour the simulation models).
_STOPS = (
    "crash",
    "close",
    "gc-pause",
    "slow-poll",
    "poll-timeout",
    "fatal",
    "commit-failed",
    "member-removed",
    "partitions-revoked",
    "partitions-lost",
)


@dataclass(frozen=True)
class Move:
    """Rebalance `rebalance` changed the owner from `source` to `target` (either may be None)."""

    rebalance: int
    start_ms: int
    end_ms: int | None
    trigger: str
    assignor: str | None
    generation: int | None
    source: str | None
    target: str | None
    lost: bool  # the source lost it (removed from the group) rather than revoking it


@dataclass(frozen=True)
class Stretch:
    """Nobody consumed the partition from `start_ms` to `end_ms` (None: still at the end of the run)."""

    start_ms: int
    end_ms: int | None
    length_ms: int
    owner: str | None  # who owned it when consumption stopped
    began: list[dict[str, Any]] = field(default_factory=list)  # the owner's log entries at start_ms
    ended_by: int | None = None  # the rebalance that ended it, if one ended at end_ms
    resumed_by: str | None = None  # who consumed it again
    during: int | None = None  # the rebalance under way when it stopped, if one was
    during_trigger: str | None = None
    meanwhile: str | None = None  # the owner for part of the stretch that did not consume it
    meanwhile_why: dict[str, Any] | None = None  # that owner's last stop before the stretch, if any


@dataclass(frozen=True)
class PartitionStory:
    tp: TopicPartition
    first_owner: str | None
    final_owner: str | None
    moves: tuple[Move, ...]
    stretches: tuple[Stretch, ...]


def stories(outcome: ScenarioOutcome, partitions: list[TopicPartition] | None = None) -> list[PartitionStory]:
    """One story per partition asked for (default: every partition that changed owner or went unconsumed)."""
    sim = outcome.simulation
    owner: dict[TopicPartition, str] = {
        tp: m
        for m, parts in (
            (m.member_id, outcome.scenario.group.assignment.partitions_of(m.member_id))
            for m in outcome.scenario.group.members
        )
        for tp in parts
    }
    first = dict(owner)
    moves: dict[TopicPartition, list[Move]] = {}
    for record in sim.rebalances:
        lost = {tp for parts in record.lost.values() for tp in parts}
        after = dict(owner)
        for parts in list(record.revoked.values()) + list(record.lost.values()):
            for tp in parts:
                after.pop(tp, None)
        for member, parts in record.assigned.items():
            for tp in parts:
                after[tp] = member
        for tp in set(owner) | set(after):
            if owner.get(tp) != after.get(tp):
                moves.setdefault(tp, []).append(
                    Move(
                        record.index,
                        record.start,
                        record.end,
                        record.trigger,
                        record.assignor,
                        record.generation,
                        owner.get(tp),
                        after.get(tp),
                        tp in lost,
                    )
                )
        owner = after
    gaps = outcome.gaps
    if partitions is None:
        partitions = sorted(
            tp for tp in set(moves) | set(gaps) if tp in moves or any(g.length(sim.now) > 0 for g in gaps[tp])
        )
    by_time: dict[tuple[int, str | None], list[dict[str, Any]]] = {}
    for entry in sim.log:
        if entry.kind in _STOPS:
            by_time.setdefault((entry.at_ms, entry.member), []).append({"event": entry.kind, **dict(entry.detail)})
    ended = {record.end: record.index for record in sim.rebalances if record.end is not None}
    timelines = sim.ledger.timelines(partitions)
    result = []
    for tp in partitions:
        stretches = []
        segments = timelines.get(tp, [])
        for gap in gaps.get(tp, ()):
            length = gap.length(sim.now)
            if length <= 0:
                continue
            # Who stopped consuming at the gap's start, and who started again at its end (the ledger's own view).
            holder = next((s.owner for s in segments if s.end == gap.start), None)
            if holder is None:
                holder = first.get(tp) if gap.start == 0 else None
            resumed = next((s.owner for s in segments if s.start == gap.end), None) if gap.end is not None else None
            began = [
                e
                for e in by_time.get((gap.start, holder), [])
                if e["event"] not in ("partitions-revoked", "partitions-lost") or str(tp) in e.get("partitions", [])
            ]
            during = next(
                (r for r in sim.rebalances if r.start <= gap.start and (r.end is None or gap.start <= r.end)), None
            )
            # An owner assigned it within the stretch but never consumed it (e.g. stuck in a slow poll).
            inside = [
                m.target
                for m in moves.get(tp, ())
                if m.end_ms is not None
                and gap.start <= m.end_ms
                and (gap.end is None or m.end_ms < gap.end)
                and m.target not in (None, resumed)
            ]
            meanwhile = inside[0] if inside else None
            meanwhile_why = None
            if meanwhile is not None:
                earlier = [
                    e
                    for (at, member), entries in by_time.items()
                    if member == meanwhile and at <= gap.start
                    for e in entries
                    if e["event"] not in ("partitions-revoked", "partitions-lost")
                ]
                # A stall (slow poll, GC pause) explains not consuming better than what followed from it.
                stalls = [e for e in earlier if e["event"] in ("slow-poll", "gc-pause", "crash", "fatal")]
                meanwhile_why = (stalls or earlier or [None])[-1]
            stretches.append(
                Stretch(
                    gap.start,
                    gap.end,
                    length,
                    holder,
                    began,
                    ended.get(gap.end) if gap.end is not None else None,
                    resumed,
                    during.index if during else None,
                    during.trigger if during else None,
                    meanwhile,
                    meanwhile_why,
                )
            )
        result.append(PartitionStory(tp, first.get(tp), owner.get(tp), tuple(moves.get(tp, ())), tuple(stretches)))
    return result
