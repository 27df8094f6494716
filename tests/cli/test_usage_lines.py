"""The usage line writes each argument as the docs do: required bare (GROUP...), optional in brackets
([FIXTURE]), never Typer's braces ({GROUP})."""

from __future__ import annotations

import pytest

from tests.cli.helpers import run


@pytest.mark.parametrize(
    "command, usage",
    [
        (("simulate",), "Usage: kgroup simulate [OPTIONS] [FIXTURE]"),
        (("explain",), "Usage: kgroup explain [OPTIONS] [FIXTURE] [TOPIC-PARTITION...]"),
        (("diff",), "Usage: kgroup diff [OPTIONS] OLD NEW"),
        (("snapshot",), "Usage: kgroup snapshot [OPTIONS] GROUP..."),
        (("offsets", "delete"), "Usage: kgroup offsets delete [OPTIONS] GROUP"),
    ],
)
def test_usage_lines_write_arguments_as_the_docs_do(command: tuple[str, ...], usage: str) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == usage
    assert "{" not in result.stdout.splitlines()[0]
