"""`kgroup assign --client librdkafka` as a user runs it: librdkafka's member order, its crash, no sticky.

Expected assignments are what librdkafka's own assignor code printed for the same input (the oracle in
tests/conformance/librdkafka_oracle); the crash input is a case of the vendored librdkafka set on which
real librdkafka 2.16.0 crashed.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.cli.helpers import run_json, run_process
from tests.conformance.cases import VENDORED

MIXED = """\
schema: kgroup/v1
cluster:
  topics:
    - {name: orders, partitions: 3}
groups:
  - group_id: orders-service
    assignors: [range]
    members:
      - {member_id: c-b, instance_id: pod-z, topics: [orders]}
      - {member_id: c-a, topics: [orders]}
      - {member_id: c-c, instance_id: pod-a, topics: [orders]}
"""


def _fixture_of_case(case_id: str, path: Path) -> Path:
    for line in (VENDORED / "librdkafka-cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            break
    else:
        raise AssertionError(f"{case_id} is not in the librdkafka set")
    members = []
    for m in case["input"]["members"]:
        member = {"member_id": m["member_id"], "topics": m["subscription"]}
        if m["group_instance_id"] is not None:
            member["instance_id"] = m["group_instance_id"]
        if m["owned"]:
            member["owned"] = [f"{t}-{p}" for t, p in m["owned"]]
            member["generation"] = m["generation"]
        members.append(member)
    path.write_text(
        yaml.safe_dump(
            {
                "schema": "kgroup/v1",
                "cluster": {
                    "topics": [{"name": t["name"], "partitions": t["partitions"]} for t in case["input"]["topics"]]
                },
                "groups": [{"group_id": "g", "assignors": [case["assignor"]], "members": members}],
            },
            sort_keys=False,
        )
    )
    return path


def test_mixed_static_and_dynamic_members_are_ordered_as_librdkafka_orders_them(tmp_path: Path) -> None:
    fixture = tmp_path / "mixed.yaml"
    fixture.write_text(MIXED)
    for assignor in ("range", "roundrobin"):
        got = run_json("assign", str(fixture), "-a", assignor, "--client", "librdkafka")["assignment"]
        assert got == {"c-a": ["orders-0"], "c-c": ["orders-1"], "c-b": ["orders-2"]}, assignor
    # Java sorts static members first by instance id (pod-a, pod-z), then dynamic ones.
    java = run_json("assign", str(fixture), "-a", "range")["assignment"]
    assert java == {"c-c": ["orders-0"], "c-b": ["orders-1"], "c-a": ["orders-2"]}


def test_an_input_that_crashes_librdkafka_is_one_clear_line_and_exit_1(tmp_path: Path) -> None:
    fixture = _fixture_of_case("seed7/cooperative-sticky-rnd-056", tmp_path / "crash.yaml")
    result = run_process("assign", str(fixture), "-a", "cooperative-sticky", "--client", "librdkafka")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "real librdkafka 2.16.0 crashes on this input" in result.stderr
    # Kafka's Java assignor has no such bug: the same input assigns.
    assert run_process("assign", str(fixture), "-a", "cooperative-sticky").returncode == 0


def test_sticky_is_refused_because_librdkafka_has_no_eager_sticky() -> None:
    result = run_process("assign", "demo", "-a", "sticky", "--client", "librdkafka")
    assert result.returncode == 1 and result.stdout == ""
    assert "librdkafka 2.16.0 has no 'sticky' assignor" in result.stderr
    assert "use --client java" in result.stderr and "Traceback" not in result.stderr
