"""The stuck-join finding asks, per static member and long rebalance, whether the member was down throughout.

`_Lifecycle` answers from an index built in one pass over the log; the rule it must keep is the plain reading of
the log below: walk the member's entries up to the rebalance's end, a crash or close makes it down, a start at or
before the rebalance's start makes it up (a start after that does not: it was not there when the join began).
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.coordinator.classic.pathologies import _Lifecycle
from kgroup.assignors.coordinator.classic.records import LogEntry

MEMBERS = ("a", "b", "c")
KINDS = ("crash", "close", "start", "join", "member-removed")


def down_by_reading_the_log(log: list[LogEntry], handle: str, start: int, end: int) -> bool:
    state = None
    for entry in log:
        if entry.member == handle and entry.at_ms <= end:
            if entry.kind in ("crash", "close"):
                state = "down"
            elif entry.kind == "start" and entry.at_ms <= start:
                state = "up"
    return state == "down"


entries = st.lists(
    st.tuples(st.integers(0, 5), st.sampled_from(KINDS), st.sampled_from(MEMBERS + (None,))), max_size=40
)


@settings(max_examples=400, deadline=None)
@given(entries, st.integers(0, 120), st.integers(0, 60))
def test_down_throughout_a_rebalance_reads_as_the_log_says(steps, start: int, length: int) -> None:
    log, now = [], 0
    for gap, kind, member in steps:  # the log is in time order; several entries may share an instant
        now += gap
        log.append(LogEntry(now, kind, member, {}))
    lifecycle = _Lifecycle(SimpleNamespace(log=log))  # type: ignore[arg-type]
    for handle in MEMBERS:
        assert lifecycle.down_during(handle, start, start + length) == down_by_reading_the_log(
            log, handle, start, start + length
        )


def test_a_member_that_crashed_before_and_came_back_after_the_rebalance_began_counts_as_down() -> None:
    log = [LogEntry(10, "crash", "a", {}), LogEntry(30, "start", "a", {})]
    lifecycle = _Lifecycle(SimpleNamespace(log=log))  # type: ignore[arg-type]
    assert lifecycle.down_during("a", 20, 40)  # not there when the join began at 20
    assert not lifecycle.down_during("a", 30, 40)  # back by the start
    assert not lifecycle.down_during("b", 0, 40)  # never seen
