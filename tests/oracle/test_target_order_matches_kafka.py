"""A KIP-848 group's targets over a run of epoch bumps, kgroup's simulation against Kafka's own assignors (4.0.0 and
4.2.1).

Each step of a seeded run adds or removes a member, or changes every member's subscription (the group stays
homogeneous). kgroup computes the new target as its coordinator simulation does (`scenario.server_assignor`,
which keeps each member's target record order, `ConsumerGroup.target_order`); Kafka's UniformAssignor or
RangeAssignor is given, as each member's current target, what it answered the step before, listed in the
iteration order of its own map, as the record Kafka's TargetAssignmentBuilder writes lists it
(tests/oracle/java/ServerAssignors.java reads it back as `Assignment.fromRecord` does). The topics have
random ids and are many for sixteen buckets, so a member's topics often share a bucket, where only the order
of insertion orders them: each step's targets must be equal and so must the order the coordinator's map of
each member's target iterates in, which decides what `uniform` takes from it next.
`KGROUP_TARGET_ORDER_RUNS` sets the number of runs per assignor (default 60).
"""

from __future__ import annotations

import base64
import os
import random
from collections.abc import Callable
from typing import Any

import pytest

from kgroup.assignors.coordinator.consumer.coordinator import (
    ConsumerConfig,
    ConsumerCoordinator,
    ConsumerGroup,
    ConsumerMember,
)
from kgroup.assignors.coordinator.consumer.reconcile import STABLE, Reconciliation
from kgroup.assignors.coordinator.consumer.scenario import server_assignor
from kgroup.assignors.model import Cluster, Topic, TopicPartition
from kgroup.assignors.server.target_order import TopicHashes, read_back
from tests.oracle.sidecar import Sidecar

RELEASES = ("4.0.0", "4.2.1")  # uniform's rules changed in 4.1 (KAFKA-18688); the simulation follows the release
RUNS = int(os.environ.get("KGROUP_TARGET_ORDER_RUNS") or 60)
STEPS = 14


def _uuid(rng: random.Random) -> str:
    return base64.urlsafe_b64encode(rng.randbytes(16)).decode("ascii").rstrip("=")


def _first_appearance(listed: list[list[Any]]) -> list[str]:
    return list(dict.fromkeys(t for t, _ in listed))


def _run(sidecar: Sidecar, kafka_name: str, seed: int, mixed: bool = False, release: str = "4.2.1") -> list[str]:
    """One seeded run; the differences found, step by step (empty: none). `mixed`: each member subscribes to
    topics of its own (a heterogeneous group), one member's subscription changing at a time."""
    rng = random.Random(seed)
    topics = [{"name": f"t{i}", "id": _uuid(rng), "partitions": rng.randint(1, 6)} for i in range(rng.randint(3, 9))]
    names = [t["name"] for t in topics]
    cluster = Cluster(tuple(Topic(t["name"], t["partitions"], topic_id=t["id"]) for t in topics))
    hash_of = TopicHashes(cluster)
    coordinator = ConsumerCoordinator(
        ConsumerConfig(assignors=(kafka_name,)), {t["name"]: t["partitions"] for t in topics}, lambda *_: {}
    )
    assign = server_assignor(coordinator, {t["name"]: t["id"] for t in topics}, release)
    group = ConsumerGroup("g")
    subscription = tuple(rng.sample(names, rng.randint(2, len(names))))
    subscriptions: dict[str, tuple[str, ...]] = {}
    ids: list[str] = []
    kafka_targets: dict[str, list[list[Any]]] = {}
    found: list[str] = []
    for step in range(STEPS):
        roll = rng.random()
        if not ids or roll < 0.55:
            ids.append(_uuid(rng))
            subscriptions[ids[-1]] = tuple(rng.sample(names, rng.randint(1, len(names)))) if mixed else subscription
        elif roll < 0.8 and len(ids) > 1:
            gone = ids.pop(rng.randrange(len(ids)))
            group.remove(gone)
            kafka_targets.pop(gone, None)
        elif mixed:
            subscriptions[rng.choice(ids)] = tuple(rng.sample(names, rng.randint(1, len(names))))
        else:  # every member at once, so the group stays homogeneous
            subscription = tuple(rng.sample(names, rng.randint(2, len(names))))
            subscriptions.update(dict.fromkeys(ids, subscription))
        for member_id in ids:
            record = ConsumerMember(
                member_id, Reconciliation(1, 0, STABLE, frozenset()), None, None, 300_000, subscriptions[member_id]
            )
            group.put(record, replay=False)
        targets = assign(group, list(ids), dict(group.target))
        group.target = {m: targets.get(m, frozenset()) for m in ids}
        case = {
            "assignor": "uniform" if kafka_name == "uniform" else "server-range",
            "topics": topics,
            "members": [
                {"member_id": m, "topics": list(subscriptions[m]), "owned": kafka_targets.get(m, [])} for m in ids
            ],
        }
        answer = sidecar.assign(case)
        kafka_targets = answer["assignment"]
        for member_id in ids:
            theirs = kafka_targets.get(member_id, [])
            ours = group.target[member_id]
            if {TopicPartition(t, p) for t, p in theirs} != ours:
                found.append(f"step {step}, {member_id}: Kafka {sorted(map(tuple, theirs))}, kgroup {sorted(ours)}")
                return found
            their_topics = _first_appearance(theirs)
            if len(their_topics) < 2:
                continue
            our_record = group.target_order.get(member_id) or sorted(their_topics)
            if read_back(their_topics, hash_of) != read_back(list(our_record), hash_of):
                found.append(
                    f"step {step}, {member_id}: Kafka's map {read_back(their_topics, hash_of)}, "
                    f"kgroup's {read_back(list(our_record), hash_of)}"
                )
                return found
    return found


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("mixed", [False, True], ids=["homogeneous", "heterogeneous"])
@pytest.mark.parametrize("kafka_name", ["uniform", "range"])
def test_targets_and_their_record_order_match_kafka_over_a_run_of_bumps(
    oracle: Callable[[str], Sidecar], kafka_name: str, mixed: bool, release: str
) -> None:
    sidecar = oracle(release)
    runs = ((seed, _run(sidecar, kafka_name, seed, mixed, release)) for seed in range(RUNS))
    failures = [f"seed {seed}: {found[0]}" for seed, found in runs if found]
    assert not failures, f"{len(failures)} of {RUNS} runs differ from Kafka {release}:\n" + "\n".join(failures[:5])
