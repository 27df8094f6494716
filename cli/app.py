"""The `kgroup` command: a table of commands, each imported only when it runs.

`kgroup --help` lists the commands from the table below without importing them, so start-up pays for
typer and rich only, not for the core, the admin client or Spark. A test checks that each line here is
the first line of the command's own help, so the two cannot drift.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version

from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

# name: (module, attribute, the first line of its help). Order is the order `--help` lists them in.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "groups": ("kgroup.cli.commands.groups", "groups",
               "List consumer groups: id, type, state, members, assignor, coordinator and total lag."),
    "describe": ("kgroup.cli.commands.live", "describe",
                 "Describe groups with their lag, as `kafka-consumer-groups.sh --describe` does, plus "
                 "LOG-START-OFFSET."),
    "triage": ("kgroup.cli.commands.triage", "triage",
               "On-call view: status per partition from a few polls, lag in messages and time, owner, worst "
               "first."),
    "snapshot": ("kgroup.cli.commands.live", "snapshot",
                 "Save live groups as a kgroup/v1 fixture: topics, racks, members, assignment and offsets."),
    "simulate": ("kgroup.cli.commands.simulate", "simulate",
                 "Predict the assignment after what-if changes and show what moves; or replay a scenario."),
    "assign": ("kgroup.cli.commands.assign", "assign",
               "Compute the assignment an assignor gives the group's members."),
    "diff": ("kgroup.cli.commands.diff", "diff",
             "Show which partitions move between two assignments, member by member."),
    "check": ("kgroup.cli.commands.check", "check",
              "Gate CI on an assignment: exit 0 when every check holds, 3 when one fails, 2 on bad input."),
    "coordinator": ("kgroup.cli.commands.coordinator", "coordinator",
                    "The __consumer_offsets partition whose leader coordinates GROUP_ID."),
    "assignors": ("kgroup.cli.commands.catalog", "assignors", "List the built-in assignors, one line each."),
    "fixtures": ("kgroup.cli.commands.catalog", "fixtures",
                 "List the bundled fixtures and scenarios; pass a name wherever a file is expected."),
    "offsets": ("kgroup.cli.commands.offsets", "offsets",
                "Change a group's committed offsets (dry run unless --execute)."),
    "lag": ("kgroup.cli.commands.lag", "lag", "Offset history: record it from a cluster, analyze it on Spark."),
}


def load_command(name: str) -> Any:
    """Import one command's module and build its click command (a group for `offsets` and `lag`)."""
    module, attribute, _ = COMMANDS[name]
    target = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer()
    if isinstance(target, typer.Typer):
        # Added under a parent, a one-command Typer stays a group (`offsets reset`), as `add_typer` made it.
        holder.add_typer(target, name=name)
        holder.command(name="-")(lambda: None)
        return typer.main.get_command(holder).commands[name]  # type: ignore[attr-defined]
    holder.command(name=name)(target)
    return typer.main.get_command(holder)


class LazyCommands(TyperGroup):
    """Lists commands from `COMMANDS`; imports a command only when it is the one asked for."""

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        if self._listing:
            return TyperCommand(cmd_name, help=COMMANDS[cmd_name][2])
        return load_command(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def _print_version(value: bool) -> None:
    if value:
        try:
            typer.echo(f"kgroup {version('kgroup')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("kgroup (not installed)")
        raise typer.Exit()


app = typer.Typer(
    name="kgroup",
    cls=LazyCommands,
    help="Inspect Kafka consumer groups and predict their assignments and rebalances, exactly as Kafka would.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,  # tracebacks could show locals; never print those
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    show_version: bool = typer.Option(False, "--version", help="Print kgroup's version and exit.",
                                      callback=_print_version, is_eager=True),
) -> None:
    """Inspect Kafka consumer groups and predict their assignments and rebalances, exactly as Kafka would."""


def main() -> None:
    app()
