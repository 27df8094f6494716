"""What-ifs on a share group (KIP-932, issue 38): `protocol: share` fixtures, the `simple` assignor run as the share
coordinator runs it, and the analyses that hold when several members hold one partition.

The expected assignments are Kafka 4.2.1's: `org.apache.kafka.coordinator.group.assignor.SimpleAssignor` run on
each what-if's group through tests/oracle/java/ShareAssignor.java (the oracle of
tests/oracle/test_share_simple_matches_kafka.py), the members in the order the share coordinator would hand them
over (MEMBER_ORDER) and each member's current target as its assignment, as
TargetAssignmentBuilder.ShareTargetAssignmentBuilder builds the GroupSpec.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgroup.assignors import registry
from kgroup.assignors.analysis.diff import Move, shared_diff
from kgroup.assignors.model import Assignment, TopicPartition
from kgroup.assignors.server.share_simple import (
    ShareSimpleAssignor,
    coordinator_member_order,
    timeline_capacity,
    timeline_slot,
)
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.fixtures.group_file import load_fixture_text
from kgroup.inspectors.simulation.whatif_run import simulate
from tests.cli.helpers import run, run_json

FIXTURE = """\
schema: kgroup/v1
cluster:
  topics:
    - {name: orders, partitions: 3, id: Soy0o7P6zmuyUdRt5HYnwQ}
    - {name: audit, partitions: 1, id: y6VruYNEABq5i_QQ1znMXQ}
    - {name: events, partitions: 5, id: 2CSnsp_QnXbIhvtfY6ouCw}
groups:
  - group_id: queue-workers
    protocol: share
    assignors: [simple]
    members:
      - {member_id: m1, topics: [orders, audit]}
      - {member_id: m2, topics: [orders, audit]}
      - {member_id: m3, topics: [orders, audit]}
      - {member_id: m4, topics: [orders, audit]}
      - {member_id: m5, topics: [orders, audit]}
    assignment:
      m1: {orders: [0], audit: [0]}
      m2: {orders: [1], audit: [0]}
      m3: {orders: [2]}
      m4: {orders: [0]}
      m5: {orders: [1, 2]}
"""


def _parts(*names: str) -> set[TopicPartition]:
    return {TopicPartition.parse(n) for n in names}


# Kafka's SimpleAssignor on each what-if (the oracle), member by member.
KAFKA = {
    "none": {
        "m1": _parts("audit-0", "orders-0"),
        "m2": _parts("audit-0", "orders-1"),
        "m3": _parts("orders-2"),
        "m4": _parts("orders-0", "orders-2"),
        "m5": _parts("orders-1"),
    },
    "add m6": {
        "m1": _parts("audit-0", "orders-0"),
        "m2": _parts("audit-0"),
        "m3": _parts("orders-2"),
        "m4": _parts("orders-0", "orders-2"),
        "m5": _parts("orders-1"),
        "m6": _parts("orders-1"),
    },
    "remove m5": {
        "m1": _parts("orders-1"),
        "m2": _parts("audit-0"),
        "m3": _parts("orders-2"),
        "m4": _parts("orders-0"),
    },
    "orders grows to 5": {
        "m1": _parts("orders-3", "orders-4"),
        "m2": _parts("audit-0"),
        "m3": _parts("orders-2"),
        "m4": _parts("orders-0"),
        "m5": _parts("orders-1"),
    },
    "m1 subscribes to orders, events": {
        "m1": _parts("events-0", "events-1", "events-2", "events-3", "events-4", "orders-0", "orders-1"),
        "m2": _parts("audit-0", "orders-1"),
        "m3": _parts("audit-0", "orders-2"),
        "m4": _parts("audit-0", "orders-0"),
        "m5": _parts("audit-0", "orders-2"),
    },
}
# The order the coordinator's member map gives these ids (BaseHashTable slots: 8 entries once a sixth member
# joins, 4 for five members; newest first within a slot), which the oracle's GroupSpec HashMap was filled in.
MEMBER_ORDER = {"add m6": ["m5", "m2", "m4", "m1", "m6", "m3"], "others": ["m2", "m5", "m4", "m1", "m3"]}

FLAGS = {
    "none": {},
    "add m6": {"add_members": ["m6"]},
    "remove m5": {"remove_members": ["m5"]},
    "orders grows to 5": {"add_partitions": ["orders=5"]},
    "m1 subscribes to orders, events": {"subscribe": ["m1=orders,events"]},
}


@pytest.mark.parametrize("what", list(KAFKA))
def test_share_what_if_is_kafkas_simple_assignor(what: str) -> None:
    fixture = load_fixture_text(FIXTURE)
    flags = FLAGS[what]
    sim = simulate(
        fixture,
        None,
        [],
        flags.get("add_members", []),
        flags.get("remove_members", []),
        flags.get("add_partitions", []),
        flags.get("subscribe", []),
    )
    (run_,) = sim.runs
    assert run_.assignor == "share-simple" and not run_.violations
    assert run_.assignment is not None
    assert {m: set(p) for m, p in run_.assignment.owners.items()} == KAFKA[what]
    order = MEMBER_ORDER["add m6" if what == "add m6" else "others"]
    assert [m for m in run_.assignment.owners] == [m for m in order if m in KAFKA[what]]


def test_a_share_fixture_loads_a_partition_held_by_several_members() -> None:
    group = load_fixture_text(FIXTURE).groups[0]
    assert group.protocol == "share" and group.assignors == ("share-simple",)
    assert group.assignment.owner_map()[TopicPartition("audit", 0)] == ["m1", "m2"]


@pytest.mark.parametrize(
    ("header", "field", "problem"),
    [
        ("protocol: share\n    assignors: [share-simple]", "", None),
        ("protocol: share", "", None),  # simple by default
        ("protocol: share\n    assignors: [range]", "groups[0].assignors[0]", "unknown share assignor 'range'"),
        ("protocol: consumer\n    assignors: [share-simple]", "groups[0].assignors[0]", "is a share group's assignor"),
        ("protocol: classic\n    assignors: [simple]", "groups[0].assignors[0]", "is a share group's assignor"),
    ],
)
def test_share_assignors_only_in_share_groups(header: str, field: str, problem: str | None) -> None:
    text = FIXTURE.replace("protocol: share\n    assignors: [simple]", header)
    if problem is None:
        assert load_fixture_text(text).groups[0].assignors == ("share-simple",)
        return
    with pytest.raises(InputError) as raised:
        load_fixture_text(text)
    assert problem in str(raised.value) and field in str(raised.value)


def test_a_share_member_has_no_static_membership() -> None:
    text = FIXTURE.replace("{member_id: m3,", "{member_id: m3, instance_id: i3,")
    with pytest.raises(InputError) as raised:
        load_fixture_text(text)
    assert "groups[0].members[2].instance_id" in str(raised.value)


def test_a_bad_share_fixture_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(FIXTURE.replace("assignors: [simple]", "assignors: [uniform]"))
    result = run("simulate", str(path))
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "assignors" in lines[0] and "uniform" in lines[0], result.output


def test_share_simple_is_not_a_consumer_groups_assignor() -> None:
    """The common assignor properties (tests/assignors/test_properties.py) run every name known_names() gives and
    assume one owner per partition; share-simple is registered apart and never among them."""
    assert "share-simple" not in registry.known_names()
    assert isinstance(registry.share_builtin("simple"), ShareSimpleAssignor)
    assert registry.share_builtin("share-simple") is registry.share_builtin("simple")
    assert registry.share_builtin("uniform") is None
    result = run("simulate", "demo", "--assignor", "share-simple")
    assert result.exit_code == 2 and "share group" in result.output


def test_moves_are_counted_per_holder() -> None:
    """orders-0 held by a, b: b hands it to c (a move), a keeps it; orders-1 gains a sharer d (no move); orders-2
    loses its second holder e (no move)."""
    tp0, tp1, tp2 = (TopicPartition("orders", p) for p in range(3))
    old = Assignment.of({"a": [tp0], "b": [tp0], "d": [], "e": [tp2], "f": [tp1, tp2]})
    new = Assignment.of({"a": [tp0], "c": [tp0], "d": [tp1], "f": [tp1, tp2]})
    change = shared_diff(old, new)
    assert set(change.moves) == {Move(tp0, "b", "c"), Move(tp1, None, "d"), Move(tp2, "e", None)}
    assert change.moved == 1


def test_the_share_what_if_says_what_applies(tmp_path: Path) -> None:
    path = tmp_path / "share.yaml"
    path.write_text(FIXTURE)
    body = run_json("simulate", str(path), "--remove-member", "m5")
    (result,) = body["results"]
    share = result["share"]
    # remove m5 (Kafka's answer above): orders-1 goes from m2 and m5 to m1 alone, orders-2 from m3 and m5 to m3,
    # orders-0 from m1 and m4 to m4, audit-0 from m1 and m2 to m2: one holder each, nothing unconsumed.
    assert share["shared_partitions"] == 0 and share["unconsumed"] == []
    assert share["holders"] == {"audit-0": 1, "orders-0": 1, "orders-1": 1, "orders-2": 1}
    assert "kafka_balanced" in share["not_applicable"]
    assert {(m["partition"], m["from"], m["to"]) for m in result["moves"]} == {
        ("audit-0", "m1", None),
        ("orders-0", "m1", None),
        ("orders-1", "m2", "m1"),
        ("orders-1", "m5", None),
        ("orders-2", "m5", None),
    }


def test_explain_says_simple_records_no_explanations(tmp_path: Path) -> None:
    path = tmp_path / "share.yaml"
    path.write_text(FIXTURE)
    body = run_json("explain", str(path), "--add-member", "m6")
    (result,) = body["results"]
    assert result["explanations"] is None
    assert "not recorded for simple" in result["explanations_note"]
    table = run("explain", str(path), "--add-member", "m6")
    assert table.exit_code == 0 and "explanations are not recorded for simple" in table.stdout


def test_assign_runs_simple_on_a_share_fixture(tmp_path: Path) -> None:
    path = tmp_path / "share.yaml"
    path.write_text(FIXTURE)
    body = run_json("assign", str(path))
    assert body["assignor"] == "share-simple"
    assert {m: {TopicPartition.parse(p) for p in parts} for m, parts in body["assignment"].items()} == KAFKA["none"]


def test_a_newcomer_is_first_in_its_slot() -> None:
    """BaseHashTable keeps a slot's members in insertion order and the current iterator walks a slot from its
    end: a newcomer whose slot is shared comes before the members already there, and after earlier slots."""
    present = ["m5", "m2", "m4", "m1", "m3"]  # in slot order at 8 entries (MEMBER_ORDER["add m6"] without m6)
    capacity = timeline_capacity(6)
    assert capacity == 8  # 2, doubled at the 3rd entry and at the 6th (size * 0.75 > length)
    newcomer = next(f"n{i}" for i in range(1000) if timeline_slot(f"n{i}", capacity) == timeline_slot("m4", capacity))
    order = coordinator_member_order(present, [newcomer])
    same_slot = [m for m in present if timeline_slot(m, capacity) == timeline_slot(newcomer, capacity)]
    assert order.index(newcomer) == order.index(same_slot[0]) - 1
    assert [m for m in order if m != newcomer] == present


def test_diff_counts_moves_per_holder_on_share_assignments(tmp_path: Path) -> None:
    """The fixture against Kafka's own answer on it (KAFKA["none"]): m5 hands orders-2 to m4 while m3 keeps it, and
    every other holding stays: one move, where a first-owner diff would count the shared partitions' owners."""
    path = tmp_path / "share.yaml"
    path.write_text(FIXTURE)
    saved = run("assign", str(path), "-o", "yaml")
    assert saved.exit_code == 0, saved.output
    (tmp_path / "simple.yaml").write_text(saved.stdout)
    body = run_json("diff", str(path), str(tmp_path / "simple.yaml"))
    assert body["moved"] == 1
    assert [(m["partition"], m["from"], m["to"]) for m in body["moves"]] == [("orders-2", "m5", "m4")]


def test_check_and_the_assignor_list_speak_of_share_groups(tmp_path: Path) -> None:
    path = tmp_path / "share.yaml"
    path.write_text(FIXTURE)
    checked = run_json("check", str(path), "--add-member", "m6")
    (valid,) = [c for c in checked["checks"] if c["name"] == "valid"]
    # a share group may give a partition to several members: "exactly once" is not the rule it is held to
    assert valid["ok"] and "exactly once" not in valid["expected"] and "shared" in valid["expected"]
    listed = {a["name"]: a for a in run_json("assignors")["assignors"]}
    assert listed["share-simple"]["protocol"] == "share"
    assert all(a["protocol"] != "share" for name, a in listed.items() if name != "share-simple")
