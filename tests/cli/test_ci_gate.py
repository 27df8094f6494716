"""`kgroup check` as a CI gate: planned states, saved plans, balance per subscription, scenarios, several
files with one exit code, JUnit and GitHub annotations; and what every command's output looks like in a pipe."""

from __future__ import annotations

import json
import re
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest
import yaml

from kgroup.cli.app import COMMANDS
from tests.cli.helpers import FIXTURES, run, run_json, run_process

SCALE_OUT = [
    "-a",
    "cooperative-sticky",
    "--add-member",
    "c4",
    "--remove-member",
    "orders-service-2-c03d17",
    "--add-partitions",
    "payments=+1",
]


def _check(name: str, doc: dict) -> dict:
    return next(c for c in doc["checks"] if c["name"] == name)


def test_check_takes_the_what_if_flags_of_simulate_and_judges_the_planned_state() -> None:
    simulated = run_json("simulate", "demo", *SCALE_OUT)["results"][0]
    checked = run("check", "demo", *SCALE_OUT, "--max-imbalance", "0", "--max-moves", "100", "-o", "json")
    assert checked.exit_code == 3, checked.output  # 11 partitions on 3 members: a spread of 0 is impossible
    doc = json.loads(checked.stdout)
    imbalance = _check("max-imbalance", doc)
    assert imbalance["assignor"] == "cooperative-sticky" and imbalance["planned"] is True
    spread = simulated["balance"]["spread"]
    assert imbalance["actual"].startswith(f"{spread} (members hold {simulated['balance']['min']}..")
    assert _check("max-moves", doc)["actual"] == str(simulated["moved"])


def test_a_saved_plan_round_trips_through_check_diff_and_simulate(tmp_path) -> None:  # type: ignore[no-untyped-def]
    plan = tmp_path / "scale-out.yaml"
    direct = run_json("simulate", "demo", *SCALE_OUT, "--save-plan", str(plan))
    saved = yaml.safe_load(plan.read_text())
    assert saved["kind"] == "plan" and saved["what_if"]["add_member"] == ["c4"]

    from_plan = run("check", str(plan), "--min-stickiness", "50%", "-o", "json")
    from_flags = run("check", "demo", *SCALE_OUT, "--min-stickiness", "50%", "-o", "json")
    assert from_plan.exit_code == from_flags.exit_code == 0, from_plan.output
    assert (
        _check("min-stickiness", json.loads(from_plan.stdout))["actual"]
        == _check("min-stickiness", json.loads(from_flags.stdout))["actual"]
    )

    diffed = run_json("diff", "demo", str(plan))
    assert diffed["moved"] == direct["results"][0]["moved"]
    replayed = run_json("simulate", str(plan))
    assert replayed["results"][0]["assignment"] == direct["results"][0]["assignment"]


def test_a_plan_that_cannot_run_is_not_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    plan = tmp_path / "plan.yaml"
    result = run("simulate", "demo", "--remove-member", "ghost", "--save-plan", str(plan))
    assert result.exit_code == 2 and not plan.exists()


def test_a_simulation_result_is_refused_with_what_to_give_instead(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = tmp_path / "sim.yaml"
    result.write_text(run("simulate", "demo", "-o", "yaml").stdout)
    checked = run("check", str(result))
    assert checked.exit_code == 2 and "--save-plan" in checked.stderr and checked.stderr.count("\n") == 1


MIXED = textwrap.dedent("""
    schema: kgroup/v1
    cluster:
      topics: [{name: big, partitions: 8}, {name: small, partitions: 1}]
    groups:
      - group_id: mixed
        assignors: [roundrobin]
        members:
          - {member_id: a, topics: [big]}
          - {member_id: b, topics: [big]}
          - {member_id: c, topics: [small]}
""")


def test_balance_is_judged_per_subscription_by_default_and_over_the_group_on_request(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mixed.yaml"
    path.write_text(MIXED)
    # a and b share 8 partitions 4/4; c alone owns the one partition of its topic. No assignor can bring
    # c within 1 of a and b, but a and b are as balanced as can be.
    default = run("check", str(path), "-a", "roundrobin", "--max-imbalance", "1")
    assert default.exit_code == 0, default.output
    overall = run("check", str(path), "-a", "roundrobin", "--max-imbalance", "1", "--balance-scope", "group")
    assert overall.exit_code == 3 and "actual 3 (members hold 1..4 partitions)" in overall.stderr


def test_a_scenario_is_gated_on_its_rebalances() -> None:
    passed = run("check", "scenario-rolling-restart", "--max-rebalances", "1000", "--max-unconsumed", "1h")
    assert passed.exit_code == 0, passed.output
    failed = run("check", "scenario-rolling-restart", "--max-rebalances", "0", "-o", "json")
    assert failed.exit_code == 3
    rebalances = _check("max-rebalances", json.loads(failed.stdout))
    replay = run_json("simulate", "scenario-rolling-restart")
    assert rebalances["actual"].startswith(f"{len(replay['rebalances'])} (#1 at ")
    worst = max(p["seconds"] for p in replay["unconsumed"]["partitions"].values())
    strict = run("check", "scenario-rolling-restart", "--max-unconsumed", f"{int(worst * 1000) - 1}ms")
    assert strict.exit_code == 3 and f"actual {worst:.1f}s on " in strict.stderr
    exact = run("check", "scenario-rolling-restart", "--max-unconsumed", f"{int(worst * 1000)}ms")
    assert exact.exit_code == 0, exact.output


@pytest.mark.parametrize(
    "args,words",
    [
        (["check", "scenario-rolling-restart"], "give --max-unconsumed DURATION and/or --max-rebalances N"),
        (["check", "scenario-rolling-restart", "--max-imbalance", "1"], "--max-unconsumed"),
        (["check", "demo", "--max-rebalances", "2"], "applies to scenarios"),
        (["check", "scenario-rolling-restart", "--max-rebalances", "2", "--add-member", "x"], "what-if flags"),
        (["check", "scenario-rolling-restart", "--max-unconsumed", "soon"], "expected a duration"),
    ],
)
def test_check_says_which_limits_fit_which_file(args: list[str], words: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert words in result.stderr and result.stderr.count("\n") == 1 and result.stdout == ""


def test_several_files_give_one_exit_code_and_a_junit_report(tmp_path) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "junit.xml"
    result = run(
        "check",
        "demo",
        "seed-range",
        "scenario-rolling-restart",
        "--max-imbalance",
        "1",
        "--max-rebalances",
        "0",
        "--report",
        str(report),
    )
    assert result.exit_code == 3
    suites = ET.parse(report).getroot()
    names = [s.get("name") for s in suites.iter("testsuite")]
    assert len(names) == 3 and any("demo.yaml orders-service (current)" in n for n in names)
    cases = list(suites.iter("testcase"))
    # demo and seed-range: valid + max-imbalance; the scenario: max-rebalances.
    assert len(cases) == 5
    failed = {(c.get("classname").split(":")[-2], c.get("name")) for c in cases if c.find("failure") is not None}
    # seed-range has no current assignment: nobody owns its partitions.
    assert failed == {("orders-service", "max-imbalance"), ("seed-range", "valid"), ("events-app", "max-rebalances")}
    assert len(result.stderr.strip().splitlines()) == 3  # one line per failed check


def test_github_annotations_point_at_the_group_in_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fixture = tmp_path / "demo.yaml"
    fixture.write_text((FIXTURES / "demo.yaml").read_text())
    line = next(i for i, text in enumerate(fixture.read_text().splitlines(), 1) if "group_id: orders-service" in text)
    result = run_process("check", "demo.yaml", "--max-imbalance", "1", env={"GITHUB_ACTIONS": "true"}, cwd=tmp_path)
    assert result.returncode == 3
    annotations = [x for x in result.stderr.splitlines() if x.startswith("::error ")]
    assert annotations == [
        f"::error file=demo.yaml,line={line},title=kgroup check max-imbalance "
        f"(orders-service%2C current)::demo.yaml orders-service (current): max-imbalance: "
        f"expected <= 1, actual 5 (members hold 0..5 partitions)"
    ]
    quiet = run_process("check", "demo.yaml", "--max-imbalance", "1", env={"GITHUB_ACTIONS": ""}, cwd=tmp_path)
    assert "::error" not in quiet.stderr
    forced = run_process(
        "check", "demo.yaml", "--max-imbalance", "1", "--github-annotations", cwd=tmp_path, env={"GITHUB_ACTIONS": ""}
    )
    assert forced.stderr.count("::error ") == 1


USER = textwrap.dedent("""
    class Named:
        name = "my-named"
        def assign(self, cluster, members):
            ids = [m.member_id for m in members]
            parts = [(t.name, p) for t in cluster.topics for p in range(t.partitions)]
            return {ids[i % len(ids)]: [tp for j, tp in enumerate(parts) if j % len(ids) == i] for i in range(len(ids))}

    class LikeRange(Named):
        name = "range"

    class Invalid:
        name = "my-invalid"
        def assign(self, cluster, members):
            return {"stranger": ["orders-0"]}
""")


@pytest.fixture
def user_module(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    (tmp_path / "gate_assignors.py").write_text(USER)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "gate_assignors"
    sys.modules.pop("gate_assignors", None)


def _user_scenario(tmp_path, spec: str):  # type: ignore[no-untyped-def]
    """The bundled rolling restart with every client (and the group) on the user assignor `spec`."""
    text = (FIXTURES / "scenario-rolling-restart.yaml").read_text().replace("[cooperative-sticky]", f"[{spec}]")
    path = tmp_path / f"restart-{spec.split(':')[1]}.yaml"
    path.write_text(text)
    return path


def _user_plan(tmp_path, spec: str):  # type: ignore[no-untyped-def]
    plan = tmp_path / f"plan-{spec.split(':')[1]}.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                **yaml.safe_load((FIXTURES / "demo.yaml").read_text()),
                "kind": "plan",
                "group_id": "orders-service",
                "what_if": {"assignor": [spec]},
            }
        )
    )
    return plan


def _user_fixture(tmp_path, spec: str):  # type: ignore[no-untyped-def]
    """The demo group recording the user assignor `spec` as its own, as a live group running it would."""
    path = tmp_path / f"demo-{spec.split(':')[1]}.yaml"
    path.write_text(
        (FIXTURES / "demo.yaml").read_text().replace("assignors: [range, roundrobin]", f"assignors: [{spec}, range]")
    )
    return path


def test_a_user_assignor_keeps_its_name_in_every_table(user_module: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    spec = f"{user_module}:Named"
    scenario, plan = str(_user_scenario(tmp_path, spec)), str(_user_plan(tmp_path, spec))
    own = str(_user_fixture(tmp_path, spec))
    for args in (
        ["simulate", "demo", "-a", spec],
        ["assign", "demo", "-a", spec],
        ["check", "demo", "-a", spec],
        ["explain", "demo", "-a", spec],
        ["check", plan],
        ["simulate", plan],
        ["explain", plan],
        ["simulate", own],
        ["describe", "--fixture", own, "--state"],
        # a scenario: the leader runs it by the name the members' JoinGroup carries
        ["simulate", scenario],
        ["explain", scenario, "events-0"],
    ):
        for fmt in ("table", "json", "yaml"):
            result = run(*args, "-o", fmt)
            assert result.exit_code == 0, (args, result.output)
            assert "my-named" in result.stdout and spec not in result.stdout, (args, fmt)
    log = run_json("simulate", scenario)
    assert {r["assignor"] for r in log["rebalances"]} == {"my-named"}
    assert log["clients"]["d1"]["assignors"] == ["my-named"]


def test_a_user_assignor_named_like_a_built_in_is_refused_in_a_scenario(user_module: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    scenario = _user_scenario(tmp_path, f"{user_module}:LikeRange")
    result = run("simulate", str(scenario))
    assert result.exit_code == 2 and result.stdout == ""
    assert (
        "restart-LikeRange.yaml:15: groups[0].assignors: user assignor gate_assignors:LikeRange is named "
        "'range', as a built-in assignor is" in result.stderr
    )


def test_an_invalid_user_assignor_exits_1_from_every_command(user_module: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    spec = f"{user_module}:Invalid"
    plan, scenario = str(_user_plan(tmp_path, spec)), str(_user_scenario(tmp_path, spec))
    for args in (
        ["simulate", "demo", "-a", spec],
        ["assign", "demo", "-a", spec],
        ["check", "demo", "-a", spec, "--max-imbalance", "1"],
        ["diff", "demo", plan],
        ["check", plan],
        ["simulate", plan],
        ["explain", "demo", "-a", spec],
        ["explain", plan],
        ["simulate", scenario],
        ["check", scenario, "--max-rebalances", "9"],
        ["explain", scenario],
    ):
        result = run(*args)
        assert result.exit_code == 1, (args, result.output)
        assert "my-invalid returned an invalid assignment" in result.stderr and result.stdout == "", args
    assert f"{scenario}: at 62.6s: assignor my-invalid" in run("simulate", scenario).stderr  # the leader's run


def test_a_user_assignor_that_cannot_be_imported_exits_2_from_every_command(tmp_path) -> None:  # type: ignore[no-untyped-def]
    spec = "no_such_module_xyz:Thing"
    plan, scenario = str(_user_plan(tmp_path, spec)), str(_user_scenario(tmp_path, spec))
    own = str(_user_fixture(tmp_path, spec))
    for args in (
        ["simulate", "demo", "-a", spec],
        ["assign", "demo", "-a", spec],
        ["check", "demo", "-a", spec],
        ["diff", "demo", plan],
        ["check", plan],
        ["simulate", plan],
        ["explain", "demo", "-a", spec],
        ["explain", plan],
        ["describe", "--fixture", own],
        ["simulate", scenario],
        ["check", scenario, "--max-rebalances", "9"],
        ["explain", scenario],
    ):
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "cannot import 'no_such_module_xyz'" in result.stderr and result.stdout == "", args
        assert result.stderr.count("\n") == 1, args


@pytest.mark.parametrize(
    "args,words",
    [
        (["simulate", "-o", "csv"], "'csv' is not one of"),
        (["check", "--group"], "'--group' requires an argument"),
        (["check", "--no-such-flag"], "No such option: --no-such-flag"),
        (["no-such-command"], "No such command"),
        (["simulate", "demo-typo"], "bundled: compare-crash,"),
    ],
)
def test_usage_errors_are_one_line_exit_2(args: list[str], words: str) -> None:
    result = run_process(*args)
    assert result.returncode == 2, result
    assert result.stdout == ""
    assert result.stderr.startswith("kgroup: error: ") and result.stderr.count("\n") == 1
    assert words in result.stderr


def test_diff_of_unrelated_groups_says_so() -> None:
    result = run("diff", "demo", "seed-range")
    assert result.exit_code == 0
    assert "look like unrelated groups: group 'orders-service' against group 'seed-range'" in result.stderr
    assert run("diff", "seed-range", "seed-range").stderr == ""


@pytest.mark.parametrize("name", list(COMMANDS))
def test_help_shows_flags_bare_and_metavars_uppercase(name: str) -> None:
    subcommands = {"offsets": ["reset"], "lag": ["record", "analyze"]}.get(name, [])
    for args in [[name]] + [[name, sub] for sub in subcommands]:
        text = run(*args, "--help").stdout
        assert "<bool>" not in text and "<str>" not in text and "<int" not in text, args
        for line in text.split("Options:")[-1].splitlines():
            if not line.startswith("  -"):
                continue  # a help line's continuation
            first = re.split(r"\s{2,}", line.strip())[0]
            metavar = first.split()[-1]
            if metavar.startswith("-") or metavar.startswith("["):
                continue  # a flag, or a choice of lowercase values
            assert metavar == metavar.upper(), (args, line)


def test_failure_lines_and_tables_are_never_folded_in_a_pipe() -> None:
    result = run_process("check", "demo", "seed-range", "-a", "range", "--max-imbalance", "0", env={"COLUMNS": "40"})
    assert result.returncode == 3
    for line in result.stderr.splitlines():
        assert line.startswith("check failed: ") and line.endswith("partitions)"), line
    assert any(
        "every subscribed partition exactly once, to a subscriber" in line for line in result.stdout.splitlines()
    )
    narrow = run_process("--width", "60", "check", "demo", "--max-imbalance", "1")
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 60
    assert len(narrow.stderr.splitlines()) == 1
