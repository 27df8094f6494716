"""Simulator benchmark (not a test): the classic coordinator and its clients over one simulated hour.

Shape: 1,000 members, 100 topics x 1,000 partitions (100,000), heartbeats every 3 s, range (eager).
Timeline: minutes 5-30 a rolling restart of dynamic members: each closes (LeaveGroup) and is back 5 s
later with group.instance.id set, which is how a deployment switches to static membership; minutes 30-55
a rolling restart of those static members: each closes without LeaveGroup and is back 5 s later, within
its session timeout, so the coordinator replaces it without a rebalance.
Baseline, measured in the same run: the same hour with no restarts (heartbeats only, nothing changes),
so the ratio shows what the restarts cost on top of keeping 1,000 sessions alive.
Targets: the full run under 30 s, peak memory under 2 GB.
The log keeps lifecycle events and group states, not each request (detailed_log=False).
Each run is a separate process, so peak memory (ru_maxrss) is its own.

Usage: python bench/simulator.py [--members N] [--topics N] [--partitions N]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

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
    started = time.perf_counter()
    sim.load(1, "range", handles[0], owned, heartbeat_phase=phases)
    if restarts:
        span = 25 * 60_000 // members
        for i, handle in enumerate(handles):
            sim.at(5 * 60_000 + i * span, _restart, sim, handle, f"static-{handle}")
        for i, handle in enumerate(handles):
            sim.at(30 * 60_000 + i * span, _restart, sim, handle, f"static-{handle}")
    sim.run_until(HOUR)
    wall = time.perf_counter() - started
    return {"wall_s": wall, "events": sim.events_processed, "rebalances": len(sim.rebalances),
            "unconsumed_partition_s": sim.unconsumed_ms() / 1000,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


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
    first = uniform.assign(Cluster(tuple(Topic(n, partitions) for n in names)),
                           [Member(h, tuple(names)) for h in handles])
    interval = sim.coordinator.config.heartbeat_interval_ms
    started = time.perf_counter()
    sim.load(1, {h: first.partitions_of(h) for h in handles},
             heartbeat_phase={h: i * interval // members for i, h in enumerate(handles)})
    if restarts:
        span = 25 * 60_000 // members
        for minute in (5, 30):
            for i, handle in enumerate(handles):
                sim.at(minute * 60_000 + i * span, _restart, sim, handle, f"static-{handle}")
    sim.run_until(HOUR)
    wall = time.perf_counter() - started
    return {"wall_s": wall, "events": sim.coordinator.timers.fired, "rebalances": len(sim.bumps),
            "unconsumed_partition_s": sim.unconsumed_ms() / 1000,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _restart(sim, handle: str, instance_id: str) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    client = sim.clients[handle]
    if client.alive:
        sim.close(client)
    if client.config.instance_id is None:
        client.config = replace(client.config, instance_id=instance_id)
    sim.at(sim.now + 5000, sim.start, client)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--protocol", choices=["classic", "consumer", "both"], default="both")
    parser.add_argument("--child", choices=["baseline", "restarts"])
    args = parser.parse_args()
    if args.child:
        runner = run if args.protocol == "classic" else run_consumer
        print(json.dumps(runner(args.members, args.topics, args.partitions, args.child == "restarts")))
        return
    print(f"shape: {args.members} members, {args.topics} x {args.partitions} partitions, 1 simulated hour")
    for protocol in (["classic", "consumer"] if args.protocol == "both" else [args.protocol]):
        results = {}
        for kind in ("baseline", "restarts"):
            out = subprocess.run([sys.executable, __file__, "--child", kind, "--protocol", protocol,
                                  "--members", str(args.members), "--topics", str(args.topics),
                                  "--partitions", str(args.partitions)],
                                 capture_output=True, text=True, check=True)
            results[kind] = json.loads(out.stdout.strip().splitlines()[-1])
        base, full = results["baseline"], results["restarts"]
        for kind, r in results.items():
            print(f"{protocol:8} {kind:9} wall {r['wall_s']:7.2f} s  events {r['events']:>9}  "
                  f"{r['events'] / r['wall_s']:>10.0f} events/s  rebalances {r['rebalances']:>5}  "
                  f"peak {r['peak_mb']:7.0f} MB  unconsumed {r['unconsumed_partition_s']:.0f} partition-s")
        print(f"{protocol:8} restarts / baseline wall time: {full['wall_s'] / base['wall_s']:.2f}x  "
              f"(target: restarts run under 30 s: {'met' if full['wall_s'] < 30 else 'NOT met'}; "
              f"peak under 2048 MB: {'met' if full['peak_mb'] < 2048 else 'NOT met'})")


if __name__ == "__main__":
    main()
