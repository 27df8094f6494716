"""Keyed timers on simulated time (integer milliseconds), as the group coordinator uses them.

Kafka: `CoordinatorTimer` (and `MockCoordinatorTimer` in its tests). Scheduling a key that exists
replaces the old timer. Timers fire exactly at their deadline, earliest first, ties in the order they
were scheduled; a timer scheduled while others fire, due at or before the current instant, fires in
the same pass.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

Action = Callable[[], None]


@dataclass(order=True)
class _Entry:
    deadline: int
    sequence: int
    key: str = field(compare=False)
    action: Action = field(compare=False, repr=False)
    cancelled: bool = field(default=False, compare=False)


class TimerQueue:
    def __init__(self) -> None:
        self._heap: list[_Entry] = []
        self._live: dict[str, _Entry] = {}
        self._sequence = 0

    def schedule(self, key: str, deadline: int, action: Action) -> None:
        """Kafka: `CoordinatorTimer.schedule`: replaces any timer with the same key."""
        self.cancel(key)
        self._sequence += 1
        entry = _Entry(deadline, self._sequence, key, action)
        self._live[key] = entry
        heapq.heappush(self._heap, entry)

    def cancel(self, key: str) -> None:
        entry = self._live.pop(key, None)
        if entry is not None:
            entry.cancelled = True

    def deadline(self, key: str) -> int | None:
        entry = self._live.get(key)
        return entry.deadline if entry else None

    def next_deadline(self) -> int | None:
        self._drop_cancelled()
        return self._heap[0].deadline if self._heap else None

    def pop_due(self, now: int) -> tuple[int, Action] | None:
        """The earliest timer due at or before `now` (removed), or None."""
        self._drop_cancelled()
        if not self._heap or self._heap[0].deadline > now:
            return None
        entry = heapq.heappop(self._heap)
        del self._live[entry.key]
        return entry.deadline, entry.action

    def _drop_cancelled(self) -> None:
        heap = self._heap
        while heap and heap[0].cancelled:
            heapq.heappop(heap)
