"""Why each rebalance of a finished classic simulation started, and whom it waited for
(Kafka: `GroupMetadataManager.prepareRebalance` and `maybeCompleteJoinPhase`).

The coordinator completes a join phase once every known member has sent JoinGroup again, or at the
rebalance timeout (the largest max.poll.interval.ms), when it drops the dynamic laggards. A member can only
rejoin from its poll loop, so a long join phase means some member was not polling: stuck in a slow batch,
paused, or down. This module reads that off the event log, in words an on-call engineer can act on.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.coordinator.classic.client import COOPERATIVE
from kgroup.assignors.coordinator.classic.group import COMPLETING, EMPTY, STABLE
from kgroup.assignors.coordinator.classic.records import LogEntry, RebalanceRecord
from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation


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


def explain(sim: ClassicSimulation, record: RebalanceRecord) -> Explanation:
    end = _join_phase_end(sim.log, record)
    waited: list[Waited] = []
    until = sim.now if end is None else end
    if until - record.start > heartbeat_round(sim):
        for member in record.members_before:
            joined = next(
                (
                    e.at_ms
                    for e in sim.log
                    if e.kind == "join" and e.member == member and record.start <= e.at_ms <= until
                ),
                None,
            )
            if joined is not None and joined - record.start <= heartbeat_round(sim):
                continue
            if joined is None and member in _left_at_start(sim.log, record):
                continue  # its leave is the trigger, not a wait
            waited.append(Waited(member, joined, _doing(sim, member, record.start, until)))
    return Explanation(_trigger(sim, record), end, tuple(waited))


def _join_phase_end(log: list[LogEntry], record: RebalanceRecord) -> int | None:
    for entry in log:
        if entry.kind != "group-state" or entry.at_ms < record.start:
            continue
        if record.end is not None and entry.at_ms > record.end:
            break
        if entry.detail.get("state") in (COMPLETING, EMPTY, STABLE):
            return entry.at_ms
    return None


def _left_at_start(log: list[LogEntry], record: RebalanceRecord) -> set[str]:
    """Members whose departure started the rebalance: removed, or a dynamic member's LeaveGroup."""
    return {
        e.member
        for e in log
        if e.member is not None
        and e.at_ms == record.start
        and (e.kind == "member-removed" or (e.kind in ("close", "poll-timeout") and not e.detail.get("static")))
    }


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g} s"


def _doing(sim: ClassicSimulation, member: str, start: int, until: int) -> str:
    """What `member` was doing between `start` and `until`, from its own log entries."""
    state = "not polling"
    for entry in sim.log:
        if entry.member != member or entry.at_ms > until:
            continue
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


def _trigger(sim: ClassicSimulation, record: RebalanceRecord) -> str:
    """The coordinator's reason, with the cause behind it when the log shows one."""
    reason = record.trigger
    before = [e for e in sim.log if e.at_ms <= record.start]
    if reason == "the leader rejoins":
        refresh = next((e for e in reversed(before) if e.kind == "metadata-changed"), None)
        if refresh is not None:
            grown = next((e for e in reversed(before) if e.kind == "add-partitions"), None)
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
        subscribed = next((e for e in reversed(before) if e.kind == "subscribe"), None)
        if subscribed is not None:
            topics = ", ".join(subscribed.detail.get("topics", []))
            return f"the leader {subscribed.member} rejoins with a new subscription ({topics})"
        return reason
    subject = reason.split(" ")[0].removesuffix("'s")
    for member in (subject,) if subject in sim.clients else ():
        mine = [e for e in before if e.member == member]
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
