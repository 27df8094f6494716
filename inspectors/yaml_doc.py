"""Read YAML into plain Python values while remembering the line of every value.

PyYAML's composer keeps source positions on nodes; constructing values ourselves from those nodes lets
every later validation error name the line, and lets us reject duplicate keys, which PyYAML accepts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from kgroup.inspectors.errors import InputError

Path = tuple[str | int, ...]


def format_path(path: Path) -> str | None:
    """`groups[0].members[2].owned[1]`; None for the document root, which has no field to name."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        name = part if part.isprintable() else repr(part)  # keys with newlines would break the one line
        text += f".{name}" if text else name
    return text or None


@dataclass
class YamlDoc:
    source: str
    data: Any
    lines: dict[Path, int] = field(default_factory=dict)

    def error(self, path: Path, message: str) -> InputError:
        """An error at `path`, with the nearest line YAML gave for it or an enclosing value."""
        line = None
        for cut in range(len(path), -1, -1):
            line = self.lines.get(path[:cut])
            if line is not None:
                break
        return InputError(message, self.source, line, format_path(path))


def _scalar(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    return loader.construct_object(node, deep=True)


def _build(loader: yaml.SafeLoader, node: yaml.Node, path: Path, doc: YamlDoc) -> Any:
    doc.lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _scalar(loader, key_node) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise InputError("mapping keys must be strings", doc.source, key_node.start_mark.line + 1,
                                 format_path(path))
            key = str(key)
            if key in result:
                raise InputError(f"duplicate key {key!r}", doc.source, key_node.start_mark.line + 1,
                                 format_path(path))
            result[key] = _build(loader, value_node, path + (key,), doc)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, item, path + (i,), doc) for i, item in enumerate(node.value)]
    return _scalar(loader, node)


def parse_yaml(text: str, source: str) -> YamlDoc:
    """Parse one YAML document; any YAML problem becomes one InputError line."""
    doc = YamlDoc(source, None)
    try:
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                raise InputError("the file is empty; expected a kgroup/v1 document", source)
            doc.data = _build(loader, node, (), doc)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = " ".join(str(p) for p in (exc.context, exc.problem) if p) or "malformed YAML"
        raise InputError(f"malformed YAML: {problem}", source, line) from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {exc}", source) from None
    except RecursionError:
        raise InputError("malformed YAML: nested too deeply", source) from None
    return doc


def read_yaml(path: str) -> YamlDoc:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a YAML file", path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None
    return parse_yaml(text, path)
