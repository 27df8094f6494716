"""Keyed timers on simulated time (docs/conformance.md, "Time model"): replace by key, exact deadlines, stable ties."""

from __future__ import annotations

from kgroup.assignors.coordinator.timer_queue import TimerQueue


def _fire(queue: TimerQueue, now: int) -> list[tuple[int, str]]:
    fired = []
    while (due := queue.pop_due(now)) is not None:
        deadline, action = due
        fired.append((deadline, action()))
    return fired


def test_scheduling_a_key_again_replaces_the_timer() -> None:
    queue = TimerQueue()
    queue.schedule("join-g", 3000, lambda: "first")
    queue.schedule("join-g", 6000, lambda: "second")
    assert queue.deadline("join-g") == 6000
    assert _fire(queue, 5999) == []
    assert _fire(queue, 6000) == [(6000, "second")]
    assert queue.deadline("join-g") is None


def test_ties_fire_in_scheduling_order_and_cancelled_timers_never_fire() -> None:
    queue = TimerQueue()
    queue.schedule("b", 100, lambda: "b")
    queue.schedule("a", 100, lambda: "a")
    queue.schedule("c", 50, lambda: "c")
    queue.schedule("d", 100, lambda: "d")
    queue.cancel("d")
    assert _fire(queue, 100) == [(50, "c"), (100, "b"), (100, "a")]
    assert queue.next_deadline() is None


def test_a_timer_scheduled_while_firing_fires_in_the_same_pass_when_due() -> None:
    queue = TimerQueue()
    queue.schedule("first", 10, lambda: queue.schedule("second", 10, lambda: "second") or "first")
    assert _fire(queue, 10) == [(10, "first"), (10, "second")]


def test_a_postponed_timer_fires_at_its_new_deadline_after_timers_scheduled_before_the_postponement() -> None:
    queue = TimerQueue()
    queue.schedule("session-a", 100, lambda: "a")
    queue.schedule("session-b", 200, lambda: "b")
    queue.schedule("session-a", 200, lambda: "a again")  # a heartbeat pushes the earliest timer back
    assert queue.next_deadline() == 200
    assert _fire(queue, 199) == []
    assert _fire(queue, 200) == [(200, "b"), (200, "a again")]


def test_due_by_answers_only_for_timers_at_or_before_the_limit() -> None:
    queue = TimerQueue()
    queue.schedule("join", 50, lambda: "join")
    queue.schedule("session", 30, lambda: "session")
    queue.schedule("session", 300, lambda: "session later")
    assert queue.due_by(40) is None  # the session timer was pushed back past 40
    assert queue.due_by(50) == 50
    queue.cancel("join")
    assert queue.due_by(299) is None
    assert queue.due_by(None) == 300
    queue.schedule("session", 20, lambda: "session sooner")
    assert _fire(queue, 1000) == [(20, "session sooner")]
