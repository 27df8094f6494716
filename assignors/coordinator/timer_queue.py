"""Keyed timers on simulated time (integer milliseconds), as the group coordinator uses them.

Kafka: `CoordinatorTimer` (and `MockCoordinatorTimer` in its tests). Scheduling a key that exists
replaces the old timer. Timers fire exactly at their deadline, earliest first, ties in the order they
were scheduled; a timer scheduled while others fire, due at or before the current instant, fires in
the same pass.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Hashable
from typing import Protocol

Action = Callable[[], None]


class TimerQueue:
    """A heap of (deadline, sequence, key) entries and, per key, its live (deadline, sequence, action).

    A session timer is pushed back on every heartbeat of every member. Rescheduling a key later than
    its entry already in the heap only updates `_live`; the entry moves to the live deadline when it is
    due (its old deadline is reached), so a member heartbeating every 3 s with a 45 s session costs one
    heap move per session, not one per heartbeat. Entries order by (deadline, sequence) exactly as if
    each schedule had pushed anew, so the firing order is unchanged.

    Timers scheduled with `lane=True` (a simulation's heartbeats: each the instant plus one interval) mostly
    come due in the order they are scheduled: they queue first-in first-out beside the heap, at a constant
    cost, while their deadlines do not decrease; one due earlier than the lane's last goes to the heap. The
    earlier head of the two by (deadline, sequence) comes first, so the firing order is that of one heap.
    An event loop that reads `heap` directly must not use the lane.
    """

    def __init__(self) -> None:
        # Read by event loops too: while heap[0][0] is later than their next event, no timer is due first.
        self.heap: list[tuple[int, int, Hashable]] = []
        self._lane: deque[tuple[int, int, Hashable]] = deque()
        self._live: dict[Hashable, tuple[int, int, Action]] = {}
        self._queued: dict[Hashable, tuple[int, int]] = {}  # key -> (deadline, sequence) of its heap entry
        self._sequence = 0
        self.fired = 0  # timers popped, for benchmarks

    def schedule(self, key: Hashable, deadline: int, action: Action, lane: bool = False) -> None:
        """Kafka: `CoordinatorTimer.schedule`: replaces any timer with the same key."""
        self._sequence = sequence = self._sequence + 1
        self._live[key] = (deadline, sequence, action)
        queued = self._queued.get(key)
        if queued is None or queued[0] > deadline:
            self._queued[key] = (deadline, sequence)
            if lane and (not self._lane or self._lane[-1][0] <= deadline):
                self._lane.append((deadline, sequence, key))
            else:
                heapq.heappush(self.heap, (deadline, sequence, key))

    def cancel(self, key: Hashable) -> None:
        self._live.pop(key, None)

    def deadline(self, key: Hashable) -> int | None:
        entry = self._live.get(key)
        return entry[0] if entry else None

    def next_deadline(self) -> int | None:
        """The earliest live deadline, or None."""
        return self.due_by(None)

    def due_by(self, limit: int | None) -> int | None:
        """The earliest live deadline if it is at or before `limit` (None: no limit), else None.

        Only entries at or before `limit` are looked at, so an event loop asking before each event
        "is a timer due first?" pays one comparison while the next timer is further away.
        """
        from_lane = self._due_head(limit)
        if from_lane is None:
            return None
        return self._lane[0][0] if from_lane else self.heap[0][0]

    def _due_head(self, limit: int | None) -> bool | None:
        """Drops the entries no timer is live for from the heads; then whether the earliest live entry, due at
        or before `limit`, heads the lane (else the heap), or None when none is due."""
        heap, lane, live, queued = self.heap, self._lane, self._live, self._queued
        while True:
            # Sequences are unique: entries compare by (deadline, sequence), never by key.
            from_lane = bool(lane) and (not heap or lane[0] < heap[0])
            if from_lane:
                deadline, sequence, key = lane[0]
            elif heap:
                deadline, sequence, key = heap[0]
            else:
                return None
            if limit is not None and deadline > limit:
                return None
            timer = live.get(key)
            if timer is not None and timer[0] == deadline and timer[1] == sequence:
                return from_lane
            if from_lane:
                lane.popleft()
            else:
                heapq.heappop(heap)
            if queued.get(key) != (deadline, sequence):
                continue  # replaced by an earlier entry
            if timer is None:
                del queued[key]  # cancelled
            else:
                queued[key] = timer[:2]  # postponed: move to the live deadline
                heapq.heappush(heap, (timer[0], timer[1], key))

    def pop_due(self, now: int) -> tuple[int, Action] | None:
        """The earliest timer due at or before `now` (removed), or None."""
        from_lane = self._due_head(now)
        if from_lane is None:
            return None
        _, _, key = self._lane.popleft() if from_lane else heapq.heappop(self.heap)
        del self._queued[key]
        self.fired += 1
        deadline, _, action = self._live.pop(key)
        return deadline, action


class Clocked(Protocol):
    now: int


def run_due(timers: TimerQueue, instant: int, clock: Clocked) -> None:
    """Fire every timer due at or before `instant` with `clock.now` at its own deadline, then stand at `instant`."""
    while True:
        due = timers.pop_due(instant)
        if due is None:
            break
        clock.now, action = due
        action()
    clock.now = instant
