"""Exit codes for CI, one-line errors, user assignors, and the small commands."""

from __future__ import annotations

import sys
import textwrap

import pytest
import yaml

from tests.cli.helpers import ROOT, run, run_json, run_process


def test_check_passes_and_fails_with_documented_exit_codes() -> None:
    ok = run("check", "demo", "-a", "range", "--max-imbalance", "1", "--kafka-balanced")
    assert ok.exit_code == 0, ok.output
    # The demo's current assignment leaves the third member empty: spread 5 - 0.
    failed = run("check", "demo", "--max-imbalance", "1")
    assert failed.exit_code == 3
    assert failed.stderr.startswith("check failed: ")
    assert "demo.yaml orders-service (current): max-imbalance: expected <= 1, actual 5" in failed.stderr
    sticky = run("check", "demo", "-a", "range", "--min-stickiness", "80%")
    assert sticky.exit_code == 3 and "60.0% (6 of 10 kept)" in sticky.stderr
    moves = run_json("check", "demo", "-a", "roundrobin", "--max-moves", "100")
    assert moves["ok"] is True and {c["name"] for c in moves["checks"]} == {"valid", "max-moves"}


def test_check_reports_an_invalid_current_assignment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load((ROOT / "fixtures" / "seed-range.yaml").read_text())
    doc["groups"][0]["assignment"] = {"C0": ["t0-0", "t0-1"], "C1": ["t1-0"]}
    path = tmp_path / "partial.yaml"
    path.write_text(yaml.safe_dump(doc))
    result = run("check", str(path))
    assert result.exit_code == 3
    assert "no owner for 1 partition of t0: t0-2" in result.stderr
    assert "no owner for 2 partitions of t1: t1-1, t1-2" in result.stderr


def test_bad_fixture_is_one_line_exit_2_and_no_stdout(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema: kgroup/v1\ncluster:\n  topics:\n    - {name: t, partitions: 0}\ngroups: []\n")
    result = run_process("simulate", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        result.stderr == f"kgroup: error: {bad}:4: cluster.topics[0].partitions: expected a positive integer, got 0\n"
    )


@pytest.mark.parametrize(
    "args,words",
    [
        (["simulate", "demo", "-a", "nope"], "unknown assignor 'nope'; known: range, roundrobin"),
        (["simulate", "demo", "--add-partitions", "orders=3"], "cannot shrink"),
        (["simulate", "demo", "--add-partitions", "orders"], "expected TOPIC=N"),
        (["simulate", "demo", "--remove-member", "ghost"], "has no member 'ghost'"),
        (["simulate", "no-such-file.yaml"], "no-such-file.yaml: no such file"),
        (["check", "demo", "--min-stickiness", "1.5"], "between 0 and 1"),
    ],
)
def test_bad_flags_are_one_line_exit_2(args: list[str], words: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert words in result.stderr and result.stderr.count("\n") == 1


USER_ASSIGNORS = textwrap.dedent("""
    from kgroup.assignors.model import TopicPartition

    class EverythingToFirst:
        name = "everything-to-first"
        def assign(self, cluster, members):
            first = sorted(m.member_id for m in members)[0]
            parts = [TopicPartition(t.name, p) for t in cluster.topics for p in range(t.partitions)]
            return {first: parts}

    class ToNobody:
        def assign(self, cluster, members):
            return {"stranger": ["orders-0"]}

    class Broken:
        def assign(self, cluster, members):
            raise RuntimeError("boom")
""")


@pytest.fixture
def user_module(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    (tmp_path / "my_assignors.py").write_text(USER_ASSIGNORS)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_assignors"
    sys.modules.pop("my_assignors", None)


def test_user_assignor_plugs_in(user_module: str) -> None:
    doc = run_json("simulate", "demo", "-a", f"{user_module}:EverythingToFirst", "-a", "range")
    user = doc["results"][0]
    assert user["assignor"] == "everything-to-first"  # its own name, as a built-in shows its
    assert len(user["assignment"]["orders-service-0-5f1c9a"]) == 10
    assert user["balance"]["spread"] == 10


def test_user_assignor_failures_are_clear(user_module: str) -> None:
    invalid = run("assign", "demo", "-a", f"{user_module}:ToNobody")
    assert invalid.exit_code == 1 and invalid.stdout == ""
    assert "returned an invalid assignment: stranger is not a member" in invalid.stderr
    broken = run("assign", "demo", "-a", f"{user_module}:Broken")
    assert broken.exit_code == 1 and "raised RuntimeError: boom" in broken.stderr
    missing = run("assign", "demo", "-a", "no_such_module_xyz:Thing")
    assert missing.exit_code == 2 and "cannot import 'no_such_module_xyz'" in missing.stderr
    no_attr = run("assign", "demo", "-a", f"{user_module}:Nothing")
    assert no_attr.exit_code == 2 and "has no attribute 'Nothing'" in no_attr.stderr


def test_coordinator_matches_the_java_vectors() -> None:
    vectors = yaml.safe_load((ROOT / "tests" / "conformance" / "data" / "find-coordinator.yaml").read_text())
    wanted = [v for v in vectors["vectors"] if v["group_id"] in ("my-group", "foo")]
    doc = run_json("coordinator", *[v["group_id"] for v in wanted], "--partitions", "7")
    assert [g["partition"] for g in doc["groups"]] == [v["partition"][7] for v in wanted]


def test_assignors_lists_each_builtin_on_one_line() -> None:
    result = run("assignors")
    assert result.exit_code == 0
    for name in ("range", "roundrobin", "legacy-range", "legacy-roundrobin"):
        assert any(line.split()[:1] == [name] for line in result.stdout.splitlines()), name


def test_every_command_has_help_with_an_example() -> None:
    for command in ("simulate", "assign", "diff", "check", "coordinator", "assignors", "fixtures"):
        result = run(command, "--help")
        assert result.exit_code == 0 and "Example" in result.stdout, command


def test_usage_error_exits_2() -> None:
    assert run("simulate", "--no-such-flag").exit_code == 2
    assert run("simulate", "-o", "xml").exit_code == 2


def test_piped_output_has_no_ansi_codes() -> None:
    result = run_process("simulate", "-a", "range", "-a", "roundrobin", env={"NO_COLOR": "", "TERM": "xterm-256color"})
    assert result.returncode == 0
    assert "\x1b[" not in result.stdout and "Side by side" in result.stdout


def test_help_imports_no_heavy_package() -> None:
    code = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in ('confluent_kafka', 'pyspark'):
                    raise ImportError('heavy import during --help: ' + name)
        sys.meta_path.insert(0, Block())
        sys.argv = ['kgroup', '--help']
        from kgroup.cli.app import main
        try:
            main()
        except SystemExit as exit:
            assert exit.code in (0, None), exit.code
    """)
    import subprocess

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "simulate" in result.stdout


def test_side_by_side_keeps_assignor_names_whole_on_a_narrow_terminal() -> None:
    result = run_process("simulate", "demo", "-a", "server-range", "-a", "roundrobin", env={"COLUMNS": "80"})
    assert result.returncode == 0
    side_by_side = result.stdout.split("Side by side", 1)[1]
    names = [line.split("│")[0].strip() for line in side_by_side.splitlines() if "│" in line]
    assert names == ["server-range", "roundrobin"], result.stdout
