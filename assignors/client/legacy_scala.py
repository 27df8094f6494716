"""The legacy Scala ZooKeeper consumer's assignors (Kafka 0.8.2 / 0.9 `kafka.consumer.PartitionAssignor`).

Each consumer runs `num.streams` threads per topic, named `<consumerId>-<i>`; threads sort by their
string form (so `C-10` < `C-2`). The result is per thread; `assign` folds it back to members.

- `legacy-range`, per topic: n partitions over t threads; thread i gets `n // t` and the first `n % t`
  threads one more. Seed example: T1 with 10 partitions, C1 with 1 stream and C2 with 2: C1-0 gets
  0..3, C2-0 4..6, C2-1 7..9.
- `legacy-roundrobin`, global: every topic must have the same thread set; all partitions are sorted by
  the Java hashCode of `TopicAndPartition.toString` = `[topic,partition]` and dealt to the threads in turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assignors.base import AssignorError, subscribed_topics
from kgroup.assignors.java.semantics import java_string_hash, java_string_key
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.trace import LEGACY_RANGE, LEGACY_ROUNDROBIN, active


def thread_ids(member: Member, topic: str) -> list[str]:
    """Kafka 0.8/0.9: `TopicCount.makeConsumerThreadIdsPerTopic`: ids `<consumerId>-0 .. -(k-1)`."""
    return [f"{member.member_id}-{i}" for i in range(member.streams_for(topic))]


def _threads_per_topic(cluster: Cluster, members: Sequence[Member]) -> tuple[dict[str, int], dict[str, list[str]]]:
    topics = subscribed_topics(cluster, members)
    threads: dict[str, list[str]] = {}
    for topic in topics:
        ids = [tid for member in members for tid in thread_ids(member, topic)]
        threads[topic] = sorted(ids, key=java_string_key)
    return topics, threads


def _thread_owners(members: Sequence[Member]) -> dict[str, str]:
    return {tid: m.member_id for m in members for t in m.topics for tid in thread_ids(m, t)}


def _fold_to_members(members: Sequence[Member], per_thread: dict[str, list[TopicPartition]]) -> Assignment:
    owner_of_thread = _thread_owners(members)
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    for tid, parts in per_thread.items():
        out[owner_of_thread[tid]].extend(parts)
    return Assignment.of(out)


class LegacyRangeAssignor:
    """Kafka 0.8.2/0.9: `kafka.consumer.RangeAssignor.assign`."""

    name = "legacy-range"

    def assign_threads(self, cluster: Cluster, members: Sequence[Member]) -> dict[str, list[TopicPartition]]:
        topics, threads = _threads_per_topic(cluster, members)
        out: dict[str, list[TopicPartition]] = {}
        trace = active()
        owner = _thread_owners(members) if trace is not None else {}
        if trace is not None:
            trace.note(assignor=self.name)
        for topic, n in topics.items():
            ordered = threads[topic]
            q, r = divmod(n, len(ordered))
            for i, tid in enumerate(ordered):
                start = q * i + min(i, r)
                length = q + (1 if i + 1 <= r else 0)
                out.setdefault(tid, []).extend(TopicPartition(topic, p) for p in range(start, start + length))
            if trace is not None:  # each thread's run, as just dealt
                for i, tid in enumerate(ordered):
                    first, last = q * i + min(i, r), q * (i + 1) + min(i + 1, r) - 1
                    for p in range(first, last + 1):
                        trace.record(
                            TopicPartition(topic, p),
                            owner[tid],
                            LEGACY_RANGE,
                            thread=tid,
                            threads=ordered,
                            partitions=n,
                            quota=q,
                            extra=r,
                            position=i,
                            first=first,
                            last=last,
                        )
        return out

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        return _fold_to_members(members, self.assign_threads(cluster, members))


class LegacyRoundRobinAssignor:
    """Kafka 0.8.2/0.9: `kafka.consumer.RoundRobinAssignor.assign`."""

    name = "legacy-roundrobin"

    def assign_threads(self, cluster: Cluster, members: Sequence[Member]) -> dict[str, list[TopicPartition]]:
        topics, threads = _threads_per_topic(cluster, members)
        if not topics:
            return {}
        thread_sets = {tuple(ids) for ids in threads.values()}
        if len(thread_sets) != 1:
            # Scala `require(...)`: every topic must be consumed by the same threads.
            raise AssignorError(
                "IllegalArgumentException",
                "legacy round-robin requires every consumer to subscribe to the same topics with the same "
                "number of streams (kafka.consumer.RoundRobinAssignor)",
            )
        ordered = threads[next(iter(topics))]
        everything = [TopicPartition(topic, p) for topic, n in topics.items() for p in range(n)]
        # Stable sort by the signed 32-bit hash of "[topic,partition]", as Scala's sortWith did.
        everything.sort(key=lambda tp: java_string_hash(f"[{tp.topic},{tp.partition}]"))
        out: dict[str, list[TopicPartition]] = {}
        for i, tp in enumerate(everything):
            out.setdefault(ordered[i % len(ordered)], []).append(tp)
        trace = active()
        if trace is not None:
            trace.note(assignor=self.name, threads=ordered)
            owner = _thread_owners(members)
            for i, tp in enumerate(everything):
                tid = ordered[i % len(ordered)]
                trace.record(
                    tp,
                    owner[tid],
                    LEGACY_ROUNDROBIN,
                    thread=tid,
                    index=i,
                    count=len(everything),
                    hash=java_string_hash(f"[{tp.topic},{tp.partition}]"),
                )
        return out

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        return _fold_to_members(members, self.assign_threads(cluster, members))
