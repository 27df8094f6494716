"""Properties every assignor must keep on random groups (hypothesis)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors import registry
from kgroup.assignors.base import AssignorError
from kgroup.assignors.model import Cluster, Member, Topic
from kgroup.assignors.validity import check_validity

RACKS = ["a", "b", "c"]


@st.composite
def groups(draw: st.DrawFn, identical: bool = False) -> tuple[Cluster, list[Member]]:
    n_topics = draw(st.integers(1, 5))
    topics = []
    for i in range(n_topics):
        count = draw(st.integers(1, 12))
        racked = draw(st.booleans())
        racks = (
            tuple(frozenset(draw(st.sets(st.sampled_from(RACKS), min_size=1, max_size=2))) for _ in range(count))
            if racked
            else ()
        )
        topics.append(Topic(f"t{i}", count, racks))
    names = [t.name for t in topics] + ["missing-topic"]
    n_members = draw(st.integers(1, 8))
    shared = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    members = []
    for i in range(n_members):
        subs = shared if identical else draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
        static = draw(st.booleans())
        members.append(
            Member(
                f"m{draw(st.integers(0, 99)):02d}-{i}",
                tuple(subs),
                instance_id=f"i{i}" if static else None,
                rack=draw(st.sampled_from([None, *RACKS])),
            )
        )
    return Cluster(tuple(topics)), members


@settings(max_examples=150, deadline=None)
@given(groups())
def test_every_assignor_output_is_valid(group: tuple[Cluster, list[Member]]) -> None:
    cluster, members = group
    for name in registry.known_names():
        try:
            result = registry.builtin(name).assign(cluster, members)  # type: ignore[union-attr]
        except AssignorError:
            assert name == "legacy-roundrobin"  # Kafka's `require`: only identical subscriptions
            continue
        assert check_validity(cluster, members, result) == [], name


@settings(max_examples=150, deadline=None)
@given(groups(), st.randoms(use_true_random=False))
def test_output_does_not_depend_on_join_order(group: tuple[Cluster, list[Member]], rnd: random.Random) -> None:
    cluster, members = group
    shuffled = members[:]
    rnd.shuffle(shuffled)
    for name in ("range", "roundrobin", "legacy-range"):
        assignor = registry.builtin(name)
        assert assignor is not None
        assert assignor.assign(cluster, members) == assignor.assign(cluster, shuffled), name


@settings(max_examples=150, deadline=None)
@given(groups())
def test_range_is_balanced_within_each_topic(group: tuple[Cluster, list[Member]]) -> None:
    cluster, members = group
    result = registry.builtin("range").assign(cluster, members)  # type: ignore[union-attr]
    for topic in cluster.topics:
        subscribers = [m.member_id for m in members if topic.name in m.topics]
        counts = Counter({m: 0 for m in subscribers})
        counts.update(m for m, parts in result.owners.items() for tp in parts if tp.topic == topic.name)
        if subscribers:
            assert max(counts.values()) - min(counts.values()) <= 1, topic.name


@settings(max_examples=150, deadline=None)
@given(groups(identical=True))
def test_roundrobin_is_balanced_with_identical_subscriptions(group: tuple[Cluster, list[Member]]) -> None:
    cluster, members = group
    result = registry.builtin("roundrobin").assign(cluster, members)  # type: ignore[union-attr]
    counts = [len(result.partitions_of(m.member_id)) for m in members]
    assert max(counts) - min(counts) <= 1
