"""TIME-TO-STABLE as docs/scenarios.md defines it, on ledgers small enough to work out by hand."""

from __future__ import annotations

from kgroup.assignors.coordinator.consumption import ConsumptionLedger
from kgroup.assignors.coordinator.settling import Settle, time_to_stable
from kgroup.assignors.model import TopicPartition

T0, T1 = TopicPartition("t", 0), TopicPartition("t", 1)
CREATED = {T0: 0, T1: 0}


def _ledger(*moves: tuple[str, str, TopicPartition, int]) -> ConsumptionLedger:
    ledger = ConsumptionLedger()
    for action, owner, tp, at in moves:
        ledger.start(owner, [tp], at) if action == "start" else ledger.stop(owner, at, [tp])
    return ledger


def test_a_restart_counts_until_the_member_consumes_again_not_only_the_leave() -> None:
    # b restarts at 10 s: its partition is revoked at 10 s, the rebalance runs 10-11 s, b is back and
    # consuming t-1 again at 15.5 s after a second rebalance 15-15.5 s.
    ledger = _ledger(
        ("start", "a", T0, 0),
        ("start", "b", T1, 0),
        ("stop", "b", T1, 10_000),
        ("start", "a", T1, 11_000),
        ("stop", "a", T1, 15_000),
        ("start", "b", T1, 15_500),
    )
    settle = time_to_stable([10_000], ledger.timelines(), CREATED, [(10_000, 11_000), (15_000, 15_500)], 60_000)
    assert settle == [Settle(5_500)]


def test_an_event_that_moves_nothing_settles_at_once() -> None:
    ledger = _ledger(("start", "a", T0, 0), ("start", "b", T1, 0))
    assert time_to_stable([10_000], ledger.timelines(), CREATED, [], 60_000) == [Settle(0)]


def test_a_partition_still_unconsumed_at_the_end_never_settles() -> None:
    ledger = _ledger(("start", "a", T0, 0), ("start", "b", T1, 0), ("stop", "b", T1, 10_000))
    assert time_to_stable([10_000], ledger.timelines(), CREATED, [], 60_000) == [Settle(None)]


def test_an_open_rebalance_is_not_stable_and_the_next_event_cuts_the_window() -> None:
    # The rebalance that starts at 10 s ends at 40 s, after the next event at 30 s: not settled 20 s after
    # the first event; the second event's own window then holds the rebalance's end.
    ledger = _ledger(
        ("start", "a", T0, 0), ("start", "b", T1, 0), ("stop", "b", T1, 10_000), ("start", "a", T1, 40_000)
    )
    settle = time_to_stable([10_000, 30_000], ledger.timelines(), CREATED, [(10_000, 40_000)], 60_000)
    assert settle == [Settle(20_000, interrupted=True), Settle(10_000)]


def test_an_event_the_design_does_not_depend_on_neither_has_a_time_nor_cuts_a_window() -> None:
    ledger = _ledger(
        ("start", "a", T0, 0), ("start", "b", T1, 0), ("stop", "b", T1, 10_000), ("start", "a", T1, 40_000)
    )
    settle = time_to_stable([10_000, 30_000], ledger.timelines(), CREATED, [(10_000, 40_000)], 60_000, [True, False])
    assert settle == [Settle(30_000), Settle(None, applies=False)]


def test_a_new_partition_must_be_consumed_before_the_group_is_stable() -> None:
    t2 = TopicPartition("t", 2)
    ledger = _ledger(("start", "a", T0, 0), ("start", "b", T1, 0), ("start", "a", t2, 25_000))
    settle = time_to_stable([20_000], ledger.timelines(), {**CREATED, t2: 20_000}, [], 60_000)
    assert settle == [Settle(5_000)]
