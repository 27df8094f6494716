"""Assignor benchmark (not a test): kgroup against kafka-python 3.0.12 on the same input, same run.

Shapes:
  a: 10 topics x 1,000 partitions, 1,000 members, everyone subscribed to everything.
  b: Kafka's scale test (AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithNonEqualSubscription):
     500 topics t000..t499 x 2,000 partitions, 2,000 consumers c0000..c1999, all on every topic except
     c1999, which is on t000 only.
Each measurement runs in its own process, so peak memory (ru_maxrss) is that run's alone.

Usage: python bench/assignors.py [--shapes a,b] [--repeat N]
Targets on shape b: range <= 1.0 s, roundrobin <= 1.3 s, range >= 3x faster than kafka-python's,
peak memory <= 1.5 GB (issue #2); server-range <= 0.3 s (issue #3). Kafka's Java (warm JVM, this
machine): range 0.98 s, roundrobin 1.33 s, server-range 0.23 s.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections import namedtuple

SHAPES = {"a": (10, 1_000, 1_000), "b": (500, 2_000, 2_000)}
TARGETS_B = {"range": 1.0, "roundrobin": 1.3, "server-range": 0.3}
JAVA_B = {"range": 0.98, "roundrobin": 1.33, "server-range": 0.232}
# kafka-python has no KIP-848 server-side assignors: those rows compare with Kafka's Java only.
KAFKA_PYTHON = {"range", "roundrobin"}


def topic_names(shape: str) -> list[str]:
    n_topics = SHAPES[shape][0]
    return [f"t{i:03d}" for i in range(n_topics)]


def build_kgroup(shape: str):  # type: ignore[no-untyped-def]
    from kgroup.assignors.model import Cluster, Member, Topic

    n_topics, n_partitions, n_members = SHAPES[shape]
    names = topic_names(shape)
    cluster = Cluster(tuple(Topic(name, n_partitions) for name in names))
    members = [Member(f"c{i:04d}", tuple(names)) for i in range(n_members)]
    if shape == "b":
        members[-1] = Member(members[-1].member_id, (names[0],))
    return cluster, members


def build_kafka_python(shape: str):  # type: ignore[no-untyped-def]
    n_topics, n_partitions, n_members = SHAPES[shape]
    names = topic_names(shape)
    partitions = set(range(n_partitions))

    class ClusterStub:
        """kafka-python's assignors only call ClusterMetadata.partitions_for_topic."""

        def partitions_for_topic(self, topic: str) -> set[int] | None:
            return partitions if topic in names else None

    Metadata = namedtuple("Metadata", "topics")
    GroupMember = namedtuple("GroupMember", "member_id group_instance_id metadata")
    members = [GroupMember(f"c{i:04d}", None, Metadata(names)) for i in range(n_members)]
    if shape == "b":
        members[-1] = GroupMember(members[-1].member_id, None, Metadata([names[0]]))
    return ClusterStub(), members


def measure_one(impl: str, assignor: str, shape: str, repeat: int) -> dict:
    """Runs in a child process: build the input, run `repeat` times, report best time and memory."""
    if impl == "kgroup":
        from kgroup.assignors.registry import builtin

        cluster, members = build_kgroup(shape)
        run = lambda: builtin(assignor).assign(cluster, members)  # noqa: E731
    else:
        from kafka.coordinator.assignors.range import RangePartitionAssignor
        from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

        cluster, members = build_kafka_python(shape)
        cls = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor}[assignor]
        run = lambda: cls.assign(cluster, members)  # noqa: E731
    before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times = []
    try:
        for _ in range(repeat):
            start = time.perf_counter()
            result = run()
            times.append(time.perf_counter() - start)
            del result
    except Exception as exc:  # kafka-python fails on some inputs; report it, don't hide it
        return {"error": f"{type(exc).__name__}: {exc}"[:120]}
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"best_s": min(times), "peak_mb": peak_kb / 1024, "input_mb": before_kb / 1024}


def spawn(impl: str, assignor: str, shape: str, repeat: int) -> dict:
    args = [sys.executable, __file__, "--one", impl, assignor, shape, str(repeat)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="a,b")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        impl, assignor, shape, repeat = args.one
        print(json.dumps(measure_one(impl, assignor, shape, int(repeat))))
        return

    print(f"{'shape':5} {'assignor':12} {'kgroup s':>9} {'peak MB':>8} {'kafka-python s':>15} {'ratio':>7}  note")
    for shape in args.shapes.split(","):
        for assignor in ("range", "roundrobin", "server-range"):
            ours = spawn("kgroup", assignor, shape, args.repeat)
            theirs = (spawn("kafka-python", assignor, shape, 1 if shape == "b" else args.repeat)
                      if assignor in KAFKA_PYTHON else {"absent": True})
            our_s = ours.get("best_s")
            their_s = theirs.get("best_s")
            ratio = f"{their_s / our_s:6.1f}x" if our_s and their_s else "   n/a"
            note = []
            if "error" in ours:
                note.append(f"kgroup failed: {ours['error']}")
            if "absent" in theirs:
                note.append("no kafka-python peer")
            elif "error" in theirs:
                note.append(f"kafka-python failed: {theirs['error']}")
            if shape == "b" and our_s is not None:
                target = TARGETS_B[assignor]
                note.append(f"target <= {target} s: {'met' if our_s <= target else 'MISSED'}; "
                            f"Java {JAVA_B[assignor]} s; vs Java {our_s / JAVA_B[assignor]:.2f}x")
                if ours["peak_mb"] > 1536:
                    note.append("memory target (1.5 GB) MISSED")
            ours_s = f"{our_s:9.3f}" if our_s is not None else "      n/a"
            peak = f"{ours['peak_mb']:8.0f}" if "peak_mb" in ours else "     n/a"
            theirs_s = f"{their_s:15.3f}" if their_s is not None else "            n/a"
            print(f"{shape:5} {assignor:12} {ours_s} {peak} {theirs_s} {ratio}  {'; '.join(note)}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
