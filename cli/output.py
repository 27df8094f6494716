"""One place for output: the format flag, stdout/stderr consoles, and JSON/YAML documents."""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Any, Callable

from rich.console import Console

SCHEMA = "kgroup/v1"


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"


def stdout_console() -> Console:
    # Console() follows NO_COLOR and drops ANSI codes when stdout is not a terminal.
    return Console(file=sys.stdout, highlight=False, soft_wrap=False)


def stderr_console() -> Console:
    return Console(file=sys.stderr, highlight=False)


def document(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """Every machine-readable output starts with the schema and what kind of document it is."""
    return {"schema": SCHEMA, "kind": kind, **body}


def emit(doc: dict[str, Any], fmt: OutputFormat, table: Callable[[Console], None]) -> None:
    """Write a finished result; nothing is printed before the whole result exists."""
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    elif fmt is OutputFormat.yaml:
        import yaml

        sys.stdout.write(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120))
    else:
        table(stdout_console())


def warn(message: str) -> None:
    # soft_wrap: a one-line message stays one line in a log or a pipe, whatever the console width
    stderr_console().print(message, markup=False, soft_wrap=True)
