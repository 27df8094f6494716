"""The `kgroup` command: registers the commands; heavy packages stay out of start-up."""

from __future__ import annotations

import typer

from kgroup.cli.commands.assign import assign
from kgroup.cli.commands.catalog import assignors, fixtures
from kgroup.cli.commands.check import check
from kgroup.cli.commands.coordinator import coordinator
from kgroup.cli.commands.lag import lag
from kgroup.cli.commands.diff import diff
from kgroup.cli.commands.live import describe, groups, snapshot
from kgroup.cli.commands.offsets import offsets
from kgroup.cli.commands.simulate import simulate
from kgroup.cli.commands.triage import triage

app = typer.Typer(
    name="kgroup",
    help="Inspect Kafka consumer groups and predict their assignments and rebalances, exactly as Kafka would.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,  # tracebacks could show locals; never print those
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

for command in (groups, describe, triage, snapshot, simulate, assign, diff, check, coordinator, assignors, fixtures):
    app.command()(command)
app.add_typer(offsets)
app.add_typer(lag)


def main() -> None:
    app()
