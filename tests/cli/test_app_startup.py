"""`kgroup --help` lists every command without importing any of them, and the list tells the truth."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from kgroup.cli.app import COMMANDS, load_command


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_listed_help_is_the_first_line_of_the_command_own_help(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    own = (command.help or "").strip().splitlines()[0]
    assert own == COMMANDS[name][2]


def test_help_imports_no_command_and_nothing_of_the_core() -> None:
    code = textwrap.dedent("""
        import sys
        sys.argv = ['kgroup', '--help']
        from kgroup.cli.app import main
        try:
            main()
        except SystemExit as exit:
            assert exit.code in (0, None), exit.code
        print(sorted(m for m in sys.modules if m.startswith('kgroup')), file=sys.stderr)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "['kgroup', 'kgroup.cli', 'kgroup.cli.app']"
    for name in COMMANDS:
        assert name in result.stdout


def test_a_group_command_keeps_its_subcommands() -> None:
    assert sorted(load_command("offsets").commands) == ["delete", "reset"]  # type: ignore[attr-defined]
    assert sorted(load_command("lag").commands) == ["analyze", "record"]  # type: ignore[attr-defined]


def test_version_prints_the_installed_version() -> None:
    from importlib.metadata import version
    from pathlib import Path

    result = subprocess.run(
        [str(Path(sys.executable).parent / "kgroup"), "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"kgroup {version('kgroup')}"


def test_check_of_a_fixture_imports_no_assignor_and_no_simulator() -> None:
    code = textwrap.dedent("""
        import sys
        sys.argv = ['kgroup', 'check', 'demo']
        from kgroup.cli.app import main
        try:
            main()
        except SystemExit as exit:
            assert exit.code in (0, None), exit.code
        print(sorted(m for m in sys.modules if m.startswith('kgroup')), file=sys.stderr)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    loaded = eval(result.stderr.strip().splitlines()[-1])  # the list printed above
    heavy = [
        m
        for m in loaded
        if m.startswith(
            (
                "kgroup.assignors.client",
                "kgroup.assignors.server",
                "kgroup.assignors.coordinator",
                "kgroup.inspectors.live",
                "kgroup.inspectors.lag",
                "kgroup.inspectors.fixtures.scenario_file",
                "kgroup.inspectors.simulation.scenario_run",
            )
        )
    ]
    assert heavy == []
    assert "kgroup.inspectors.simulation.gate" in loaded  # it did run the check
