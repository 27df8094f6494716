"""TIME-TO-STABLE as docs/scenarios.md defines it, on ledgers small enough to work out by hand."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.coordinator.consumption import ConsumptionLedger, Segment
from kgroup.assignors.coordinator.settling import Settle, time_to_stable
from kgroup.assignors.model import TopicPartition
from tests.assignors.coordinator import ledger_moves

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


# -- the one-pass computation against the definition, window by window ------------------------------------


def _by_definition(
    instants: list[int],
    timelines: dict[TopicPartition, list[Segment]],
    created: dict[TopicPartition, int],
    rebalances: list[tuple[int, int | None]],
    now: int,
    applies: list[bool] | None,
) -> list[Settle]:
    """docs/scenarios.md's TIME-TO-STABLE read literally: each window looks at every rebalance, every segment
    and every partition."""
    consumed_topics = {tp.topic for tp, segments in timelines.items() if segments}
    wanted = [tp for tp in created if tp.topic in consumed_topics]
    distinct = sorted({t for i, t in enumerate(instants) if applies is None or applies[i]})
    by_instant: dict[int, Settle] = {}
    for i, start in enumerate(distinct):
        last = i + 1 == len(distinct)
        stop = now if last else distinct[i + 1]

        def inside(at: int) -> bool:
            return start <= at < stop or (last and at == stop)  # noqa: B023 - used at once

        unsettled, latest = False, start
        for begun, ended in rebalances:
            if inside(begun):
                if ended is None or not inside(ended):
                    unsettled = True
                else:
                    latest = max(latest, ended)
        for segment in (s for segments in timelines.values() for s in segments):
            for at in (segment.start, segment.end):
                if at is not None and inside(at):
                    latest = max(latest, at)
        for tp in wanted:
            if created[tp] > stop or (created[tp] == stop and not last):
                continue
            covering = (
                (s.start <= stop and s.end is None) if last else (s.start < stop and (s.end is None or s.end >= stop))
                for s in timelines.get(tp, ())
            )
            if not any(covering):
                unsettled = True
        if unsettled:
            by_instant[start] = Settle(None) if last else Settle(stop - start, interrupted=True)
        else:
            by_instant[start] = Settle(latest - start)
    return [
        by_instant[t] if applies is None or applies[i] else Settle(None, applies=False) for i, t in enumerate(instants)
    ]


_PARTS = [TopicPartition(topic, p) for topic in ("t", "u", "v") for p in range(3)]
_moment = st.integers(min_value=0, max_value=40).map(lambda s: s * 500)  # shared instants make ties


@settings(max_examples=400, deadline=None)
@given(
    moves=ledger_moves.moves(_PARTS, instants=40, step_ms=500, size=30),
    births=st.lists(_moment, min_size=len(_PARTS), max_size=len(_PARTS)),
    events=st.lists(st.tuples(_moment, st.booleans()), max_size=6),
    rebalances=st.lists(st.tuples(_moment, st.one_of(st.none(), _moment)), max_size=5),
    now=_moment,
    with_applies=st.booleans(),
)
def test_one_pass_agrees_with_the_definition_window_by_window(moves, births, events, rebalances, now, with_applies):  # type: ignore[no-untyped-def]
    ledger = ledger_moves.play(ConsumptionLedger(), moves)
    created = dict(zip(_PARTS, births))
    intervals = [(begun, None if ended is None else max(begun, ended)) for begun, ended in rebalances]
    instants = [at for at, _ in events]
    now = max([now, *instants])  # a run ends at or after its last event (scenario files are checked so)
    applies = [flag for _, flag in events] if with_applies else None
    timelines = ledger.timelines()
    expected = _by_definition(instants, timelines, created, intervals, now, applies)
    assert time_to_stable(instants, timelines, created, intervals, now, applies) == expected
