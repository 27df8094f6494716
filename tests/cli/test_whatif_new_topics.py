"""Every topic a what-if touches is known (issue 33): offline, a what-if that subscribes a member to a topic
the fixture does not list is refused with how to give its size (--add-topic), never answered as if the topic
had no partitions; a topic the cluster truly lacks is shown as such, with a warning.

Also issue 32's `--add-partitions T=+0`: Kafka's CreatePartitions refuses a count that is not greater than
the current one (INVALID_PARTITIONS), and so does kgroup.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run, run_json

# demo: orders (6 partitions) and payments (4), three members subscribed to both.
MEMBER = "orders-service-0-5f1c9a"


def _refused(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgroup: error: "), result.stderr
    return lines[0]


def _parts(listed: list[str]) -> set[tuple[str, int]]:
    return {(t, int(p)) for t, p in (tp.rsplit("-", 1) for tp in listed)}


@pytest.mark.parametrize(
    "args,flag",
    [
        (["simulate", "demo", "--add-member", "c4=orders,audit"], "--add-member"),
        (["simulate", "demo", "--subscribe", f"{MEMBER}=orders,audit"], "--subscribe"),
        (["check", "demo", "--add-member", "c4=audit", "--max-imbalance", "10"], "--add-member"),
        (["explain", "demo", "--add-member", "c4=payments,audit"], "--add-member"),
    ],
)
def test_a_topic_the_fixture_does_not_list_is_asked_for(args: list[str], flag: str) -> None:
    line = _refused(*args)
    assert flag in line and "'audit'" in line and "--add-topic audit=N" in line


def test_no_plan_is_written_for_a_refused_what_if(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    _refused("simulate", "demo", "--add-member", "c4=audit", "--save-plan", str(plan))
    assert not plan.exists()


@pytest.mark.parametrize("assignor", ["range", "roundrobin", "cooperative-sticky"])
@pytest.mark.parametrize("client", ["java", "librdkafka"])
def test_a_newcomer_gets_every_partition_of_a_topic_only_it_subscribes_to(assignor: str, client: str) -> None:
    doc = run_json(
        "simulate",
        "demo",
        "-a",
        assignor,
        "--client",
        client,
        "--add-member",
        "c4=payments,audit",
        "--add-topic",
        "audit=5",
    )
    assert [c["kind"] for c in doc["changes"]] == ["add-member", "add-topic"]
    assert doc["changes"][1]["topic"] == "audit" and doc["changes"][1]["partitions"] == 5
    (result,) = doc["results"]
    assert result["valid"] is True
    owned = {m: _parts(p) for m, p in result["assignment"].items()}
    # The only subscriber of a topic gets all of it, whatever the assignor (every partition is assigned).
    assert {tp for tp in owned["c4"] if tp[0] == "audit"} == {("audit", p) for p in range(5)}
    assert not any(tp[0] == "audit" for m, parts in owned.items() if m != "c4" for tp in parts)
    assert doc["warnings"] == [] and doc["unknown_topics"] == {}


def test_a_subscription_change_to_a_created_topic() -> None:
    doc = run_json("simulate", "demo", "-a", "range", "--subscribe", f"{MEMBER}=orders,audit", "--add-topic", "audit=3")
    owned = _parts(doc["results"][0]["assignment"][MEMBER])
    assert {tp for tp in owned if tp[0] == "audit"} == {("audit", 0), ("audit", 1), ("audit", 2)}
    # It no longer subscribes to payments, so none of payments stays with it.
    assert not any(tp[0] == "payments" for tp in owned)


def test_the_table_says_the_topic_is_created() -> None:
    result = run("simulate", "demo", "--add-member", "c4=audit", "--add-topic", "audit=2")
    assert result.exit_code == 0, result.output
    assert "audit is created with 2 partitions" in result.stdout


@pytest.mark.parametrize(
    "spec,words",
    [
        ("orders=4", "'orders' already exists with 6 partitions"),
        ("audit=0", "at least 1 partition"),
        ("audit", "expected TOPIC=N"),
        ("audit=many", "expected TOPIC=N"),
        ("a b=2", "not a legal topic name"),
        ("audit=10000000", "at most"),
    ],
)
def test_bad_add_topic(spec: str, words: str) -> None:
    line = _refused("simulate", "demo", "--add-topic", spec)
    assert "--add-topic" in line and words in line


def test_a_topic_given_twice_is_refused() -> None:
    assert "given twice" in _refused("simulate", "demo", "--add-topic", "audit=2", "--add-topic", "audit=3")


@pytest.mark.parametrize("spec", ["orders=+0", "orders=6"])
def test_add_partitions_that_grow_nothing_are_refused(spec: str) -> None:
    line = _refused("simulate", "demo", "--add-partitions", spec)
    assert "--add-partitions" in line and "already has 6 partitions" in line and "INVALID_PARTITIONS" in line
    assert "grows to" not in line


def test_a_created_topic_can_be_grown_in_the_same_what_if() -> None:
    doc = run_json(
        "simulate",
        "demo",
        "-a",
        "range",
        "--add-member",
        "c4=audit",
        "--add-topic",
        "audit=2",
        "--add-partitions",
        "audit=+3",
    )
    assert _parts(doc["results"][0]["assignment"]["c4"]) == {("audit", p) for p in range(5)}


def test_growing_an_unknown_topic_points_at_add_topic() -> None:
    assert "--add-topic audit=N" in _refused("simulate", "demo", "--add-partitions", "audit=+2")


def test_a_plan_carries_the_created_topic(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    flags = ["-a", "roundrobin", "--add-member", "c4=orders,audit", "--add-topic", "audit=4"]
    planned = run_json("simulate", "demo", *flags, "--save-plan", str(plan))
    assert yaml.safe_load(plan.read_text())["what_if"]["add_topic"] == ["audit=4"]
    replayed = run_json("simulate", str(plan))
    assert replayed["results"][0]["assignment"] == planned["results"][0]["assignment"]
    checked = run("check", str(plan), "--max-imbalance", "100")
    assert checked.exit_code == 0, checked.output


MISSING = """\
schema: kgroup/v1
cluster:
  topics:
    - {name: orders, partitions: 4}
groups:
  - group_id: g
    protocol: classic
    assignors: [range]
    members:
      - {member_id: m1, topics: [orders, ghost]}
      - {member_id: m2, topics: [orders]}
"""


def test_a_member_subscribed_to_a_missing_topic_is_shown(tmp_path: Path) -> None:
    fixture = tmp_path / "f.yaml"
    fixture.write_text(MISSING)
    doc = run_json("simulate", str(fixture), "--add-member", "m3=orders")
    assert doc["unknown_topics"] == {"ghost": ["m1"]}
    assert any("ghost" in w for w in doc["warnings"])
    owned = {m: _parts(p) for m, p in doc["results"][0]["assignment"].items()}
    assert set().union(*owned.values()) == {("orders", p) for p in range(4)}


def test_a_live_plan_with_a_topic_the_cluster_lacks_replays_with_a_warning(tmp_path: Path) -> None:
    """A live what-if whose newcomer subscribes to a topic that does not exist saves it as `absent_topic`:
    replayed offline, the newcomer gets nothing of it, and kgroup says why."""
    fixture_doc = yaml.safe_load(MISSING.replace(", ghost", ""))
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "schema": "kgroup/v1",
                "kind": "plan",
                "group_id": "g",
                "what_if": {"add_member": ["m3=orders,nope"], "absent_topic": ["nope"]},
                "cluster": fixture_doc["cluster"],
                "groups": fixture_doc["groups"],
            }
        )
    )
    result = run("simulate", str(plan), "-o", "json")
    assert result.exit_code == 0, result.output
    assert "'nope' does not exist" in result.stderr and "UNKNOWN_TOPIC_OR_PART" in result.stderr
    doc = json.loads(result.stdout)
    assert doc["unknown_topics"] == {"nope": ["m3"]}
    assert any("'nope' does not exist" in w for w in doc["warnings"])
    owned = {m: _parts(p) for m, p in doc["results"][0]["assignment"].items()}
    assert set().union(*owned.values()) == {("orders", p) for p in range(4)}
    # The same what-if without the live read's knowledge is refused offline.
    text = yaml.safe_load(plan.read_text())
    del text["what_if"]["absent_topic"]
    plan.write_text(yaml.safe_dump(text))
    assert "--add-topic nope=N" in _refused("simulate", str(plan))


def test_check_warns_about_a_planned_subscription_to_a_missing_topic(tmp_path: Path) -> None:
    fixture_doc = yaml.safe_load(MISSING.replace(", ghost", ""))
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "schema": "kgroup/v1",
                "kind": "plan",
                "group_id": "g",
                "what_if": {"subscribe": ["m2=orders,nope"], "absent_topic": ["nope"]},
                "cluster": fixture_doc["cluster"],
                "groups": fixture_doc["groups"],
            }
        )
    )
    result = run("check", str(plan), "--max-imbalance", "100")
    assert result.exit_code == 0, result.output
    assert "'nope' does not exist" in result.stderr
