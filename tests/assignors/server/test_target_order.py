"""`after_uniform`'s shortcut against replaying the member's map (`JavaHashMap`, which replays
`AssignorHelpers.deepCopyAssignment`, `remove` and `computeIfAbsent` with Java's resizes). What the coordinator
reads back (`read_back`) must be the same. The oracle test (tests/oracle/test_target_order_matches_kafka.py)
checks both against Kafka's own assignors; this one reaches the shapes it does not: members with dozens of
topics, whose ids crowd a few buckets (uniform hands a member runs of topics in bucket order, and a chain of
eight doubles a small table).
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings, strategies as st

from kgroup.assignors.java.hash_map import JavaHashMap
from kgroup.assignors.java.hash_order import spread, table_size_for
from kgroup.assignors.model import Cluster, Topic
from kgroup.assignors.server.target_order import TopicHashes, after_uniform, read_back

NAMES = [f"t{i:03}" for i in range(200)]
HASHES = TopicHashes(Cluster(tuple(Topic(n, 1) for n in NAMES)))
# The topics by the low bits of their spread hash: a few buckets' worth gives the long chains uniform makes.
BY_BUCKET = sorted(NAMES, key=lambda n: spread(HASHES(n)) & 15)


def _replayed(record: Sequence[str], dropped: set[str], handed: Sequence[tuple[str, int]]) -> list[str]:
    current = read_back(record, HASHES)
    copy: JavaHashMap[str, None] = JavaHashMap(table_size_for(len(current)), HASHES)
    for topic in current:
        copy.put(topic, None)
    for topic in dropped:
        copy.remove(topic)
    for topic, _ in handed:
        copy.compute_if_absent(topic, lambda: None)
    return copy.in_order()


@st.composite
def changes(draw: st.DrawFn) -> tuple[list[str], set[str], list[tuple[str, int]]]:
    start = draw(st.integers(0, len(BY_BUCKET) - 80))
    pool = BY_BUCKET[start : start + draw(st.integers(8, 80))] if draw(st.booleans()) else NAMES
    record = draw(st.lists(st.sampled_from(pool), max_size=60, unique=True))
    dropped = set(draw(st.lists(st.sampled_from(record), max_size=4, unique=True))) if record else set()
    kept = [t for t in pool if t not in dropped]
    handed = draw(st.lists(st.tuples(st.sampled_from(kept), st.integers(0, 9)), max_size=12)) if kept else []
    return draw(st.permutations(record)), dropped, handed


@settings(max_examples=2000, deadline=None)
@given(changes())
def test_the_shortcut_reads_back_as_the_replayed_map(change: tuple[list[str], set[str], list[tuple[str, int]]]) -> None:
    record, dropped, handed = change
    shortcut = after_uniform(record, dropped, handed, HASHES)
    assert read_back(shortcut, HASHES) == read_back(_replayed(record, dropped, handed), HASHES)


def test_a_topic_new_to_a_member_comes_first_in_its_bucket_not_by_name() -> None:
    """Two topics in one bucket of a member's map: the one handed later is listed first (computeIfAbsent puts
    it at the chain's head), whatever their names."""
    first, second = next(
        (a, b)
        for a in NAMES
        for b in NAMES
        if a < b and spread(HASHES(a)) & 15 == spread(HASHES(b)) & 15 and spread(HASHES(a)) != spread(HASHES(b))
    )
    given_first = after_uniform([], (), [(first, 0)], HASHES)
    both = after_uniform(given_first, (), [(second, 0)], HASHES)
    assert read_back(both, HASHES) == [second, first]
    reverse = after_uniform(after_uniform([], (), [(second, 0)], HASHES), (), [(first, 0)], HASHES)
    assert read_back(reverse, HASHES) == [first, second]
