"""Client `range` without racks against the rule written out plainly (hypothesis).

Kafka: `RangeAssignor.assignPartitions`: per topic, subscribers sorted (static members by instance id
first, then member ids), partitions split into contiguous ranges, the first n % k subscribers taking one
more. kgroup deals topics of one size and one subscriber list together; this checks that shortcut
against the per-topic rule on small groups of every shape (one topic or many, fewer or more partitions
than members, identical or mixed subscriptions).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors import registry
from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition


def _by_the_rule(cluster: Cluster, members: list[Member]) -> dict[str, list[TopicPartition]]:
    def order(m: Member) -> tuple[int, str]:
        return (0, m.instance_id) if m.instance_id is not None else (1, m.member_id)  # ASCII ids: Java order

    result: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    for topic in sorted(cluster.topics, key=lambda t: t.name):
        subscribers = sorted((m for m in members if topic.name in m.topics), key=order)
        if not subscribers:
            continue
        per, extra = divmod(topic.partitions, len(subscribers))
        start = 0
        for i, member in enumerate(subscribers):
            size = per + (1 if i < extra else 0)
            result[member.member_id] += [TopicPartition(topic.name, p) for p in range(start, start + size)]
            start += size
    return result


@st.composite
def shapes(draw: st.DrawFn) -> tuple[Cluster, list[Member]]:
    sizes = draw(st.lists(st.integers(1, 9), min_size=1, max_size=4))
    if draw(st.booleans()):
        sizes = [sizes[0]] * len(sizes)  # one size: the topics are dealt as one run
    topics = tuple(Topic(f"t{i}", n) for i, n in enumerate(sizes))
    names = [t.name for t in topics]
    identical = draw(st.booleans())
    members = []
    for i in range(draw(st.integers(1, 7))):
        subs = names if identical else draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
        static = draw(st.booleans())
        members.append(Member(f"m{draw(st.integers(0, 9))}-{i}", tuple(subs), instance_id=f"i{i}" if static else None))
    return Cluster(topics), members


@settings(max_examples=300, deadline=None)
@given(shapes())
def test_range_deals_each_topic_in_contiguous_ranges(shape: tuple[Cluster, list[Member]]) -> None:
    cluster, members = shape
    got = registry.builtin("range").assign(cluster, members)  # type: ignore[union-attr]
    expected = _by_the_rule(cluster, members)
    assert {m: list(got.partitions_of(m)) for m in expected} == expected
