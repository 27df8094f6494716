"""The orders librdkafka's sticky assignor depends on, as the port keeps them without re-sorting.

librdkafka re-sorts its member list after every partition it places (`rd_list_sort` by partition count,
then member id), iterates its hash maps newest entry first (rdmap.c) and deletes list elements one at a
time. The port keeps a sorted list up to date instead, copies maps by iterating them, and deletes in
one pass; each is checked here against the plain operation it stands for. The last test runs whole
random groups twice: recording explanations takes the one-partition-at-a-time path, not recording takes
the batched one, and both must give the same rounds.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.client.librdkafka.errors import LibrdkafkaCrash
from kgroup.assignors.client.librdkafka.rd_containers import MapEntry, RdMap, remove_firsts
from kgroup.assignors.client.librdkafka.sticky_general import _ByCountThenMember
from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition
from kgroup.assignors.registry import builtin
from kgroup.assignors.trace import tracing


@given(st.lists(st.integers(0, 5), max_size=12), st.lists(st.integers(0, 7), max_size=8))
def test_removing_in_one_pass_is_removing_each_first_match_in_turn(items: list[int], values: list[int]) -> None:
    expected = list(items)
    for value in values:
        if value in expected:
            expected.remove(value)
    got = list(items)
    remove_firsts(got, values)
    assert got == expected


def test_a_map_iterates_newest_first_keeps_an_overwritten_key_in_place_and_copies_in_reverse() -> None:
    m: RdMap[str, int] = RdMap()
    for key, value in (("a", 1), ("b", 2), ("c", 3)):
        m.set(key, value)
    entry = m.entry("b")
    m.set("b", 20)  # overwritten: keeps its place, and the entry handed out sees the new value
    m.delete("a")
    m.set("a", 10)  # deleted, then inserted again: the newest
    assert m.items() == [("a", 10), ("c", 3), ("b", 20)]
    assert entry.value == 20 and m.entry("b") is entry
    assert m.copy().items() == [("b", 20), ("c", 3), ("a", 10)]


@settings(max_examples=200)
@given(st.lists(st.text("ab\u00e9\U0001f600", min_size=1, max_size=3), min_size=1, max_size=12, unique=True), st.data())
def test_the_member_list_kept_sorted_is_the_list_sorted_again_after_every_change(
    ids: list[str], data: st.DataObject
) -> None:
    """fewest partitions first, then member id in UTF-8 byte order, after any sequence of changes."""
    entries = [MapEntry(member_id, [0] * data.draw(st.integers(0, 4))) for member_id in ids]
    ranks = {member_id: rank for rank, member_id in enumerate(sorted(ids, key=lambda i: i.encode()))}
    ordered = _ByCountThenMember(list(entries), ranks)
    for _ in range(data.draw(st.integers(0, 30))):
        entry = data.draw(st.sampled_from(entries))
        if data.draw(st.booleans()) or not entry.value:
            entry.value.append(0)
        else:
            entry.value.pop()
        ordered.touch(entry.key)
        expected = sorted(entries, key=lambda e: (len(e.value), e.key.encode()))
        assert [e.key for e in ordered.entries] == [e.key for e in expected]


@st.composite
def groups(draw: st.DrawFn) -> tuple[Cluster, list[Member]]:
    """Small groups with everything the port branches on: identical and mixed subscriptions, topics
    gone from the metadata, owned partitions claimed twice or not existing, static members, racks, and
    now and then one member id twice in the JoinGroup response."""
    rack_aware = draw(st.booleans())
    racks = st.frozensets(st.sampled_from(("r0", "r1", "r2")), min_size=1, max_size=2)
    topics = []
    for i in range(draw(st.integers(1, 3))):
        count = draw(st.integers(0, 6))
        replicas = tuple(draw(st.lists(racks, min_size=count, max_size=count))) if rack_aware else ()
        topics.append(Topic(f"t{i}", count, replicas))
    names = [t.name for t in topics]
    every = [TopicPartition(n, p) for n in names + ["gone"] for p in range(7)]
    identical = draw(st.booleans())
    members = []
    for member_id in draw(st.lists(st.sampled_from([f"m{i}" for i in range(8)]), min_size=1, max_size=9)):
        subscribed = (
            tuple(names)
            if identical
            else tuple(draw(st.lists(st.sampled_from(names + ["gone"]), min_size=1, max_size=4, unique=True)))
        )
        owned = tuple(draw(st.lists(st.sampled_from(every), max_size=6, unique=True)))
        members.append(
            Member(
                member_id,
                subscribed,
                owned=owned,
                instance_id=draw(st.sampled_from((None, f"i{member_id}"))),
                rack=draw(st.sampled_from((None, "r0", "r1"))) if rack_aware else None,
                generation=draw(st.sampled_from((None, 1, 2))) if owned else None,
            )
        )
    return Cluster(tuple(topics)), members


def _rounds(cluster: Cluster, members: list[Member]) -> object:
    chosen = builtin("cooperative-sticky", "librdkafka")
    try:
        rounds = chosen.assign_rounds(cluster, members)  # type: ignore[union-attr]
    except LibrdkafkaCrash as crash:
        return f"crash: {crash}"
    return [(dict(r.assignment.owners), r.withheld, r.generation) for r in rounds.rounds], rounds.settled


@settings(max_examples=250, deadline=None)
@given(groups())
def test_recording_explanations_gives_the_rounds_the_batched_path_gives(group: tuple[Cluster, list[Member]]) -> None:
    cluster, members = group
    with tracing():
        one_at_a_time = _rounds(cluster, members)
    assert _rounds(cluster, members) == one_at_a_time
