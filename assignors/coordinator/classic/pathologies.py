"""Known pathologies, read off a finished classic simulation: poll-timeout storms and session expiry
(Kafka: `AbstractCoordinator.HeartbeatThread`), and a static member that never rejoins holding the join
phase (Kafka's test `groupStuckInRebalanceTimeoutDueToNonjoinedStaticMember`).

Each finding names the members involved, when it happened and what it cost, in words an on-call
engineer can act on.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation


@dataclass(frozen=True)
class Finding:
    kind: str  # rebalance-storm | poll-timeout | stuck-in-preparing | session-expired | leader-dropped-topic
    at_ms: int
    members: tuple[str, ...]
    message: str


def findings(sim: ClassicSimulation, client: str = "java") -> list[Finding]:
    """`client`: the group's consumer library (java | librdkafka); some findings are one library's behaviour."""
    found = _poll_timeouts(sim) + _stuck_joins(sim) + _expired_sessions(sim)
    if client == "java":
        found += _leader_drops(sim)
    return sorted(found, key=lambda f: f.at_ms)


def _leader_drops(sim: ClassicSimulation) -> list[Finding]:
    """Kafka's Java client: `ClassicKafkaConsumer.subscribe` asks for metadata of the new subscription only, on the
    connection where the leader's fetch long-poll waits up to fetch.max.wait.ms; `ConsumerCoordinator.onLeaderElected`
    (`updateGroupSubscription`, `ensureFreshMetadata`) waits for the next metadata update, which can be that one, and
    assigns without the dropped topics; `rejoinNeededOrPending` rejoins when fresh metadata has them. Seen on Kafka
    4.2.1 (docs/conformance.md, classic subscription changes): a race with the fetch, so not in the prediction."""
    result = []
    for at, leader, topics in sim.leader_topic_drops:
        names, it = ", ".join(topics), "it" if len(topics) == 1 else "them"
        result.append(
            Finding(
                "leader-dropped-topic",
                at,
                (leader,),
                f"{leader}, the group's leader, stopped subscribing to {names} at {at / 1000:g} s while other members "
                f"still subscribe to {it}: with Kafka's Java consumer the rebalance that follows can give {names} to "
                "nobody (the leader assigns with the metadata its subscribe() asked for, when that answer is still "
                "queued behind its fetch long-poll as the join completes), and the leader then rejoins when its "
                "metadata refreshes, about fetch.max.wait.ms later: one more rebalance. kgroup predicts the run "
                "without that race (on Kafka 4.2.1: 1 run of 3 with fetch.max.wait.ms at 500 ms, 3 of 3 at 3 s, none "
                "at 20 ms). Roll a subscription change out to the leader last: no other member then still wants "
                f"{it}",
            )
        )
    return result


def _poll_timeouts(sim: ClassicSimulation) -> list[Finding]:
    """AC `HeartbeatThread`: a poll loop slower than max.poll.interval.ms leaves, then rejoins."""
    by_member: dict[str, list[int]] = {}
    for entry in sim.log:
        if entry.kind == "poll-timeout" and entry.member is not None:
            by_member.setdefault(entry.member, []).append(entry.at_ms)
    result = []
    for member, instants in by_member.items():
        limit = sim.clients[member].config.max_poll_interval_ms
        failed = sum(1 for _, name in sim.clients[member].exceptions if name == "CommitFailedException")
        caused = sum(1 for r in sim.rebalances if r.start in instants or member in r.joined)
        if len(instants) > 1:
            message = (
                f"rebalance storm: {member} spent longer than max.poll.interval.ms ({limit / 1000:g} s) "
                f"processing {len(instants)} times; each time it left the group and rejoined as a new "
                f"member ({caused} rebalances), {failed} commits failed with CommitFailedException and its "
                "batches will be processed again. Lower max.poll.records or raise max.poll.interval.ms"
            )
            result.append(Finding("rebalance-storm", instants[0], (member,), message))
        else:
            message = (
                f"{member} exceeded max.poll.interval.ms ({limit / 1000:g} s) at {instants[0] / 1000:g} s: "
                f"it left the group, its commit failed ({failed} CommitFailedException) and it rejoins at "
                "its next poll, a second rebalance"
            )
            result.append(Finding("poll-timeout", instants[0], (member,), message))
    return result


def _stuck_joins(sim: ClassicSimulation) -> list[Finding]:
    """GMM `completeClassicGroupJoin`: the join timer removes dynamic laggards only; static ones are waited for."""
    timeout = max((c.config.max_poll_interval_ms for c in sim.clients.values()), default=0)
    result = []
    lifecycle: _Lifecycle | None = None  # read off the log only if some rebalance lasted a join timeout
    for record in sim.rebalances:
        end = record.end if record.end is not None else sim.now
        if end - record.start < timeout:
            continue
        lifecycle = lifecycle or _Lifecycle(sim)
        static_down = tuple(
            h for h, c in sim.clients.items() if c.is_static and lifecycle.down_during(h, record.start, end)
        )
        if not static_down:
            continue
        names = ", ".join(static_down)
        held = (
            f"has been held in rebalance #{record.index} since {record.start / 1000:g} s and is still open at "
            f"the end of the run ({(end - record.start) / 1000:g} s so far"
            if record.end is None
            else f"was held in rebalance #{record.index} for {(end - record.start) / 1000:g} s from "
            f"{record.start / 1000:g} s ("
        )
        rounds = (end - record.start) // timeout if timeout else 1
        new_member = sim.coordinator.config.new_member_join_timeout_ms
        limit, below = ("5-minute", "5 minutes") if new_member == 300_000 else (f"{new_member / 1000:g} s",) * 2
        # Both timers of the member that started the rebalance end at one instant, its new-member timeout first
        # (armed first). Kafka runs them as two events, and on a broker the dropped member's new JoinGroup now and
        # then comes in between (tests/live/test_static_stuck_endless_live.py).
        race = (
            " (its new-member timeout and the join phase's end together: on a broker its new JoinGroup now and then "
            "arrives between the two, and the join then completes with it, the dead member removed one rebalance "
            "timeout later)"
            if new_member == timeout
            else ""
        )
        result.append(
            Finding(
                "stuck-in-preparing",
                record.start,
                static_down,
                f"the group {held}, {rounds} join timeout{'s' if rounds != 1 else ''} of {timeout / 1000:g} s), "
                f"waiting for static member{'s' if len(static_down) > 1 else ''} {names} that did "
                "not rejoin: the join timer removes only dynamic members, and each completed join re-arms the static "
                f"member's session timer. A new member whose join outlasts the {limit} new-member timeout is dropped "
                f"and rejoins, starting the wait again{race}. Remove the member by its group.instance.id (Admin "
                f"removeMembersFromConsumerGroup) or give static members a max.poll.interval.ms below {below}",
            )
        )
    return result


class _Lifecycle:
    """Each member's crashes and closes, and its starts, from one pass over the log: a thousand static members
    over hundreds of rebalances would otherwise scan the whole log once per member and rebalance."""

    def __init__(self, sim: ClassicSimulation) -> None:
        # member -> (instants, log positions) of its downs (crash, close) and of its starts, in log order
        self._downs: dict[str, tuple[list[int], list[int]]] = {}
        self._starts: dict[str, tuple[list[int], list[int]]] = {}
        for position, entry in enumerate(sim.log):
            if entry.member is None:
                continue
            if entry.kind in ("crash", "close"):
                kept = self._downs.setdefault(entry.member, ([], []))
            elif entry.kind == "start":
                kept = self._starts.setdefault(entry.member, ([], []))
            else:
                continue
            kept[0].append(entry.at_ms)
            kept[1].append(position)

    def down_during(self, handle: str, start: int, end: int) -> bool:
        """Down throughout [start, end]: its last crash or close by `end` comes after its last start by `start`
        (a start after `start` does not count: the member was not there when the rebalance began)."""
        down = _last_by(self._downs.get(handle), end)
        if down is None:
            return False
        up = _last_by(self._starts.get(handle), start)
        return up is None or down > up


def _last_by(kept: tuple[list[int], list[int]] | None, instant: int) -> int | None:
    """The log position of the last kept entry at or before `instant` (the log is in time order)."""
    if kept is None:
        return None
    found = bisect_right(kept[0], instant)
    return kept[1][found - 1] if found else None


def _expired_sessions(sim: ClassicSimulation) -> list[Finding]:
    """GMM `expireClassicGroupMemberHeartbeat` after a GC pause longer than session.timeout.ms."""
    result = []
    for entry in sim.log:
        if entry.kind == "member-removed" and entry.member is not None and entry.detail.get("paused"):
            session = sim.clients[entry.member].config.session_timeout_ms
            removal = next(
                (r for r in sim.rebalances if r.start <= entry.at_ms and (r.end is None or r.end >= entry.at_ms)), None
            )
            rejoin = next((r for r in sim.rebalances if r.start > entry.at_ms and entry.member in r.joined), None)
            caused = [r.index for r in (removal, rejoin) if r is not None]
            if len(set(caused)) == 2:
                cost = f"the group rebalanced twice: #{caused[0]} for the removal, #{caused[1]} when it rejoined"
            elif caused:
                cost = f"the group rebalanced once (#{caused[0]})"
            else:
                cost = "it had not rejoined by the end of the run"
            result.append(
                Finding(
                    "session-expired",
                    entry.at_ms,
                    (entry.member,),
                    f"{entry.member} was removed at {entry.at_ms / 1000:g} s during a GC pause: a pause longer than "
                    f"session.timeout.ms ({session / 1000:g} s) looks like a crash to the coordinator; {cost}",
                )
            )
    return result
