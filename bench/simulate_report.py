"""`kgroup simulate` benchmark (not a test): the command a user runs, report included, on a generated large hour.

bench/simulator.py times the simulator core without its detailed log; this times the whole command: reading the
scenario, the simulation with the log every report needs, explaining the rebalances, TIME-TO-STABLE, the per-partition
timelines and the rendering.
Shape (defaults): 200 members on 20 topics x 200 partitions (4,000), one simulated hour; minutes 5-30 a rolling
restart (each member in turn closes and is back 5 s later), range (eager). `simulate FILE` runs classic groups;
the consumer protocol is in the five designs.
Commands, each in its own process: `simulate FILE` (the text report), `simulate FILE -o json` (the whole document),
`simulate FILE --protocol classic-eager,classic-cooperative,consumer,zk-watcher,external` (the five designs), and the
same with -o json (every design's numbers and every event's TIME-TO-STABLE, which the text shortens).
With --baseline PATH (a checkout of kgroup, e.g. `git worktree add /tmp/base <commit>`), each command also runs on
that checkout's code, alternating with the current one, and the bench prints both, the ratio, and whether their
outputs are the same (sha256 of stdout).
Targets at the default shape: the text report under 10 s of cpu and 600 MB; the JSON document under 30 s and
1,000 MB; the five designs under 30 s and 1,000 MB, text or JSON. cpu is the process's user + system time (imports
included: the user waits for them too); with --rounds N each command runs N times and is judged by its median cpu.

Usage: python bench/simulate_report.py [--members N] [--topics N] [--partitions N]
       [--commands text,json,designs,designs-json] [--baseline PATH] [--rounds N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from simulator import _Checkout

DESIGNS = "classic-eager,classic-cooperative,consumer,zk-watcher,external"
COMMANDS = {
    "text": [],
    "json": ["-o", "json"],
    "designs": ["--protocol", DESIGNS],
    "designs-json": ["--protocol", DESIGNS, "-o", "json"],
}
TARGETS = {"text": (10, 600), "json": (30, 1000), "designs": (30, 1000), "designs-json": (30, 1000)}  # cpu s, MB


def scenario(members: int, topics: int, partitions: int) -> dict:
    """The rolling restart: member i closes at 5 min + i * (25 min / members) and is back 5 s later."""
    names = [f"t{i:03}" for i in range(topics)]
    handles = [f"c{i:04}" for i in range(members)]
    span = 25 * 60 // members if members <= 25 * 60 else 1
    return {
        "schema": "kgroup/v1",
        "kind": "scenario",
        "description": f"bench: rolling restart of {members} members on {topics} x {partitions} partitions",
        "cluster": {"topics": [{"name": n, "partitions": partitions} for n in names]},
        "groups": [
            {
                "group_id": "bench",
                "assignors": ["range"],
                "members": [{"member_id": h, "topics": names} for h in handles],
            }
        ],
        "clients": {"default": {"partition.assignment.strategy": ["range"]}},
        "duration": "60m",
        "events": [f"restart {h} at {300 + i * span}s down 5s" for i, h in enumerate(handles)],
    }


def child(code: Path | None, arguments: list[str], out: Path) -> None:
    """Run the CLI in this process, its stdout into `out`; print cpu, peak and the output's digest to stderr."""
    if code is not None:
        sys.meta_path.insert(0, _Checkout(code.resolve()))
    with out.open("wb") as sink:
        os.dup2(sink.fileno(), 1)
    sys.argv = ["kgroup", *arguments]
    from kgroup.cli.app import main

    status = 0
    try:
        main()
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    sys.stdout.flush()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    digest = hashlib.sha256()
    with out.open("rb") as written:
        for chunk in iter(lambda: written.read(1 << 20), b""):
            digest.update(chunk)
    result = {
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "exit": status,
        "bytes": out.stat().st_size,
        "digest": digest.hexdigest(),
    }
    print(json.dumps(result), file=sys.stderr)


def _median(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda r: r["cpu_s"])[(len(runs) - 1) // 2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=200)
    parser.add_argument("--commands", default=",".join(COMMANDS), help=f"some of: {', '.join(COMMANDS)}")
    parser.add_argument("--baseline", type=Path, help="a checkout of kgroup whose code runs the same commands")
    parser.add_argument("--rounds", type=int, default=1, help="runs per command and checkout, judged by their median")
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)  # child: import kgroup from this checkout
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)  # child: where the command's stdout goes
    args = parser.parse_args()
    if args.child is not None:
        child(args.code, args.child, args.out)
        return
    commands = [c for c in args.commands.split(",") if c]
    unknown = [c for c in commands if c not in COMMANDS]
    if unknown:
        parser.error(f"--commands: unknown {', '.join(unknown)} (known: {', '.join(COMMANDS)})")
    default_shape = (args.members, args.topics, args.partitions) == (200, 20, 200)
    print(f"shape: {args.members} members, {args.topics} x {args.partitions} partitions, one hour, rolling restart")
    with tempfile.TemporaryDirectory(prefix="kgroup-bench-") as folder:
        path = Path(folder) / "scenario.json"
        path.write_text(json.dumps(scenario(args.members, args.topics, args.partitions)))
        for command in commands:
            results: dict[str, list[dict]] = {}
            checkouts = [("current", None)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
            for _ in range(max(1, args.rounds)):
                for label, code in checkouts:
                    out = Path(folder) / f"{command}-{label}.out"
                    line = [sys.executable, __file__, "--out", str(out)]
                    line += ["--code", str(code)] if code else []
                    line += ["--child", "simulate", str(path), *COMMANDS[command]]
                    done = subprocess.run(line, capture_output=True, text=True)
                    r = json.loads(done.stderr.strip().splitlines()[-1])
                    if r["exit"] != 0:
                        sys.exit(f"{command} {label}: exit {r['exit']}: {done.stderr.strip().splitlines()[:-1]}")
                    results.setdefault(label, []).append(r)
                    print(
                        f"{command:12} {label:8} cpu {r['cpu_s']:6.2f} s  peak {r['peak_mb']:5.0f} MB  exit {r['exit']}  "
                        f"output {r['bytes']:>11,} bytes  sha256 {r['digest'][:16]}",
                        flush=True,
                    )
                    out.unlink()
            current = _median(results["current"])
            if "baseline" in results:
                base = _median(results["baseline"])
                same = len({r["digest"] for runs in results.values() for r in runs}) == 1
                print(
                    f"{command:12} baseline / current: cpu {base['cpu_s'] / current['cpu_s']:.2f}x  "
                    f"peak {base['peak_mb'] / current['peak_mb']:.2f}x  same output: {'yes' if same else 'NO'}"
                )
            if default_shape:
                cpu, peak = TARGETS[command]
                print(
                    f"{command:12} target: under {cpu} s of cpu: {'met' if current['cpu_s'] < cpu else 'NOT met'}; "
                    f"peak under {peak} MB: {'met' if current['peak_mb'] < peak else 'NOT met'}"
                )


if __name__ == "__main__":
    main()
