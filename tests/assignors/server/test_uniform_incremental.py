"""The coordinator's incremental uniform target equals the full UniformAssignor at every epoch bump.

The group lives through joins, leaves and static replacements (the departed member's target moves to the
new member id), as the KIP-848 coordinator drives the assignor. Each step's derived target is compared
with the full assignor given the same members in the same order and the current targets listed in
TopicPartition order, as the coordinator lists them.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition
from kgroup.assignors.java.hash_order import final_capacity, integer_order, spread
from kgroup.assignors.server.group_spec import (
    ServerGroup,
    _capacity_by_spreads,
    _collection_capacity,
    _integer_set_tail,
)
from kgroup.assignors.server.uniform import UniformAssignor
from kgroup.assignors.java.hash_order import string_order
from kgroup.assignors.server.uniform_incremental import UniformTargets, _MemberOrder

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)


# Kafka 4.0 and 4.2 (KAFKA-18688 changed who keeps the extra partitions in 4.1).
RELEASES = ["4.0.0", "4.2.1"]


def full(cluster, members, current, release=None):
    given_members = [Member(m.member_id, m.topics, owned=tuple(sorted(current.get(m.member_id, ())))) for m in members]
    result = UniformAssignor().assign(cluster, given_members, kafka_version=release)
    return {m.member_id: frozenset(result.partitions_of(m.member_id)) for m in members}


@st.composite
def lives(draw):
    # A few topics, or so many that a member's target spans more than 24 of them (a table of 64+ buckets,
    # whose size alone decides the order); partitions past 16 make HashSet<Integer> order differ from ascending.
    topic_count = draw(st.one_of(st.integers(1, 5), st.integers(25, 45)))
    topic_names = draw(st.lists(names, min_size=topic_count, max_size=topic_count, unique=True))
    first = draw(st.lists(names, min_size=1, max_size=6, unique=True))
    sizes = draw(st.lists(st.integers(1, 40), min_size=topic_count, max_size=topic_count))
    steps = draw(
        st.lists(
            st.tuples(st.sampled_from(["join", "leave", "replace"]), names, st.integers(0, 99)), min_size=1, max_size=25
        )
    )
    return dict(zip(topic_names, sizes)), first, steps


@st.composite
def rolling_restarts(draw):
    """bench/simulator.py's shape in small: more members than partitions per member, each member holding
    about one partition of each of 25+ topics, so a member over its quota gives up one or two partitions."""
    topic_names = draw(st.lists(names, min_size=25, max_size=30, unique=True))
    first = draw(st.lists(names, min_size=26, max_size=34, unique=True))
    sizes = [len(first) + draw(st.integers(0, 1)) for _ in topic_names]
    steps = draw(
        st.lists(
            st.tuples(st.sampled_from(["join", "leave", "replace"]), names, st.integers(0, 99)), min_size=1, max_size=8
        )
    )
    return dict(zip(topic_names, sizes)), first, steps


@pytest.mark.parametrize("release", RELEASES)
@settings(max_examples=200, deadline=None)
@given(life=lives())
def test_every_derived_target_is_the_full_assignors(release, life):
    check_life(life, release)


@pytest.mark.parametrize("release", RELEASES)
@settings(max_examples=25, deadline=None)
@given(life=rolling_restarts())
def test_every_derived_target_is_the_full_assignors_in_a_rolling_restart(release, life):
    check_life(life, release)


def check_life(life, release=None):
    sizes, first, steps = life
    cluster = Cluster(tuple(Topic(t, n) for t, n in sorted(sizes.items())))
    subscription = tuple(sizes)
    members = [Member(m, subscription) for m in first]
    targets = UniformTargets(release)
    current = full(cluster, members, {}, release)
    targets.remember(cluster, [m.topics for m in members], current)
    for kind, name, pick in steps:
        ids = [m.member_id for m in members]
        if kind == "join" and name not in ids:
            members.append(Member(name, subscription))
        elif kind == "leave" and len(members) > 1:
            gone = members.pop(pick % len(members))
            current.pop(gone.member_id)
        elif kind == "replace" and name not in ids:
            index = pick % len(members)
            old = members.pop(index).member_id
            members.append(Member(name, subscription))  # a rejoining static member: appended, with the old target
            current[name] = current.pop(old)
        else:
            continue
        derived = targets.compute(cluster, [m.member_id for m in members], [m.topics for m in members], current)
        expected = full(cluster, members, current, release)
        assert derived is not None, "a join, leave or replacement on unchanged metadata must be derivable"
        assert derived == expected
        current = dict(derived)  # the answer is a read-only view of what the object keeps


def test_declines_when_the_metadata_changed_or_a_target_was_not_issued():
    cluster = Cluster((Topic("a", 6), Topic("b", 4)))
    members = [Member("m1", ("a", "b")), Member("m2", ("a", "b"))]
    targets = UniformTargets()
    current = full(cluster, members, {})
    targets.remember(cluster, [m.topics for m in members], current)
    grown = Cluster((Topic("a", 8), Topic("b", 4)))
    ids, subscriptions = ["m1", "m2"], [("a", "b"), ("a", "b")]
    assert targets.compute(grown, ids, subscriptions, current) is None
    copied = {m: frozenset(t) | frozenset() for m, t in current.items()}  # equal sets, not the issued objects
    assert targets.compute(cluster, ids, subscriptions, copied) == current  # the same partitions: it derives
    narrowed = dict(current, m1=frozenset(sorted(current["m1"])[1:]))  # a set it never issued
    assert targets.compute(cluster, ids, subscriptions, narrowed) is None
    assert targets.compute(cluster, ids, [("a", "b"), ("a",)], current) is None
    assert targets.compute(cluster, ids, subscriptions, current) == current  # the control: this one derives


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from([(0, 3000), (0, 0xFFFF), (60_000, 200_000), (-(2**31), 2**31 - 1)]).flatmap(
        lambda bounds: st.sets(st.integers(*bounds), min_size=1, max_size=300)
    ),
    st.integers(1, 12),
)
def test_an_integer_sets_tail_is_the_end_of_its_iteration_order(values, count):
    """_integer_set_tail against the HashSet<Integer> replayed insert by insert, for values whose hash spread
    folds in a high half (above 0xFFFF, negative) or not, and tables from 16 buckets to 512."""
    parts = sorted(values)
    replayed = integer_order(parts, _collection_capacity(len(parts)))
    assert _integer_set_tail(parts, count) == replayed[-count:]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(names, st.sets(st.integers(0, 200), min_size=1, max_size=6), min_size=1, max_size=60),
    st.one_of(st.integers(1, 8), st.integers(9, 400)),
)
def test_record_tail_is_the_end_of_the_record_order(held, count):
    """ServerGroup.record_tail orders only the topics it needs; the answer is the end of in_record_order."""
    cluster = Cluster(tuple(Topic(t, 201) for t in sorted(held)))
    group = ServerGroup(cluster, [Member("m", tuple(held))])
    partitions = frozenset(TopicPartition(t, p) for t, ps in held.items() for p in ps)
    everything = [
        TopicPartition(group.name[topic_id], p)
        for topic_id, parts in group.in_record_order(group.grouped(sorted(partitions)))
        for p in parts
    ]
    assert group.record_tail(partitions, count) == everything[-count:]
    assert group.last_record_topic(list(held)) == everything[-1].topic


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(0, 5000), min_size=1, max_size=60, unique=True),
        st.lists(st.integers(0, 60).map(lambda k: 16 * k + k % 3), min_size=1, max_size=30, unique=True),  # chains
        st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=60, unique=True),
    ),
    st.sampled_from([16, 32, 64, 128]),
)
def test_capacity_by_spreads_is_final_capacity(keys, capacity):
    """The size-only shortcut agrees with replaying the inserts whenever it answers."""
    keys = list(dict.fromkeys(keys))
    by_spreads = _capacity_by_spreads([spread(k) for k in keys], capacity)
    assert by_spreads is None or by_spreads == final_capacity(keys, capacity)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(names, min_size=49, max_size=200, unique=True),
    st.lists(st.tuples(st.booleans(), names, st.integers(0, 999)), min_size=1, max_size=30),
)
def test_member_order_follows_leaves_and_joins(first, steps):
    """The member order kept across epoch bumps is string_order of the current members, table resizes included."""
    order = _MemberOrder()
    ids = list(first)
    assert order.of(ids) == string_order(ids)
    for join, name, pick in steps:
        if join and name not in ids:
            ids.append(name)
        elif not join and len(ids) > 1:
            ids.pop(pick % len(ids))
        assert order.of(ids) == string_order(ids)


def test_a_heterogeneous_groups_target_is_not_derived_from_once_it_is_homogeneous_again():
    """A target the full assignor gave a group with two subscriptions covers topics the remaining members do
    not subscribe to: once the member subscribing to `u` leaves, the next target is the full assignor's."""
    cluster = Cluster((Topic("t", 6), Topic("u", 3)))
    before = [Member("m1", ("t",)), Member("m0", ("t", "u")), Member("m2", ("t",))]
    targets = UniformTargets()
    current = full(cluster, before, {})
    targets.remember(cluster, [m.topics for m in before], current)
    assert any(tp.topic == "u" for tp in current["m0"])
    after = [m for m in before if m.member_id != "m0"]
    kept = {m: t for m, t in current.items() if m != "m0"}
    derived = targets.compute(cluster, ["m1", "m2"], [("t",), ("t",)], kept)
    assert derived is None or derived == full(cluster, after, kept)
    assert derived is None  # the full assignor decides, and its result is remembered
