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
Entry = tuple[int, int, Hashable]  # (deadline, sequence, key), in the heap or the lane
Timer = tuple[int, int, Action]  # a key's live (deadline, sequence, action)
_NO_LIMIT = float("inf")  # `due_by(None)`: every entry is due by it


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

    Each sequence number is given by one `schedule` call, which also fixes its deadline: an entry is its
    key's live timer exactly when their sequences are equal, and its key's current entry exactly when
    `_queued` holds that very tuple.
    """

    def __init__(self) -> None:
        # Read by event loops too: while heap[0][0] is later than their next event, no timer is due first.
        self.heap: list[Entry] = []
        self._lane: deque[Entry] = deque()
        self._live: dict[Hashable, Timer] = {}
        self._queued: dict[Hashable, Entry] = {}  # key -> its entry in the heap or the lane
        self._sequence = 0
        self.fired = 0  # timers popped, for benchmarks

    def schedule(self, key: Hashable, deadline: int, action: Action, lane: bool = False) -> None:
        """Kafka: `CoordinatorTimer.schedule`: replaces any timer with the same key."""
        self._sequence = sequence = self._sequence + 1
        self._live[key] = (deadline, sequence, action)
        queued = self._queued.get(key)
        if queued is None or queued[0] > deadline:
            entry = self._queued[key] = (deadline, sequence, key)
            if lane and (not self._lane or self._lane[-1][0] <= deadline):
                self._lane.append(entry)
            else:
                heapq.heappush(self.heap, entry)

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
        timer = self._live_head(_NO_LIMIT if limit is None else limit, take=False)
        return None if timer is None else timer[0]

    def pop_due(self, now: int) -> tuple[int, Action] | None:
        """The earliest timer due at or before `now` (removed), or None."""
        timer = self._live_head(now, take=True)
        return None if timer is None else (timer[0], timer[2])

    def _live_head(self, limit: int | float, take: bool) -> Timer | None:
        """The earliest live timer due at or before `limit`, removed when `take`, or None; entries no timer is
        live for are dropped or moved on the way (`_requeue`).

        The head is popped, then checked: a live one that stays (`take` False) goes back where it was, the
        front of the lane or the top of the heap (nothing in the heap orders before it)."""
        heap, lane, live = self.heap, self._lane, self._live
        while True:
            # Sequences are unique: entries compare by (deadline, sequence), never by key.
            if lane and (not heap or lane[0] < heap[0]):
                if lane[0][0] > limit:
                    return None
                entry, from_lane = lane.popleft(), True
            elif heap and heap[0][0] <= limit:
                entry, from_lane = heapq.heappop(heap), False
            else:
                return None
            key = entry[2]
            timer = live.get(key)
            if timer is not None and timer[1] == entry[1]:
                if take:
                    del self._queued[key], live[key]
                    self.fired += 1
                elif from_lane:
                    lane.appendleft(entry)
                else:
                    heapq.heappush(heap, entry)
                return timer
            self._requeue(entry, timer)

    def _requeue(self, entry: Entry, timer: Timer | None) -> None:
        """An entry just taken off the heads that is not its key's live timer (`timer`, or None)."""
        key = entry[2]
        if self._queued.get(key) is not entry:
            return  # replaced by an earlier entry
        if timer is None:
            del self._queued[key]  # cancelled
        else:
            # postponed: move to the live deadline
            moved = self._queued[key] = (timer[0], timer[1], key)
            heapq.heappush(self.heap, moved)


class Clocked(Protocol):
    now: int


def run_due(timers: TimerQueue, instant: int, clock: Clocked) -> None:
    """Fire every timer due at or before `instant` with `clock.now` at its own deadline, then stand at `instant`."""
    live_head = timers._live_head
    while (timer := live_head(instant, True)) is not None:
        clock.now, _, action = timer
        action()
    clock.now = instant
