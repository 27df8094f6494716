"""Cold processes on Kafka's scale-test shape: 500 topics x 2,000 partitions, 2,000 consumers (issue 25).

Builds the fixture once, then times fresh `kgroup` processes of `assign` with each assignor, `check` and
`simulate` on it. Prints wall time, CPU time (user + system), peak memory (the child's max RSS) and the
ratios to this run's baseline (on a shared machine the CPU ratio is the steadier one).

The baseline (issue 25): a fresh `python -c "import json; json.load(open(F))"`, the cost of merely
reading the input in Python, where F is `scale.json`, the very file the JSON rows read: the kgroup/v1
fixture with each member's current assignment in the range notation (`topic-000: 0-499`) and each
member's subscription listing the 500 topics, 13 MB. The YAML rows (--yaml) read the same document as
YAML and are compared with the same baseline. For reference only, the run also times json.load of
the same group with every partition written out (`"topic-000-0"`, ...), the form fixtures had before
the range notation; the ratios and targets are against `scale.json`.

Targets: every command within 3x the baseline; `assign -a range` under 5 s wall on a quiet machine;
peak memory under 1 GB. The last column says which a row misses (CPU ratio, and wall for range). The run
also prints a floor: json.load of the input plus json.dump of range's answer (a million strings), the least
any `assign -o json` must do on this shape.

    python bench/cold.py                 # every command on the JSON fixture
    python bench/cold.py --only range    # one command
    python bench/cold.py --yaml          # also the YAML form of the fixture
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
RATIO = 3  # the target: within 3x the baseline
# What no `assign -o json` can go below: reading the input and writing an answer of a million entries (range
# gives consumer c partition c of every topic), with no assignor, validation, evaluation or CLI around it.
FLOOR = """import json, sys
doc = json.load(open(sys.argv[1]))
topics = [t["name"] for t in doc["cluster"]["topics"]]
members = [m["member_id"] for m in doc["groups"][0]["members"]]
json.dump({m: [f"{t}-{c}" for t in topics] for c, m in enumerate(members)}, open("/dev/null", "w"))
"""


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
        "groups": [
            {
                "group_id": "scale",
                "protocol": "classic",
                "assignors": ["range", "roundrobin", "sticky", "cooperative-sticky"],
                "generation": 1,
                "members": [{"member_id": m, "topics": names} for m in assignment],
                "assignment": assignment,
            }
        ],
    }


def expanded(doc: dict) -> dict:
    """The same group with every partition of the assignment written out as `topic-N`."""
    copy = json.loads(json.dumps(doc))
    group = copy["groups"][0]
    for member, topics in group["assignment"].items():
        parts = []
        for topic, run in topics.items():
            first, last = map(int, run.split("-"))
            parts += [f"{topic}-{p}" for p in range(first, last + 1)]
        group["assignment"][member] = parts
    return copy


def yaml_text(doc: dict) -> str:
    import yaml

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
        def ignore_aliases(self, data: object) -> bool:
            return True  # written out, as a user's file would be: kgroup limits what aliases expand to

    return yaml.dump(doc, Dumper=Dumper, sort_keys=False, width=1 << 20, default_flow_style=None)


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
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    folder = Path(args.dir or tempfile.mkdtemp(prefix="kgroup-cold-"))
    folder.mkdir(parents=True, exist_ok=True)
    kgroup = str(Path(sys.executable).parent / "kgroup")

    classic, consumer, listed = folder / "scale.json", folder / "scale-consumer.json", folder / "scale-listed.json"
    files = {"json": (classic, consumer)}
    if args.yaml:
        files["yaml"] = (folder / "scale.yaml", folder / "scale-consumer.yaml")
    if args.build_only:
        doc = fixture()
        classic.write_text(json.dumps(doc))
        consumer.write_text(json.dumps(consumer_fixture(doc)))
        listed.write_text(json.dumps(expanded(doc)))
        if args.yaml:
            files["yaml"][0].write_text(yaml_text(doc))
            files["yaml"][1].write_text(yaml_text(consumer_fixture(doc)))
        return
    # Built by another process: a child's max RSS starts from its parent's, so this one stays small.
    subprocess.run(
        [sys.executable, __file__, "--build-only", "--dir", str(folder)] + ["--yaml"] * args.yaml, check=True
    )
    print(
        f"fixture: {TOPICS} topics x {PARTITIONS} partitions = {TOPICS * PARTITIONS:,}, {CONSUMERS} consumers; "
        f"{classic} ({classic.stat().st_size / 1e6:.1f} MB)"
    )

    base = timed([sys.executable, "-c", f"import json; json.load(open({str(classic)!r}))"])
    print(f"baseline json.load({classic.name}): {base[0]:.2f} s wall, {base[1]:.2f} s CPU, {base[2]} MB")
    ref = timed([sys.executable, "-c", f"import json; json.load(open({str(listed)!r}))"])
    print(
        f"for reference, json.load({listed.name}, every partition written out, "
        f"{listed.stat().st_size / 1e6:.0f} MB): {ref[0]:.2f} s wall, {ref[1]:.2f} s CPU, {ref[2]} MB"
    )
    floor = timed([sys.executable, "-c", FLOOR, str(classic)])
    print(
        f"floor for assign -o json: json.load({classic.name}) and json.dump of range's answer (1,000,000 "
        f'"topic-N" strings, nothing computed or checked): {floor[0]:.2f} s wall, {floor[1]:.2f} s CPU, '
        f"{floor[1] / base[1]:.1f}x the baseline"
    )
    print(f"{'command':52} {'wall s':>7} {'CPU s':>7} {'MB':>6} {'x wall':>7} {'x CPU':>6}  exit  misses")

    commands = {
        "range": ["assign", "-a", "range", "-o", "json"],
        "roundrobin": ["assign", "-a", "roundrobin", "-o", "json"],
        "sticky": ["assign", "-a", "sticky", "-o", "json"],
        "cooperative-sticky": ["assign", "-a", "cooperative-sticky", "-o", "json"],
        "uniform": ["assign", "-a", "uniform", "-o", "json"],
        "server-range": ["assign", "-a", "server-range", "-o", "json"],
        "range-yaml": ["assign", "-a", "range", "-o", "yaml"],
        "check": ["check", "--max-imbalance", "1", "--kafka-balanced"],
        "simulate": ["simulate", "--add-member", "consumer-new", "-o", "json"],
    }
    for kind, (path, consumer_path) in files.items():
        for name, argv in commands.items():
            if args.only and name not in args.only:
                continue
            target = consumer_path if name in ("uniform", "server-range") else path
            wall, cpu, mb, code, last = timed([kgroup, argv[0], str(target), *argv[1:]])
            misses = [
                what
                for what, missed in (
                    (f"CPU>{RATIO:g}x", cpu > RATIO * base[1]),
                    ("wall>5s", name == "range" and wall >= 5),
                    ("1GB", mb >= 1000),
                )
                if missed
            ]
            label = f"{kind}: kgroup {' '.join(argv)}"
            print(
                f"{label:52} {wall:7.2f} {cpu:7.2f} {mb:6d} {wall / base[0]:7.1f} {cpu / base[1]:6.1f}  {code:4d}  "
                f"{' '.join(misses) or '-'}" + (f"  ({last[:80]})" if code not in (0, 3) else ""),
                flush=True,
            )


if __name__ == "__main__":
    main()
