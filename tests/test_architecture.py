"""Layering: cli -> inspectors -> assignors, and assignors/ stays on the standard library."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
LAYERS = {"assignors": 0, "inspectors": 1, "cli": 2}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
    return found


def test_import_linter_contracts_hold() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


def test_no_layer_imports_a_higher_one_and_the_core_is_stdlib_only() -> None:
    problems = []
    for folder, level in LAYERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] == "kgroup" and len(parts) > 1 and parts[1] in LAYERS:
                    if LAYERS[parts[1]] > level:
                        problems.append(f"{path.relative_to(ROOT)} imports {name}")
                elif folder == "assignors" and parts[0] not in sys.stdlib_module_names and parts[0] != "kgroup":
                    problems.append(f"{path.relative_to(ROOT)} imports non-stdlib {name}")
    assert problems == []


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    """The AST check above must notice an upward import; otherwise it could not fail."""
    bad = tmp_path / "model.py"
    bad.write_text("from kgroup.cli.app import app\nimport yaml\n")
    assert _imports(bad) == ["kgroup.cli.app", "yaml"]
