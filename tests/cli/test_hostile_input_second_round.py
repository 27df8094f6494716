"""The families a second fuzz run over every reader found (issue 36's stop of 2026-11-28): each refused with
one line naming the file and the field, exit 2, in bounded time and memory, and nothing half-written.

The runner (a forked child under a memory limit and a cpu-time limit) is test_hostile_input's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.cli.test_hostile_input import assert_refused, fixture_text, run_bounded

SCENARIO = fixture_text(partitions="2", extra="kind: scenario\nevents: ['crash c1 at 1s']\n")


def _scenario(tmp_path: Path, extra: str = "", description: str | None = None) -> None:
    text = SCENARIO + extra
    if description is not None:
        text = f"description: {description}\n" + text
    (tmp_path / "s.yaml").write_text(text)


@pytest.mark.parametrize("value", ['"a\\ud800b"', '"\\U0000dfff"'])
def test_a_lone_surrogate_is_refused_where_it_is_read_and_no_output_file_stays(tmp_path: Path, value: str) -> None:
    _scenario(tmp_path, description=value)
    line = assert_refused(run_bounded("simulate", "s.yaml", "--timeline-out", "t.html", cwd=tmp_path))
    assert line.startswith("kgroup: error: s.yaml:1: description: not valid Unicode"), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]  # no .kgroup-* temporary left


def test_a_lone_surrogate_in_a_json_key(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(
        '{"schema": "kgroup/v1", "kind": "assignment", "assignment": {"c\\ud800": ["orders-0"]}}'
    )
    line = assert_refused(run_bounded("diff", "a.json", "a.json", cwd=tmp_path))
    assert "a.json" in line and "assignment" in line and "surrogate" in line


@pytest.mark.parametrize("description", ["-1", "2.5", "true", "[1, 2]", "{a: 1}", "2026-11-28"])
def test_a_scenario_description_that_is_not_text(tmp_path: Path, description: str) -> None:
    _scenario(tmp_path, description=description)
    line = assert_refused(run_bounded("simulate", "s.yaml", "--timeline-out", "t.html", cwd=tmp_path))
    assert "s.yaml:1: description: expected a string" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]


@pytest.mark.parametrize(
    "setting",
    ["group.consumer.heartbeat.interval.ms", "group.consumer.session.timeout.ms", "classic.new.member.join.timeout.ms"],
)
def test_broker_timers_of_zero(tmp_path: Path, setting: str) -> None:
    """Kafka defines the group.consumer.* settings atLeast(1); a 0 ms timer would fire at its own instant forever."""
    _scenario(tmp_path, extra=f"broker: {{{setting}: 0}}\n")
    line = assert_refused(run_bounded("simulate", "s.yaml", "--protocol", "classic-eager,consumer", cwd=tmp_path))
    assert f"broker.{setting}: must be at least 1 ms" in line


def test_heartbeats_past_what_a_run_can_simulate(tmp_path: Path) -> None:
    _scenario(tmp_path, extra="duration: 168h\nclients: {default: {heartbeat.interval.ms: 1}}\n")
    line = assert_refused(run_bounded("simulate", "s.yaml", cwd=tmp_path))
    assert "duration: the run would simulate about 604,800,000 heartbeats" in line


def test_a_partition_owned_twice_under_the_consumer_protocol(tmp_path: Path) -> None:
    text = (
        "schema: kgroup/v1\nkind: scenario\ncluster: {topics: [{name: orders, partitions: 2}]}\n"
        "groups: [{group_id: g, members: [{member_id: c1, topics: [orders]}, {member_id: c2, topics: [orders]}],"
        " assignment: {c1: [orders-0], c2: [orders-0, orders-1]}}]\nevents: ['crash c1 at 1s']\n"
    )
    (tmp_path / "s.yaml").write_text(text)
    line = assert_refused(run_bounded("simulate", "s.yaml", "--protocol", "consumer", cwd=tmp_path))
    assert "s.yaml: the starting assignment gives orders-0 to both c1 and c2" in line


def _saved(tmp_path: Path, **fields: object) -> None:
    document = {"schema": "kgroup/v1", "kind": "assignment", "group_id": "g", "assignment": {"c1": ["orders-0"]}}
    document.update(fields)
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(document))


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"assignment": {"c1": {f"t{i}": "0-999999" for i in range(60)}}}, "more than 2000000 partitions"),
        ({"group_id": [1, 2]}, "group_id: expected a string"),
        ({"assignor": {"x": "y"}}, "assignor: expected a string"),
        ({"assignment": {"c1": ["bad topic!-0"]}}, "is not a legal topic name"),
        ({"assignment": {"c1": {"": [0]}}}, "must not be empty"),
        ({"assignment": {"c\x01": ["orders-0"]}}, "non-printable character"),
    ],
)
def test_saved_assignments_are_read_as_strictly_as_fixtures(
    tmp_path: Path, fields: dict[str, object], expected: str
) -> None:
    _saved(tmp_path, **fields)
    line = assert_refused(run_bounded("diff", "a.yaml", "a.yaml", cwd=tmp_path))
    assert line.startswith("kgroup: error: a.yaml:") and expected in line, line


@pytest.mark.parametrize(
    ("what_if", "field"),
    [
        ({"client": "bogus"}, "what_if.client: unknown client 'bogus'"),
        ({"assignor": ["nosuchmodule:X"]}, "what_if.assignor: cannot import 'nosuchmodule'"),
        ({"remove_member": ["nobody"]}, "what_if.remove_member: group 'g' has no member 'nobody'"),
        ({"add_partitions": ["orders=-3"]}, "what_if.add_partitions:"),
    ],
)
def test_a_plans_what_if_is_named_as_the_plans(tmp_path: Path, what_if: dict[str, object], field: str) -> None:
    plan = yaml.safe_load(fixture_text())
    plan.update({"kind": "plan", "group_id": "g", "what_if": what_if})
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(plan))
    line = assert_refused(run_bounded("check", "p.yaml", cwd=tmp_path))
    assert line.startswith("kgroup: error: p.yaml: ") and field in line, line
    assert "--" not in line.split(": ", 3)[2]  # no command-line flag is blamed


def test_a_fixtures_own_user_assignor_that_cannot_be_imported(tmp_path: Path) -> None:
    (tmp_path / "f.yaml").write_text(
        fixture_text().replace("  - group_id: g\n", "  - group_id: g\n    assignors: ['nosuchmodule:X']\n")
    )
    line = assert_refused(run_bounded("simulate", "f.yaml", "--add-member", "c2", cwd=tmp_path))
    assert "f.yaml: groups[0].assignors[0]: cannot import 'nosuchmodule'" in line


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            "current_profile: [1]\nprofiles: {p: {bootstrap_servers: 'h:1'}}\n",
            "current_profile: expected a profile name",
        ),
        ("profiles: [1]\ncurrent_profile: p\n", "profiles: expected a mapping"),
        ("- 1\n", "expected a mapping with profiles"),
        ("profiles: {p: null}\ncurrent_profile: p\n", "profiles.p: expected a mapping"),
        ("profiles: {p: {bootstrap_server: 'h:1'}}\ncurrent_profile: p\n", "unknown key 'bootstrap_server'"),
        ("profiles: {p: {bootstrap_servers: [1, 2]}}\ncurrent_profile: p\n", "profiles.p.bootstrap_servers: expected"),
    ],
)
def test_profile_files_of_the_wrong_shape(tmp_path: Path, config: str, expected: str) -> None:
    (tmp_path / "config.yaml").write_text(config)
    outcome = run_bounded("groups", cwd=tmp_path, env={"KGROUP_CONFIG_DIR": str(tmp_path)})
    line = assert_refused(outcome)
    assert "config.yaml" in line and expected in line, line


def test_a_long_value_is_echoed_clipped(tmp_path: Path) -> None:
    (tmp_path / "k.yaml").write_text("schema: kgroup/v1\nkind: " + "x" * 100_000 + "\n")
    line = assert_refused(run_bounded("check", "k.yaml", cwd=tmp_path))
    assert len(line) < 300 and "..." in line
