"""`-o json` is written by kgroup's own encoder for speed; it must match the standard library's, byte for byte."""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.cli.output import indented_json, write_json

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=30)
records = st.lists(st.fixed_dictionaries({"partition": st.text(max_size=6), "from": st.none() | st.text(max_size=4),
                                          "to %s": st.none() | st.text(max_size=4), "n": st.integers()}),
                   min_size=0, max_size=6)


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
    rows = [{"partition": f"t-{i}", "from": None if i % 7 == 0 else f"c{i % 13}", "to": "c\u00e9\"%s"}
            for i in range(120_000)]
    doc = {"schema": "kgroup/v1", "moves": rows, "names": [r["partition"] for r in rows]}
    out = io.StringIO()
    write_json(doc, out)
    assert out.getvalue() == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
