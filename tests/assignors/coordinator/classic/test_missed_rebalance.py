"""A static member whose batch outlasts the rebalance it missed: its commit fails and it loses what it
owned (Kafka `OffsetCommitResponseHandler` resets the generation on ILLEGAL_GENERATION), so it never
consumes a partition the coordinator already gave to another member. Found by the hypothesis test of
test_classic_simulation_invariants.py; kept here as a fixed case."""

from __future__ import annotations

from kgroup.assignors.coordinator.classic.client import ClientConfig
from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation
from kgroup.assignors.model import Cluster, Topic, TopicPartition
from kgroup.assignors.registry import builtin


def _config(static: bool, name: str) -> ClientConfig:
    return ClientConfig(
        session_timeout_ms=10_000,
        heartbeat_interval_ms=3000,
        max_poll_interval_ms=20_000,
        assignors=("cooperative-sticky",),
        instance_id=f"i-{name}" if static else None,
    )


def test_a_member_that_missed_a_rebalance_loses_its_partitions_at_its_failed_commit() -> None:
    sim = ClassicSimulation(Cluster((Topic("t", 6), Topic("u", 3))), builtin)
    late = sim.add_client("m3", _config(True, "m3"), ("t", "u"))
    sim.start(late)
    sim.run_until(3000)  # m3 alone owns all nine partitions
    sim.process(late, 20_000)  # a batch as long as max.poll.interval.ms
    newcomer = sim.add_client("m2", _config(False, "m2"), ("t", "u"))
    sim.start(newcomer)  # the join that m3 misses while it processes
    sim.run_until(23_000)

    kinds = [(e.at_ms, e.kind, e.member) for e in sim.log if e.member == "m3" and e.at_ms == 23_000]
    assert (23_000, "commit-failed", "m3") in kinds
    assert (23_000, "partitions-lost", "m3") in kinds
    t1 = sim.ledger.timelines([TopicPartition("t", 1)])[TopicPartition("t", 1)]
    assert [(s.owner, s.start, s.end) for s in t1] == [("m3", 3000, 23_000), ("m2", 23_000, None)]
