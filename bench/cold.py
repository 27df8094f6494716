"""Cold processes on Kafka's scale-test shape: 500 topics x 2,000 partitions, 2,000 consumers (issue 25).

Builds the fixture once (JSON, and with --yaml also YAML), then times fresh `kgroup` processes of
`assign` with each assignor, `check` and `simulate` against this run's baseline: a fresh Python doing
nothing but `json.load` on the same JSON file, the cost of merely reading the input in Python. Prints
wall time, CPU time, peak memory (max RSS) and the ratios to the baseline's wall and CPU time (on a
shared machine the CPU ratio is the steadier one).

Targets: every command within 3x the baseline; `assign -a range` under 5 s wall on a quiet machine;
peak memory under 1 GB.

    python bench/cold.py                 # every command on the JSON fixture
    python bench/cold.py --only range    # one command
    python bench/cold.py --yaml          # also the YAML fixture (slower: PyYAML)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOPICS, PARTITIONS, CONSUMERS = 500, 2000, 2000


def fixture(topics: int = TOPICS, partitions: int = PARTITIONS, consumers: int = CONSUMERS) -> dict:
    """Every consumer subscribes to every topic; the current assignment is balanced and contiguous (each
    consumer owns one run of one topic), as a sticky assignor would leave it, written as ranges."""
    names = [f"topic-{t:03d}" for t in range(topics)]
    per = topics * partitions // consumers
    assignment = {}
    for c in range(consumers):
        first = c * per
        topic, start = divmod(first, partitions)
        assignment[f"consumer-{c:04d}"] = {names[topic]: f"{start}-{start + per - 1}"}
    return {
        "schema": "kgroup/v1",
        "description": f"Kafka's scale-test shape: {topics} topics x {partitions} partitions, {consumers} consumers",
        "cluster": {"topics": [{"name": n, "partitions": partitions} for n in names]},
        "groups": [{
            "group_id": "scale",
            "protocol": "classic",
            "assignors": ["range", "roundrobin", "sticky", "cooperative-sticky"],
            "generation": 1,
            "members": [{"member_id": m, "topics": names} for m in assignment],
            "assignment": assignment,
        }],
    }


def consumer_fixture(doc: dict) -> dict:
    copy = json.loads(json.dumps(doc))
    copy["groups"][0]["protocol"] = "consumer"
    copy["groups"][0]["assignors"] = ["uniform", "range"]
    return copy


def timed(argv: list[str]) -> tuple[float, float, int, int, str]:
    """(wall s, CPU s, max RSS in MB, exit code, last stderr line) of one fresh process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
    code = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, code, lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="run only these (e.g. range, check)")
    parser.add_argument("--yaml", action="store_true", help="also time the YAML form of the fixture")
    parser.add_argument("--dir", default=None, help="where to build the fixtures (default: a temporary folder)")
    args = parser.parse_args()
    folder = Path(args.dir or tempfile.mkdtemp(prefix="kgroup-cold-"))
    folder.mkdir(parents=True, exist_ok=True)
    kgroup = str(Path(sys.executable).parent / "kgroup")

    doc = fixture()
    classic, consumer = folder / "scale.json", folder / "scale-consumer.json"
    classic.write_text(json.dumps(doc))
    consumer.write_text(json.dumps(consumer_fixture(doc)))
    files = {"json": classic}
    if args.yaml:
        import yaml

        files["yaml"] = folder / "scale.yaml"
        files["yaml"].write_text(yaml.safe_dump(doc, sort_keys=False, width=1 << 20, default_flow_style=None))
    print(f"fixture: {TOPICS} topics x {PARTITIONS} partitions = {TOPICS * PARTITIONS:,}, {CONSUMERS} consumers; "
          f"{classic} ({classic.stat().st_size / 1e6:.1f} MB)")

    base = timed([sys.executable, "-c", f"import json; json.load(open({str(classic)!r}))"])
    print(f"baseline json.load: {base[0]:.2f} s wall, {base[1]:.2f} s CPU, {base[2]} MB")
    print(f"{'command':44} {'wall s':>7} {'CPU s':>7} {'MB':>6} {'x wall':>7} {'x CPU':>6}  exit")

    commands = {
        "range": ["assign", "-a", "range", "-o", "json"],
        "roundrobin": ["assign", "-a", "roundrobin", "-o", "json"],
        "sticky": ["assign", "-a", "sticky", "-o", "json"],
        "cooperative-sticky": ["assign", "-a", "cooperative-sticky", "-o", "json"],
        "uniform": ["assign", "-a", "uniform", "-o", "json"],
        "server-range": ["assign", "-a", "server-range", "-o", "json"],
        "check": ["check", "--max-imbalance", "1", "--kafka-balanced"],
        "simulate": ["simulate", "--add-member", "consumer-new", "-o", "json"],
    }
    for kind, path in files.items():
        for name, argv in commands.items():
            if args.only and name not in args.only:
                continue
            target = consumer if name in ("uniform", "server-range") and kind == "json" else path
            wall, cpu, mb, code, last = timed([kgroup, argv[0], str(target), *argv[1:]])
            label = f"{kind}: kgroup {' '.join(argv)}"
            print(f"{label:44} {wall:7.2f} {cpu:7.2f} {mb:6d} {wall / base[0]:7.1f} {cpu / base[1]:6.1f}  {code}"
                  + (f"  ({last[:80]})" if code not in (0, 3) else ""), flush=True)


if __name__ == "__main__":
    main()
