"""The external coordinator's sticky balanced assignment [kgroup rule, seed 002's design leaves it open], against
its definition applied one partition at a time: each consumer keeps up to its balanced count of what it holds
(lowest partitions first; a count one over while such slots remain), then each leftover partition, lowest first,
goes to the consumer with the fewest that may still take one (the lower name on a tie)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.coordinator.designs.external_coordinator import sticky_balanced
from kgroup.assignors.model import TopicPartition

NAMES = ["a", "b", "c", "d", "e", "f"]


def _by_definition(partitions, live, current):  # type: ignore[no-untyped-def]
    consumers, parts = sorted(live), sorted(partitions)
    if not consumers:
        return {}
    base, extra = divmod(len(parts), len(consumers))
    kept = {}
    for consumer in consumers:
        mine = [tp for tp in parts if current.get(tp) == consumer]
        cap = base + (1 if extra and len(mine) > base else 0)
        extra -= cap - base
        kept[consumer] = mine[:cap]
    taken = {tp for mine in kept.values() for tp in mine}
    for tp in [tp for tp in parts if tp not in taken]:
        may = [c for c in consumers if len(kept[c]) < base or (len(kept[c]) == base and extra > 0)]
        chosen = min(may, key=lambda c: (len(kept[c]), c))
        if len(kept[chosen]) == base:
            extra -= 1
        kept[chosen].append(tp)
    return {tp: c for c, mine in kept.items() for tp in mine}


@settings(max_examples=500, deadline=None)
@given(
    count=st.integers(min_value=0, max_value=40),
    live=st.sets(st.sampled_from(NAMES)),
    owners=st.lists(st.sampled_from(NAMES + [None]), max_size=40),
)
def test_sticky_balanced_is_its_definition(count, live, owners) -> None:  # type: ignore[no-untyped-def]
    partitions = [TopicPartition("t", p) for p in range(count)]
    current = {tp: owner for tp, owner in zip(partitions, owners)}
    result = sticky_balanced(partitions, live, current)
    assert list(result.items()) == list(_by_definition(partitions, live, current).items())  # the order too
    if live:
        counts = [sum(1 for c in result.values() if c == name) for name in live]
        assert sorted(result) == partitions and max(counts) - min(counts) <= 1
