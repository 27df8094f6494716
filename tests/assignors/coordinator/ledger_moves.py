"""Consumption ledgers hypothesis draws: members starting and stopping partitions at shared instants."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from kgroup.assignors.coordinator.consumption import ConsumptionLedger
from kgroup.assignors.model import TopicPartition

Move = tuple[bool, str, list[TopicPartition], int]  # start (else stop), owner, partitions (none: all), instant


def moves(parts: Sequence[TopicPartition], instants: int, step_ms: int, size: int) -> st.SearchStrategy[list[Move]]:
    """Up to `size` moves at multiples of `step_ms` below `instants * step_ms`, so that several share an instant."""
    at = st.integers(min_value=0, max_value=instants).map(lambda s: s * step_ms)
    return st.lists(
        st.tuples(st.booleans(), st.sampled_from("abc"), st.lists(st.sampled_from(parts), max_size=4), at),
        max_size=size,
    )


def play(ledger: ConsumptionLedger, drawn: list[Move], after: int = 0) -> ConsumptionLedger:
    """The moves in time order, `after` ms later; a start names only partitions its owner is not consuming."""
    for starting, owner, parts, at in sorted(drawn, key=lambda move: move[3]):
        if starting:
            ledger.start(owner, [tp for tp in dict.fromkeys(parts) if tp not in ledger.consuming(owner)], after + at)
        else:
            ledger.stop(owner, after + at, parts or None)
    return ledger
