"""Layering: cli -> inspectors -> assignors, assignors/ stays on the standard library, and inside each layer
every subpackage keeps the import contract pyproject.toml gives it (docs/architecture.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
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
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"{len(contracts)} kept, 0 broken" in result.stdout


def test_every_subpackage_has_a_contract() -> None:
    """A new subpackage of the core or of inspectors must say what it may import, or the picture drifts."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    named = set()
    for contract in contracts:
        for key in ("source_modules", "modules"):  # the layers contract names only the three roots
            named.update(contract.get(key, ()))
    missing = []
    for folder in ("assignors", "inspectors"):
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            if len(parts) != 1:
                continue
            package = ".".join(("kgroup", folder, *parts))
            if not any(n == package or n.startswith(package + ".") for n in named):
                missing.append(package)
    assert missing == []


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
