"""Properties of the assignors that read the current assignment (sticky, cooperative-sticky, uniform).

Random groups carry a history: the partitions each member reports owning and at which generation.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors import registry
from kgroup.assignors.model import Assignment, Cluster, Member, Topic, TopicPartition
from kgroup.assignors.client.sticky.assignors import CooperativeStickyAssignor
from kgroup.assignors.validity import check_validity

STATEFUL = ("sticky", "cooperative-sticky", "uniform")


@st.composite
def groups_with_history(
    draw: st.DrawFn,
    identical: bool = False,
    consistent: bool = False,
) -> tuple[Cluster, list[Member]]:
    """A cluster and members with owned partitions.

    consistent: claims are disjoint and of one generation (what a healthy group reports); otherwise
    claims may overlap and carry stale, equal or missing generations.
    """
    topics = tuple(Topic(f"t{i}", draw(st.integers(1, 10)), (), None) for i in range(draw(st.integers(1, 4))))
    names = [t.name for t in topics]
    everything = [TopicPartition(t.name, p) for t in topics for p in range(t.partitions)]
    shared = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    n = draw(st.integers(1, 7))
    generation = draw(st.integers(1, 5))
    free = list(everything)
    members = []
    for i in range(n):
        subs = tuple(shared if identical else draw(st.lists(st.sampled_from(names), min_size=1, unique=True)))
        if consistent:
            # A cooperative member revokes partitions of topics it left before it rejoins (onJoinPrepare).
            mine = [tp for tp in free if tp.topic in subs]
            owned = draw(st.lists(st.sampled_from(mine), unique=True)) if mine else []
            free = [tp for tp in free if tp not in owned]
            gen = generation if owned else None
        else:
            # Claims stay within the member's subscription: Kafka itself hands a partition back to a
            # previous owner that no longer subscribes to it (see the test below).
            mine = [tp for tp in everything if tp.topic in subs]
            owned = draw(st.lists(st.sampled_from(mine), unique=True)) if mine else []
            gen = draw(st.sampled_from([None, -1, generation - 1, generation]))
        members.append(Member(f"c{i}", subs, owned=tuple(owned), generation=gen))
    return Cluster(topics), members


def _reported(members: list[Member], assignment: Assignment, generation: int) -> list[Member]:
    return [replace(m, owned=assignment.partitions_of(m.member_id), generation=generation) for m in members]


def _next_generation(members: list[Member]) -> int:
    return max((m.generation or 0 for m in members), default=0) + 1


@settings(max_examples=200, deadline=None)
@given(groups_with_history())
def test_sticky_family_is_valid_whatever_members_claim(group: tuple[Cluster, list[Member]]) -> None:
    cluster, members = group
    for name in ("sticky", "cooperative-sticky"):
        result = registry.builtin(name).assign(cluster, members)  # type: ignore[union-attr]
        # cooperative-sticky withholds partitions that change owner until the follow-up rebalance
        assert check_validity(cluster, members, result, allow_unassigned=name == "cooperative-sticky") == [], name


def test_sticky_returns_a_partition_to_its_previous_owner_even_when_unsubscribed() -> None:
    """Kafka: `GeneralAssignmentBuilder.performReassignments` moves a partition back to its previous
    owner (a claim older than the newest generation) without checking that owner's subscription.

    c3 (generation 0) and c1 (no generation: user data V0) both claim t0-0 and t1-0; c3's newer claim
    wins, c1 becomes the previous owner of both. c3 holds 2 partitions, c1 none, so t1-0 (its topic
    has fewer subscribers and comes first) goes back to c1, although c1 subscribes to t0 only. That
    lowers the balance score from 6 to 4, so it is kept.
    """
    cluster = Cluster((Topic("t0", 1), Topic("t1", 1)))
    both = (TopicPartition("t0", 0), TopicPartition("t1", 0))
    members = [
        Member("c0", ("t0",)),
        Member("c1", ("t0",), owned=both),
        Member("c2", ("t1",)),
        Member("c3", ("t0", "t1"), owned=both, generation=0),
    ]
    result = registry.builtin("sticky").assign(cluster, members)  # type: ignore[union-attr]
    assert result.partitions_of("c1") == (TopicPartition("t1", 0),)
    assert result.partitions_of("c3") == (TopicPartition("t0", 0),)


@settings(max_examples=200, deadline=None)
@given(groups_with_history(consistent=True))
def test_uniform_is_valid_on_any_current_target(group: tuple[Cluster, list[Member]]) -> None:
    cluster, members = group
    result = registry.builtin("uniform").assign(cluster, members)  # type: ignore[union-attr]
    assert check_validity(cluster, members, result) == []


@settings(max_examples=200, deadline=None)
@given(groups_with_history(consistent=True))
def test_cooperative_never_hands_over_a_partition_still_owned(group: tuple[Cluster, list[Member]]) -> None:
    """KIP-429: a partition moves only after its owner revoked it, so round one never gives a member a
    partition another member reports owning; the follow-ups then assign everything (not always to the
    member first intended: a follow-up is a rebalance of its own)."""
    cluster, members = group
    rounds = CooperativeStickyAssignor().assign_rounds(cluster, members)
    owner = {tp: m.member_id for m in members for tp in m.owned}
    for member, parts in rounds.first.owners.items():
        taken = [tp for tp in parts if owner.get(tp, member) != member]
        assert not taken, f"{member} got {taken} while their owners still hold them"
    for tp, new_owner in rounds.transferring.items():
        assert tp not in rounds.first.partitions_of(new_owner)
    assert rounds.settled
    assert check_validity(cluster, members, rounds.final) == []


@settings(max_examples=200, deadline=None)
@given(groups_with_history())
def test_a_second_run_on_the_result_moves_nothing(group: tuple[Cluster, list[Member]]) -> None:
    """Stickiness: once members report what they were given, nothing changes hands."""
    cluster, members = group
    generation = _next_generation(members)
    for name in ("sticky", "uniform"):
        assignor = registry.builtin(name)
        assert assignor is not None
        start = members if name == "sticky" else [replace(m, owned=()) for m in members]
        first = assignor.assign(cluster, start)
        again = assignor.assign(cluster, _reported(members, first, generation))
        assert again == first, name
    settled = CooperativeStickyAssignor().assign_rounds(cluster, members).final
    again = CooperativeStickyAssignor().assign(cluster, _reported(members, settled, generation + 1))
    assert again == settled


@settings(max_examples=200, deadline=None)
@given(groups_with_history(identical=True))
def test_equal_subscriptions_are_balanced_within_one(group: tuple[Cluster, list[Member]]) -> None:
    """Kafka's guarantee for the constrained path and the homogeneous uniform builder."""
    cluster, members = group
    assignments = {
        "sticky": registry.builtin("sticky").assign(cluster, members),  # type: ignore[union-attr]
        "cooperative-sticky (settled)": CooperativeStickyAssignor().assign_rounds(cluster, members).final,
        "uniform": registry.builtin("uniform").assign(  # type: ignore[union-attr]
            cluster, [replace(m, owned=()) for m in members]
        ),
    }
    for name, result in assignments.items():
        sizes = [len(result.partitions_of(m.member_id)) for m in members]
        if any(tp.topic in members[0].topics for tp in result.owner_map()):
            assert max(sizes) - min(sizes) <= 1, name
