"""Bad fixtures give one line naming the file, the line, the field and what is wrong."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroup.inspectors.errors import InputError
from kgroup.inspectors.fixtures import fixture_from_doc, load_fixture, load_fixture_text
from kgroup.inspectors.yaml_doc import YamlDoc

GOOD = """\
schema: kgroup/v1
cluster:
  topics:
    - name: orders
      partitions: 3
    - name: payments
      partitions: 2
groups:
  - group_id: g
    assignors: [range]
    members:
      - member_id: c0
        topics: [orders, payments]
      - member_id: c1
        topics: [orders]
    assignment:
      c0: [orders-0, payments-0, payments-1]
      c1: [orders-1, orders-2]
"""


def error_of(text: str) -> InputError:
    with pytest.raises(InputError) as err:
        load_fixture_text(text, "f.yaml")
    return err.value


def test_the_good_fixture_loads() -> None:
    fixture = load_fixture_text(GOOD, "f.yaml")
    group = fixture.group(None)
    assert [m.member_id for m in group.members] == ["c0", "c1"]
    assert [str(tp) for tp in group.assignment.partitions_of("c1")] == ["orders-1", "orders-2"]
    assert [str(tp) for tp in group.members[1].owned] == ["orders-1", "orders-2"]
    assert fixture.warnings == ()


@pytest.mark.parametrize("text,line,field,words", [
    ("schema: kgroup/v1\ncluster: [\n", 3, None, "malformed YAML"),
    ("", None, None, "empty"),
    ("# only a comment\n", None, None, "empty"),
    (GOOD.replace("    assignors: [range]", "    assignors: [range]\n    colour: red"), 11, "groups[0].colour",
     "unknown key 'colour'"),
    (GOOD.replace("partitions: 3", "partitions: 0"), 5, "cluster.topics[0].partitions",
     "expected a positive integer, got 0"),
    (GOOD.replace("partitions: 3", "partitions: -2"), 5, "cluster.topics[0].partitions", "positive integer"),
    (GOOD.replace("member_id: c1", "member_id: c0"), 14, "groups[0].members[1].member_id",
     "duplicate member id 'c0'"),
    (GOOD.replace("c1: [orders-1, orders-2]", "c1: [orders-1, orders-7]"), 18, "groups[0].assignment.c1[1]",
     "orders-7 does not exist: orders has partitions 0..2"),
    (GOOD.replace("topics: [orders]\n", "topics: [orders]\n        owned: [payments-5]\n"), 16,
     "groups[0].members[1].owned[0]", "payments-5 does not exist: payments has partitions 0..1"),
    (GOOD.replace("assignors: [range]", "assignors: [rnage]"), 10, "groups[0].assignors[0]",
     "unknown assignor 'rnage'; known: range, roundrobin"),
    (GOOD.replace("schema: kgroup/v1", "schema: kgroup/v9"), 1, "schema", "unsupported schema"),
    (GOOD.replace("schema: kgroup/v1\n", ""), 1, None, "missing 'schema'"),
    (GOOD.replace("      c1: [orders-1", "      c9: [orders-1"), 18, "groups[0].assignment.c9",
     "'c9' is not a member of the group"),
    (GOOD.replace("partitions: 2", "partitions: two"), 7, "cluster.topics[1].partitions",
     "expected an integer, got a string"),
    (GOOD + "groups: []\n", 19, None, "duplicate key 'groups'"),
    (GOOD.replace("    assignment:\n      c0: [orders-0, payments-0, payments-1]\n      c1: [orders-1, orders-2]\n",
                  "    assignment: true\n"), 16, "groups[0].assignment", "expected a mapping, got a boolean"),
    (GOOD.replace("    members:\n", "    offsets: false\n    members:\n"), 11, "groups[0].offsets",
     "expected a mapping, got a boolean"),
])
def test_bad_input_is_one_precise_line(text: str, line: int | None, field: str | None, words: str) -> None:
    err = error_of(text)
    message = str(err)
    assert "\n" not in message
    assert message.startswith("f.yaml")
    assert err.line == line
    assert err.field == field
    assert words in message


def test_a_topic_missing_from_the_cluster_is_a_warning_like_in_kafka() -> None:
    fixture = load_fixture_text(GOOD.replace("topics: [orders]\n", "topics: [orders, audit]\n"), "f.yaml")
    assert len(fixture.warnings) == 1
    warning = fixture.warnings[0]
    assert "f.yaml:15: groups[0].members[1].topics[1]" in warning and "'audit' is not in the cluster" in warning


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        load_fixture(str(tmp_path / "nope.yaml"))
    assert str(err.value) == f"{tmp_path / 'nope.yaml'}: no such file"


# --- the loader only ever raises its own error, whatever the document looks like ---

VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**12), st.floats(allow_nan=False),
                   st.text(max_size=8), st.lists(st.integers(-1, 5), max_size=3),
                   st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))


def _paths(node: object, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, prefix + (i,))
    return found


def _mutate(doc: object, path: tuple, action: str, value: object) -> object:
    if not path:
        return value
    parent = doc
    for key in path[:-1]:
        parent = parent[key]  # type: ignore[index]
    if action == "delete":
        del parent[path[-1]]  # type: ignore[attr-defined]
    elif action == "rename" and isinstance(parent, dict):
        parent[str(value)] = parent.pop(path[-1])
    else:
        parent[path[-1]] = value  # type: ignore[index]
    return doc


BASE = yaml.safe_load(GOOD)
DEMO = yaml.safe_load((Path(__file__).parents[2] / "fixtures" / "demo.yaml").read_text())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([BASE, DEMO]), st.data())
def test_mutated_fixtures_only_raise_input_error(base: dict, data: st.DataObject) -> None:
    doc: object = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(doc)))
        action = data.draw(st.sampled_from(["replace", "delete", "rename"]))
        doc = _mutate(doc, path, action, data.draw(VALUES))
    try:
        fixture_from_doc(YamlDoc("m.yaml", doc))
    except InputError as err:
        assert "\n" not in str(err)
