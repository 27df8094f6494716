"""How likely each assignment is where the broker's member order decides (librdkafka, static and dynamic
members mixed): the stated shares against random newcomer ids sampled through the Java HashMap emulation,
the most likely first; and no share at all where the order the broker described is not Kafka's map."""

from __future__ import annotations

import random
import uuid
from collections import Counter

from kgroup.assignors.analysis.placement import broker_outcomes
from kgroup.assignors.java.hash_order import string_order
from kgroup.assignors.model import Assignment, Cluster, Group, GroupState, Member, Topic
from kgroup.assignors.registry import builtin

TOPICS = ("a", "b")


def _random_id(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{uuid.UUID(int=rng.getrandbits(128), version=4)}"


def _group(seed: int) -> tuple[list[Member], Cluster]:
    """Dynamic members with librdkafka's default client.id (their ids share `rdkafka-`) and static ones,
    listed in the map's order, as Apache Kafka describes them."""
    rng = random.Random(seed)
    members = [
        Member(_random_id(rng, "s9"), TOPICS, "s9"),
        Member(_random_id(rng, "rdkafka"), TOPICS),
        Member(_random_id(rng, "s7"), TOPICS, "s7"),
        Member(_random_id(rng, "rdkafka"), TOPICS),
        Member(_random_id(rng, "rdkafka"), TOPICS),
    ]
    by_id = {m.member_id: m for m in members}
    return [by_id[i] for i in string_order(list(by_id))], Cluster((Topic("a", 7), Topic("b", 3)))


def _sampled(
    members: list[Member], cluster: Cluster, newcomer: Member, prefix: str, n: int, rng: random.Random
) -> Counter[Assignment]:
    """What librdkafka's range gives for n random ids the broker may give the newcomer, each placed where
    the Java HashMap emulation puts it; keyed by the what-if's name for the newcomer."""
    assignor = builtin("range", "librdkafka")
    by_id = {m.member_id: m for m in members}
    got: Counter[Assignment] = Counter()
    for _ in range(n):
        real = _random_id(rng, prefix)
        order = [
            by_id.get(i) or Member(real, newcomer.topics, newcomer.instance_id) for i in string_order([*by_id, real])
        ]
        owners = assignor.assign(cluster, order).owners
        got[
            Assignment.of(
                {m.member_id: owners.get(m.member_id, ()) for m in members} | {newcomer.member_id: owners.get(real, ())}
            )
        ] += 1
    return got


def test_each_outcome_is_as_likely_as_the_share_of_random_ids_that_give_it() -> None:
    informative = 0
    for seed in range(12):
        members, cluster = _group(seed)
        newcomer = Member("rdkafka", TOPICS)  # a new dynamic consumer with the default client.id
        state = GroupState(cluster, Group("g", members=(*members, newcomer)))
        found = broker_outcomes(state, "rdkafka", builtin("range", "librdkafka"))
        assert found.knowable and found.buckets == 16
        shares = [o.likelihood for o in found.outcomes]
        assert sum(shares) == 1  # type: ignore[arg-type]
        assert shares == sorted(shares, reverse=True)  # type: ignore[type-var]
        n = 1500
        sampled = _sampled(members, cluster, newcomer, "rdkafka", n, random.Random(seed + 100))
        assert set(sampled) <= {o.assignment for o in found.outcomes}  # nothing happens that was not announced
        for outcome in found.outcomes:
            assert abs(sampled[outcome.assignment] / n - float(outcome.likelihood)) < 0.05  # type: ignore[arg-type]
        informative += len(found.outcomes) > 1
    assert informative >= 6  # the default client.id makes the newcomer's rank random in most of these groups


def test_a_static_newcomer_sorts_by_its_own_instance_id() -> None:
    members, cluster = _group(3)
    newcomer = Member("c5", TOPICS, "s1")  # the broker names it s1-<UUID>, not c5-...
    state = GroupState(cluster, Group("g", members=(*members, newcomer)))
    found = broker_outcomes(state, "c5", builtin("range", "librdkafka"))
    sampled = _sampled(members, cluster, newcomer, "s1", 400, random.Random(1))
    assert [o.assignment for o in found.outcomes] == list(sampled)
    assert found.outcomes[0].likelihood == 1


def test_a_leave_keeps_the_order_known() -> None:
    members, cluster = _group(4)
    state = GroupState(cluster, Group("g", members=tuple(members[1:])))
    found = broker_outcomes(state, None, builtin("range", "librdkafka"))
    assert len(found.outcomes) == 1 and found.outcomes[0].likelihood == 1


def test_no_likelihood_where_the_described_order_is_not_kafkas_map() -> None:
    members, cluster = _group(5)
    assignor = builtin("range", "librdkafka")
    newcomer = Member("c5", TOPICS, "s0")
    for listed in (
        list(reversed(members)),  # Kafka's ids in an order no map of theirs gives
        [Member(f"c{i}-x", m.topics, m.instance_id) for i, m in enumerate(members)],
    ):  # not Kafka's ids
        state = GroupState(cluster, Group("g", members=(*listed, newcomer)))
        found = broker_outcomes(state, "c5", assignor)
        assert not found.knowable
        assert all(o.likelihood is None for o in found.outcomes)
        # The order as described, the newcomer last, comes first.
        assert found.outcomes[0].assignment == Assignment.of(
            {
                m.member_id: p
                for m, p in (
                    (m, assignor.assign(cluster, state.group.members).owners.get(m.member_id, ()))
                    for m in state.group.members
                )
            }
        )


def test_where_the_comparator_is_no_order_the_newcomers_bucket_decides() -> None:
    """Static s1 and s1+x sort one way by instance id and the other by member id (`s1+x-` < `s1-`), and a
    dynamic `s1,q-...` sorts between their ids: no total order, so glibc's merge sort depends on where in
    the map's order the newcomer lands, in sixteenths (its bucket), whatever its rank."""
    informative = 0
    for seed in range(6):
        rng = random.Random(seed)
        listed = [
            Member(_random_id(rng, p), TOPICS, i)
            for p, i in (("s1", "s1"), ("s1+x", "s1+x"), ("c2", None), ("s0", "s0"), ("c5", None))
        ]
        by_id = {m.member_id: m for m in listed}
        members = [by_id[i] for i in string_order(list(by_id))]
        cluster = Cluster((Topic("a", rng.randint(2, 9)), Topic("b", rng.randint(2, 9))))
        newcomer = Member("s1,q", TOPICS)
        state = GroupState(cluster, Group("g", members=(*members, newcomer)))
        found = broker_outcomes(state, "s1,q", builtin("range", "librdkafka"))
        assert sum(o.likelihood for o in found.outcomes) == 1  # type: ignore[misc]
        n = 1200
        sampled = _sampled(members, cluster, newcomer, "s1,q", n, random.Random(seed + 50))
        assert set(sampled) <= {o.assignment for o in found.outcomes}
        for outcome in found.outcomes:
            assert outcome.likelihood is not None and (outcome.likelihood * 16).denominator == 1
            assert abs(sampled[outcome.assignment] / n - float(outcome.likelihood)) < 0.06
        informative += len(found.outcomes) > 1
    assert informative >= 4
