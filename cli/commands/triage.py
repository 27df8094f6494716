"""`kgroup triage`: the on-call view, without a daemon: a few quick polls, status per partition, worst first."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Annotated

import typer
from rich.console import Console

from kgroup.assignors.lag.burrow_status import ERRORS, WARN, worst
from kgroup.cli.errors import handle_errors
from kgroup.cli.render.lag import method_legend, partition_table, report_body, rollup_body, rollup_table
from kgroup.cli.options import (BootstrapOpt, CommandConfigOpt, GroupsOpt, IsolationOpt, OutputOpt, ProfileOpt,
                                RegexOpt, TimeoutOpt, connect, isolation_level)
from kgroup.cli.output import OutputFormat, document, emit, stderr_console
from kgroup.assignors.lag.samples import READ_UNCOMMITTED
from kgroup.inspectors.offsets.reset_times import span_ms

EXIT_OK, EXIT_WARN, EXIT_ERROR = 0, 1, 3


def exit_code(status: str) -> int:
    return EXIT_ERROR if status in ERRORS else EXIT_WARN if status == WARN else EXIT_OK


@handle_errors
def triage(
    groups: GroupsOpt = None,
    regex: RegexOpt = None,
    samples: Annotated[int, typer.Option("--samples", help="Polls to take (at least 2 to see movement).",
                                         min=1, metavar="N")] = 2,
    interval: Annotated[str, typer.Option("--interval", help="Time between polls.", metavar="DURATION")] = "30s",
    exact_top: Annotated[int, typer.Option("--exact-top", help="Read the record at the committed offset of the N "
                                           "worst partitions for an exact time lag.", min=0, metavar="N")] = 5,
    allowed_lag: Annotated[int, typer.Option("--allowed-lag", help="Lag at or below this counts as caught up.",
                                             min=0, metavar="N")] = 0,
    isolation: IsolationOpt = READ_UNCOMMITTED,
    top: Annotated[int, typer.Option("--top", help="Partitions shown, worst first (0: all).", min=0, metavar="N")] = 20,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    profile: ProfileOpt = None,
    timeout: TimeoutOpt = 10.0,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """On-call view: status per partition from a few polls, lag in messages and time, owner, worst first.

    Exit codes: 0 all OK, 1 something is WARN, 3 something is STOP, STALL or REWIND (also 2 bad input,
    4 no broker, 5 a named group does not exist, 7 authentication failed, 8 not authorized).

    Examples:

      kgroup triage -b localhost:9092 -r '^payments-'

      kgroup triage -b localhost:9092 --group orders --samples 3 --interval 10s --exact-top 10
    """
    from kgroup.inspectors.lag.sampler import GroupChooser, Sampler
    from kgroup.inspectors.lag.triage import triage as run_triage

    every = span_ms(interval, "--interval")
    chooser = GroupChooser(tuple(groups or ()), regex)
    chosen_isolation = isolation_level(isolation)
    admin = connect(bootstrap_server, command_config, profile, timeout)
    console = stderr_console()
    with console.status(f"polling 1/{samples}", spinner="dots") if console.is_terminal else nullcontext() as status:
        def on_poll(done: int) -> None:
            if status is not None and done < samples:
                status.update(f"polling {done + 1}/{samples} (every {interval})")

        reports, rolled, as_of = run_triage(Sampler(admin, chooser), samples, every, chosen_isolation, allowed_lag,
                                            exact_top, on_poll)
    group_rows = [r for r in rolled if r.level == "group"]
    status_all = worst([r.status for r in reports])
    doc = document("triage", {"as_of": as_of, "samples": samples, "interval_ms": every, "status": status_all,
                              "groups": [rollup_body(r) for r in group_rows],
                              "members": [rollup_body(r) for r in rolled if r.level == "member"],
                              "partitions": [report_body(r) for r in reports]})

    def table(out: Console) -> None:
        if not reports:
            out.print("no partitions: the chosen groups have no commits or assignments")
            return
        rollup_table(out, group_rows, "group", f"Groups, worst first (from {samples} polls)")
        out.print()
        shown = reports if top == 0 else reports[:top]
        partition_table(out, shown, f"Partitions, worst first ({len(shown)} of {len(reports)})")
        method_legend(out)

    emit(doc, output, table)
    raise typer.Exit(exit_code(status_all))

