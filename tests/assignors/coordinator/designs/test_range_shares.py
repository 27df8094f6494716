"""The 0.8 consumer's range shares, every consumer's at once, against the Scala RangeAssignor's rule
(0.8.2.2, one stream per consumer) applied to one consumer at a time."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.coordinator.designs.zk_watcher import range_share, range_shares
from kgroup.assignors.model import TopicPartition


def _share_by_definition(partitions: list[TopicPartition], consumers: list[str], me: str) -> tuple[TopicPartition, ...]:
    """My index in the sorted consumer ids; per topic (by name), its partitions by number, split into
    len(ids) ranges, the first `count % len(ids)` one longer."""
    ids = sorted(consumers)
    if me not in ids:
        return ()
    index, mine = ids.index(me), []
    for topic in sorted({tp.topic for tp in partitions}):
        parts = sorted((tp for tp in partitions if tp.topic == topic), key=lambda tp: tp.partition)
        per, extra = divmod(len(parts), len(ids))
        start = per * index + min(index, extra)
        mine.extend(parts[start : start + per + (1 if index < extra else 0)])
    return tuple(mine)


@settings(max_examples=300, deadline=None)
@given(
    partitions=st.lists(
        st.builds(TopicPartition, st.sampled_from(["a", "b", "c"]), st.integers(min_value=0, max_value=9)),
        unique=True,
        max_size=25,
    ),
    consumers=st.lists(st.sampled_from(["c1", "c2", "c3", "c10", "d"]), max_size=6),  # a stale view may repeat one
)
def test_every_consumer_s_share_is_its_own_range(partitions, consumers) -> None:  # type: ignore[no-untyped-def]
    shares = range_shares(partitions, consumers)
    assert set(shares) == set(consumers)
    for me in ["c1", "c2", "c3", "c10", "d", "absent"]:
        expected = _share_by_definition(partitions, consumers, me)
        assert range_share(partitions, consumers, me) == expected
        assert shares.get(me, ()) == expected
