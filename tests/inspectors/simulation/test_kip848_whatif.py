"""The what-if on a KIP-848 (protocol: consumer) group: the group's own server assignor, started from the
current target assignment, and the reconciliation path from what the members own to the new target.

The timing claims (a moving partition unconsumed at most one heartbeat interval, the group on its target
within two) are checked against kgroup's simulated coordinator and clients
(kgroup.assignors.coordinator.consumer.simulation), which run the heartbeats event by event.
"""

from __future__ import annotations

from typing import Any

import yaml

from kgroup.assignors.coordinator.classic.client import ClientConfig
from kgroup.assignors.coordinator.consumer.simulation import ConsumerSimulation
from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition
from kgroup.assignors.server.uniform import UniformAssignor
from kgroup.inspectors.fixtures.group_file import load_fixture_text
from kgroup.inspectors.simulation.whatif_run import simulate

TOPICS = {"payments": 8, "refunds": 3}
BOTH = ["payments", "refunds"]
H = 5_000  # group.consumer.heartbeat.interval.ms, Kafka's default


def _fixture(
    members: list[dict[str, Any]],
    target: dict[str, list[str]],
    epoch: int = 7,
    kafka_version: str | None = None,
    assignors: list[str] | None = None,
) -> Any:
    cluster: dict[str, Any] = {"topics": [{"name": t, "partitions": n} for t, n in TOPICS.items()]}
    if kafka_version:
        cluster["kafka_version"] = kafka_version
    group: dict[str, Any] = {
        "group_id": "g",
        "protocol": "consumer",
        "generation": epoch,
        "assignment_epoch": epoch,
        "members": members,
        "assignment": target,
    }
    if assignors:
        group["assignors"] = assignors
    return load_fixture_text(yaml.safe_dump({"schema": "kgroup/v1", "cluster": cluster, "groups": [group]}))


def _stable(ids: list[str], kafka_version: str | None = None) -> dict[str, list[str]]:
    """The target uniform gives these members from nothing: a group that has settled."""
    cluster = Cluster(tuple(Topic(t, n) for t, n in TOPICS.items()), kafka_version=kafka_version)
    result = UniformAssignor().assign(cluster, [Member(m, tuple(BOTH)) for m in ids])
    return {m: [str(tp) for tp in result.partitions_of(m)] for m in ids}


def _run(fixture: Any, **changes: list[str]) -> Any:
    return simulate(
        fixture,
        None,
        [],
        changes.get("add", []),
        changes.get("remove", []),
        changes.get("grow", []),
        changes.get("subscribe", []),
    )


def test_a_join_revokes_before_handing_over_and_says_how_long() -> None:
    target = _stable(["m1", "m2"])
    fixture = _fixture([{"member_id": m, "topics": BOTH, "generation": 7} for m in target], target)
    sim = _run(fixture, add=["c3=payments,refunds"])
    (run,) = sim.runs
    path = sim.handovers[run.assignor]
    assert path.group_epoch == 8
    new = {m: set(run.assignment.partitions_of(m)) for m in ("m1", "m2", "c3")}
    owned = {m: {TopicPartition.parse(p) for p in parts} for m, parts in target.items()}
    steps = {s.member_id: s for s in path.steps}
    for m in ("m1", "m2"):
        assert set(steps[m].revokes) == owned[m] - new[m]
        assert set(steps[m].keeps) == owned[m] & new[m]
        if steps[m].revokes:
            assert steps[m].state == "UNREVOKED_PARTITIONS"
    # Everything the newcomer gets was someone's: it waits for their revocations.
    assert set(steps["c3"].receives_after_revocation) == new["c3"] and not steps["c3"].receives_free
    assert steps["c3"].state == "UNRELEASED_PARTITIONS"
    assert set(steps["c3"].waits_for) == {m for m in ("m1", "m2") if steps[m].revokes}
    assert {(m.source, m.target) for m in path.moves} <= {("m1", "c3"), ("m2", "c3")}
    assert all(m.waits_for_revocation for m in path.moves)
    assert path.unconsumed_at_most_ms == H and path.settled_within_ms == 2 * H


def test_the_assignor_starts_from_the_target_not_from_what_members_still_own() -> None:
    """Mid-reconciliation, m2 still owns a partition its target gave to m1; Kafka's TargetAssignmentBuilder
    hands the assignor the target, so with nothing changed the target stays and only the hand-over is left."""
    target = _stable(["m1", "m2"])
    moving = target["m1"][0]
    members = [
        {"member_id": "m1", "topics": BOTH, "generation": 7, "owned": target["m1"][1:]},
        {"member_id": "m2", "topics": BOTH, "generation": 6, "owned": target["m2"] + [moving]},
    ]
    sim = _run(_fixture(members, target))
    (run,) = sim.runs
    assert {m: [str(tp) for tp in run.assignment.partitions_of(m)] for m in target} == target
    path = sim.handovers[run.assignor]
    (move,) = path.moves
    assert (str(move.partition), move.source, move.target) == (moving, "m2", "m1")
    steps = {s.member_id: s for s in path.steps}
    assert [str(tp) for tp in steps["m2"].revokes] == [moving] and steps["m1"].waits_for == ("m2",)


def test_a_leave_releases_at_once_and_new_partitions_are_free() -> None:
    target = _stable(["m1", "m2", "m3"])
    fixture = _fixture([{"member_id": m, "topics": BOTH, "generation": 7} for m in target], target)
    sim = _run(fixture, remove=["m3"], grow=["refunds=5"])
    (run,) = sim.runs
    path = sim.handovers[run.assignor]
    assert path.departed == ("m3",)
    left = {TopicPartition.parse(p) for p in target["m3"]}
    grown = {TopicPartition("refunds", 3), TopicPartition("refunds", 4)}
    free = {m.partition for m in path.moves if m.source is None and m.target is not None}
    assert left | grown <= free  # nobody has to revoke these before they are taken
    for step in path.steps:
        assert not (set(step.receives_after_revocation) & (left | grown))


def test_a_subscription_change_revokes_the_dropped_topic() -> None:
    target = _stable(["m1", "m2"])
    fixture = _fixture([{"member_id": m, "topics": BOTH, "generation": 7} for m in target], target)
    sim = _run(fixture, subscribe=["m2=payments"])
    (run,) = sim.runs
    steps = {s.member_id: s for s in sim.handovers[run.assignor].steps}
    assert {tp.topic for tp in run.assignment.partitions_of("m2")} <= {"payments"}
    assert {str(tp) for tp in steps["m2"].revokes} >= {p for p in target["m2"] if p.startswith("refunds-")}


def test_server_range_groups_get_a_path_too() -> None:
    ids = ["m1", "m2"]
    target = {
        "m1": ["payments-0", "payments-1", "payments-2", "payments-3", "refunds-0", "refunds-1"],
        "m2": ["payments-4", "payments-5", "payments-6", "payments-7", "refunds-2"],
    }
    fixture = _fixture([{"member_id": m, "topics": BOTH, "generation": 7} for m in ids], target, assignors=["range"])
    sim = _run(fixture, add=["m3=payments,refunds"])
    (run,) = sim.runs
    assert run.assignor == "server-range"
    path = sim.handovers["server-range"]
    assert {m.target for m in path.moves} <= {"m1", "m2", "m3"} and path.moves


def test_the_release_decides_uniform_and_the_output_says_which() -> None:
    """A group whose members hold unequal shares (one over the minimum): from 4.1 that member keeps its extra
    partition, in 4.0 the first members in the coordinator's order get the extras. A few newcomer names are
    tried (the order is the HashMap's); with some the releases differ, and then a note says which release
    was followed."""
    differ = 0
    for first, second, newcomer in (("x", "y", n) for n in ("A", "z")):
        target = {
            first: ["payments-0", "payments-1", "payments-2", "payments-3", "payments-4", "payments-5"],
            second: ["payments-6", "payments-7", "refunds-0", "refunds-1", "refunds-2"],
        }
        members = [{"member_id": m, "topics": BOTH, "generation": 7} for m in target]
        results = {}
        for release in ("4.0.0", "4.2.1", None):
            sim = _run(_fixture(members, target, kafka_version=release), add=[f"{newcomer}=payments,refunds"])
            results[release] = (sim.runs[0].assignment, sim.warnings)
        assert results["4.2.1"][0] == results[None][0]
        if results["4.0.0"][0] != results["4.2.1"][0]:
            differ += 1
            assert any("followed Kafka 4.0" in w for w in results["4.0.0"][1])
            assert any("followed Kafka 4.2" in w for w in results["4.2.1"][1])
            assert any("no Kafka release known" in w for w in results[None][1])
        else:
            assert not any("followed Kafka" in w for _, ws in results.values() for w in ws)
    assert differ >= 1


def test_the_timing_holds_in_the_simulated_coordinator() -> None:
    """kgroup's event-by-event KIP-848 coordinator and clients (heartbeats at different phases): after a
    join the group reaches the what-if's target, only the partitions the path moves stop, each for at most
    one heartbeat interval, and the group is on the new target within two."""
    ids = ["m1", "m2"]
    target = _stable(ids)
    sim = ConsumerSimulation.create(TOPICS)
    for m in ids:
        sim.add_client(m, ClientConfig(), BOTH)
    sim.load(
        7,
        {m: [TopicPartition.parse(p) for p in parts] for m, parts in target.items()},
        heartbeat_phase={"m1": 4_900, "m2": 1_300},
    )
    newcomer = sim.add_client("c3", ClientConfig(), BOTH)
    sim.at(0, sim.start, newcomer)
    sim.run_until(60_000)

    fixture = _fixture([{"member_id": m, "topics": BOTH, "generation": 7} for m in ids], target)
    what_if = _run(fixture, add=[f"{newcomer.member_id}=payments,refunds"])
    (run,) = what_if.runs
    path = what_if.handovers[run.assignor]
    for client in sim.clients.values():
        assert client.held == frozenset(run.assignment.partitions_of(client.member_id))
    moved = {m.partition for m in path.moves}
    gaps = sim.gaps()
    stopped = {tp for tp, found in gaps.items() if found}
    assert stopped == moved
    assert all(
        g.end is not None and g.length(sim.now) <= path.unconsumed_at_most_ms for found in gaps.values() for g in found
    )
    assert sim.stable_at[-1] <= path.settled_within_ms


def test_growing_or_creating_a_topic_keeps_the_clusters_release() -> None:
    target = _stable(["m1", "m2"], "4.0.0")
    fixture = _fixture(
        [{"member_id": m, "topics": BOTH, "generation": 7} for m in target], target, kafka_version="4.0.0"
    )
    sim = simulate(fixture, None, [], [], [], ["payments=10"], [], add_topics=["audit=2"])
    assert sim.after.cluster.kafka_version == "4.0.0"
