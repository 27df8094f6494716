"""`kgroup triage`: the on-call view, without a daemon: a few quick polls, status per partition, worst first."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Annotated

import typer
from rich.console import Console

from kgroup.assignors.lag.burrow_status import ERRORS, WARN, LagStatus, worst
from kgroup.cli.errors import handle_errors
from kgroup.cli.render.lag import method_legend, partition_table, report_body, rollup_body, rollup_table, share_legend
from kgroup.cli.options import NOT_LIVE, LiveOptions, live_options
from kgroup.cli.options import GroupsOpt, IsolationOpt, OutputOpt, RegexOpt, isolation_level
from kgroup.cli.output import OutputFormat, document, emit, stderr_console, warn
from kgroup.assignors.lag.samples import READ_UNCOMMITTED
from kgroup.inspectors.offsets.reset_times import span_ms

EXIT_OK, EXIT_WARN, EXIT_ERROR = 0, 1, 3


def exit_code(statuses: list[LagStatus]) -> int:
    """3 for any STOP, STALL or REWIND, 1 for any WARN; UNDECIDED is not an alarm."""
    return EXIT_ERROR if any(s in ERRORS for s in statuses) else EXIT_WARN if WARN in statuses else EXIT_OK


@handle_errors
@live_options
def triage(
    groups: GroupsOpt = None,
    regex: RegexOpt = None,
    samples: Annotated[
        int, typer.Option("--samples", help="Polls to take at least (2 or more to see movement).", min=1, metavar="N")
    ] = 2,
    interval: Annotated[str, typer.Option("--interval", help="Time between polls.", metavar="DURATION")] = "5s",
    max_wait: Annotated[
        str,
        typer.Option(
            "--max-wait",
            help="While the polls cannot support a verdict on a partition (UNDECIDED), poll on up to "
            "this long in all (0: never past --samples).",
            metavar="DURATION",
        ),
    ] = "1m",
    exact_top: Annotated[
        int,
        typer.Option(
            "--exact-top",
            help="Read the record at the committed offset of the N worst partitions for an exact time lag.",
            min=0,
            metavar="N",
        ),
    ] = 5,
    allowed_lag: Annotated[
        int, typer.Option("--allowed-lag", help="Lag at or below this counts as caught up.", min=0, metavar="N")
    ] = 0,
    isolation: IsolationOpt = READ_UNCOMMITTED,
    top: Annotated[int, typer.Option("--top", help="Partitions shown, worst first (0: all).", min=0, metavar="N")] = 20,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """On-call view: status per partition from a few polls, lag in messages and time, owner, worst first.

    Burrow's rules judge the polls; an alarm the polls cannot support yet (too few commits, an offset
    unchanged for less time than a consumer may take to commit) is UNDECIDED, never WARN or STOP, and
    triage polls on until it can decide, up to --max-wait; what it waits for is printed on stderr.

    A share group (KIP-932) is judged on the share-partition lag its broker reports (KIP-1226), with the
    share-partition start offset in the committed offset's place; each partition shows every member reading
    it (docs/lag.md, "Share groups").

    Exit codes: 0 all OK (or UNDECIDED: not an alarm), 1 something is WARN, 3 something is STOP, STALL or
    REWIND (also 2 bad input, 4 no broker, 5 a named group does not exist, 7 authentication failed,
    8 not authorized).

    Examples:

      kgroup triage -b localhost:9092 -r '^payments-'

      kgroup triage -b localhost:9092 --group orders --samples 3 --interval 10s --exact-top 10
    """
    from kgroup.inspectors.lag.sampler import GroupChooser, Sampler
    from kgroup.inspectors.lag.triage import Progress
    from kgroup.inspectors.lag.triage import triage as run_triage

    every = span_ms(interval, "--interval")
    wait_ms = span_ms(max_wait, "--max-wait") if max_wait.strip() not in ("0", "0s") else 0
    chooser = GroupChooser(tuple(groups or ()), regex)
    chosen_isolation = isolation_level(isolation)
    admin = live.connect()
    console = stderr_console()
    terminal = console.is_terminal

    def say(progress: Progress) -> str:
        if progress.undecided:
            return (
                f"{progress.undecided} partition(s) UNDECIDED after {progress.polls} polls "
                f"({progress.waiting_for}); polling again in {progress.next_in_s:g} s, up to "
                f"{max(0.0, progress.left_s):.0f} s more"
            )
        return f"poll {progress.polls}/{progress.planned} done; next in {progress.next_in_s:g} s"

    with console.status(f"polling 1/{samples}", spinner="dots") if terminal else nullcontext() as status:

        def on_poll(progress: Progress) -> None:
            if status is not None:
                status.update(say(progress))
                return
            if progress.polls == 1:  # CI logs, `| tee`: what the wait is for, then a line per poll
                more = f"then up to {max_wait} in all while a verdict is undecided" if wait_ms else "--max-wait 0"
                warn(f"triage: polling {samples} times every {interval} ({more})")
            warn(f"triage: {say(progress)}")

        result = run_triage(
            Sampler(admin, chooser), samples, every, chosen_isolation, allowed_lag, exact_top, on_poll, wait_ms
        )
    reports, rolled, as_of = result.reports, result.rollups, result.as_of
    group_rows = [r for r in rolled if r.level == "group"]
    status_all = worst([r.status for r in reports])
    undecided = [
        {
            "group": j.report.group,
            "topic": j.report.topic,
            "partition": j.report.partition,
            "burrow_status": j.burrow_status,
            "waiting_for": j.waiting_for,
        }
        for j in result.undecided
    ]
    doc = document(
        "triage",
        {
            "as_of": as_of,
            "samples": result.polls,
            "interval_ms": every,
            "status": status_all,
            "groups": [rollup_body(r) for r in group_rows],
            "members": [rollup_body(r) for r in rolled if r.level == "member"],
            "partitions": [report_body(r) for r in reports],
            "undecided": undecided,
            "notes": result.notes,
        },
    )

    def table(out: Console) -> None:
        if not reports:
            out.print("no partitions: the chosen groups have no commits or assignments")
            return
        rollup_table(
            out,
            group_rows,
            "group",
            f"Groups, worst first (from {result.polls} polls over {result.span_ms / 1000:.1f} s)",
        )
        out.print()
        shown = reports if top == 0 else reports[:top]
        partition_table(out, shown, f"Partitions, worst first ({len(shown)} of {len(reports)})")
        method_legend(out)
        share_legend(out, reports)

    emit(doc, output, table)
    for note in result.notes:
        warn(f"kgroup: note: {note}")
    if result.undecided:
        first = result.undecided[0]
        chosen = " ".join(
            ([f"-b {live.bootstrap_server}"] if live.bootstrap_server else [])
            + [f"--group {g}" for g in groups or ()]
            + ([f"-r '{regex}'"] if regex else [])
        )
        warn(
            f"kgroup: not enough samples: {len(result.undecided)} partition(s) UNDECIDED after {result.polls} polls "
            f"over {result.span_ms / 1000:.1f} s (not an alarm; {first.report.topic}-{first.report.partition}: "
            f"{first.waiting_for}). For a verdict: kgroup triage {chosen} --samples {max(6, result.polls + 4)} "
            f"--interval {interval} --max-wait 5m"
        )
    raise typer.Exit(exit_code([r.status for r in reports]))
