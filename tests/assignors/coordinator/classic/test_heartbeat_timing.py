"""Members with different heartbeat intervals each heartbeat on their own schedule, and the coordinator
pushes each session deadline to its member's last heartbeat plus session.timeout.ms (Kafka:
`AbstractCoordinator.HeartbeatThread`, `GroupMetadataManager.classicGroupHeartbeat`). Heartbeats come due
out of the order they were scheduled in when intervals differ: the simulation's first-in first-out lane
for heartbeats must hand such a one to its event heap and still fire every heartbeat at its instant."""

from __future__ import annotations

from kgroup.assignors.coordinator.classic.client import ClassicClient, ClientConfig
from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation
from kgroup.assignors.model import Cluster, Topic, TopicPartition
from kgroup.assignors.registry import builtin

SESSION = 45_000


def _group() -> tuple[ClassicSimulation, ClassicClient, ClassicClient]:
    sim = ClassicSimulation(Cluster((Topic("t", 2),)), builtin, group_id="g")
    slow = sim.add_client("slow", ClientConfig(heartbeat_interval_ms=3000, assignors=("range",)), ("t",))
    fast = sim.add_client("fast", ClientConfig(heartbeat_interval_ms=1000, assignors=("range",)), ("t",))
    owned = {"slow": (TopicPartition("t", 0),), "fast": (TopicPartition("t", 1),)}
    sim.load(1, "range", "slow", owned, heartbeat_phase={"slow": 0, "fast": 500})
    return sim, slow, fast


def test_each_member_heartbeats_at_its_own_interval() -> None:
    sim, slow, fast = _group()

    sim.run_until(10_700)

    # slow: 0, 3000, 6000, 9000; fast: 500, 1500, ..., 10500 (worked by hand from the intervals).
    timers = sim.coordinator.timers
    assert timers.deadline(sim.coordinator.heartbeat_key("g", slow.member_id)) == 9000 + SESSION
    assert timers.deadline(sim.coordinator.heartbeat_key("g", fast.member_id)) == 10_500 + SESSION
    assert sim.events_processed == 4 + 11
    assert sim.rebalances == []


def test_a_paused_member_heartbeats_when_its_pause_ends() -> None:
    sim, slow, _ = _group()
    sim.run_until(3100)
    sim.gc_pause(slow, 4000)  # its heartbeat due at 6000 waits; the thread heartbeats at once at 7100

    sim.run_until(10_700)

    deadline = sim.coordinator.timers.deadline(sim.coordinator.heartbeat_key("g", slow.member_id))
    assert deadline == 10_100 + SESSION
    assert sim.rebalances == []


def test_a_member_that_stops_heartbeating_is_expired_at_its_last_heartbeat_plus_the_session() -> None:
    sim, _, fast = _group()
    sim.run_until(4200)
    sim.crash(fast)  # its last heartbeat was at 3500

    sim.run_until(60_000)

    assert [r.start for r in sim.rebalances] == [3500 + SESSION]
    assert "fast" in sim.rebalances[0].trigger
