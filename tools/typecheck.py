"""mypy over the kgroup package, failing only on errors that are not in the baseline.

The package maps top-level folders under `kgroup.*` (pyproject.toml's package-dir), which mypy cannot follow
through the editable install's import hook; so this lays the mapping out as links under build/typecheck and
points mypy there (mypy_path in pyproject.toml).

The tree had type errors before mypy was configured. They are listed in tools/mypy-baseline.txt, one line
each, keyed by file, message and code but not line number, so that edits above an old error do not make it
new. Any error not listed fails the check; a listed one that no longer occurs is reported, so the list only
shrinks (`python -m tools.typecheck --update` rewrites it).

    python -m tools.typecheck            # the check
    python -m tools.typecheck --update   # accept today's errors as the baseline
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tools" / "mypy-baseline.txt"
LINKS = ROOT / "build" / "typecheck" / "kgroup"
PACKAGE_DIRS = ("assignors", "inspectors", "cli", "fixtures")

# mypy's error line: path:line: error: message  [code]  (notes and the summary line do not match)
_ERROR = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<message>.*?)(?:\s+\[(?P<code>[a-z-]+)\])?$")


def lay_out_links() -> None:
    LINKS.mkdir(parents=True, exist_ok=True)
    for name in PACKAGE_DIRS:
        link, target = LINKS / name, Path("..", "..", "..", name)  # relative: a moved clone still type-checks
        if link.is_symlink() and Path(link.readlink()) == target:
            continue
        if link.is_symlink():
            link.unlink()
        link.symlink_to(target, target_is_directory=True)


def source_path(mypy_path: str) -> str:
    """build/typecheck/kgroup/cli/app.py -> cli/app.py, the path a contributor opens."""
    prefix = "build/typecheck/kgroup/"
    return mypy_path[len(prefix) :] if mypy_path.startswith(prefix) else mypy_path


def parse_errors(output: str) -> list[tuple[str, str]]:
    """(where, key) for each error: where has the line number, key leaves it out."""
    found = []
    for line in output.splitlines():
        match = _ERROR.match(line)
        if match:
            path = source_path(match["path"])
            key = f"{path}: {match['message']}  [{match['code'] or 'error'}]"
            found.append((f"{path}:{match['line']}: {match['message']}  [{match['code'] or 'error'}]", key))
    return found


def compare(errors: list[tuple[str, str]], baseline: Counter[str]) -> tuple[list[str], list[str]]:
    """The errors beyond what the baseline allows (with line numbers), and the baseline entries now gone."""
    allowed = Counter(baseline)
    new = []
    for where, key in errors:
        if allowed[key] > 0:
            allowed[key] -= 1
        else:
            new.append(where)
    gone = sorted((+allowed).elements())
    return new, gone


def read_baseline(path: Path = BASELINE) -> Counter[str]:
    if not path.exists():
        return Counter()
    return Counter(line for line in path.read_text().splitlines() if line and not line.startswith("#"))


def run_mypy() -> str:
    lay_out_links()
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1):  # 2: mypy itself failed (a bad config, a crash), not type errors
        sys.exit(result.stdout + result.stderr)
    return result.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="write today's errors as the baseline")
    args = parser.parse_args(argv)
    errors = parse_errors(run_mypy())
    if args.update:
        header = "# mypy errors that predate the check (tools/typecheck.py); fix one, then drop its line.\n"
        BASELINE.write_text(header + "".join(f"{key}\n" for key in sorted(key for _, key in errors)))
        print(f"mypy baseline: {len(errors)} errors written to {BASELINE.relative_to(ROOT)}")
        return 0
    new, gone = compare(errors, read_baseline())
    for where in new:
        print(where)
    if gone:
        print(f"mypy: {len(gone)} baseline entries no longer occur; drop them: python -m tools.typecheck --update")
    print(f"mypy: {len(errors)} errors, {len(errors) - len(new)} of them in the baseline, {len(new)} new")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
