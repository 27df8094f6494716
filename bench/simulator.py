"""Simulator benchmark (not a test): the classic coordinator and its clients over one simulated hour.

Shape: 1,000 members, 100 topics x 1,000 partitions (100,000), heartbeats every 3 s, range (eager).
Timeline: minutes 5-30 a rolling restart of dynamic members: each closes (LeaveGroup) and is back 5 s
later with group.instance.id set, which is how a deployment switches to static membership; minutes 30-55
a rolling restart of those static members: each closes without LeaveGroup and is back 5 s later, within
its session timeout, so the coordinator replaces it without a rebalance.
Reference, measured in the same run: the same hour with no restarts (heartbeats only, nothing changes),
so the ratio shows what the restarts cost on top of keeping 1,000 sessions alive.
With --baseline PATH (a checkout of kgroup, e.g. `git worktree add /tmp/base <commit>`), the restart
hour also runs on that checkout's code, and the bench prints both, the ratio, and whether the two runs
gave the same result: a sha256 of a canonical JSON of the result (the rebalances, the event log, every
consumption segment, the final assignment, the unconsumed partition-ms), streamed into the hash.
Targets: each restart run under 10 s of cpu, peak memory under 500 MB.
The log keeps lifecycle events and group states, not each request (detailed_log=False).
Each run is a separate process, so peak memory (ru_maxrss) is its own; cpu is the process's user + system
time, steadier than wall time on a shared machine.

With --rounds N the restart hour runs N times (alternating with the baseline's, if any), and the verdicts and
the ratio use the median cpu: on a shared machine one run's cpu can be 20% off either way.

Usage: python bench/simulator.py [--members N] [--topics N] [--partitions N] [--protocol P] [--baseline PATH]
       [--rounds N]
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

HOUR = 3_600_000


def run(members: int, topics: int, partitions: int, restarts: bool) -> dict:
    from kgroup.assignors.coordinator.classic.client import ClientConfig
    from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation
    from kgroup.assignors.model import Cluster, Member, Topic
    from kgroup.assignors.client.range import RangeAssignor
    from kgroup.assignors.registry import builtin

    names = [f"t{i:03}" for i in range(topics)]
    cluster = Cluster(tuple(Topic(n, partitions) for n in names))
    sim = ClassicSimulation(cluster, builtin, group_id="bench", detailed_log=False)
    handles = [f"c{i:04}" for i in range(members)]
    dynamic = ClientConfig(assignors=("range",))
    for handle in handles:
        sim.add_client(handle, dynamic, names)
    first = RangeAssignor().assign(cluster, [Member(h, tuple(names)) for h in handles])
    owned = {h: first.partitions_of(h) for h in handles}
    phases = {h: i * 3000 // members for i, h in enumerate(handles)}
    started, cpu = time.perf_counter(), time.process_time()
    sim.load(1, "range", handles[0], owned, heartbeat_phase=phases)
    if restarts:
        span = 25 * 60_000 // members
        for i, handle in enumerate(handles):
            sim.at(5 * 60_000 + i * span, _restart, sim, handle, f"static-{handle}")
        for i, handle in enumerate(handles):
            sim.at(30 * 60_000 + i * span, _restart, sim, handle, f"static-{handle}")
    sim.run_until(HOUR)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    result = {
        "wall_s": wall,
        "cpu_s": cpu,
        "events": sim.events_processed,
        "rebalances": len(sim.rebalances),
        "unconsumed_partition_s": sim.unconsumed_ms() / 1000,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    result["digest"] = classic_digest(sim)  # after the peak is read: hashing is not the simulator's memory
    return result


def run_consumer(members: int, topics: int, partitions: int, restarts: bool) -> dict:
    """The same hour under the KIP-848 consumer protocol: uniform on the coordinator, 5 s heartbeats."""
    from kgroup.assignors.coordinator.classic.client import ClientConfig
    from kgroup.assignors.coordinator.consumer.simulation import ConsumerSimulation
    from kgroup.assignors.model import Cluster, Member, Topic
    from kgroup.assignors.registry import builtin

    names = [f"t{i:03}" for i in range(topics)]
    sim = ConsumerSimulation.create({n: partitions for n in names}, group_id="bench")
    handles = [f"c{i:04}" for i in range(members)]
    for handle in handles:
        sim.add_client(handle, ClientConfig(), names)
    uniform = builtin("uniform")
    assert uniform is not None
    first = uniform.assign(
        Cluster(tuple(Topic(n, partitions) for n in names)), [Member(h, tuple(names)) for h in handles]
    )
    interval = sim.coordinator.config.heartbeat_interval_ms
    started, cpu = time.perf_counter(), time.process_time()
    sim.load(
        1,
        {h: first.partitions_of(h) for h in handles},
        heartbeat_phase={h: i * interval // members for i, h in enumerate(handles)},
    )
    if restarts:
        span = 25 * 60_000 // members
        for minute in (5, 30):
            for i, handle in enumerate(handles):
                sim.at(minute * 60_000 + i * span, _restart, sim, handle, f"static-{handle}")
    sim.run_until(HOUR)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    result = {
        "wall_s": wall,
        "cpu_s": cpu,
        "events": sim.coordinator.timers.fired,
        "rebalances": len(sim.bumps),
        "unconsumed_partition_s": sim.unconsumed_ms() / 1000,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    result["digest"] = consumer_digest(sim)
    return result


class _Digest:
    """sha256 over a canonical JSON of a run's result, fed piece by piece (never one 100 MB string).

    Partitions are written as their index in the cluster's order (topic, then partition number), and a
    consumption segment's partitions as those indices sorted, in binary: an eager hour closes about 500,000
    segments of 100 partitions each. Segments with the same owner, start and end are merged first, so how
    the ledger splits its blocks internally does not change the digest; what is consumed by whom when does.
    """

    def __init__(self, created) -> None:  # type: ignore[no-untyped-def]
        self.hash = hashlib.sha256()
        self.index = {tp: i for i, tp in enumerate(created)}

    def json(self, value) -> None:  # type: ignore[no-untyped-def]
        self.hash.update(json.dumps(value, sort_keys=True, default=str, separators=(",", ":")).encode())
        self.hash.update(b"\n")

    def parts(self, partitions, ordered: bool = True) -> list[int]:  # type: ignore[no-untyped-def]
        indices = [self.index[tp] for tp in partitions]
        return indices if ordered else sorted(indices)

    def segments(self, segments) -> None:  # type: ignore[no-untyped-def]
        from array import array

        merged: dict[tuple, list[int]] = {}
        for owner, partitions, start, end in segments:
            merged.setdefault((owner, start, -1 if end is None else end), []).extend(
                map(self.index.__getitem__, partitions)
            )
        self.json(["segments", len(merged)])
        for key in sorted(merged):
            indices = sorted(merged[key])
            self.json([*key, len(indices)])
            self.hash.update(array("q", indices).tobytes())

    def hexdigest(self) -> str:
        return self.hash.hexdigest()


def classic_digest(sim) -> str:  # type: ignore[no-untyped-def]
    digest = _Digest(sim.created)
    digest.json(["now", sim.now, "unconsumed_ms", sim.unconsumed_ms()])
    for r in sim.rebalances:
        digest.json(
            [
                r.index,
                r.start,
                r.trigger,
                list(r.members_before),
                r.end,
                r.outcome,
                r.generation,
                r.leader,
                r.assignor,
                list(r.members_after),
                {
                    kind: {m: digest.parts(p) for m, p in getattr(r, kind).items()}
                    for kind in ("revoked", "lost", "assigned")
                },
            ]
        )
    digest.json(["log", len(sim.log)])
    for entry in sim.log:
        digest.json([entry.at_ms, entry.kind, entry.member, dict(entry.detail)])
    digest.segments(sim.ledger.segments())
    for handle, owned in sorted(sim.assignment().items()):
        digest.json([handle, digest.parts(owned)])
    for handle, client in sorted(sim.clients.items()):
        digest.json(
            [handle, client.member_id, client.generation, client.state, client.alive, client.config.instance_id]
        )
    return digest.hexdigest()


def consumer_digest(sim) -> str:  # type: ignore[no-untyped-def]
    digest = _Digest(sim.created)
    digest.json(["now", sim.now, "unconsumed_ms", sim.unconsumed_ms()])
    digest.json([[b.at_ms, b.group_epoch] for b in sim.bumps])
    digest.json(sim.stable_at)
    digest.segments(sim.ledger.segments())
    for handle, client in sorted(sim.clients.items()):
        digest.json(
            [
                handle,
                client.member_id,
                client.epoch,
                client.alive,
                client.in_group,
                digest.parts(client.held, ordered=False),
            ]
        )
    group = sim.coordinator.groups[sim.group_id]
    digest.json([group.group_epoch, group.assignment_epoch, group.state])
    for member_id, member in group.members.items():
        progress = member.progress
        digest.json(
            [
                member_id,
                progress.epoch,
                progress.previous_epoch,
                progress.state,
                digest.parts(progress.assigned, ordered=False),
                digest.parts(progress.pending_revocation, ordered=False),
                digest.parts(group.target.get(member_id, ()), ordered=False),
            ]
        )
    return digest.hexdigest()


class _Checkout(importlib.abc.MetaPathFinder):
    """Imports kgroup's packages from another checkout: pyproject.toml maps kgroup.<name> to the top-level
    folder <name>, which an editable install resolves to this tree; this finder, first on sys.meta_path,
    resolves them to the checkout's folders instead (their subpackages follow through __path__)."""

    def __init__(self, root: Path) -> None:
        self.folders = {f"kgroup.{name}": root / name for name in ("assignors", "inspectors", "cli", "fixtures")}

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        folder = self.folders.get(fullname)
        if folder is not None:
            return importlib.util.spec_from_file_location(
                fullname, folder / "__init__.py", submodule_search_locations=[str(folder)]
            )
        parent, _, _ = fullname.rpartition(".")
        if parent in self.folders:
            return importlib.machinery.PathFinder.find_spec(fullname, [str(self.folders[parent])])
        return None


def _restart(sim, handle: str, instance_id: str) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    client = sim.clients[handle]
    if client.alive:
        sim.close(client)
    if client.config.instance_id is None:
        client.config = replace(client.config, instance_id=instance_id)
    sim.at(sim.now + 5000, sim.start, client)


def _median_run(runs: list[dict], protocol: str, code: str) -> dict:
    """The run of median cpu (the lower middle of an even count); with several, says their spread."""
    ordered = sorted(runs, key=lambda r: r["cpu_s"])
    middle = ordered[(len(ordered) - 1) // 2]
    if len(runs) > 1:
        cpus = "  ".join(f"{r['cpu_s']:.2f}" for r in runs)
        print(f"{protocol:8} restarts {code:8} cpu over {len(runs)} rounds: {cpus} s; median {middle['cpu_s']:.2f} s")
    return middle


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--protocol", choices=["classic", "consumer", "both"], default="both")
    parser.add_argument("--baseline", type=Path, help="a checkout of kgroup whose code runs the same restart hour")
    parser.add_argument("--no-idle", action="store_true", help="skip the heartbeats-only hour")
    parser.add_argument("--rounds", type=int, default=1, help="restart hours per checkout, judged by their median")
    parser.add_argument("--child", choices=["idle", "restarts"])
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)  # child: import kgroup from this checkout
    args = parser.parse_args()
    if args.child:
        if args.code is not None:
            sys.meta_path.insert(0, _Checkout(args.code.resolve()))
        import kgroup.assignors

        runner = run if args.protocol == "classic" else run_consumer
        result = runner(args.members, args.topics, args.partitions, args.child == "restarts")
        result["code"] = str(Path(kgroup.assignors.__file__).parent.parent)
        print(json.dumps(result))
        return
    print(f"shape: {args.members} members, {args.topics} x {args.partitions} partitions, 1 simulated hour")
    runs = [("idle", "current", None)] if not args.no_idle else []
    for _ in range(max(1, args.rounds)):
        runs.append(("restarts", "current", None))
        if args.baseline is not None:
            runs.append(("restarts", "baseline", args.baseline.resolve()))
    for protocol in ["classic", "consumer"] if args.protocol == "both" else [args.protocol]:
        results: dict[tuple[str, str], list[dict]] = {}
        for kind, code, path in runs:
            command = [
                sys.executable,
                __file__,
                "--child",
                kind,
                "--protocol",
                protocol,
                "--members",
                str(args.members),
                "--topics",
                str(args.topics),
                "--partitions",
                str(args.partitions),
            ]
            out = subprocess.run(
                command + (["--code", str(path)] if path else []), capture_output=True, text=True, check=True
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            results.setdefault((kind, code), []).append(r)
            print(
                f"{protocol:8} {kind:8} {code:8} wall {r['wall_s']:6.2f} s  cpu {r['cpu_s']:6.2f} s  "
                f"events {r['events']:>8}  rebalances {r['rebalances']:>4}  peak {r['peak_mb']:5.0f} MB  "
                f"unconsumed {r['unconsumed_partition_s']:.0f} partition-s  sha256 {r['digest'][:16]}  "
                f"({r['code']})",
                flush=True,
            )
        full = _median_run(results["restarts", "current"], protocol, "current")
        if ("idle", "current") in results:
            idle = results["idle", "current"][0]
            print(f"{protocol:8} restarts / heartbeats only, wall: {full['wall_s'] / idle['wall_s']:.2f}x")
        if ("restarts", "baseline") in results:
            base = _median_run(results["restarts", "baseline"], protocol, "baseline")
            keys = ("digest", "events", "rebalances", "unconsumed_partition_s")
            every = results["restarts", "current"] + results["restarts", "baseline"]
            same = all(r[k] == full[k] for r in every for k in keys)
            print(
                f"{protocol:8} restarts, baseline / current: wall {base['wall_s'] / full['wall_s']:.2f}x  "
                f"cpu {base['cpu_s'] / full['cpu_s']:.2f}x  peak {base['peak_mb'] / full['peak_mb']:.2f}x  "
                f"same result: {'yes' if same else 'NO'}"
            )
        print(
            f"{protocol:8} target: restarts run under 10 s of cpu: {'met' if full['cpu_s'] < 10 else 'NOT met'}; "
            f"peak under 500 MB: {'met' if full['peak_mb'] < 500 else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
