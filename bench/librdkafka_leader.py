"""How long a librdkafka group leader computes a cooperative-sticky assignment (not a test): the measurement
behind the what-if's leader-time note (kgroup.assignors.client.librdkafka.leader_time).

librdkafka's sticky assignor (rdkafka_sticky_assignor.c) calls `areSubscriptionsIdentical` from
`sortPartitions` on every rebalance that is not the group's first, and when every partition has the same
list of potential consumers it compares each member's list of potential partitions with the previous
member's through `rd_kafka_topic_partition_list_cmp`, which looks each element up by a linear scan of the
other list (its own FIXME says so): (members - 1) x P(P+1)/2 topic-partition comparisons for P partitions.
On a 1,000-member group over 10,000 partitions that is 5e10 comparisons: minutes, while kgroup's port takes
milliseconds.

This bench starts Apache Kafka from the cached jars (tests/kafka), one topic of P partitions, a group of
`--members` real confluent-kafka consumers (librdkafka, cooperative-sticky, `debug=assignor`), waits for the
first assignment, adds one more member and reads the leader's own log line "... assignment for N member(s)
finished in X ms" for that second (not fresh) rebalance, and this process's CPU time over it. Per P it prints
both, the comparisons
the model counts and nanoseconds per comparison; the slope between the two largest P is the per-comparison
cost with the rest of the assignor's work taken out, which `leader_time.NS_PER_COMPARISON` should be near.

Usage: python bench/librdkafka_leader.py [--members N] [--partitions P,P,...]
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FINISHED = re.compile(r"assignment for (\d+) member\(s\) finished in ([0-9.]+)ms")
WAIT_S = 300


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.times: list[tuple[int, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        found = FINISHED.search(record.getMessage())
        if found:
            self.times.append((int(found.group(1)), float(found.group(2))))


def _settled(consumers: list, partitions: int, timeout_s: float) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        for consumer in consumers:
            consumer.poll(0)
        held = sum(len(c.assignment()) for c in consumers)
        if held == partitions and all(c.assignment() for c in consumers[: min(len(consumers), partitions)]):
            return
        time.sleep(0.05)
    raise SystemExit(f"the group did not settle within {timeout_s} s")


def measure(address: str, members: int, partitions: int) -> tuple[float, float]:
    """The leader's own time for the second rebalance, and this process's CPU time over that rebalance (on a
    shared machine the leader's wall time includes waiting for a core; its CPU time does not)."""
    from confluent_kafka import Consumer
    from confluent_kafka.admin import AdminClient, NewTopic

    topic = f"leader-{partitions}-{time.monotonic_ns()}"
    admin = AdminClient({"bootstrap.servers": address})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(timeout=WAIT_S)
    lines = _Lines()
    log = logging.getLogger(f"librdkafka-{topic}")
    log.addHandler(lines)
    log.setLevel(logging.DEBUG)
    settings = {
        "bootstrap.servers": address,
        "group.id": topic,
        "partition.assignment.strategy": "cooperative-sticky",
        "session.timeout.ms": 45_000,
        "debug": "assignor",
    }
    consumers = []
    try:
        for i in range(members):
            consumers.append(Consumer({**settings, "client.id": f"m{i:03}"}, logger=log))
            consumers[-1].subscribe([topic])
        _settled(consumers, partitions, WAIT_S)
        before = len(lines.times)
        cpu = time.process_time()
        consumers.append(Consumer({**settings, "client.id": "newcomer"}, logger=log))
        consumers[-1].subscribe([topic])
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            for consumer in consumers:
                consumer.poll(0)
            later = [ms for n, ms in lines.times[before:] if n == members + 1]
            if later:
                return later[0] / 1000, time.process_time() - cpu
            time.sleep(0.05)
        raise SystemExit(f"no leader log line for {members + 1} members within {WAIT_S} s")
    finally:
        for consumer in consumers:
            consumer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=20)
    parser.add_argument("--partitions", default="1000,2000,4000")
    args = parser.parse_args()
    from kgroup.assignors.client.librdkafka.leader_time import comparisons
    from tests.kafka import broker, jars

    sizes = [int(p) for p in args.partitions.split(",")]
    jars.fetch(jars.version())
    rows = []
    with tempfile.TemporaryDirectory(prefix="kgroup-leader-") as folder:
        node = broker.single(Path(folder), jars.version())
        node.start()
        try:
            for size in sizes:
                seconds, cpu = measure(node.address, args.members, size)
                count = comparisons(args.members + 1, size)
                rows.append((size, cpu, count))
                print(
                    f"P={size:>6}  leader {seconds:8.3f} s  process cpu {cpu:8.3f} s  {count:.3g} comparisons  "
                    f"{cpu / count * 1e9:6.2f} ns each (cpu)"
                )
        finally:
            node.stop()
    if len(rows) >= 2:
        (_, t1, c1), (_, t2, c2) = rows[-2], rows[-1]
        print(f"slope between the two largest (cpu): {(t2 - t1) / (c2 - c1) * 1e9:.2f} ns per comparison")


if __name__ == "__main__":
    main()
