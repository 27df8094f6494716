"""Keyed timers on simulated time (integer milliseconds), as the group coordinator uses them.

Kafka: `CoordinatorTimer` (and `MockCoordinatorTimer` in its tests). Scheduling a key that exists
replaces the old timer. Timers fire exactly at their deadline, earliest first, ties in the order they
were scheduled; a timer scheduled while others fire, due at or before the current instant, fires in
the same pass.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable

Action = Callable[[], None]


class TimerQueue:
    """A heap of (deadline, sequence, key, action); an entry is live while `_live[key]` is its sequence.

    Plain tuples, not objects: a large group reschedules a session timer on every heartbeat.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, Hashable, Action]] = []
        self._live: dict[Hashable, tuple[int, int]] = {}  # key -> (deadline, sequence)
        self._sequence = 0

    def schedule(self, key: Hashable, deadline: int, action: Action) -> None:
        """Kafka: `CoordinatorTimer.schedule`: replaces any timer with the same key."""
        self._sequence += 1
        self._live[key] = (deadline, self._sequence)
        heapq.heappush(self._heap, (deadline, self._sequence, key, action))

    def cancel(self, key: Hashable) -> None:
        self._live.pop(key, None)

    def deadline(self, key: Hashable) -> int | None:
        entry = self._live.get(key)
        return entry[0] if entry else None

    def next_deadline(self) -> int | None:
        self._drop_cancelled()
        return self._heap[0][0] if self._heap else None

    def pop_due(self, now: int) -> tuple[int, Action] | None:
        """The earliest timer due at or before `now` (removed), or None."""
        self._drop_cancelled()
        if not self._heap or self._heap[0][0] > now:
            return None
        deadline, _, key, action = heapq.heappop(self._heap)
        del self._live[key]
        return deadline, action

    def _drop_cancelled(self) -> None:
        heap, live = self._heap, self._live
        while heap:
            deadline, sequence, key, _ = heap[0]
            entry = live.get(key)
            if entry is not None and entry[1] == sequence:
                return
            heapq.heappop(heap)
