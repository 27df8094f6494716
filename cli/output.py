"""One place for output: the format flag, stdout/stderr consoles, and JSON/YAML documents."""

from __future__ import annotations

import json
import re
import sys
from enum import Enum, StrEnum
from collections.abc import Iterator
from itertools import repeat
from operator import itemgetter
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


def emit(
    doc: dict[str, Any] | Callable[[], dict[str, Any]], fmt: OutputFormat, table: Callable[[Console], None]
) -> None:
    """Write a finished result; nothing is printed before the whole result exists. `doc` may be a function
    that builds the document: one as large as a long simulation's is then built only for -o json or yaml."""
    if fmt is OutputFormat.table:
        table(stdout_console())
        return
    if callable(doc):
        doc = doc()
    if fmt is OutputFormat.json:
        write_json(doc, sys.stdout)
    elif fmt is OutputFormat.yaml:
        yaml = _yaml()

        # PyYAML's emitter is pure Python, and even libyaml's is driven by Python per value: past a few
        # thousand values kgroup writes the same block YAML itself, each distinct scalar once.
        if _values(doc, _LARGE) >= _LARGE:
            lines = block_yaml(doc)
            if lines is not None:
                write_lines(lines, sys.stdout)
                return
        sys.stdout.write(yaml.dump(doc, Dumper=yaml.SafeDumper, sort_keys=False, allow_unicode=True, width=120))


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
    """Exactly `json.dumps(value, indent=2, ensure_ascii=False)`, quickly on a million values."""
    return "".join(json_chunks(value, level))


def write_json(value: Any, out: Any) -> None:
    """`indented_json(value)` and a newline, written piece by piece: a 200 MB document is never one string."""
    pending: list[str] = []
    size = 0
    for chunk in json_chunks(value, 0):
        pending.append(chunk)
        size += len(chunk)
        if size > 1 << 20:
            out.write("".join(pending))
            pending, size = [], 0
    pending.append("\n")
    out.write("".join(pending))


def json_chunks(value: Any, level: int = 0) -> Iterator[str]:
    """The pieces of `json.dumps(value, indent=2, ensure_ascii=False)`. json's indenting encoder is pure
    Python; here lists of strings (partition names) and lists of flat records (a million moves) are
    encoded a column at a time by C code (the string encoder, `str % tuple`)."""
    inner = "\n" + "  " * (level + 1)
    if isinstance(value, dict):
        if not value:
            yield "{}"
            return
        if not all(isinstance(k, str) for k in value):
            yield json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * level)
            return
        yield "{"
        for i, (k, v) in enumerate(value.items()):
            yield f"{',' if i else ''}{inner}{_encode_text(k)}: "
            yield from json_chunks(v, level + 1)
        yield "\n" + "  " * level + "}"
        return
    if isinstance(value, (list, tuple)):
        if not value:
            yield "[]"
            return
        if set(map(type, value)) == {str}:
            yield "[" + inner + ("," + inner).join(map(_encode_text, value)) + "\n" + "  " * level + "]"
            return
        records = _flat_records(value, level + 1)
        if records is not None:
            template, columns = records
            yield "[" + inner
            for start in range(0, len(value), _BATCH):  # encoded a batch at a time: never all at once
                if start:
                    yield "," + inner
                yield ("," + inner).join(
                    map(
                        template.__mod__,
                        zip(*(map(encode, column[start : start + _BATCH]) for encode, column in columns)),
                    )
                )
            yield "\n" + "  " * level + "]"
            return
        yield "["
        for i, v in enumerate(value):
            yield ("," if i else "") + inner
            yield from json_chunks(v, level + 1)
        yield "\n" + "  " * level + "]"
        return
    yield json.dumps(value, ensure_ascii=False)


_BATCH = 50_000
_NONE = type(None)


def _encode_optional_text(value: str | None) -> str:
    return "null" if value is None else _encode_text(value)


def _flat_records(items: list[Any] | tuple[Any, ...], level: int) -> tuple[str, list[tuple[Any, list[Any]]]] | None:
    """For a list of dicts with the same string keys and only strings, ints and nulls as values: a `%`
    template of one indented record and, per key, its encoder and values; None for anything else."""
    first = items[0]
    if type(first) is not dict or not first or len(items) < 2:
        return None
    keys = tuple(first)
    if (
        not all(type(k) is str for k in keys)
        or set(map(type, items)) != {dict}
        or not all(map(keys.__eq__, map(tuple, items)))
    ):
        return None
    columns: list[tuple[Any, list[Any]]] = []
    for key in keys:
        column = list(map(itemgetter(key), items))
        kinds = set(map(type, column))
        if kinds <= {str}:
            columns.append((_encode_text, column))
        elif kinds <= {int}:
            columns.append((int.__repr__, column))
        elif kinds <= {str, _NONE}:
            columns.append((_encode_optional_text, column))
        else:
            return None
    pad = "\n" + "  " * (level + 1)
    template = (
        "{" + ",".join(pad + _encode_text(k).replace("%", "%%") + ": %s" for k in keys) + "\n" + "  " * level + "}"
    )
    return template, columns


_PLAIN = frozenset({str, int, bool, type(None)})


def _yaml() -> Any:
    """PyYAML, whose SafeDumper writes the model's states and kinds (StrEnum: Kafka's enums) as their text,
    as the JSON encoder does; it refuses any type it was not told of."""
    import yaml

    if StrEnum not in yaml.SafeDumper.yaml_multi_representers:
        yaml.SafeDumper.add_multi_representer(StrEnum, lambda dumper, data: dumper.represent_str(str(data)))
    return yaml


def write_lines(lines: list[str], out: Any) -> None:
    for start in range(0, len(lines), _BATCH):
        out.write("".join(line + "\n" for line in lines[start : start + _BATCH]))


class _NotPlainBlock(Exception):
    """A value `block_yaml` leaves to PyYAML: a float, a multi-line or long string, a complex key."""


def block_yaml(doc: dict[str, Any]) -> list[str] | None:
    """The lines `yaml.dump(doc, sort_keys=False, allow_unicode=True, width=120)` writes, for documents
    of dicts, lists, strings, ints, booleans and nulls; None when a value needs PyYAML's own judgement.

    Each distinct scalar's text is asked of PyYAML once (the same few thousand member ids, topics and
    ranges repeat across a million entries); the block structure is written here."""
    yaml = _yaml()

    cache: dict[tuple[Any, bool], str] = {}

    def scalar(value: Any, key: bool) -> str:
        kind = type(value)
        if kind not in _PLAIN and isinstance(value, StrEnum):  # a state or kind of the model: its text
            value, kind = str(value), str
        if kind is int:
            return int.__repr__(value)
        if kind is str:
            found = cache.get((value, key))
            if found is not None:
                return found
        elif kind is not bool and value is not None:
            raise _NotPlainBlock
        # A long text with spaces is kept on one line (PyYAML would fold it where the line passes 120).
        width = 1 << 20 if kind is str and len(value) > 60 and " " in value else 120
        text = yaml.dump({value: 0} if key else {"k": value}, Dumper=yaml.SafeDumper, allow_unicode=True, width=width)
        text = text[:-4] if key else text[3:-1]  # `TEXT: 0\n`, `k: TEXT\n`
        if "".join(text.splitlines()) != text or text.startswith("? "):  # any line break (\x85 too)
            raise _NotPlainBlock
        if kind is str and len(cache) < 100_000:
            cache[value, key] = text
        return text

    lines: list[str] = []

    def mapping(value: dict[Any, Any], pad: str, first: str) -> None:
        if (
            first == pad
            and len(value) > 8
            and set(map(type, value)) == {str}
            and set(map(type, value.values())) <= {str, int}
        ):
            # A member's topics and ranges: each text looked up by C, one line each by `%`.
            keys = list(map(cache.get, zip(value, repeat(True))))
            if None in keys:
                keys = [scalar(k, True) for k in value]
            kinds = set(map(type, value.values()))
            values = (
                list(map(int.__repr__, value.values()))
                if kinds == {int}
                else list(map(cache.get, zip(value.values(), repeat(False))))
                if kinds == {str}
                else [None]
            )
            if None in values:
                values = [scalar(v, False) for v in value.values()]
            lines.extend(map((pad + "%s: %s").__mod__, zip(keys, values)))
            return
        for i, (k, v) in enumerate(value.items()):
            head = (first if i == 0 else pad) + scalar(k, True) + ":"
            if isinstance(v, dict) and v:
                lines.append(head)
                mapping(v, pad + "  ", pad + "  ")
            elif isinstance(v, list) and v:
                lines.append(head)
                sequence(v, pad, pad)  # a list under a key is written at the key's indentation
            elif isinstance(v, (dict, list)):
                lines.append(head + (" {}" if isinstance(v, dict) else " []"))
            else:
                lines.append(head + " " + scalar(v, False))

    def sequence(value: list[Any], pad: str, first: str) -> None:
        if all(type(item) is int for item in value):
            lines.extend(map((pad + "- %d").__mod__, value))
            if first != pad:
                lines[-len(value)] = first + "- " + str(value[0])
            return
        for i, item in enumerate(value):
            head = (first if i == 0 else pad) + "- "
            if isinstance(item, dict) and item:
                mapping(item, pad + "  ", head)
            elif isinstance(item, list) and item:
                sequence(item, pad + "  ", head)
            elif isinstance(item, (dict, list)):
                lines.append(head + ("{}" if isinstance(item, dict) else "[]"))
            else:
                lines.append(head + scalar(item, False))

    try:
        mapping(doc, "", "")
    except _NotPlainBlock:
        return None
    return lines


_PLAIN_TEXT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*").fullmatch  # cacheable: repeats are common


def warn(message: str) -> None:
    """One physical line on stderr, whatever the width: logs and `grep` see the whole message."""
    from kgroup.inspectors.errors import one_line

    sys.stderr.write(one_line(message) + "\n")
    sys.stderr.flush()
