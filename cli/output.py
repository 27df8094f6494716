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


# Output that is not a terminal (a pipe, a file, a CI log) is never folded: lines and tables are as wide
# as they need to be. `kgroup --width N` fixes the width instead, terminal or not.
UNLIMITED = 100_000
chosen_width: int | None = None


def _width(stream: Any) -> int | None:
    if chosen_width is not None:
        return chosen_width
    isatty = getattr(stream, "isatty", None)
    return None if callable(isatty) and isatty() else UNLIMITED


def stdout_console() -> Console:
    # Console() follows NO_COLOR and drops ANSI codes when stdout is not a terminal.
    return Console(file=sys.stdout, highlight=False, soft_wrap=False, width=_width(sys.stdout))


def stderr_console() -> Console:
    # soft_wrap: a progress or failure line stays one physical line; the terminal folds it, not kgroup.
    return Console(file=sys.stderr, highlight=False, soft_wrap=True, width=_width(sys.stderr))


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
    """One physical line on stderr, whatever the width: logs and `grep` see the whole message."""
    from kgroup.inspectors.errors import one_line

    sys.stderr.write(one_line(message) + "\n")
    sys.stderr.flush()
