"""The `kgroup` command: a table of commands, each imported only when it runs.

`kgroup --help` lists the commands from the table below without importing them, so start-up pays for
typer and rich only, not for the core, the admin client or Spark. A test checks that each line here is
the first line of the command's own help, so the two cannot drift.
"""

from __future__ import annotations

import gc
import importlib
import sys
from importlib.metadata import PackageNotFoundError, version

from typing import Any, Optional

import typer
from typer import _click as click  # typer 0.29 vendors click: its exceptions and parameters are these
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

# name: (module, attribute, the first line of its help). Order is the order `--help` lists them in.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "groups": (
        "kgroup.cli.commands.groups",
        "groups",
        "List consumer groups: id, type, state, members, assignor, coordinator and total lag.",
    ),
    "describe": (
        "kgroup.cli.commands.live",
        "describe",
        "Describe groups with their lag, as `kafka-consumer-groups.sh --describe` does, plus LOG-START-OFFSET.",
    ),
    "triage": (
        "kgroup.cli.commands.triage",
        "triage",
        "On-call view: status per partition from a few polls, lag in messages and time, owner, worst first.",
    ),
    "snapshot": (
        "kgroup.cli.commands.live",
        "snapshot",
        "Save live groups as a kgroup/v1 fixture: topics, racks, members, assignment and offsets.",
    ),
    "simulate": (
        "kgroup.cli.commands.simulate",
        "simulate",
        "Predict the assignment after what-if changes and show what moves; or replay a scenario.",
    ),
    "explain": (
        "kgroup.cli.commands.explain",
        "explain",
        "Explain why each partition goes to its owner: the assignor's rule and the inputs it read.",
    ),
    "assign": ("kgroup.cli.commands.assign", "assign", "Compute the assignment an assignor gives the group's members."),
    "diff": (
        "kgroup.cli.commands.diff",
        "diff",
        "Show which partitions move between two assignments, member by member.",
    ),
    "check": (
        "kgroup.cli.commands.check",
        "check",
        "Gate CI on an assignment: exit 0 when every check holds, 3 when one fails, 2 on bad input.",
    ),
    "coordinator": (
        "kgroup.cli.commands.coordinator",
        "coordinator",
        "The __consumer_offsets partition whose leader coordinates GROUP_ID.",
    ),
    "assignors": ("kgroup.cli.commands.catalog", "assignors", "List the built-in assignors, one line each."),
    "fixtures": (
        "kgroup.cli.commands.catalog",
        "fixtures",
        "List the bundled fixtures and scenarios; pass a name wherever a file is expected.",
    ),
    "offsets": (
        "kgroup.cli.commands.offsets",
        "offsets",
        "Reset or delete a group's committed offsets (dry run unless --execute).",
    ),
    "lag": ("kgroup.cli.commands.lag", "lag", "Offset history: record it from a cluster, analyze it on Spark."),
}


def load_command(name: str) -> Any:
    """Import one command's module and build its click command (a group for `offsets` and `lag`)."""
    module, attribute, _ = COMMANDS[name]
    target = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer(rich_markup_mode=None)
    if isinstance(target, typer.Typer):
        # Added under a parent, a one-command Typer stays a group (`offsets reset`), as `add_typer` made it.
        holder.add_typer(target, name=name)
        holder.command(name="-")(lambda: None)
        return _for_pipes(typer.main.get_command(holder).commands[name])  # type: ignore[attr-defined]
    holder.command(name=name)(target)
    return _for_pipes(typer.main.get_command(holder))


# Typer shows a type for every option, flags included (`<bool>`, `<str>`, `<int range>`); kgroup shows
# flags bare and values as one uppercase word, as click does and as the docs write them.
_METAVARS = {int: "INTEGER", float: "NUMBER", str: "TEXT"}


def _for_pipes(command: Any) -> Any:
    """Uppercase metavars, no type on flags, and example lines kept whole (never folded at 80 columns)."""
    for sub in getattr(command, "commands", {}).values():
        _for_pipes(sub)
    for param in command.params:
        descriptor = getattr(param, "type_descriptor", None)
        if isinstance(param, TyperOption) and param.is_flag:
            param.metavar = ""
        elif isinstance(param, TyperArgument):
            param.metavar = param.metavar or param.name.upper()
            param.display_type_rich = lambda ctx: None  # the name says it; no `<str>` after it
            usage = param.metavar + ("..." if param.nargs != 1 else "")
            shown = usage if param.required else f"[{usage}]"
            # click's hook for an argument's piece of the usage line (Parameter.get_usage_pieces): GROUP..., not
            # the {GROUP} Typer writes for a required argument
            param.get_usage_pieces = lambda ctx, u=shown: [u]
        elif param.metavar is not None or descriptor is None:
            continue
        elif descriptor.is_choice:
            param.metavar = "[" + "|".join(str(getattr(c, "value", c)) for c in descriptor.choices or ()) + "]"
        else:
            param.metavar = _METAVARS.get(_element(descriptor.annotation), "TEXT")
    if command.help:
        command.help = _examples_whole(command.help)
    return command


def _element(annotation: Any) -> Any:
    args = getattr(annotation, "__args__", None)
    return _element(args[0]) if args else annotation


def _examples_whole(text: str) -> str:
    """Click re-wraps every paragraph; `\\b` before a command line tells it to leave that one as written."""
    paragraphs = text.split("\n\n")
    return "\n\n".join("\b\n" + p if p.lstrip().startswith("kgroup ") else p for p in paragraphs)


class LazyCommands(TyperGroup):
    """Lists commands from `COMMANDS`; imports a command only when it is the one asked for."""

    _listing = False

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Usage errors are one `kgroup: error:` line and exit 2, like every other input error."""
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            sys.stdout.write(exc.ctx.get_help() + "\n")
            code = 0
        except click.ClickException as exc:
            where = f" (see `{exc.ctx.command_path} --help`)" if getattr(exc, "ctx", None) is not None else ""
            message = " ".join(exc.format_message().split()).replace("Value error, ", "").rstrip(".")
            given = list(args) if args is not None else sys.argv[1:]
            if where.startswith(" (see `kgroup simulate") and "--explain" in given and "extra argument" in message:
                # `simulate --explain` explains every partition that moves; naming some is `explain`'s job.
                where = (
                    " (simulate --explain takes no partitions: `kgroup explain FIXTURE TOPIC-PARTITION...` names them)"
                )
            sys.stderr.write(f"kgroup: error: {message}{where}\n")
            code = exc.exit_code
        except typer.Abort:
            sys.stderr.write("kgroup: interrupted\n")
            code = 130
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)

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
    rich_markup_mode=None,
    pretty_exceptions_enable=False,  # tracebacks could show locals; never print those
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    show_version: bool = typer.Option(
        False, "--version", help="Print kgroup's version and exit.", callback=_print_version, is_eager=True
    ),
    width: Optional[int] = typer.Option(
        None,
        "--width",
        metavar="COLUMNS",
        min=40,
        show_default=False,
        help="Fold tables and lines at this width. Default: the terminal's width; unlimited when output is "
        "not a terminal (pipes, files, CI logs).",
    ),
) -> None:
    """Inspect Kafka consumer groups and predict their assignments and rebalances, exactly as Kafka would."""
    from kgroup.cli import output

    output.chosen_width = width  # every invocation sets it: one run in a process (a test's) leaves none to the next


def main() -> None:
    # A command builds millions of small tuples from one file and frees them only when it exits; the
    # default young-generation threshold (700) would walk them again and again, a third of the CPU time on a
    # million partitions. Collections still run, just rarely.
    gc.set_threshold(100_000, 50, 1000)
    app()
