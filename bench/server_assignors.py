"""KIP-848 server assignors against Kafka's own classes (not a test): kgroup's `uniform` and `server-range`
and Kafka's `UniformAssignor` / `RangeAssignor` of the pinned release, timed in one run on the same input.

Shape: Kafka's scale test (bench/assignors.py shape b): 500 topics t000..t499 x 2,000 partitions, 2,000
members c0000..c1999, all on every topic except c1999, on t000 only (so the group is heterogeneous, and
both sides run the heterogeneous uniform builder). Rounds, as bench/assignors.py defines them: "first" with
nothing owned; "steady" (uniform only: server range ignores the current assignment) where every member but
c0000 reports its first-round assignment. Each side's steady input comes from its own first round, so
the two inputs are the same exactly when the first rounds agree, which the digests check.

Java: bench/java/ServerAssignorsBench.java, compiled against the pinned release's jars (tests/kafka/jars.py,
as the oracle does), in one long-lived JVM that builds the GroupSpec as the coordinator does (with the
topic ids kgroup derives, so ties break alike) and times only `assign`. It is warmed first (--warmup
runs of each measurement). Then Java and Python runs are *interleaved*, in a new order each time, so that a
neighbour's load on this shared 2-core machine falls on both sides alike instead of on whichever ran
second; each figure is the median of --repeat runs (wall time), and the ratio is kgroup's median over
Java's (the verdict's); "least" is the ratio of the two sides' least times, the runs a neighbour disturbed
least, which moves less from run to run on a busy machine. Both sides' assignments are compared by a
SHA-256 digest of "member:topic-partition,..." lines. The JVM runs the broker's collector (G1, the
default) on a fixed 4 GB heap, so it is not short of memory.

Target: kgroup <= 0.8x Kafka's time for uniform (first and steady) and server-range.

kgroup's steady input is its own first round's tuples, as a coordinator passes back the target it
built, so `uniform` recognises them (group_spec.BUILT_TARGETS) and reuses the unchanged members' tuples.
--cold gives kgroup equal but fresh tuples in each steady run (copied outside the timing), as from a
fixture or another process: then it checks every member's tuple instead (Java's input is unchanged).

--before REF adds kgroup's assignors as they were at git commit REF (read with `git archive`, loaded as
the package `kgroup_before` beside the working tree's), interleaved with the other two, so a change is
measured against its own past in the same run.

Usage: python bench/server_assignors.py [--repeat N] [--warmup N] [--assignors uniform,server-range] [--before REF]
       [--cold]
Needs java, javac and the pinned Kafka jars (`python -m tests.kafka.jars`).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib
import io
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.kafka.jars: the oracle's way to Kafka's jars

from tests.kafka import jars  # noqa: E402

from kgroup.assignors.model import Cluster, Member  # noqa: E402
from kgroup.assignors.server.group_spec import ServerGroup  # noqa: E402

TOPICS, PARTITIONS, MEMBERS = 500, 2_000, 2_000
TARGET = 0.8
ROUNDS = (("uniform", "first"), ("uniform", "steady"), ("server-range", "first"))
JAVA_SOURCE = Path(__file__).parent / "java" / "ServerAssignorsBench.java"
TIMEOUT_S = 600.0  # one answer; sized for a loaded 2-core machine


def shape(model=None):  # type: ignore[no-untyped-def]
    """Shape b's cluster and members, in `model` (default kgroup's; --before passes the old package's)."""
    if model is None:
        from kgroup.assignors import model
    names = tuple(f"t{i:03d}" for i in range(TOPICS))
    cluster = model.Cluster(tuple(model.Topic(name, PARTITIONS) for name in names))
    members = [model.Member(f"c{i:04d}", names) for i in range(MEMBERS)]
    members[-1] = model.Member(members[-1].member_id, (names[0],))
    return cluster, members


def write_before(ref: str, target: Path) -> str:
    """kgroup's assignors at commit `ref` as the package `kgroup_before` under `target`; its short name."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "assignors"], capture_output=True, timeout=120)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {ref} failed: {archive.stderr.decode(errors='replace').strip()}")
    root = target / "kgroup_before"
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(root, filter="data")
    (root / "__init__.py").write_text("")
    for source in (root / "assignors").rglob("*.py"):  # its imports, and the registry's module names
        source.write_text(source.read_text().replace("kgroup.assignors", "kgroup_before.assignors"))
    sys.path.insert(0, str(target))
    return subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", ref], capture_output=True, text=True, timeout=60
    ).stdout.strip()


def digest(owners) -> str:  # type: ignore[no-untyped-def]
    """SHA-256 over "member:topic-partition,..." lines, members sorted, members with nothing left out."""
    sha = hashlib.sha256()
    for member in sorted(owners):
        parts = sorted(owners[member])
        if parts:
            sha.update(f"{member}:{','.join(f'{t}-{p}' for t, p in parts)}\n".encode())
    return sha.hexdigest()


class Jvm:
    """Kafka's assignors in one JVM; answers "ASSIGNOR ROUND DIGEST" lines with "NANOS DIGEST"."""

    def __init__(self, folder: Path, cluster: Cluster, members: list[Member]) -> None:
        classes = folder / "classes"
        classes.mkdir()
        release = jars.PINNED
        if jars.cached(release) is None:
            raise SystemExit(f"Kafka {release}'s jars are not cached: run `python -m tests.kafka.jars {release}`")
        done = subprocess.run(
            ["javac", "-nowarn", "-d", str(classes), "-cp", jars.classpath(release), str(JAVA_SOURCE)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env=jars.java_env(),
        )
        if done.returncode != 0:
            raise SystemExit(f"javac failed:\n{done.stdout}{done.stderr}")
        group = ServerGroup(cluster, members)
        ids = folder / "topic-ids.txt"
        ids.write_text("".join(f"{t.name} {group.uuid[t.name].text}\n" for t in cluster.topics))
        self.release = release
        self.log = open(folder / "stderr.log", "wb")  # noqa: SIM115 (the JVM writes it until close())
        self.process = subprocess.Popen(
            [
                "java",
                "-Xms4g",
                "-Xmx4g",
                "-cp",
                f"{classes}{os.pathsep}{jars.classpath(release)}",
                "ServerAssignorsBench",
                str(ids),
                str(PARTITIONS),
                str(MEMBERS),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=jars.java_env(),
            text=True,
            start_new_session=True,
        )
        self._expect_line("ready")

    def _expect_line(self, what: str) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the JVM answers or exits (then the line is empty)
        if not line:
            raise SystemExit(f"the JVM gave no {what}: {(Path(self.log.name)).read_text()[-2000:]}")
        return line.strip()

    def run(self, assignor: str, round_: str, want_digest: bool) -> tuple[float, str]:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{assignor} {round_} {int(want_digest)}\n")
        self.process.stdin.flush()
        nanos, sha = self._expect_line("answer").split()
        return int(nanos) / 1e6, sha

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self.log.close()


class Kgroup:
    """kgroup's ports on the same input; the steady round's input from kgroup's own first round."""

    def __init__(self, package: str = "kgroup", cold: bool = False) -> None:
        registry = importlib.import_module(f"{package}.assignors.registry")
        cluster, members = shape(importlib.import_module(f"{package}.assignors.model"))
        self.cluster = cluster
        self.inputs = {"first": members}
        self.assignors = {name: registry.builtin(name) for name in ("uniform", "server-range")}
        first = self.assignors["uniform"].assign(cluster, members)  # type: ignore[union-attr]
        self.inputs["steady"] = [
            m if i == 0 else dataclasses.replace(m, owned=first.partitions_of(m.member_id), generation=1)
            for i, m in enumerate(members)
        ]
        self.last = None
        self.cold = cold

    def run(self, assignor: str, round_: str, want_digest: bool) -> tuple[float, str]:
        chosen, members = self.assignors[assignor], self.inputs[round_]
        self.last = None  # the previous result is freed before the next run
        if self.cold and round_ == "steady":  # equal tuples, but not ones kgroup built
            members = [dataclasses.replace(m, owned=tuple(iter(m.owned))) for m in members]
        start = time.perf_counter()
        self.last = chosen.assign(self.cluster, members)  # type: ignore[union-attr]
        ms = (time.perf_counter() - start) * 1e3
        return ms, digest(self.last.owners) if want_digest else "-"  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="measured runs per side and round (default 5)")
    parser.add_argument("--warmup", type=int, default=4, help="JVM warm-up runs per round (default 4)")
    parser.add_argument("--assignors", default="uniform,server-range")
    parser.add_argument("--before", metavar="REF", help="also time kgroup's assignors at this git commit")
    parser.add_argument("--cold", action="store_true", help="kgroup's steady input: fresh tuples in each run")
    args = parser.parse_args()
    wanted = set(args.assignors.split(","))
    rounds = [(a, r) for a, r in ROUNDS if a in wanted]

    cluster, members = shape()  # for the JVM's topic ids
    folder = Path(tempfile.mkdtemp(prefix="kgroup-server-bench-"))
    jvm = None
    try:
        jvm = Jvm(folder, cluster, members)
        sides: list[Jvm | Kgroup] = [jvm, Kgroup(cold=args.cold)]
        before = write_before(args.before, folder) if args.before else None
        if before:
            sides.append(Kgroup("kgroup_before", cold=args.cold))
        for assignor, round_ in rounds:
            for _ in range(args.warmup):
                jvm.run(assignor, round_, False)
        print(
            f"shape b: {TOPICS} topics x {PARTITIONS} partitions, {MEMBERS} members (c1999 on t000 only); "
            f"Kafka {jvm.release} warm ({args.warmup} warm-up runs) interleaved with kgroup, median of {args.repeat}"
            + ("; kgroup's steady input fresh tuples (--cold)" if args.cold else "")
        )
        print(
            f"{'assignor':13} {'round':6} {'Java ms':>8} {'kgroup ms':>10} {'ratio':>6} {'least':>6}  {'target':14} same"
            + (f"   kgroup@{before} ms  ratio" if before else "")
        )
        for assignor, round_ in rounds:
            times: list[list[float]] = [[] for _ in sides]
            shas = [side.run(assignor, round_, True)[1] for side in sides]
            orders = list(itertools.permutations(range(len(sides))))
            for i in range(args.repeat):
                # Each run in another order, so no side runs more often than another just after the JVM,
                # whose collector may still be busy (a rotation of three sides put one of them there in
                # three runs of five, and the other in one).
                for j in orders[i % len(orders)]:
                    times[j].append(sides[j].run(assignor, round_, False)[0])
            java, kg = statistics.median(times[0]), statistics.median(times[1])
            ratio = kg / java
            verdict = f"<= {TARGET}x {'met' if ratio <= TARGET else 'MISSED'}"
            same = "yes" if len(set(shas)) == 1 else "NO (" + ", ".join(sha[:12] for sha in shas) + ")"
            old = f"   {statistics.median(times[2]):13.1f}  {statistics.median(times[2]) / java:5.2f}" if before else ""
            least = min(times[1]) / min(times[0])  # the runs a neighbour disturbed least
            print(
                f"{assignor:13} {round_:6} {java:8.1f} {kg:10.1f} {ratio:6.2f} {least:6.2f}  {verdict:14} {same:4}{old}"
            )
            sys.stdout.flush()
    finally:
        if jvm is not None:
            jvm.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
