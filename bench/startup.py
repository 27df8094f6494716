"""Start-up benchmark (not a test): how long `kgroup` takes before it does anything, as a whole process.

Baseline, measured in the same run: `python -c "import typer, rich"`, the two packages every kgroup command
needs, so the ratio shows what kgroup adds on top of its own framework, whatever the machine's speed.
Commands: `kgroup --help` (target: at most 1.5x the baseline; it imports no command), `kgroup check demo`
(a fixture's current assignment: the fixture reader and the checks, no assignor, no simulator) and
`kgroup simulate demo` (the demo group's own assignor and the what-if tables).
Each figure is the median wall time of several runs after a warm-up; baseline and command alternate, so a
machine that slows down mid-run slows both. Output goes to /dev/null: this is start-up, not rendering.

Usage: python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_HELP = 1.5


def _wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env={**os.environ, "NO_COLOR": "1"}
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    kgroup = str(Path(sys.executable).parent / "kgroup")
    baseline = [sys.executable, "-c", "import typer, rich"]
    commands = {
        "--help": [kgroup, "--help"],
        "check demo": [kgroup, "check", "demo"],
        "simulate demo": [kgroup, "simulate", "demo"],
    }
    for argv in [baseline, *commands.values()]:  # warm-up: the file cache, .pyc files
        _wall(argv)
    times: dict[str, list[float]] = {"baseline": [], **{name: [] for name in commands}}
    for _ in range(args.runs):
        for name, argv in commands.items():
            times["baseline"].append(_wall(baseline))
            times[name].append(_wall(argv))
    base = statistics.median(times["baseline"])
    print(f"python -c 'import typer, rich' (baseline): {base * 1000:7.1f} ms median of {len(times['baseline'])}")
    for name in commands:
        median = statistics.median(times[name])
        target = (
            f"  (target <= {TARGET_HELP}x: {'met' if median / base <= TARGET_HELP else 'NOT met'})"
            if name == "--help"
            else ""
        )
        print(f"kgroup {name:<14} {median * 1000:7.1f} ms  {median / base:4.2f}x baseline{target}")


if __name__ == "__main__":
    main()
