"""The assignors without their explanation hooks: the baseline of the off-path speed check.

Every assignor asks `active()` once and guards each recording with `if trace is not None` (or
`self.trace`, `state.trace`). This writes a copy of `kgroup.assignors`, as the package
`kgroup_baseline.assignors` so one process can import both, in which `active()` is the constant None and
every such guarded block or expression is gone. Timing the copy against the real package, in the same
process and on the same input, measures what the hooks cost when nobody asks. bench/assignors.py
--off-path checks that both give the same assignment.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "assignors"
NAME = "kgroup_baseline"


def _is_trace(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "trace") or (
        isinstance(node, ast.Attribute) and node.attr == "trace"
    )


def _only_when_tracing(test: ast.expr) -> bool:
    """`trace is not None`, alone or as one term of an `and`: true only when someone asked why."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_only_when_tracing(value) for value in test.values)
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and _is_trace(test.left)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


class _Strip(ast.NodeTransformer):
    def __init__(self) -> None:
        self.removed = 0

    def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if _only_when_tracing(node.test):
            self.removed += 1
            return node.orelse
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if _only_when_tracing(node.test):
            self.removed += 1
            return node.orelse
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        if node.module and node.module.startswith("kgroup."):
            node.module = NAME + node.module[len("kgroup") :]
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        # registry.py imports its assignors by name: f"kgroup.assignors.{module}".
        if isinstance(node.value, str) and node.value.startswith("kgroup.assignors."):
            node.value = NAME + node.value[len("kgroup") :]
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "active" and not node.args:
            self.removed += 1
            return ast.Constant(None)
        return node


def _no_empty_blocks(tree: ast.AST) -> None:
    """A block whose only statement was a removed hook keeps a `pass`."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and not block and name == "body":
                block.append(ast.Pass())


def write_baseline(target: Path) -> int:
    """Write `kgroup_baseline/assignors` (no hooks) under `target`, to put on sys.path; the number of
    hooks removed."""
    removed = 0
    root = target / NAME
    root.mkdir(parents=True, exist_ok=True)
    (root / "__init__.py").write_text("")
    for source in PACKAGE.rglob("*.py"):
        tree = ast.parse(source.read_text(), str(source))
        strip = _Strip()
        tree = strip.visit(tree)
        _no_empty_blocks(tree)
        removed += strip.removed
        out = root / "assignors" / source.relative_to(PACKAGE)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n")
    return removed
