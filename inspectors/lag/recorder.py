"""`lag record`'s loop: poll on a fixed schedule, ride out outages, write every poll and every gap.

A poll that fails because the cluster is gone or a request was refused mid-way (a broker restart, a
leader move) is retried with a doubling backoff, from 1 s up to 30 s and never past the next scheduled
poll, until the cluster answers again or the outage outlasts `max_outage_ms`. The time the recorder could
not see is written as a gap (kgroup.inspectors.lag.dataset, `gaps`), so the analysis knows it was blind
rather than reading silence as a stopped consumer. Authentication failures and bad input are not retried.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kgroup.inspectors.errors import NotFoundError, NotReachableError, RunError
from kgroup.inspectors.lag import dataset as lag_dataset
from kgroup.inspectors.lag.sampler import Sampler
from kgroup.inspectors.live.admin import LiveAdmin

BACKOFF_START_S, BACKOFF_MAX_S = 1.0, 30.0
_ON_SLOT_S = 0.05  # closer than this to a slot counts as on it


class StopFlag(Protocol):
    requested: bool

    def sleep(self, seconds: float) -> None: ...


@dataclass(frozen=True)
class Schedule:
    interval_ms: int
    duration_ms: int | None = None  # stop after this long
    count: int | None = None  # stop after this many polls written
    max_outage_ms: int = 15 * 60 * 1000  # give up (exit 4) when the cluster stays away this long


@dataclass
class Tally:
    """What the recording saved, for the summary line."""

    polls: int = 0
    rows: int = 0
    gaps: list[dict[str, Any]] = field(default_factory=list)
    retries: int = 0
    first_ts: int | None = None
    last_ts: int | None = None


@dataclass(frozen=True)
class Event:
    kind: str  # "poll" (written) | "retry" (the cluster did not answer; waiting `wait_s`) | "resumed"
    tally: Tally
    groups: int = 0
    partitions: int = 0
    error: str | None = None
    wait_s: float = 0.0
    notes: tuple[str, ...] = ()  # said once (a share group whose broker sends no lag)


class GaveUp(NotReachableError):
    """The cluster stayed away longer than the outage bound; the recording so far is saved."""


def record(
    out: str,
    sampler: Sampler,
    schedule: Schedule,
    stop: StopFlag,
    on_event: Callable[[Event], None],
    reconnect: Callable[[], LiveAdmin],
    clock: Callable[[], float] = time.monotonic,
) -> Tally:
    """`reconnect` makes a new admin client: after a failed poll the next attempt starts from a fresh
    connection, since librdkafka's client can stay stuck on a coordinator it knew before a restart."""
    tally = Tally()
    started = clock()
    end_at = started + schedule.duration_ms / 1000 if schedule.duration_ms is not None else None
    slot = 0  # polls are due at started + slot * interval; an outage skips the slots it covered
    outage: dict[str, Any] | None = None
    outage_since = 0.0
    outage_unreachable = False  # whether the outage's reason is the cluster out of reach
    cluster = sampler.cluster or sampler.admin.settings.bootstrap_servers
    check_only = False  # the next attempt falls between two polls of the schedule: only see if the cluster answers
    while not stop.requested:
        try:
            if check_only:
                check_only = False
                sampler.admin.metadata()  # it answers: poll at the next slot of the schedule, not off its grid
                due = _next_slot(started, schedule.interval_ms, clock())
                stop.sleep(max(0.0, (due if end_at is None else min(due, end_at)) - clock()))
                continue
            got = sampler.poll_all()
            commits, logs = got.commits, got.logs
        except (NotReachableError, RunError, NotFoundError) as exc:
            if tally.polls == 0 and outage is None and not isinstance(exc, NotReachableError):
                raise  # the first poll: a refused request or a missing group is the user's to fix, not to wait out
            now = clock()
            if outage is None:
                outage = {
                    "cluster": sampler.cluster or cluster,
                    "start_ts": tally.last_ts or int(time.time() * 1000),
                    "end_ts": None,
                    "attempts": 0,
                    "reason": str(exc),
                }
                outage_since = now
            elif isinstance(exc, NotReachableError) and not outage_unreachable:
                # a refusal from a cluster on its way down (a broker shutting down answers before it stops
                # answering at all) is not what the gap was: the cluster out of reach is
                outage["reason"] = str(exc)
            outage_unreachable = outage_unreachable or isinstance(exc, NotReachableError)
            outage["attempts"] += 1
            tally.retries += 1
            if (now - outage_since) * 1000 >= schedule.max_outage_ms or (end_at is not None and now >= end_at):
                _close(out, outage, None, tally)
                if end_at is not None and now >= end_at:
                    return tally  # the duration ran out during the outage: a normal end, with its gap saved
                raise GaveUp(
                    f"{exc} (gave up after {(now - outage_since):.0f} s of retries; the recording so far is saved)"
                ) from None
            wait = min(BACKOFF_START_S * 2 ** (outage["attempts"] - 1), BACKOFF_MAX_S, schedule.interval_ms / 1000)
            if end_at is not None:
                wait = min(wait, max(0.0, end_at - now))
            # an attempt that would land between two slots only checks that the cluster answers; the poll after
            # an outage is made on the schedule's grid (started + k * interval), like every other poll
            to_slot = _next_slot(started, schedule.interval_ms, now) - now
            check_only = wait < to_slot - _ON_SLOT_S
            wait = max(0.0, min(wait, to_slot))
            on_event(Event("retry", tally, error=str(exc), wait_s=wait))
            sampler.admin.close()  # what the failed poll left pending dies with it, not when the cluster is back
            stop.sleep(wait)
            sampler.admin = reconnect()
            continue
        observed = (
            next((c.observed_ts for c in commits), None)
            or next((s.observed_ts for s in got.shares), None)
            or next((s.ts for s in logs), None)
        )
        if outage is not None:
            _close(out, outage, observed or int(time.time() * 1000), tally)
            outage, outage_unreachable = None, False
            on_event(Event("resumed", tally))
        lag_dataset.append(out, commits, logs, got.shares)
        tally.polls += 1
        tally.rows += len(commits) + len(logs) + len(got.shares)
        if observed is not None:
            tally.first_ts = tally.first_ts if tally.first_ts is not None else observed
            tally.last_ts = observed
        else:
            tally.last_ts = int(time.time() * 1000)
        groups = len({c.group for c in commits} | {s.group for s in got.shares})
        on_event(Event("poll", tally, groups=groups, partitions=len(commits) + len(got.shares), notes=tuple(got.notes)))
        if schedule.count is not None and tally.polls >= schedule.count:
            break
        slot = max(slot + 1, int((clock() - started) * 1000 // schedule.interval_ms) + 1)
        next_at = started + slot * schedule.interval_ms / 1000
        if end_at is not None and next_at > end_at:
            break
        stop.sleep(max(0.0, next_at - clock()))
    if outage is not None:  # Ctrl-C during an outage: the blind time is part of the record too
        _close(out, outage, None, tally)
    return tally


def _next_slot(started: float, interval_ms: int, now: float) -> float:
    """The first time on the schedule's grid (started + k * interval) at or after `now`."""
    step = interval_ms / 1000
    return started + math.ceil(max(0.0, now - started - _ON_SLOT_S) / step) * step


def _close(out: str, outage: dict[str, Any], end_ts: int | None, tally: Tally) -> None:
    outage["end_ts"] = end_ts
    lag_dataset.append_gap(out, outage)
    tally.gaps.append(dict(outage))
