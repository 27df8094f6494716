"""Assignor benchmark (not a test): every kgroup assignor, with kafka-python 3.0.12 timed in the same run.

Shapes:
  a: 10 topics x 1,000 partitions, 1,000 members, everyone subscribed to everything.
  b: Kafka's scale test (AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithNonEqualSubscription):
     500 topics t000..t499 x 2,000 partitions, 2,000 consumers c0000..c1999, all on every topic except
     c1999, which is on t000 only.
  c: 10 topics x 200 partitions, 200 members (--off-path, for librdkafka's port).
Rounds: "first" with nothing owned; "steady" where c0001.. report their first-round assignment at
generation 1 and c0000 reports nothing (the test's second call). Steady rounds are run only for the
assignors that read the current assignment (sticky, cooperative-sticky, uniform).
Each (implementation, assignor, shape) runs in its own process, so peak memory (ru_maxrss) is its own.

Usage: python bench/assignors.py [--shapes a,b] [--repeat N] [--assignors name,...] [--explain]
       python bench/assignors.py --off-path [--shapes a,b,c] [--repeat N] [--assignors name[@client],...]

--explain runs kgroup's assignors with explanations recorded (`kgroup explain`), to show what they cost
when asked; without it nothing is recorded, which is the speed every other command gets.

--off-path checks that speed: each assignor with explanations off against the same package with its
explanation hooks compiled out (bench/off_path.py), on the same input, in the same run. Both are loaded
in one process and alternate sample by sample (which one goes first alternating too), so a neighbour's
load falls on both alike; a sample is the CPU time (time.process_time) of enough back-to-back runs to
take ~0.2 s. The figure is the median of the ratios of adjacent samples, with its 95% interval (sign
test); pairs are added until that interval lies on one side of the target or --repeat pairs were taken
(default 80, 8 on shape b, where a sample is one run; at least 6, fewer bound nothing). Verdict: met when the whole interval is at or
below the target, MISSED when it is above; when the interval straddles it (shape b's few multi-second
runs on a busy machine), the ratio of the least times decides, as the least of several alternating runs
is the one a neighbour disturbed least ("met by least time"), else inconclusive. Both sides must give the same
assignment. Shape c (10 topics x 200 partitions, 200 members) is for librdkafka's port, whose
cooperative-sticky took ~20 s on shape a before bench/librdkafka_sticky.py's work (now ~0.02 s: it runs
on shape a too). Target: median ratio <= 1.03.

Java figures: Kafka's own code in a warm JVM on this machine (docs/conformance.md: the oracle
harness), median ms.
Targets: shape b within 1.5x of Java for the sticky family and uniform, range <= 1.0 s, roundrobin
<= 1.3 s, server-range <= 0.3 s, peak memory <= 3 GB; shape a sticky and cooperative-sticky <= 0.1 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path

SHAPES = {"a": (10, 1_000, 1_000), "b": (500, 2_000, 2_000), "c": (10, 200, 200)}
ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range")
STATEFUL = {"sticky", "cooperative-sticky", "uniform"}
JAVA_S = {  # (shape, assignor, round) -> seconds
    ("a", "range", "first"): 0.0070,
    ("a", "roundrobin", "first"): 0.0014,
    ("a", "sticky", "first"): 0.0021,
    ("a", "sticky", "steady"): 0.0050,
    ("a", "cooperative-sticky", "first"): 0.0018,
    ("a", "cooperative-sticky", "steady"): 0.0040,
    ("a", "uniform", "first"): 0.0012,
    ("a", "uniform", "steady"): 0.0012,
    ("a", "server-range", "first"): 0.0008,
    ("b", "range", "first"): 0.981,
    ("b", "roundrobin", "first"): 1.334,
    ("b", "sticky", "first"): 3.834,
    ("b", "sticky", "steady"): 7.627,
    ("b", "cooperative-sticky", "first"): 5.156,
    ("b", "cooperative-sticky", "steady"): 4.595,
    ("b", "uniform", "first"): 1.034,
    ("b", "uniform", "steady"): 0.740,
    ("b", "server-range", "first"): 0.232,
}
FIXED_TARGETS_S = {
    ("b", "range"): 1.0,
    ("b", "roundrobin"): 1.3,
    ("b", "server-range"): 0.3,
    ("a", "sticky"): 0.1,
    ("a", "cooperative-sticky"): 0.1,
}
JAVA_FACTOR = 1.5  # the sticky family and uniform on shape b: within 1.5x of Java
MEMORY_TARGET_MB = 3 * 1024
# kafka-python peers: the same input through kafka-python's assignor of the same name. It has no
# KIP-848 server-side assignors; its sticky assignors are too slow for shape b (minutes).
KAFKA_PYTHON = {"a": {"range", "roundrobin", "sticky", "cooperative-sticky"}, "b": {"range", "roundrobin"}, "c": set()}


def topic_names(shape: str) -> list[str]:
    return [f"t{i:03d}" for i in range(SHAPES[shape][0])]


def build_kgroup(shape: str, model=None):  # type: ignore[no-untyped-def]
    """The shape's cluster and members, in `model` (default kgroup.assignors.model; --off-path passes
    the baseline's own)."""
    if model is None:
        from kgroup.assignors import model
    Cluster, Member, Topic = model.Cluster, model.Member, model.Topic

    _, n_partitions, n_members = SHAPES[shape]
    names = topic_names(shape)
    cluster = Cluster(tuple(Topic(name, n_partitions) for name in names))
    members = [Member(f"c{i:04d}", tuple(names)) for i in range(n_members)]
    if shape == "b":
        members[-1] = Member(members[-1].member_id, (names[0],))
    return cluster, members


def steady_kgroup(members, first):  # type: ignore[no-untyped-def]
    """Everyone but the first member reports its first-round assignment at generation 1."""
    return [
        m if i == 0 else dataclasses.replace(m, owned=first.partitions_of(m.member_id), generation=1)
        for i, m in enumerate(members)
    ]


def build_kafka_python(shape: str):  # type: ignore[no-untyped-def]
    _, n_partitions, n_members = SHAPES[shape]
    names = topic_names(shape)
    partitions = set(range(n_partitions))

    class ClusterStub:
        """kafka-python's assignors call ClusterMetadata.topics and partitions_for_topic only."""

        def topics(self) -> set[str]:
            return set(names)

        def partitions_for_topic(self, topic: str) -> set[int] | None:
            return partitions if topic in names else None

    members = [_kp_member(f"c{i:04d}", names) for i in range(n_members)]
    if shape == "b":
        members[-1] = _kp_member(members[-1].member_id, [names[0]])
    return ClusterStub(), members


Metadata = namedtuple("Metadata", "topics user_data owned_partitions generation_id")
GroupMember = namedtuple("GroupMember", "member_id group_instance_id metadata")


def _kp_member(member_id: str, topics: list[str], owned=None, generation: int = -1):  # type: ignore[no-untyped-def]
    from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
    from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription

    by_topic: dict[str, list[int]] = {}
    for tp in owned or ():
        by_topic.setdefault(tp[0], []).append(tp[1])
    user_data = StickyAssignorUserData(list(by_topic.items()), generation) if owned is not None else b""
    sub_tp = ConsumerProtocolSubscription.TopicPartition
    owned_partitions = [sub_tp(topic=t, partitions=sorted(p)) for t, p in by_topic.items()]
    return GroupMember(member_id, None, Metadata(topics, user_data, owned_partitions, generation))


def steady_kafka_python(members, first):  # type: ignore[no-untyped-def]
    out = [members[0]]
    for m in members[1:]:
        owned = [(t, p) for t, parts in first[m.member_id].assigned_partitions for p in parts]
        out.append(_kp_member(m.member_id, m.metadata.topics, owned, 1))
    return out


def _kafka_python_assignor(name: str):  # type: ignore[no-untyped-def]
    from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
    from kafka.coordinator.assignors.range import RangePartitionAssignor
    from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
    from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor

    return {
        "range": RangePartitionAssignor,
        "roundrobin": RoundRobinPartitionAssignor,
        "sticky": StickyPartitionAssignor(),
        "cooperative-sticky": CooperativeStickyAssignor(),
    }[name]


def _best(run, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(repeat):
        result = None
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def measure_one(impl: str, assignor: str, shape: str, repeat: int) -> dict:
    """Runs in a child process: both rounds (where they apply), best of `repeat`, peak memory."""
    report: dict = {}
    try:
        if impl == "kgroup":
            from kgroup.assignors.registry import builtin

            cluster, members = build_kgroup(shape)
            chosen, steady_of = builtin(assignor), steady_kgroup
        else:
            cluster, members = build_kafka_python(shape)
            chosen, steady_of = _kafka_python_assignor(assignor), steady_kafka_python
        assign = chosen.assign
        if impl == "kgroup" and os.environ.get("KGROUP_BENCH_EXPLAIN"):
            from kgroup.assignors.trace import tracing

            def assign(cluster, members):  # type: ignore[no-untyped-def]
                with tracing():
                    return chosen.assign(cluster, members)

        report["first"], first = _best(lambda: assign(cluster, members), repeat)
        if assignor in STATEFUL:
            steady = steady_of(members, first)
            report["steady"], _ = _best(lambda: assign(cluster, steady), repeat)
    except Exception as exc:  # kafka-python fails on some inputs; report it, don't hide it
        report["error"] = f"{type(exc).__name__}: {exc}"[:120]
    report["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return report


def spawn(impl: str, assignor: str, shape: str, repeat: int) -> dict:
    args = [sys.executable, __file__, "--one", impl, assignor, shape, str(repeat)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(done.stdout)


def _target(shape: str, assignor: str, round_: str) -> float | None:
    if (shape, assignor) in FIXED_TARGETS_S:
        return FIXED_TARGETS_S[(shape, assignor)]
    if shape == "b" and assignor in STATEFUL:
        return JAVA_FACTOR * JAVA_S[(shape, assignor, round_)]
    return None


def _seconds(value: float | None, width: int) -> str:
    return f"{value:{width}.3f}" if value is not None else " " * (width - 3) + "n/a"


# --off-path: (shape, assignor, client). librdkafka's port only on shapes it finishes quickly.
OFF_PATH = (
    tuple(("a", name, "java") for name in ASSIGNORS)
    + tuple(("b", name, "java") for name in ASSIGNORS)
    + (
        ("a", "range", "librdkafka"),
        ("a", "roundrobin", "librdkafka"),
        ("a", "cooperative-sticky", "librdkafka"),
        ("c", "range", "librdkafka"),
        ("c", "roundrobin", "librdkafka"),
        ("c", "cooperative-sticky", "librdkafka"),
        ("a", "legacy-range", "java"),
        ("a", "legacy-roundrobin", "java"),
    )
)
OFF_PATH_TARGET = 1.03
STATEFUL_LIBRDKAFKA = {"cooperative-sticky"}


def median_interval(ratios: list[float]) -> tuple[float, float, float]:
    """The median and its 95% confidence interval from order statistics (the sign test's exact binomial),
    which assumes nothing about how the noise is distributed; below 6 samples the interval is unbounded."""
    import math
    import statistics

    ordered, n = sorted(ratios), len(ratios)
    # The largest j with P(Binomial(n, 1/2) < j) <= 2.5%: the interval is the j-th smallest to the j-th largest.
    j, below = 0, 0.0
    while j < n and below + math.comb(n, j) / 2**n <= 0.025:
        below += math.comb(n, j) / 2**n
        j += 1
    if j == 0:
        return statistics.median(ordered), -math.inf, math.inf
    return statistics.median(ordered), ordered[j - 1], ordered[n - j]


def measure_cpu(assignor: str, client: str, shape: str, most: int, baseline: str) -> dict:
    """In a child process: the assignor with its hooks (explanations off) and without them, alternating
    sample by sample (which goes first alternating too). A sample is the CPU time of k back-to-back runs,
    k chosen so a sample takes about 0.2 s. Pairs of samples are added in batches until the confidence
    interval of the median ratio lies on one side of the target, or `most` pairs were taken. Per round:
    each side's least sample, every pair's ratio, and whether both sides gave the same assignment."""
    import importlib

    sys.path.insert(0, baseline)
    sides = {}
    for side, package in (("current", "kgroup"), ("baseline", "kgroup_baseline")):
        registry = importlib.import_module(f"{package}.assignors.registry")
        model = importlib.import_module(f"{package}.assignors.model")
        chosen = registry.builtin(assignor, client)
        assert chosen is not None
        sides[side] = (chosen, build_kgroup(shape, model))
    assert type(sides["baseline"][0]).__module__.startswith("kgroup_baseline."), type(sides["baseline"][0])
    stateful = assignor in (STATEFUL if client == "java" else STATEFUL_LIBRDKAFKA)
    report: dict = {"same": True}
    last: dict = {}
    for round_ in ("first", "steady") if stateful else ("first",):
        given = {
            side: (cluster, members if round_ == "first" else steady_kgroup(members, last[side]))
            for side, (_, (cluster, members)) in sides.items()
        }

        def sample(side: str, k: int) -> float:
            cluster, members = given[side]
            start = time.process_time()
            for _ in range(k):
                last[side] = None  # the previous result is freed before the next run, as in _best
                last[side] = sides[side][0].assign(cluster, members)
            return (time.process_time() - start) / k

        warm = max(sample("current", 1), sample("baseline", 1))  # also warms both sides' caches
        k = max(1, min(50, round(0.2 / max(warm, 1e-6))))
        batch = 2 if warm > 0.5 else 10
        times: dict[str, list[float]] = {"current": [], "baseline": []}
        while len(times["current"]) < most:
            for i in range(batch):
                for side in ("current", "baseline") if i % 2 == 0 else ("baseline", "current"):
                    times[side].append(sample(side, k))
            _, low, high = median_interval([a / b for a, b in zip(times["current"], times["baseline"])])
            if high <= OFF_PATH_TARGET or low > OFF_PATH_TARGET:
                break
        owners = [{m: [str(tp) for tp in parts] for m, parts in last[side].owners.items()} for side in sides]
        report["same"] = report["same"] and owners[0] == owners[1]
        report[round_] = {
            "current": min(times["current"]),
            "baseline": min(times["baseline"]),
            "k": k,
            "pairs": [a / b for a, b in zip(times["current"], times["baseline"])],
        }
    return report


def off_path(checks: list[tuple[str, str, str]], most: int) -> None:
    import tempfile

    from off_path import write_baseline

    with tempfile.TemporaryDirectory(prefix="kgroup-off-path-") as baseline:
        hooks = write_baseline(Path(baseline))
        print(
            f"baseline: kgroup.assignors with its {hooks} explanation hooks compiled out, in the same process; "
            f"alternating CPU-time samples, up to {most} pairs ({min(most, 8)} on shape b)"
        )
        print(
            f"{'shape':5} {'assignor':18} {'client':10} {'round':6} {'hooks s':>9} {'no hooks s':>10} "
            f"{'min':>6} {'median':>6} {'95% interval':>12} {'pairs':>5}  target: median <= {OFF_PATH_TARGET}"
        )
        for shape, assignor, client in checks:
            runs = min(most, 8) if shape == "b" else most
            args = [sys.executable, __file__, "--cpu-one", assignor, client, shape, str(runs), baseline]
            done = subprocess.run(args, capture_output=True, text=True, timeout=3600)
            if done.returncode != 0:
                print(f"{shape:5} {assignor:18} {client:10} failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
                continue
            report = json.loads(done.stdout)
            for round_ in ("first", "steady"):
                if round_ not in report:
                    continue
                got = report[round_]
                ours, theirs, pairs = got["current"], got["baseline"], got["pairs"]
                median, low, high = median_interval(pairs)
                verdict = (
                    "met"
                    if high <= OFF_PATH_TARGET
                    else "MISSED"
                    if low > OFF_PATH_TARGET
                    else "met by least time (median interval wide)"
                    if ours / theirs <= OFF_PATH_TARGET
                    else "inconclusive (noise)"
                )
                if not report["same"]:
                    verdict = "DIFFERENT ASSIGNMENTS"
                print(
                    f"{shape:5} {assignor:18} {client:10} {round_:6} {ours:9.4f} {theirs:10.4f} {ours / theirs:6.3f} "
                    f"{median:6.3f} {low:5.3f}-{high:<6.3f} {len(pairs):5}  {verdict}"
                )
                sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="a,b")
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="runs per measurement (default 3; --off-path: most sample pairs, default 80, 8 on shape b)",
    )
    parser.add_argument("--assignors", default=",".join(ASSIGNORS))
    parser.add_argument("--explain", action="store_true", help="record explanations (kgroup only)")
    parser.add_argument(
        "--off-path", action="store_true", help="explanations off against the assignors without explanation hooks"
    )
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--cpu-one", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cpu_one:
        assignor, client, shape, repeat, baseline = args.cpu_one
        print(json.dumps(measure_cpu(assignor, client, shape, int(repeat), baseline)))
        return
    if args.off_path:
        shapes = args.shapes.split(",") if args.shapes != "a,b" else ["a", "b", "c"]
        wanted = None if args.assignors == ",".join(ASSIGNORS) else set(args.assignors.split(","))
        checks = [
            (shape, name, client)
            for shape, name, client in OFF_PATH
            if shape in shapes and (wanted is None or name in wanted or f"{name}@{client}" in wanted)
        ]
        off_path(checks, args.repeat or 80)
        return
    if args.explain:
        os.environ["KGROUP_BENCH_EXPLAIN"] = "1"  # the child processes inherit it
    if args.one:
        impl, assignor, shape, repeat = args.one
        print(json.dumps(measure_one(impl, assignor, shape, int(repeat))))
        return

    print(
        f"{'shape':5} {'assignor':18} {'round':6} {'kgroup s':>9} {'peak MB':>8} {'kafka-python s':>15} "
        f"{'speed-up':>8} {'Java s':>8} {'vs Java':>8}  target"
    )
    for shape in args.shapes.split(","):
        for assignor in args.assignors.split(","):
            repeat = 1 if shape == "b" else (args.repeat or 3)
            ours = spawn("kgroup", assignor, shape, repeat)
            theirs = spawn("kafka-python", assignor, shape, 1) if assignor in KAFKA_PYTHON[shape] else {}
            for round_ in ("first", "steady"):
                if round_ == "steady" and assignor not in STATEFUL:
                    continue
                our_s, their_s = ours.get(round_), theirs.get(round_)
                java_s = JAVA_S.get((shape, assignor, round_))
                speedup = f"{their_s / our_s:7.1f}x" if our_s and their_s else "     n/a"
                vs_java = f"{our_s / java_s:7.2f}x" if our_s and java_s else "     n/a"
                notes = []
                target = _target(shape, assignor, round_)
                if target is not None and our_s is not None:
                    notes.append(f"<= {target:.3g} s {'met' if our_s <= target else 'MISSED'}")
                if "peak_mb" in ours and ours["peak_mb"] > MEMORY_TARGET_MB:
                    notes.append("memory <= 3 GB MISSED")
                if "error" in ours:
                    notes.append(f"kgroup failed: {ours['error']}")
                if "error" in theirs:
                    notes.append(f"kafka-python failed: {theirs['error']}")
                elif assignor not in KAFKA_PYTHON[shape]:
                    notes.append("no kafka-python run")
                peak = f"{ours['peak_mb']:8.0f}" if "peak_mb" in ours else "     n/a"
                print(
                    f"{shape:5} {assignor:18} {round_:6} {_seconds(our_s, 9)} {peak} {_seconds(their_s, 15)} "
                    f"{speedup} {_seconds(java_s, 8)} {vs_java}  {'; '.join(notes)}"
                )
                sys.stdout.flush()


if __name__ == "__main__":
    main()
