"""`-o json` and a large `-o yaml` are written by kgroup's own writers for speed; they must write what the
standard library's JSON encoder and PyYAML write, byte for byte."""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

import yaml

from kgroup.cli.output import block_yaml, indented_json, write_json

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)
records = st.lists(
    st.fixed_dictionaries(
        {
            "partition": st.text(max_size=6),
            "from": st.none() | st.text(max_size=4),
            "to %s": st.none() | st.text(max_size=4),
            "n": st.integers(),
        }
    ),
    min_size=0,
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(values)
def test_any_document_is_written_as_json_dumps_writes_it(value: object) -> None:
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


@settings(max_examples=100, deadline=None)
@given(records, st.integers(min_value=0, max_value=3))
def test_lists_of_flat_records_are_written_as_json_dumps_writes_them(rows: list[dict], depth: int) -> None:
    value: object = {"moves": rows, "other": [{"a": 1}, {"a": None, "b": "x"}], "mixed": [{"a": True}, {"a": 1}]}
    for _ in range(depth):
        value = [value, {"k": value}]
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_a_long_document_streams_to_the_same_text() -> None:
    rows = [
        {"partition": f"t-{i}", "from": None if i % 7 == 0 else f"c{i % 13}", "to": 'c\u00e9"%s'}
        for i in range(120_000)
    ]
    doc = {"schema": "kgroup/v1", "moves": rows, "names": [r["partition"] for r in rows]}
    out = io.StringIO()
    write_json(doc, out)
    assert out.getvalue() == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _pyyaml(doc: dict) -> str:
    return yaml.dump(doc, Dumper=yaml.SafeDumper, sort_keys=False, allow_unicode=True, width=120)


yaml_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.sampled_from(["yes", "0-11", "1_000", "a: b", "- x", "#", "", "2024-01-02", "null", "0o7", "é"])
)
yaml_values = st.recursive(
    yaml_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.sampled_from(["0", "on", "a b"]), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=5), yaml_values, min_size=1, max_size=4))
def test_block_yaml_writes_what_pyyaml_writes_or_leaves_it_to_pyyaml(doc: dict) -> None:
    lines = block_yaml(doc)
    if lines is not None:
        assert "".join(line + "\n" for line in lines) == _pyyaml(doc)


def test_a_large_assignment_document_is_written_by_block_yaml() -> None:
    doc = {
        "schema": "kgroup/v1",
        "kind": "assignment",
        "group_id": "scale",
        "assignor": "sticky",
        "assignment": {
            f"consumer-{c:04d}": {f"topic-{t:03d}": (c if t % 2 else f"{c}-{c + 3}") for t in range(50)}
            for c in range(200)
        },
        "threads": {"c": [1, 2, 3], "d": [[1, 2], {"x": None}]},
        "note": "a long line " * 20,
    }
    lines = block_yaml(doc)
    assert lines is not None
    text = "".join(line + "\n" for line in lines)
    assert yaml.safe_load(text) == doc
    # Byte for byte up to the long note, which is kept on one line where PyYAML folds it.
    assert text.split("note:")[0] == _pyyaml(doc).split("note:")[0]
