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
    isatty = getattr(sys.stdout, "isatty", None)
    stream = sys.stdout if callable(isatty) and isatty() else _TrimmedLines(sys.stdout)
    return Console(file=stream, highlight=False, soft_wrap=False, width=_width(sys.stdout))


class _TrimmedLines:
    """Stdout that is not a terminal, without the spaces rich pads titles and last columns with to the
    table's width: a file or a log holds each line as long as its text, as `kafka-consumer-groups.sh`
    writes it, and compares equal to an expected output."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.pending = ""  # the unfinished last line: its padding may still be followed by text

    def write(self, text: str) -> int:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        if lines:
            self.stream.write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.stream.write(self.pending)
            self.pending = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:  # encoding, fileno, ... as the real stream has them
        return getattr(self.stream, name)


def stderr_console() -> Console:
    # soft_wrap: a progress or failure line stays one physical line; the terminal folds it, not kgroup.
    return Console(file=sys.stderr, highlight=False, soft_wrap=True, width=_width(sys.stderr))


def document(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """Every machine-readable output starts with the schema and what kind of document it is."""
    return {"schema": SCHEMA, "kind": kind, **body}


def emit(doc: dict[str, Any], fmt: OutputFormat, table: Callable[[Console], None]) -> None:
    """Write a finished result; nothing is printed before the whole result exists."""
    if fmt is OutputFormat.json:
        sys.stdout.write(indented_json(doc) + "\n")
    elif fmt is OutputFormat.yaml:
        import yaml

        # PyYAML's emitter is pure Python; past a few thousand values libyaml's writes the same YAML.
        dumper = yaml.CSafeDumper if _values(doc, _LARGE) >= _LARGE and hasattr(yaml, "CSafeDumper") \
            else yaml.SafeDumper
        sys.stdout.write(yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True, width=120))
    else:
        table(stdout_console())


_LARGE = 20_000
_encode_text = json.encoder.encode_basestring  # the standard library's C string encoder (ensure_ascii=False)


def _values(value: Any, stop: int) -> int:
    """How many values `value` holds, counting no further than `stop`."""
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        return 1
    total = len(value)
    for item in value:
        if total >= stop:
            break
        if isinstance(item, (dict, list)):
            total += _values(item, stop - total)
    return total


def indented_json(value: Any, level: int = 0) -> str:
    """Exactly `json.dumps(value, indent=2, ensure_ascii=False)`, with lists of strings (a million
    partition names) encoded by the C string encoder instead of json's pure-Python indenting encoder."""
    inner = "\n" + "  " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        if not all(isinstance(k, str) for k in value):
            return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * level)
        body = ("," + inner).join(f"{_encode_text(k)}: {indented_json(v, level + 1)}" for k, v in value.items())
        return "{" + inner + body + "\n" + "  " * level + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if all(type(v) is str for v in value):
            body = ("," + inner).join(map(_encode_text, value))
        else:
            body = ("," + inner).join(indented_json(v, level + 1) for v in value)
        return "[" + inner + body + "\n" + "  " * level + "]"
    return json.dumps(value, ensure_ascii=False)


def warn(message: str) -> None:
    """One physical line on stderr, whatever the width: logs and `grep` see the whole message."""
    from kgroup.inspectors.errors import one_line

    sys.stderr.write(one_line(message) + "\n")
    sys.stderr.flush()
