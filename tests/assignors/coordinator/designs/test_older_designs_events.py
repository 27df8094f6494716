"""GC pauses, new partitions and the last retry in the older designs, as their clients behave.

Kafka 0.8.2 `ZookeeperConsumerConnector`: the ZooKeeper session of a paused JVM expires after
zookeeper.session.timeout.ms, its ephemeral /ids and /owners nodes go, every other consumer's ids watch
fires; on waking, `ZKSessionExpireListener.handleNewSession` re-registers and runs `syncedRebalance`. A
partition change fires `ZKTopicPartitionChangeListener` in every consumer. `syncedRebalance` sleeps
rebalance.backoff.ms after each failed attempt, the last one included, then throws.
"""

from __future__ import annotations

from kgroup.assignors.coordinator.designs.external_coordinator import ExternalConfig, ExternalCoordinatorGroup
from kgroup.assignors.coordinator.designs.zk_watcher import ZkConfig, ZkWatcherGroup
from kgroup.assignors.model import TopicPartition

PARTS = [TopicPartition("t", p) for p in range(4)]


def _zk() -> ZkWatcherGroup:
    group = ZkWatcherGroup(PARTS, ZkConfig(zk_session_timeout_ms=6_000, rebalance_backoff_ms=2_000))
    group.load(["c1", "c2"], {PARTS[0]: "c1", PARTS[1]: "c1", PARTS[2]: "c2", PARTS[3]: "c2"})
    return group


def test_a_pause_longer_than_the_zookeeper_session_sets_off_the_herd_and_a_rejoin() -> None:
    group = _zk()
    group.gc_pause("c1", 10_000)
    group.advance_to(6_000)
    # The session expired at 6 s: c1's owner nodes are gone and c2's watch made it take everything.
    assert group.owners == {tp: "c2" for tp in PARTS}
    group.advance_to(20_000)
    # At 10 s c1 re-registers and attempts first: t-0 is still c2's (NodeExists), so it backs off 2 s;
    # c2's attempt releases t-0 and t-1. c1's retry at 12 s claims them.
    assert group.owners == {PARTS[0]: "c1", PARTS[1]: "c1", PARTS[2]: "c2", PARTS[3]: "c2"}
    gaps = group.gaps()
    assert [(g.start, g.end) for g in gaps[PARTS[0]]] == [(0, 6_000), (10_000, 12_000)]
    assert [(g.start, g.end) for g in gaps[PARTS[2]] if g.end != g.start] == []  # released and retaken at once


def test_a_pause_within_the_zookeeper_session_only_stops_the_paused_consumer() -> None:
    group = _zk()
    group.gc_pause("c1", 5_000)
    group.advance_to(20_000)
    assert group.attempts == 0
    assert [(g.start, g.end) for g in group.gaps()[PARTS[0]]] == [(0, 5_000)]


def test_new_partitions_fire_the_topic_watch_in_every_consumer() -> None:
    group = _zk()
    group.advance_to(1_000)
    group.add_partitions([TopicPartition("t", 4), TopicPartition("t", 5)])
    group.advance_to(30_000)
    assert group.notifications == 2
    assert set(group.owners) == set(PARTS) | {TopicPartition("t", 4), TopicPartition("t", 5)}
    # c1's new share t-0..t-2 collides with c2's t-2 (NodeExists, retry 2 s later); c2 claims t-3..t-5 at once.
    gaps = group.gaps()
    assert [(g.start, g.end) for g in gaps[PARTS[2]]] == [(1_000, 3_000)]
    assert gaps[TopicPartition("t", 4)] == []


def test_the_last_failed_attempt_throws_one_backoff_later() -> None:
    group = ZkWatcherGroup(PARTS, ZkConfig(rebalance_max_retries=1, rebalance_backoff_ms=2_000), autonomous=False)
    group.load(["c1", "c2"], {tp: "c2" for tp in PARTS})
    group.ids.append("c3")
    group.alive.add("c3")
    group.advance_to(5_000)
    result = group.attempt("c3")
    assert result.exception == "ConsumerRebalanceFailedException" and result.next_attempt_at is None
    assert group.gave_up == [(7_000, "c3")]


def test_external_isolates_a_paused_consumer_only_past_the_health_timeout() -> None:
    group = ExternalCoordinatorGroup(PARTS[:2], ExternalConfig(check_interval_ms=1_000, health_timeout_ms=10_000))
    group.load("Stable", ["c1", "c2"], {PARTS[0]: "c1", PARTS[1]: "c2"})
    group.gc_pause("c1", 5_000)
    group.advance_to(30_000)
    assert group.assignments == {PARTS[0]: "c1", PARTS[1]: "c2"} and group.move_times == []
    group.gc_pause("c1", 20_000)
    group.advance_to(39_500)
    assert group.move_times == []  # still registered: the health check allows 10 s
    group.advance_to(45_000)
    # Isolated at 40 s, before that instant's check (scheduled later), which closes t-0 (an isolated owner
    # counts as closed); the next check starts it on c2.
    assert group.move_times == [40_000] and group.assignments == {PARTS[0]: "c2", PARTS[1]: "c2"}
    group.advance_to(60_000)
    # c1 wakes at 50 s and registers again; that instant's check balances the two partitions once more.
    assert group.move_times == [40_000, 50_000] and sorted(group.assignments.values()) == ["c1", "c2"]
