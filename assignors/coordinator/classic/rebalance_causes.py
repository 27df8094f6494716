"""Why each rebalance of a finished classic simulation started, and whom it waited for
(Kafka: `GroupMetadataManager.prepareRebalance` and `maybeCompleteJoinPhase`).

The coordinator completes a join phase once every known member has sent JoinGroup again, or at the
rebalance timeout (the largest max.poll.interval.ms), when it drops the dynamic laggards. A member can only
rejoin from its poll loop, so a long join phase means some member was not polling: stuck in a slow batch,
paused, or down. This module reads that off the event log, in words an on-call engineer can act on.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import pairwise
from operator import attrgetter

from kgroup.assignors.coordinator.classic.client import COOPERATIVE
from kgroup.assignors.coordinator.classic.group import COMPLETING, EMPTY, STABLE
from kgroup.assignors.coordinator.classic.records import LogEntry, RebalanceRecord
from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation


_AT = attrgetter("at_ms")


@dataclass(frozen=True)
class Waited:
    member: str
    joined_at: int | None  # when its JoinGroup came; None: it never came in this rebalance
    doing: str  # what kept it from rejoining


@dataclass(frozen=True)
class Explanation:
    trigger: str
    join_phase_end: int | None  # None: still waiting at the end of the run
    waited: tuple[Waited, ...]


def heartbeat_round(sim: ClassicSimulation) -> int:
    """One heartbeat interval plus one poll loop: how long a healthy member takes to learn of a rebalance
    (REBALANCE_IN_PROGRESS on its next heartbeat) and rejoin (at its next poll)."""
    return max((c.config.heartbeat_interval_ms + c.config.processing_ms for c in sim.clients.values()), default=0)


class _Log:
    """The simulation's event log, by time, by member and by kind, read many times per report.

    A thousand-member restart hour logs millions of entries over hundreds of rebalances: each question
    (the entries of one member up to an instant, the latest of a kind before one) is a bisection, not a
    pass over the whole log. The log is appended in time order; one that is not is read sorted by time,
    entries of the same instant in the order they were logged."""

    def __init__(self, log: list[LogEntry]) -> None:
        ordered = log if all(a.at_ms <= b.at_ms for a, b in pairwise(log)) else sorted(log, key=_AT)
        self.entries = ordered
        self.times = [e.at_ms for e in ordered]
        self._by: dict[tuple[str, str | None], tuple[list[LogEntry], list[int]]] = {}
        for entry in ordered:
            for key in (("member", entry.member), ("kind", entry.kind)):
                found = self._by.get(key)
                if found is None:
                    found = self._by[key] = ([], [])
                found[0].append(entry)
                found[1].append(entry.at_ms)

    def of(self, member: str, until: int) -> list[LogEntry]:
        """`member`'s entries at or before `until`, as logged."""
        entries, times = self._by.get(("member", member), _NONE)
        return entries[: bisect_right(times, until)]

    def kind_from(self, kind: str, start: int) -> list[LogEntry]:
        """The entries of `kind` at or after `start`, as logged."""
        entries, times = self._by.get(("kind", kind), _NONE)
        return entries[bisect_left(times, start) :]

    def latest(self, kind: str, until: int) -> LogEntry | None:
        """The last entry of `kind` logged at or before `until`."""
        entries, times = self._by.get(("kind", kind), _NONE)
        where = bisect_right(times, until)
        return entries[where - 1] if where else None

    def at(self, instant: int) -> list[LogEntry]:
        return self.entries[bisect_left(self.times, instant) : bisect_right(self.times, instant)]

    def first_join(self, member: str, start: int, until: int) -> int | None:
        """When `member`'s first JoinGroup between `start` and `until` (both included) came, if one did."""
        entries, times = self._by.get(("member", member), _NONE)
        for entry in entries[bisect_left(times, start) : bisect_right(times, until)]:
            if entry.kind == "join":
                return entry.at_ms
        return None


_NONE: tuple[list[LogEntry], list[int]] = ([], [])


def explain_all(sim: ClassicSimulation) -> tuple[Explanation, ...]:
    """Why each rebalance of the run started and whom it waited for, reading the log once."""
    log, round_ms = _Log(sim.log), heartbeat_round(sim)
    return tuple(_explain(sim, log, round_ms, record) for record in sim.rebalances)


def _explain(sim: ClassicSimulation, log: _Log, round_ms: int, record: RebalanceRecord) -> Explanation:
    end = _join_phase_end(log, record)
    waited: list[Waited] = []
    until = sim.now if end is None else end
    if until - record.start > round_ms:
        left: set[str] | None = None
        for member in record.members_before:
            joined = log.first_join(member, record.start, until)
            if joined is not None and joined - record.start <= round_ms:
                continue
            if joined is None:
                left = _left_at_start(log, record) if left is None else left
                if member in left:
                    continue  # its leave is the trigger, not a wait
            waited.append(Waited(member, joined, _doing(sim, log, member, record.start, until)))
    return Explanation(_trigger(sim, log, record), end, tuple(waited))


def _join_phase_end(log: _Log, record: RebalanceRecord) -> int | None:
    for entry in log.kind_from("group-state", record.start):
        if record.end is not None and entry.at_ms > record.end:
            break
        if entry.detail.get("state") in (COMPLETING, EMPTY, STABLE):
            return entry.at_ms
    return None


def _left_at_start(log: _Log, record: RebalanceRecord) -> set[str]:
    """Members whose departure started the rebalance: removed, or a dynamic member's LeaveGroup."""
    return {
        e.member
        for e in log.at(record.start)
        if e.member is not None
        and (e.kind == "member-removed" or (e.kind in ("close", "poll-timeout") and not e.detail.get("static")))
    }


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g} s"


def _doing(sim: ClassicSimulation, log: _Log, member: str, start: int, until: int) -> str:
    """What `member` was doing between `start` and `until`, from its own log entries."""
    state = "not polling"
    for entry in log.of(member, until):
        t = entry.at_ms
        if entry.kind == "slow-poll":
            length = int(entry.detail.get("processing_ms", 0)) * int(entry.detail.get("batches", 1))
            if t + length > start:
                state = (
                    f"in a slow batch ({_seconds(int(entry.detail.get('processing_ms', 0)))} per batch, "
                    f"slow-poll at {_seconds(t)})"
                )
        elif entry.kind == "gc-pause":
            if t + int(entry.detail.get("duration_ms", 0)) > start:
                state = f"in a {_seconds(int(entry.detail.get('duration_ms', 0)))} GC pause from {_seconds(t)}"
        elif entry.kind in ("crash", "close"):
            how = "crashed" if entry.kind == "crash" else "closed"
            static = " (a static member: the join phase waits for it)" if sim.clients[member].is_static else ""
            state = f"down: {how} at {_seconds(t)}{static}"
        elif entry.kind == "start" and t > 0 and state.startswith("down"):
            state = state.split(" (")[0] + f", started again at {_seconds(t)}"
    return state


def _trigger(sim: ClassicSimulation, log: _Log, record: RebalanceRecord) -> str:
    """The coordinator's reason, with the cause behind it when the log shows one."""
    reason = record.trigger
    if reason == "the leader rejoins":
        refresh = log.latest("metadata-changed", record.start)
        if refresh is not None:
            grown = log.latest("add-partitions", record.start)
            what = (
                f": {grown.detail.get('topic')} grew to {grown.detail.get('partitions')} partitions at "
                f"{_seconds(grown.at_ms)}"
                if grown is not None
                else ""
            )
            return (
                f"the leader {refresh.member} rejoins: its metadata refresh at {_seconds(refresh.at_ms)} "
                f"(metadata.max.age.ms) saw a partition count change{what}"
            )
        subscribed = log.latest("subscribe", record.start)
        if subscribed is not None:
            topics = ", ".join(subscribed.detail.get("topics", []))
            return f"the leader {subscribed.member} rejoins with a new subscription ({topics})"
        return reason
    subject = reason.split(" ")[0].removesuffix("'s")
    for member in (subject,) if subject in sim.clients else ():
        mine = log.of(member, record.start)
        last = next((e for e in reversed(mine) if e.kind != "member-removed"), None)
        if reason.endswith("session expired"):
            pause = next((e for e in reversed(mine) if e.kind == "gc-pause"), None)
            down = next((e for e in reversed(mine) if e.kind in ("crash", "close")), None)
            if pause is not None and pause.at_ms + int(pause.detail.get("duration_ms", 0)) >= record.start:
                length = _seconds(int(pause.detail["duration_ms"]))
                return f"{reason} during its {length} GC pause from {_seconds(pause.at_ms)}"
            if down is not None:
                return f"{reason}: it {'crashed' if down.kind == 'crash' else 'closed'} at {_seconds(down.at_ms)}"
        elif reason.endswith("left the group") and last is not None:
            if last.kind == "poll-timeout":
                return (
                    f"{reason}: its batch outlived max.poll.interval.ms "
                    f"({_seconds(int(last.detail.get('max_poll_interval_ms', 0)))})"
                )
            if last.kind == "close":
                return f"{reason}: it closed (KafkaConsumer.close)"
        elif reason.endswith("rejoins with new metadata"):
            previous = next((r for r in sim.rebalances if r.end == record.start and r.index == record.index - 1), None)
            if previous is not None and previous.revoked.get(member) and sim.clients[member].protocol == COOPERATIVE:
                # ConsumerCoordinator.onJoinComplete: revoked partitions mean a follow-up rebalance at once
                gone = ", ".join(str(tp) for tp in sorted(set(previous.revoked[member])))
                return f"{reason}: the cooperative follow-up, after revoking {gone} in #{previous.index}"
            subscribed = next((e for e in reversed(mine) if e.kind == "subscribe"), None)
            if subscribed is not None:
                return f"{reason}: a new subscription ({', '.join(subscribed.detail.get('topics', []))})"
        elif reason.endswith("joins"):
            restarted = any(e.kind in ("crash", "close") for e in mine)
            timed_out = any(e.kind == "poll-timeout" for e in mine)
            removed = next((e for e in reversed(mine) if e.kind == "member-removed"), None)
            pause = next((e for e in reversed(mine) if e.kind == "gc-pause"), None)
            if removed is not None and removed.detail.get("paused") and pause is not None:
                # ConsumerCoordinator: UNKNOWN_MEMBER_ID on its first request after the pause, so it rejoins anew
                return (
                    f"{reason} again as a new member: its session expired at {_seconds(removed.at_ms)} during its "
                    f"{_seconds(int(pause.detail.get('duration_ms', 0)))} GC pause from {_seconds(pause.at_ms)}"
                )
            if timed_out:
                return f"{reason} again as a new member after its poll timeout"
            if restarted:
                return f"{reason} again after its restart"
    return reason
