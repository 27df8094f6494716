"""diff, balance and stickiness on a million partitions go through C iterators; these check them against
their definitions on small random assignments."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.analysis.diff import balance, diff, stickiness
from kgroup.assignors.model import Assignment, Cluster, Member, Topic, TopicPartition

partitions = st.sampled_from([TopicPartition(t, p) for t in ("a", "b") for p in range(4)])
assignments = st.dictionaries(st.sampled_from(["m0", "m1", "m2"]), st.lists(partitions, max_size=6), max_size=3).map(
    Assignment.of
)


@settings(max_examples=300, deadline=None)
@given(assignments, assignments)
def test_diff_follows_its_definition(old: Assignment, new: Assignment) -> None:
    def first_owner(a: Assignment, tp: TopicPartition) -> str | None:
        return next((m for m, parts in a.owners.items() if tp in parts), None)

    result = diff(old, new)
    every = {tp for a in (old, new) for parts in a.owners.values() for tp in parts}
    # Who holds what unchanged (members merely listed in another order) is no move at all.
    expected = (
        []
        if dict(old.owners) == dict(new.owners)
        else sorted(
            (tp, first_owner(old, tp), first_owner(new, tp))
            for tp in every
            if first_owner(old, tp) != first_owner(new, tp)
        )
    )
    assert [tuple(m) for m in result.moves] == expected
    assert [(m.tp, m.source, m.target) for m in result.moves] == expected
    assert result.moved == sum(1 for _, s, t in expected if s is not None and t is not None)
    for change in result.members:
        before, after = old.partitions_of(change.member_id), new.partitions_of(change.member_id)
        assert change.kept == tuple(tp for tp in before if tp in after)
        assert change.revoked == tuple(tp for tp in before if tp not in after)
        assert change.gained == tuple(tp for tp in after if tp not in before)
    assert [c.member_id for c in result.members] == list(dict.fromkeys([*old.owners, *new.owners]))


@settings(max_examples=200, deadline=None)
@given(assignments, assignments, st.integers(min_value=0, max_value=4))
def test_stickiness_counts_what_surviving_members_keep_of_what_still_exists(
    old: Assignment, new: Assignment, size_of_a: int
) -> None:
    cluster = Cluster((Topic("a", size_of_a), Topic("b", 4)))
    members = [Member(m, ("a", "b")) for m in new.owners]
    result = stickiness(cluster, members, old, new)
    surviving = [
        (m.member_id, tp)
        for m in members
        for tp in old.partitions_of(m.member_id)
        if tp.topic == "b" or tp.partition < size_of_a
    ]
    assert result.keepable == len(surviving)
    assert result.kept == sum(1 for m, tp in surviving if tp in new.partitions_of(m))


@settings(max_examples=300, deadline=None)
@given(assignments, st.lists(st.sampled_from([("a",), ("b",), ("a", "b")]), min_size=3, max_size=3))
def test_kafka_balance_rule_follows_its_definition(assignment: Assignment, subscriptions: list) -> None:
    """AbstractStickyAssignorTest.verifyValidityAndBalance: counts more than one apart are acceptable only
    when the smaller member subscribes to none of the larger one's topics."""
    members = [Member(m, topics) for m, topics in zip(["m0", "m1", "m2"], subscriptions)]
    held = {m.member_id: assignment.partitions_of(m.member_id) for m in members}
    unbalanced = any(
        len(held[big.member_id]) - len(held[small.member_id]) > 1
        and any(tp.topic in small.topics for tp in held[big.member_id])
        for big in members
        for small in members
    )
    result = balance(Cluster((Topic("a", 4), Topic("b", 4))), members, assignment)
    assert result.kafka_balanced is not unbalanced
    assert (result.kafka_unbalance is None) is not unbalanced
