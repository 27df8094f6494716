"""What the docs promise about output, checked against the code and real runs: every document kind kgroup
writes is listed in docs/fixtures.md, the README's GitHub Actions step gates as the README says, and the
examples in the README and docs/commands.md are real output."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from tests.cli.helpers import FIXTURES, ROOT, run_json, run_process

# How the code names a document's kind: document("kind", ...), kind="kind" passed to it, KIND = "kind".
_KIND = re.compile(r'document\(\s*"([a-z-]+)"|\bkind="([a-z-]+)"|^KIND = "([a-z-]+)"', re.M)


def _kinds_in_code() -> set[str]:
    # What-if results name their kind by default, not in a literal the scan below finds: ask the command.
    found = {run_json("simulate", "demo", "--add-member", "c9")["kind"]}
    for folder in ("cli", "inspectors"):
        for path in (ROOT / folder).rglob("*.py"):
            for match in _KIND.finditer(path.read_text()):
                found.add(next(group for group in match.groups() if group))
    return found


def test_docs_fixtures_lists_every_document_kind_kgroup_emits() -> None:
    kinds = _kinds_in_code()
    assert {"simulation", "explanation", "scenario-explanation", "group-delete", "plan"} <= kinds  # the scan works
    table = (ROOT / "docs" / "fixtures.md").read_text().split("## Machine-readable output")[1]
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M)) | {"scenario"}  # a scenario is read, never written
    assert kinds - listed == set()


def _readme_gate_step() -> dict:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```yaml\n(- uses: actions/setup-python.*?)```", readme, re.S)
    assert block, "the README's GitHub Actions step"
    return next(step for step in yaml.safe_load(block.group(1)) if step.get("name") == "Consumer-group gate")


def test_the_readme_actions_step_gates_a_scale_out_and_a_rolling_restart(tmp_path: Path) -> None:
    step = _readme_gate_step()
    script = step["run"]
    install, _, gate = script.partition("\n")
    # kgroup is not on PyPI: the step installs it from where the team keeps it, not by a bare name.
    assert install.startswith("pip install ") and install != "pip install kgroup"
    assert set(step["env"]) == {"KGROUP"} and "$KGROUP" in install
    (tmp_path / "deploy").mkdir()
    shutil.copy(FIXTURES / "demo.yaml", tmp_path / "deploy" / "orders-group.yaml")
    shutil.copy(FIXTURES / "scenario-rolling-restart.yaml", tmp_path / "deploy" / "rolling-restart.yaml")
    # The installed kgroup stands in for the install line; the rest runs as Actions runs it (bash -e).
    env = {
        **os.environ,
        "GITHUB_ACTIONS": "true",
        "COLUMNS": "60",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    ran = subprocess.run(["bash", "-e", "-c", gate], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 3, ran.stderr
    readme = (ROOT / "README.md").read_text()
    failures = [line for line in ran.stderr.splitlines() if line.startswith("check failed: ")]
    annotations = [line for line in ran.stderr.splitlines() if line.startswith("::error ")]
    assert len(failures) == len(annotations) == 2, ran.stderr
    assert "scale-out.yaml orders-service (cooperative-sticky, planned): min-stickiness" in failures[0]
    assert "deploy/rolling-restart.yaml events-app (scenario): max-rebalances" in failures[1]
    # the README's annotation is the real one, file and line included
    shown = next(line for line in readme.splitlines() if line.startswith("::error "))
    assert shown.replace("deploy/scale-out.yaml", "scale-out.yaml") == annotations[0]
    suites = ET.parse(tmp_path / "junit.xml").getroot()
    cases = [case for suite in suites for case in suite]
    assert [case.get("name") for case in cases if case.find("failure") is not None] == [
        "min-stickiness",
        "max-rebalances",
    ]
    assert len(cases) == int(suites.get("tests")) == 5


def _readme_example(command: str) -> list[str]:
    """The output lines the README or the command reference (docs/commands.md) shows under `$ COMMAND`, up to
    the block's end or the next `$` line."""
    docs = (ROOT / "README.md").read_text() + (ROOT / "docs" / "commands.md").read_text()
    block = docs.split(f"```\n$ {command}\n", 1)[1].split("```", 1)[0]
    return block.split("\n$ ", 1)[0].rstrip("\n").split("\n")


def test_the_readme_examples_are_real_output_line_for_line() -> None:
    for command in (
        "kgroup simulate",
        "kgroup explain demo orders-3 --add-member c4 -a range -a uniform",
        "kgroup coordinator my-group",
    ):
        shown = _readme_example(command)
        real = run_process(*command.split()[1:], env={"COLUMNS": "60"})
        assert real.returncode == 0, real.stderr
        assert real.stdout.rstrip("\n").split("\n") == shown, command


def test_piped_lines_end_with_their_text_not_with_table_padding() -> None:
    for args in (
        ["simulate", "demo", "-a", "range", "-a", "uniform"],
        ["check", "demo"],
        ["fixtures"],
        ["simulate", "compare-crash", "--protocol", "consumer,external"],
        ["describe", "--fixture", "demo"],
    ):
        out = run_process(*args).stdout
        assert out and [line for line in out.splitlines() if line.endswith(" ")] == [], args
