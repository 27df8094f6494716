"""librdkafka's cooperative-sticky port against kgroup's Java cooperative-sticky port (not a test).

One run times, on bench/assignors.py's shapes (default a: 10 topics x 1,000 partitions, 1,000 members,
everyone subscribed to everything), the first round (nothing owned) and the steady round (c0001..
report their first-round assignment at generation 1, c0000 reports nothing), each side in its own
process so its peak memory (ru_maxrss) is its own. Times are CPU time (time.process_time), least of
--repeat runs, so a neighbour's load on a shared machine stays out of the figures as far as it can:

  java        kgroup's port of Kafka's CooperativeStickyAssignor (assignors/client/sticky/)
  librdkafka  kgroup's port of librdkafka's cooperative-sticky (assignors/client/librdkafka/)
  base        the same librdkafka port at a baseline commit (--baseline DIR: a checkout of the repo, e.g.
              `git worktree add DIR <commit>`), for the before/after figures and the equality check

It prints the ratio librdkafka/java (target: <= 2) and the 300 MB check, and compares the digest of the
port's assignment (both rounds) with the baseline's: the same assignment, or the run says DIFFERENT.

--random N (with --baseline) checks the same on N random groups instead, each side in its own process:
small groups with mixed subscriptions, static members, racks, owned partitions (some of missing topics,
some claimed twice, at equal or different generations), a member id joined twice now and then. Per group
it compares the cooperative rounds (assign_rounds, follow-ups included), the assignor's own output, a
LibrdkafkaCrash where the port models one, and every recorded explanation step (run under tracing).

Usage: python bench/librdkafka_sticky.py [--shapes a] [--repeat N] [--baseline DIR [--baseline-repeat N]]
       python bench/librdkafka_sticky.py --random N --baseline DIR [--seed S]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from assignors import SHAPES, build_kgroup, steady_kgroup  # bench/assignors.py

TIME_FACTOR = 2.0  # librdkafka's port within 2x of the Java port's time
MEMORY_TARGET_MB = 300


class _BaselineAssignors(importlib.abc.MetaPathFinder):
    """Imports `kgroup.assignors` from another checkout: first on sys.meta_path, ahead of the editable
    install's finder."""

    def __init__(self, root: Path) -> None:
        self.package = root / "assignors"

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname == "kgroup.assignors":
            return importlib.util.spec_from_file_location(
                fullname, self.package / "__init__.py", submodule_search_locations=[str(self.package)]
            )
        if fullname.startswith("kgroup.assignors."):
            return importlib.machinery.PathFinder.find_spec(fullname, path)
        return None


def digest(assignment) -> str:  # type: ignore[no-untyped-def]
    text = json.dumps({m: sorted(str(tp) for tp in parts) for m, parts in sorted(assignment.owners.items())})
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def measure(side: str, shape: str, repeat: int, baseline: str | None) -> dict:
    """In a child process: both rounds, least of `repeat` runs each, the digests, peak memory."""
    if side == "base":
        assert baseline is not None
        sys.meta_path.insert(0, _BaselineAssignors(Path(baseline)))
    from kgroup.assignors.registry import builtin

    chosen = builtin("cooperative-sticky", "java" if side == "java" else "librdkafka")
    assert chosen is not None
    if side == "base":
        assert str(Path(sys.modules[type(chosen).__module__].__file__ or "")).startswith(str(Path(baseline or "")))
    cluster, members = build_kgroup(shape)
    report: dict = {}
    first = None
    for round_ in ("first", "steady"):
        given = members if first is None else steady_kgroup(members, first)
        times = []
        result = None
        for _ in range(repeat):
            result = None  # the previous result is freed before the next run
            start = time.process_time()
            result = chosen.assign(cluster, given)
            times.append(time.process_time() - start)
        report[round_] = min(times)
        report[f"{round_}_digest"] = digest(result)
        if first is None:
            first = result
    report["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return report


def random_group(rng):  # type: ignore[no-untyped-def]
    """A small random group and cluster (kgroup.assignors.model), as varied as the port's inputs get."""
    from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition

    racks = ("r0", "r1", "r2")
    rack_aware = rng.random() < 0.3
    topics = []
    for i in range(rng.randint(1, 4)):
        count = rng.randint(0, 8)
        replicas = tuple(frozenset(rng.sample(racks, rng.randint(1, 2))) for _ in range(count)) if rack_aware else ()
        topics.append(Topic(f"t{i}", count, replicas))
    names = [t.name for t in topics] + ["gone"]  # "gone": subscribed or owned, but not in the metadata
    every = [TopicPartition(t.name, p) for t in topics for p in range(t.partitions + 1)] + [TopicPartition("gone", 0)]
    members = []
    ids = [f"m{i}" for i in range(rng.randint(1, 10))]
    if len(ids) > 2 and rng.random() < 0.05:
        ids.append(ids[0])  # one member id twice in the JoinGroup response
    rng.shuffle(ids)
    identical = rng.random() < 0.4  # librdkafka's identical-subscriptions path
    for member_id in ids:
        subscribed = (
            tuple(names[:-1])
            if identical or rng.random() < 0.5
            else tuple(rng.sample(names, rng.randint(1, len(names))))
        )
        owned = tuple(rng.sample(every, rng.randint(0, min(len(every), 6)))) if rng.random() < 0.7 else ()
        members.append(
            Member(
                member_id,
                subscribed,
                instance_id=f"i{member_id}" if rng.random() < 0.3 else None,
                rack=rng.choice(racks) if rack_aware and rng.random() < 0.8 else None,
                owned=owned,
                generation=rng.choice((None, 1, 2, 3)) if owned else None,
            )
        )
    return Cluster(tuple(topics)), members


def random_digests(count: int, seed: int, baseline: str | None) -> list[str]:
    """In a child process: per random group, a digest of everything the port returns and records."""
    import random

    if baseline:
        sys.meta_path.insert(0, _BaselineAssignors(Path(baseline)))
    from kgroup.assignors.client.librdkafka.errors import LibrdkafkaCrash
    from kgroup.assignors.registry import builtin
    from kgroup.assignors.trace import tracing

    chosen = builtin("cooperative-sticky", "librdkafka")
    out = []
    for i in range(count):
        cluster, members = random_group(random.Random(seed * 1_000_003 + i))
        seen = []
        for traced in (False, True):
            try:
                if traced:
                    with tracing() as trace:
                        rounds = chosen.assign_rounds(cluster, members)  # type: ignore[attr-defined]
                    seen.append(
                        repr(
                            [(str(s.partition), s.owner, s.rule, sorted(s.facts.items()), s.round) for s in trace.steps]
                        )
                    )
                    seen.append(repr(sorted(trace.context.items())))
                else:
                    rounds = chosen.assign_rounds(cluster, members)  # type: ignore[attr-defined]
                    seen.append(repr(chosen.assignor_output(cluster, members).owners))  # type: ignore[attr-defined]
                seen.append(
                    repr(
                        [
                            (dict(r.assignment.owners), sorted(map(str, r.withheld.items())), r.generation)
                            for r in rounds.rounds
                        ]
                    )
                    + repr(rounds.settled)
                )
            except LibrdkafkaCrash as crash:
                seen.append(f"crash: {crash}")
        out.append(hashlib.sha256("\n".join(seen).encode()).hexdigest()[:16])
    return out


def spawn(side: str, shape: str, repeat: int, baseline: str | None) -> dict:
    args = [sys.executable, __file__, "--one", side, shape, str(repeat), baseline or ""]
    done = subprocess.run(args, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:160]}
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="a")
    parser.add_argument("--repeat", type=int, default=3, help="runs per round, the least is reported")
    parser.add_argument("--baseline", help="a checkout of the repo at the baseline commit")
    parser.add_argument("--baseline-repeat", type=int, default=1, help="runs per round of the baseline (slow)")
    parser.add_argument("--random", type=int, help="compare with --baseline on this many random groups")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--random-one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.random_one:
        count, seed, baseline = args.random_one
        print(json.dumps(random_digests(int(count), int(seed), baseline or None)))
        return
    if args.random:
        if not args.baseline:
            parser.error("--random needs --baseline")
        digests = []
        for baseline in ("", args.baseline):
            done = subprocess.run(
                [sys.executable, __file__, "--random-one", str(args.random), str(args.seed), baseline],
                capture_output=True,
                text=True,
                timeout=3600,
            )
            if done.returncode != 0:
                print(f"failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
                return
            digests.append(json.loads(done.stdout))
        differ = [i for i, (a, b) in enumerate(zip(*digests)) if a != b]
        print(
            f"{args.random} random groups (seed {args.seed}): {args.random - len(differ)} the same as the baseline, "
            f"{len(differ)} DIFFERENT{': ' + str(differ[:20]) if differ else ''}"
        )
        return
    if args.one:
        side, shape, repeat, baseline = args.one
        print(json.dumps(measure(side, shape, int(repeat), baseline or None)))
        return
    sides = ("java", "librdkafka") + (("base",) if args.baseline else ())
    for shape in args.shapes.split(","):
        topics, partitions, members = SHAPES[shape]
        print(
            f"shape {shape}: {topics} topics x {partitions} partitions, {members} members; least of {args.repeat} "
            f"runs per round ({args.baseline_repeat} for the baseline), CPU time; each side in its own process"
        )
        got = {
            side: spawn(side, shape, args.baseline_repeat if side == "base" else args.repeat, args.baseline)
            for side in sides
        }
        for side in sides:
            if "error" in got[side]:
                print(f"  {side}: failed: {got[side]['error']}")
        print(
            f"  {'round':6} {'java s':>8} {'librdkafka s':>12} {'ratio':>6} {'baseline s':>10} {'speed-up':>8}  "
            f"target: ratio <= {TIME_FACTOR:g}"
        )
        for round_ in ("first", "steady"):
            java, ours, base = (got.get(side, {}).get(round_) for side in ("java", "librdkafka", "base"))
            if java is None or ours is None:
                continue
            ratio = ours / java
            before = f"{base:10.3f} {base / ours:7.1f}x" if base else f"{'n/a':>10} {'n/a':>8}"
            print(
                f"  {round_:6} {java:8.3f} {ours:12.3f} {ratio:6.2f} {before}  "
                f"{'met' if ratio <= TIME_FACTOR else 'MISSED'}"
            )
        for side in sides:
            if "peak_mb" in got[side]:
                verdict = (
                    f"  (<= {MEMORY_TARGET_MB} MB {'met' if got[side]['peak_mb'] <= MEMORY_TARGET_MB else 'MISSED'})"
                    if side == "librdkafka"
                    else ""
                )
                print(f"  peak memory {side:10} {got[side]['peak_mb']:7.0f} MB{verdict}")
        if args.baseline and "error" not in got["librdkafka"] and "error" not in got["base"]:
            for round_ in ("first", "steady"):
                ours, theirs = got["librdkafka"][f"{round_}_digest"], got["base"][f"{round_}_digest"]
                print(
                    f"  {round_} assignment digest: port {ours}, baseline {theirs}: "
                    f"{'same' if ours == theirs else 'DIFFERENT'}"
                )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
