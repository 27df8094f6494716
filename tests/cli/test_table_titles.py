"""Table titles and heading lines fold at the output's width, never at the width of the table under them."""

from __future__ import annotations

from tests.cli.helpers import run_process

TITLE = "Final assignment (what each running consumer owns)"


def _lines(*args: str) -> list[str]:
    result = run_process(*args)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_a_title_stays_one_line_in_a_pipe_and_under_a_wide_width() -> None:
    for args in (("simulate", "scenario-rolling-restart"), ("--width", "300", "simulate", "scenario-rolling-restart")):
        lines = _lines(*args)
        assert TITLE in lines, args
        assert lines[lines.index(TITLE) + 1].startswith("MEMBER"), args  # the table follows, no folded tail


def test_width_folds_titles_and_the_unconsumed_line_at_that_width() -> None:
    lines = _lines("--width", "40", "simulate", "scenario-rolling-restart")
    assert TITLE not in lines and "Final assignment (what each running" in lines
    unconsumed = next(i for i, line in enumerate(lines) if line.startswith("Unconsumed:"))
    assert lines[unconsumed] == "Unconsumed: 90.0 partition-seconds in" and lines[unconsumed + 1] == "total"
    assert max(map(len, lines)) <= 40
