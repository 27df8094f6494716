"""Running kgroup as a user would: in-process through Typer's runner, or as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kgroup.cli.app import app

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "fixtures"


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def run_json(*args: str) -> dict[str, Any]:
    result = run(*args, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def run_process(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The installed `kgroup` entry point, stdout and stderr piped (not a terminal)."""
    script = Path(sys.executable).parent / "kgroup"
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})}, cwd=cwd
    )


def one_topic_scenario(
    path: Path, members: list[str], *, assigned: bool = True, duration: str = "2m", events: Sequence[str] = ()
) -> Path:
    """A scenario file: `members` of a classic range group on topic t with a partition each, each member
    holding its own when `assigned` (else the run starts with everyone joining), and `events`."""
    lines = [
        "schema: kgroup/v1",
        "kind: scenario",
        f"cluster: {{topics: [{{name: t, partitions: {len(members)}}}]}}",
        "groups:",
        "  - group_id: big",
        "    protocol: classic",
        "    assignors: [range]",
        "    members:",
        *(f"      - {{member_id: {m}, topics: [t]}}" for m in members),
    ]
    if assigned:
        lines += ["    assignment:", *(f"      {m}: {{t: [{i}]}}" for i, m in enumerate(members))]
    lines += ["clients: {default: {partition.assignment.strategy: [range]}}", f"duration: {duration}"]
    if events:
        lines += ["events:", *(f"  - {event}" for event in events)]
    path.write_text("\n".join(lines) + "\n")
    return path
