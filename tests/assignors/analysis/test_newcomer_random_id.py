"""A newcomer's random member id decides more than librdkafka's mixed groups: where members share a client.id
(librdkafka's default `rdkafka`, or one an application sets on all its instances), the newcomer's
`client.id-UUID` sorts at a random rank among theirs, and Java's sticky assignors walk a HashMap of member
ids too. Each client's built-in assignor is checked here against random ids sampled through the Java
HashMap emulation: every assignment sampled was announced, and each announced one is as likely as stated.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from dataclasses import replace

import pytest

from kgroup.assignors.analysis.member_map import BUCKET, POSITION, RANK, bucket, in_bucket, newcomer_classes
from kgroup.assignors.analysis.placement import _final, broker_outcomes
from kgroup.assignors.java.hash_order import string_order
from kgroup.assignors.model import Assignment, Cluster, Group, GroupState, Member, Topic
from kgroup.assignors.registry import builtin

TOPICS = ("a", "b")


def _random_id(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{uuid.UUID(int=rng.getrandbits(128), version=4)}"


def _group(seed: int, client: str, strategy: str, size: int = 4) -> tuple[list[Member], Cluster]:
    """`size` dynamic members on one client.id `app`, listed in the broker's map order, each holding what
    the assignor gave them (the group as a live read finds it after a rebalance)."""
    rng = random.Random(seed)
    ids = string_order([_random_id(rng, "app") for _ in range(size)])
    cluster = Cluster((Topic("a", rng.randint(3, 9)), Topic("b", rng.randint(2, 7))))
    # Odd seeds: unequal subscriptions (Java's sticky assignors then take their general path).
    members = [Member(i, TOPICS if seed % 2 == 0 or k % 2 == 0 else ("a",)) for k, i in enumerate(ids)]
    held = _final(builtin(strategy, client), GroupState(cluster, Group("g", members=tuple(members))))
    generation = 1 if "sticky" in strategy else None
    return [replace(m, owned=held.partitions_of(m.member_id), generation=generation) for m in members], cluster


def _sampled(
    members: list[Member],
    cluster: Cluster,
    client: str,
    strategy: str,
    newcomer: Member,
    prefix: str,
    n: int,
    rng: random.Random,
) -> Counter[Assignment]:
    """What the assignor gives for n random ids the broker may give the newcomer, each placed in the broker's
    map (and so in the JoinGroup order) where the Java HashMap emulation puts it."""
    assignor = builtin(strategy, client)
    by_id = {m.member_id: m for m in members}
    got: Counter[Assignment] = Counter()
    for _ in range(n):
        real = _random_id(rng, prefix)
        order = [by_id.get(i) or replace(newcomer, member_id=real) for i in string_order([*by_id, real])]
        owners = _final(assignor, GroupState(cluster, Group("g", members=tuple(order)))).owners
        got[
            Assignment.of(
                {m.member_id: owners.get(m.member_id, ()) for m in members} | {newcomer.member_id: owners.get(real, ())}
            )
        ] += 1
    return got


# (seed, members, the newcomer's topics): layouts where the newcomer's id decides for most assignors.
LAYOUTS = [(0, 4, ("b",)), (1, 2, TOPICS), (1, 3, ("a",)), (2, 4, ("b",)), (3, 2, TOPICS), (4, 3, TOPICS)]
CASES = [
    ("java", "range", RANK),
    ("java", "roundrobin", RANK),
    ("java", "sticky", BUCKET),
    ("java", "cooperative-sticky", BUCKET),
    ("librdkafka", "range", POSITION),
    ("librdkafka", "cooperative-sticky", POSITION),
]


@pytest.mark.parametrize("client,strategy,by", CASES, ids=[f"{c}-{s}" for c, s, _ in CASES])
def test_a_newcomer_on_a_shared_client_id_lands_as_announced(client: str, strategy: str, by: str) -> None:
    informative = 0
    for seed, size, topics in LAYOUTS:
        members, cluster = _group(seed, client, strategy, size)
        newcomer = Member("app", topics)  # --add-member app: the newcomer's client.id
        state = GroupState(cluster, Group("g", members=(*members, newcomer), generation=1))
        found = broker_outcomes(state, "app", builtin(strategy, client), by, total=strategy != "cooperative-sticky")
        assert found.knowable and not found.capped
        shares = [o.likelihood for o in found.outcomes]
        assert sum(shares) == 1  # type: ignore[arg-type]
        assert shares == sorted(shares, reverse=True)  # type: ignore[type-var]
        n = 300
        sampled = _sampled(members, cluster, client, strategy, newcomer, "app", n, random.Random(seed + 7))
        assert set(sampled) <= {o.assignment for o in found.outcomes}  # nothing happens that was not announced
        for outcome in found.outcomes:
            assert abs(sampled[outcome.assignment] / n - float(outcome.likelihood)) < 0.09  # type: ignore[arg-type]
        informative += len(found.outcomes) > 1
    assert informative >= 2  # the newcomer's rank among the `app-` ids decides in several of these groups


def test_java_range_alternatives_are_each_reached_by_some_uuid() -> None:
    """Java's range, members all `app-<uuid>`: every alternative is what some real id gives, and the
    likelihoods are the exact shares of the UUIDs sorting into each rank."""
    members, cluster = _group(11, "java", "range", size=3)
    newcomer = Member("app", TOPICS)
    state = GroupState(cluster, Group("g", members=(*members, newcomer)))
    found = broker_outcomes(state, "app", builtin("range", "java"), RANK)
    assert len(found.outcomes) > 1 and sum(o.likelihood for o in found.outcomes) == 1  # type: ignore[misc]
    sampled = _sampled(members, cluster, "java", "range", newcomer, "app", 800, random.Random(3))
    assert set(sampled) == {o.assignment for o in found.outcomes}


def test_distinct_prefixes_announce_nothing() -> None:
    """Members on their own client.ids (c0-, c1-, ...), a newcomer on c9: it sorts last wherever its UUID
    falls, so Java's range gives one assignment, certain."""
    rng = random.Random(2)
    members = [Member(i, TOPICS) for i in string_order([_random_id(rng, f"c{k}") for k in range(4)])]
    cluster = Cluster((Topic("a", 5), Topic("b", 3)))
    state = GroupState(cluster, Group("g", members=(*members, Member("c9", TOPICS))))
    found = broker_outcomes(state, "c9", builtin("range", "java"), RANK)
    assert len(found.outcomes) == 1 and found.outcomes[0].likelihood == 1


def test_a_static_newcomer_is_named_by_its_instance_id() -> None:
    """A static newcomer's id is `instance-UUID`: against `app-` ids it sorts by its instance id alone."""
    members, cluster = _group(4, "librdkafka", "cooperative-sticky")
    newcomer = Member("app", TOPICS, "s6")
    state = GroupState(cluster, Group("g", members=(*members, newcomer), generation=1))
    found = broker_outcomes(state, "app", builtin("cooperative-sticky", "librdkafka"), POSITION, total=False)
    sampled = _sampled(members, cluster, "librdkafka", "cooperative-sticky", newcomer, "s6", 300, random.Random(5))
    assert set(sampled) <= {o.assignment for o in found.outcomes}


def test_bucket_classes_stand_in_ids_land_where_they_say() -> None:
    rng = random.Random(9)
    existing = string_order([_random_id(rng, "app") for _ in range(5)])
    ordered, landings, count = newcomer_classes(existing, "app", 16, BUCKET)
    assert count == len(landings)
    assert sum(x.likelihood for x in landings) == 1
    for landing in landings:
        # the stand-in's place in the broker's map is the one claimed
        assert string_order([*ordered, landing.member_id]).index(landing.member_id) == landing.position
    for target in (0, 5, 15, 200, 1023):
        assert bucket(in_bucket("app-\x01", target, 1024), 1024) == target


def test_a_capped_run_says_so_and_weighs_the_most_likely_places(monkeypatch: pytest.MonkeyPatch) -> None:
    from kgroup.assignors.analysis import placement

    monkeypatch.setattr(placement, "MAX_PLACES", 3)  # at least 8 are run: 11 ranks, 8 of them
    members, cluster = _group(1, "java", "range", size=10)
    before = GroupState(cluster, Group("g", members=tuple(members)))
    after = GroupState(cluster, Group("g", members=(*members, Member("app", TOPICS))))
    assignor = builtin("range", "java")
    run = placement.evaluate(before, after, "range", assignor)
    alternatives: dict = {}
    likelihoods: dict = {}
    notes: list[str] = []
    placement.weigh_orders(run, assignor, before, after, "app", False, alternatives, likelihoods, RANK, False, notes)
    assert len(notes) == 1 and "more places than kgroup runs (8" in notes[0]
    shares = likelihoods.get("range", ())
    assert 1 < len(shares) <= 8 and sum(shares) < 1
