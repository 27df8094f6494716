"""`assign` and `simulate` read a live group only when the command line names a cluster and a group and no
fixture; anything else is one line naming the option, exit 2, before any broker is asked (the address given,
127.0.0.1:9, has no broker: asking it would end in exit 4, no broker)."""

from __future__ import annotations

import pytest

from tests.cli.helpers import run

NO_BROKER = "127.0.0.1:9"


@pytest.mark.parametrize("command", ["assign", "simulate"])
def test_a_fixture_and_a_cluster_together_is_bad_input(command: str) -> None:
    result = run(command, "demo", "-b", NO_BROKER, "--group", "orders-service")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--bootstrap-server" in lines[0], result.output
    assert "give a fixture or a live cluster (--bootstrap-server), not both" in lines[0]


@pytest.mark.parametrize(("command", "what"), [("assign", "assignment"), ("simulate", "what-if")])
def test_a_cluster_without_a_group_is_bad_input(command: str, what: str) -> None:
    result = run(command, "-b", NO_BROKER)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"--group: a live {what} needs the group: --group G" in lines[0], result.output
