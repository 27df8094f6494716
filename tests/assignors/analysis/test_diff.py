"""diff, balance and stickiness on a million partitions go through C iterators; these check them against
their definitions on small random assignments."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.analysis.diff import diff
from kgroup.assignors.model import Assignment, TopicPartition

partitions = st.sampled_from([TopicPartition(t, p) for t in ("a", "b") for p in range(4)])
assignments = st.dictionaries(st.sampled_from(["m0", "m1", "m2"]), st.lists(partitions, max_size=6),
                              max_size=3).map(Assignment.of)


@settings(max_examples=300, deadline=None)
@given(assignments, assignments)
def test_diff_follows_its_definition(old: Assignment, new: Assignment) -> None:
    def first_owner(a: Assignment, tp: TopicPartition) -> str | None:
        return next((m for m, parts in a.owners.items() if tp in parts), None)

    result = diff(old, new)
    every = {tp for a in (old, new) for parts in a.owners.values() for tp in parts}
    # Who holds what unchanged (members merely listed in another order) is no move at all.
    expected = [] if dict(old.owners) == dict(new.owners) else sorted(
        (tp, first_owner(old, tp), first_owner(new, tp)) for tp in every if first_owner(old, tp) != first_owner(new, tp))
    assert [tuple(m) for m in result.moves] == expected
    assert [(m.tp, m.source, m.target) for m in result.moves] == expected
    assert result.moved == sum(1 for _, s, t in expected if s is not None and t is not None)
    for change in result.members:
        before, after = old.partitions_of(change.member_id), new.partitions_of(change.member_id)
        assert change.kept == tuple(tp for tp in before if tp in after)
        assert change.revoked == tuple(tp for tp in before if tp not in after)
        assert change.gained == tuple(tp for tp in after if tp not in before)
    assert [c.member_id for c in result.members] == list(dict.fromkeys([*old.owners, *new.owners]))
