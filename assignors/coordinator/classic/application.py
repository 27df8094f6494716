"""What the application and the operator do to a classic consumer: commits, slow batches, the poll
timeout, GC pauses, crashes, closes, new subscriptions and partitions, metadata refreshes.

This is the client-side half of `ClassicSimulation` (Kafka: `AbstractCoordinator.HeartbeatThread`,
`ConsumerCoordinator.rejoinNeededOrPending`; docs/scenarios.md, "The model"): a mixin whose methods act
on the simulation's clients and clock, and reach the coordinator only through the simulation's request
plumbing (`simulation.py`), which holds the other half: the event loop, JoinGroup/SyncGroup/Heartbeat
exchanges, the consumption ledger and the rebalance records.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from kgroup.assignors.coordinator.classic.client import (
    COMPLETING_REBALANCE,
    NO_GENERATION,
    PREPARING_REBALANCE,
    STABLE,
    UNJOINED,
    ClassicClient,
)
from kgroup.assignors.model import Cluster, TopicPartition

if TYPE_CHECKING:
    from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation

    _Base = ClassicSimulation
else:
    _Base = object


class ApplicationEvents(_Base):
    """The application's and the operator's actions on one simulated client."""

    # -- commits -----------------------------------------------------------------------------------

    def commit_sync(self, client: ClassicClient) -> str | None:
        """`commitSync()` of what the last batch processed; the exception it raises, if any.

        Kafka: `ConsumerCoordinator.sendOffsetCommitRequest` and `OffsetCommitResponseHandler`.
        """
        generation = client.generation_if_stable()
        if generation is None:
            if client.state in (PREPARING_REBALANCE, COMPLETING_REBALANCE):
                exception = "RebalanceInProgressException"
            else:
                exception = "CommitFailedException"
        else:
            error = self.coordinator.commit(
                self.group_id, client.member_id, generation, instance_id=client.config.instance_id
            )
            exception = {
                "NONE": None,
                "REBALANCE_IN_PROGRESS": "RebalanceInProgressException",
                "UNKNOWN_MEMBER_ID": "CommitFailedException",
                "ILLEGAL_GENERATION": "CommitFailedException",
                "FENCED_INSTANCE_ID": "FencedInstanceIdException",
            }.get(error, error)
            if error == "REBALANCE_IN_PROGRESS" and self.autonomous:
                self._request_rejoin(client)
            elif error in ("ILLEGAL_GENERATION", "UNKNOWN_MEMBER_ID"):
                # `OffsetCommitResponseHandler` resets the generation as the heartbeat handler does, so the
                # next `onJoinPrepare` loses what this member owned instead of keeping it into a new round.
                client.reset_generation(keep_member_id=error == "ILLEGAL_GENERATION")
                if self.autonomous:
                    self._request_rejoin(client)
        if exception is not None:
            client.exceptions.append((self.now, exception))
            self.note("commit-failed", client, exception=exception)
        return exception

    # -- what happens to a client ----------------------------------------------------------------

    def process(self, client: ClassicClient, duration: int, batches: int = 1) -> None:
        """The application spends `duration` on each of the next `batches` batches before polling again."""
        client.batch_ms, client.batches_left = duration, batches
        self.note("slow-poll", client, processing_ms=duration, batches=batches)
        self._start_batch(client)

    def _start_batch(self, client: ClassicClient) -> None:
        client.batches_left -= 1
        client.batch_end = self.now + client.batch_ms
        limit = client.config.max_poll_interval_ms
        client.batch_stalled = client.batch_ms > limit
        self._reconsider(client)
        if client.batch_stalled and self.autonomous:
            self.at(self.now + limit, self._poll_timeout, client, client.instance_counter, client.batch_end)
        self.at(client.batch_end, self._batch_done, client, client.instance_counter, client.batch_end)

    def _poll_timeout(self, client: ClassicClient, instance: int, batch_end: int) -> None:
        """Kafka: `HeartbeatThread.run` → `maybeLeaveGroup("consumer poll timeout has expired.")`."""
        if instance != client.instance_counter or not client.alive or client.batch_end != batch_end:
            return
        if client.paused(self.now):
            self.at(client.paused_until, self._poll_timeout, client, instance, batch_end)
            return
        self.poll_timeout_leave(client)

    def poll_timeout_leave(self, client: ClassicClient) -> None:
        self.note(
            "poll-timeout", client, max_poll_interval_ms=client.config.max_poll_interval_ms, static=client.is_static
        )
        if not client.is_static and client.member_id and client.state != UNJOINED:
            self.coordinator.leave(self.group_id, [(client.member_id, None)])
        client.reset_generation()

    def _batch_done(self, client: ClassicClient, instance: int, batch_end: int) -> None:
        if instance != client.instance_counter or not client.alive or client.batch_end != batch_end:
            return
        if client.paused(self.now):
            client.batch_end = client.paused_until
            self.at(client.batch_end, self._batch_done, client, instance, client.batch_end)
            return
        client.batch_stalled = False
        self._reconsider(client)
        if not self.autonomous:
            return  # the script commits and polls
        if client.owned:
            self.commit_sync(client)
        if client.rejoin_needed and client.state in (UNJOINED, STABLE):
            self.rejoin(client)
        elif client.batches_left and client.state == STABLE:
            self._start_batch(client)

    def crash(self, client: ClassicClient) -> None:
        """kill -9: no LeaveGroup; the coordinator notices at the session timeout."""
        self.note("crash", client)
        self._stop(client)

    def close(self, client: ClassicClient) -> None:
        """`KafkaConsumer.close()`: revoke, then LeaveGroup, for a dynamic member only (AC `maybeLeaveGroup`)."""
        self.note("close", client, static=client.is_static)
        if client.owned:
            how = "lost" if client.generation == NO_GENERATION else "revoked"
            self.give_up(client, how, client.owned)
        if not client.is_static and client.member_id and client.state != UNJOINED:
            self.coordinator.leave(self.group_id, [(client.member_id, None)])
        self._stop(client)

    def _stop(self, client: ClassicClient) -> None:
        client.alive = False
        client.instance_counter += 1
        client.heartbeat_token += 1
        self._reconsider(client)

    def _fail(self, client: ClassicClient, exception: str) -> None:
        client.fatal = exception
        client.exceptions.append((self.now, exception))
        self.note("fatal", client, exception=exception)
        self._stop(client)

    def gc_pause(self, client: ClassicClient, duration: int) -> None:
        """Both threads stop for `duration`; the coordinator keeps its clocks (`AbstractCoordinator.HeartbeatThread`)."""
        self.note("gc-pause", client, duration_ms=duration)
        client.paused_until = self.now + duration
        if client.busy(self.now):
            client.batch_end += duration
        self._reconsider(client)
        self.at(client.paused_until, self._pause_over, client, client.instance_counter, self.now)

    def _pause_over(self, client: ClassicClient, instance: int, paused_at: int) -> None:
        if instance != client.instance_counter or not client.alive:
            return
        self._reconsider(client)
        if not self.autonomous:
            return
        if self.now - paused_at > client.config.max_poll_interval_ms and not client.busy(self.now):
            self.poll_timeout_leave(client)
            self._request_rejoin(client)
        elif client.state in (COMPLETING_REBALANCE, STABLE):
            self._start_heartbeats(client, self.now)  # overdue: the thread heartbeats at once

    def subscribe(self, client: ClassicClient, topics: Iterable[str]) -> None:
        dropped = set(client.topics)
        client.topics = self._subscription(topics)
        dropped.difference_update(client.topics)
        self.note("subscribe", client, topics=list(client.topics))
        if dropped and client.is_leader:
            wanted = {t for c in self.clients.values() if c is not client and c.alive and c.in_group for t in c.topics}
            if kept_by_others := wanted & dropped:
                self.leader_topic_drops.append((self.now, client.handle, tuple(sorted(kept_by_others))))
        if self.autonomous and client.alive:
            self._request_rejoin(client)

    def add_partitions(self, topic: str, total: int) -> None:
        """The topic grows; clients see it at their next metadata refresh (`metadata.max.age.ms`)."""
        topics = []
        for t in self.cluster.topics:
            if t.name == topic and total > t.partitions:
                for p in range(t.partitions, total):
                    self.created[TopicPartition(topic, p)] = self.now
                t = replace(t, partitions=total, replica_racks=t.replica_racks[:0] if t.replica_racks else ())
            topics.append(t)
        self.cluster = Cluster(tuple(topics))
        self.note("add-partitions", None, topic=topic, partitions=total)
        for client in self.clients.values():
            if client.alive:
                self._schedule_refreshes(client, self.now)

    def _schedule_refreshes(self, client: ClassicClient, after: int) -> None:
        age = client.config.metadata_max_age_ms
        phase = client.refresh_phase
        next_refresh = phase + ((after - phase) // age + 1) * age
        self.at(next_refresh, self._refresh_metadata, client, client.instance_counter)

    def _refresh_metadata(self, client: ClassicClient, instance: int) -> None:
        """`metadata.max.age.ms` elapsed: the leader rejoins when a subscribed topic changed size
        (`ConsumerCoordinator.rejoinNeededOrPending`: only the leader keeps an assignment snapshot)."""
        if instance != client.instance_counter or not client.alive or client.cluster is self.cluster:
            return
        client.cluster = self.cluster
        snapshot = client.assigned_cluster
        if client.is_leader and snapshot is not None and _sizes(snapshot) != _sizes(self.cluster):
            self.note("metadata-changed", client)
            if self.autonomous:
                self._request_rejoin(client)


def _sizes(cluster: Cluster) -> dict[str, int]:
    return {t.name: t.partitions for t in cluster.topics}
