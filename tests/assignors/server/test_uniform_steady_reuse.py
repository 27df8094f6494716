"""uniform's heterogeneous builder hands a steady round's unchanged targets back as the tuples it built
(group_spec.BUILT_TARGETS) and builds only the changed ones. Kafka reads a member's current target as a
set, so the answer cannot depend on how the target is listed: the tuples kgroup built, and the same
partitions listed in any other order (which the builder cannot take as they are), give one answer.
Its exact value is checked against Kafka's jars by tests/oracle.
"""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings, strategies as st

from kgroup.assignors.model import Cluster, Member, Topic
from kgroup.assignors.server.uniform import UniformAssignor

ASSIGNOR = UniformAssignor()


@st.composite
def heterogeneous_groups(draw: st.DrawFn) -> tuple[Cluster, list[Member]]:
    sizes = draw(st.lists(st.integers(1, 9), min_size=2, max_size=4))
    cluster = Cluster(tuple(Topic(f"t{i}", n) for i, n in enumerate(sizes)))
    names = [t.name for t in cluster.topics]
    count = draw(st.integers(2, 6))
    members = [
        Member(f"m{i}", tuple(draw(st.lists(st.sampled_from(names), min_size=1, unique=True)))) for i in range(count)
    ]
    members[0] = dataclasses.replace(members[0], topics=(names[0],))
    members[1] = dataclasses.replace(members[1], topics=tuple(names))  # so the subscriptions differ
    return cluster, members


@settings(max_examples=150, deadline=None)
@given(heterogeneous_groups(), st.randoms(use_true_random=False), st.integers(0, 5))
def test_a_steady_round_answers_alike_whatever_the_listing_of_the_current_targets(
    group: tuple[Cluster, list[Member]], rng: random.Random, emptied: int
) -> None:
    cluster, members = group
    first = ASSIGNOR.assign(cluster, members)
    # Every member reports the target it was given, but one (if there is one with that number) reports none.
    steady = [
        dataclasses.replace(m, owned=() if i == emptied else first.partitions_of(m.member_id))
        for i, m in enumerate(members)
    ]
    reshuffled = [dataclasses.replace(m, owned=tuple(rng.sample(m.owned, len(m.owned)))) for m in steady]
    copied = [dataclasses.replace(m, owned=tuple(iter(m.owned))) for m in steady]  # equal, not the same tuples

    answer = ASSIGNOR.assign(cluster, steady)

    assert ASSIGNOR.assign(cluster, reshuffled) == answer
    assert ASSIGNOR.assign(cluster, copied) == answer
    assert ASSIGNOR.assign(cluster, steady) == answer  # the new targets are now known too
    for parts in answer.owners.values():
        assert list(parts) == sorted(set(parts))  # each listed in TopicPartition order, once
    assert sorted(tp for parts in answer.owners.values() for tp in parts) == sorted(
        tp for parts in first.owners.values() for tp in parts
    )  # every subscribed partition has one owner, as in the first round
