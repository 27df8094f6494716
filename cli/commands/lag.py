"""`kgroup lag record` and `kgroup lag analyze`: an offset history on disk, and its analysis on Spark."""

from __future__ import annotations

import signal
import sys
import time
from contextlib import contextmanager
from typing import Annotated, Any, Iterator, Optional

import typer
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from kgroup.assignors.lag.samples import READ_UNCOMMITTED
from kgroup.cli.errors import ExitCode, handle_errors
from kgroup.cli.render.lag import analysis_body, analysis_tables
from kgroup.cli.render.lag_chart import chart_html
from kgroup.cli.options import NOT_LIVE, LiveOptions, live_options
from kgroup.cli.options import GroupsOpt, IsolationOpt, OutputOpt, RegexOpt, isolation_level
from kgroup.cli.output import OutputFormat, document, emit, stderr_console, warn
from kgroup.inspectors.errors import InputError, NotReachableError
from kgroup.inspectors.files import write_atomically
from kgroup.inspectors.offsets.reset_times import span_ms

lag = typer.Typer(
    name="lag", help="Offset history: record it from a cluster, analyze it on Spark.", no_args_is_help=True
)


@contextmanager
def spark_progress(enabled: bool) -> Iterator[Any]:
    """A transient bar on stderr following the Spark job's tasks; nothing when stderr is not a terminal."""
    console = stderr_console()
    if not enabled or not console.is_terminal:
        yield None
        return
    with Progress(
        TextColumn("spark"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[tasks]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("spark", total=None, tasks="")

        def report(done: int, total: int) -> None:
            bar.update(task, completed=done, total=max(total, 1), tasks=f"{done}/{total} tasks")

        yield report


@lag.command("analyze")
@handle_errors
def analyze(
    dataset: Annotated[
        str,
        typer.Argument(
            help="The offset history folder (`kgroup lag record --out`).", metavar="DATASET", show_default=False
        ),
    ],
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="auto: in-process up to 500,000 samples (measured: docs/lag.md), else Spark; in-process: "
            "no Spark, the whole history in memory; spark: --spark's session. The choice is printed on stderr.",
            metavar="ENGINE",
        ),
    ] = "auto",
    spark: Annotated[
        Optional[str],
        typer.Option(
            "--spark",
            help="local[*] (embedded, loopback, no UI; the "
            "default), local[N], or a Spark Connect URL sc://HOST:PORT. "
            "Given, auto means Spark.",
            show_default=False,
            metavar="MASTER",
        ),
    ] = None,
    in_process: Annotated[bool, typer.Option("--in-process", help="The same as --engine in-process.")] = False,
    groups: GroupsOpt = None,
    regex: RegexOpt = None,
    since: Annotated[
        Optional[str],
        typer.Option(
            "--since",
            help="Start of the history: an ISO date-time, or a span back from --until such as 30m.",
            show_default=False,
            metavar="TIME",
        ),
    ] = None,
    until: Annotated[
        Optional[str],
        typer.Option(
            "--until",
            help="Evaluate as of this ISO date-time (default: the newest sample).",
            show_default=False,
            metavar="TIME",
        ),
    ] = None,
    window: Annotated[
        int,
        typer.Option(
            "--window", help="Commits per partition Burrow's rules look at (Burrow's intervals).", min=1, metavar="N"
        ),
    ] = 10,
    allowed_lag: Annotated[
        int,
        typer.Option(
            "--allowed-lag", help="Lag at or below this counts as caught up (Burrow's allowed-lag).", min=0, metavar="N"
        ),
    ] = 0,
    isolation: IsolationOpt = READ_UNCOMMITTED,
    bucket: Annotated[
        Optional[str],
        typer.Option(
            "--bucket",
            help="Time bucket of the history (chart, JSON), e.g. 1m. Default: chosen from the span "
            "analyzed, about 60 points (1s, 5s, 10s, 15s, 30s, 1m, 5m, 15m, 30m, 1h, 6h, 1d).",
            show_default=False,
            metavar="DURATION",
        ),
    ] = None,
    top: Annotated[
        int, typer.Option("--top", help="Partitions shown in the table, worst first (0: all).", min=0, metavar="N")
    ] = 20,
    out: Annotated[
        Optional[str],
        typer.Option("--out", help="Write the per-partition result as Parquet.", show_default=False, metavar="PATH"),
    ] = None,
    chart: Annotated[
        Optional[str],
        typer.Option(
            "--chart",
            help="Write an HTML chart of lag and time lag over time for the worst groups.",
            show_default=False,
            metavar="FILE",
        ),
    ] = None,
    spark_conf: Annotated[
        Optional[list[str]],
        typer.Option(
            "--spark-conf",
            help="KEY=VALUE for the Spark session (repeatable), e.g. spark.driver.memory=4g.",
            show_default=False,
            metavar="KEY=VALUE",
        ),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds to wait for a Spark Connect server.", min=0.1)
    ] = 10.0,
    skip_bad_files: Annotated[
        bool,
        typer.Option(
            "--skip-bad-files",
            help="Leave out history files that cannot be read as Parquet (each is named on "
            "stderr) instead of stopping at the first.",
        ),
    ] = False,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Analyze an offset history on Spark (or --in-process): lag, time lag, Burrow-style status, rollups, trend, ETA.

    Exit codes: 0 done (whatever the statuses), 2 bad input (a flag, a data set with a wrong or missing
    column, an unreadable file, PySpark or java missing), 4 Spark Connect did not answer, 1 the Spark job failed.

    Examples:

      kgroup lag analyze ./history

      kgroup lag analyze ./history --spark sc://127.0.0.1:15002 -r '^payments-' --since 30m -o json

      kgroup lag analyze ./history --out result.parquet --chart lag.html

      kgroup lag analyze ./history --in-process --since 30m     # a small history, no Spark
    """
    from kgroup.inspectors.lag.analysis import IN_PROCESS, Selection, checked_files, run, write_parquet
    from kgroup.inspectors.lag.analyze_request import analyze_request

    request = analyze_request(
        engine,
        spark,
        in_process,
        since,
        until,
        window,
        allowed_lag,
        isolation_level(isolation),
        bucket,
        spark_conf or (),
        writes=((out, "--out"), (chart, "--chart")),
    )
    checked = checked_files(dataset, skip_bad_files)
    for file in sorted(checked.skip):
        warn(f"kgroup: warning: {file}: not readable as Parquet; left out (--skip-bad-files)")
    chosen, why = request.engine_for(checked.rows)
    if request.chosen_by_kgroup:  # a choice kgroup made, not one the user typed: say which and why
        warn(
            f"kgroup: engine: {'in-process' if chosen == IN_PROCESS else 'spark ' + chosen} ({why}; --engine to choose)"
        )
    with spark_progress(chosen != IN_PROCESS) as report:
        result = run(
            dataset,
            chosen,
            request.query(checked.oldest_ts),
            Selection(tuple(groups or ()), regex),
            report,
            timeout,
            request.conf,
            checked.skip,
            checked.bytes,
        )
    worst_groups = [r.group for r in result.rollups if r.level == "group"][:5]
    if out:
        write_parquet(out, result)
    if chart:
        write_atomically(
            chart, chart_html(result.history, worst_groups, f"kgroup lag analyze {dataset}"), field="--chart"
        )
    emit(
        document("lag-analysis", analysis_body(dataset, result)),
        output,
        lambda console: analysis_tables(console, result, top),
    )
    for note in result.notes:
        warn(f"kgroup: note: {note}")
    for gap in result.gaps:
        end = "the end of the recording" if gap["end_ts"] is None else _stamp(gap["end_ts"])
        warn(
            f"kgroup: note: the recorder could not poll {gap['cluster']} from {_stamp(gap['start_ts'])} to {end}; "
            "nothing in that gap counts as a stopped consumer"
        )
    if request.until_at is not None and result.query.as_of != request.until_at:
        warn(
            f"kgroup: note: --until falls in a recording gap; evaluated as of {_stamp(result.query.as_of)}, "
            "the last poll before it"
        )
    if out or chart:
        warn(" ".join(f"wrote {path}" for path in (out, chart) if path))
    sys.stdout.flush()


def _stamp(ms: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class _StopRequest:
    """Set by the first Ctrl-C. The handler only flips a flag: taking a lock (threading.Event.set) inside a
    signal handler can deadlock against the interrupted main thread holding that same lock."""

    def __init__(self) -> None:
        self.requested = False

    def sleep(self, seconds: float) -> None:
        """time.sleep resumes after a handler that returns (PEP 475), so sleep in slices to notice the flag."""
        until = time.monotonic() + seconds
        while not self.requested and time.monotonic() < until:
            time.sleep(min(0.1, until - time.monotonic()))


@contextmanager
def _first_ctrl_c_stops_after_the_poll() -> Iterator[_StopRequest]:
    """The first Ctrl-C asks to stop: the poll in flight (bounded by --timeout) is written and the loop
    ends, so no client call is cut off half-way. A second Ctrl-C interrupts at once."""
    stop = _StopRequest()

    def on_sigint(signum: int, frame: Any) -> None:
        if stop.requested:
            raise KeyboardInterrupt
        stop.requested = True

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield stop
    finally:
        # Once asked to stop we are on the way out: a further Ctrl-C landing after this point (the second
        # press of a double tap, milliseconds later) must not escape as a bare KeyboardInterrupt during
        # the summary or interpreter exit, which would end the process by SIGINT instead of exit 130.
        signal.signal(signal.SIGINT, signal.SIG_IGN if stop.requested else previous)


@lag.command("record")
@handle_errors
@live_options
def record(
    out: Annotated[
        str,
        typer.Option(
            "--out", help="The data set folder (created, or appended to).", show_default=False, metavar="DATASET"
        ),
    ],
    groups: GroupsOpt = None,
    regex: RegexOpt = None,
    interval: Annotated[
        str, typer.Option("--interval", help="Time between polls, e.g. 30s.", metavar="DURATION")
    ] = "30s",
    duration: Annotated[
        Optional[str],
        typer.Option("--duration", help="Stop after this long, e.g. 1h.", show_default=False, metavar="DURATION"),
    ] = None,
    count: Annotated[
        Optional[int],
        typer.Option("--count", help="Stop after N polls written.", min=1, show_default=False, metavar="N"),
    ] = None,
    max_outage: Annotated[
        str,
        typer.Option(
            "--max-outage", help="Keep retrying a lost cluster this long before giving up (exit 4).", metavar="DURATION"
        ),
    ] = "15m",
    live: LiveOptions = NOT_LIVE,
) -> None:
    """Poll the cluster and append offset-history samples (Parquet, by date) until --duration or --count.

    Broker restarts and leader moves are ridden out: a failed poll is retried with backoff (1 s doubling
    to 30 s) for up to --max-outage, and the time without polls is saved as a gap, which `lag analyze`
    reads (a gap is never taken for a stopped consumer). On a terminal a line per poll shows progress; a
    summary of what was saved ends every run. Ctrl-C stops once the poll in flight is written; a second
    Ctrl-C stops at once. Every poll written is complete, and no partial file is visible to readers.

    Exit codes: 0 ran its whole --duration/--count; 130 stopped by Ctrl-C; 4 the cluster stayed away
    longer than --max-outage (or was not there at the start); 7 authentication failed; 8 not authorized
    (an ACL is missing); 2 bad input; 5 a named group does not exist.

    Examples:

      kgroup lag record -b localhost:9092 -r '^payments-' --interval 30s --duration 1h --out ./history

      kgroup lag record -b localhost:9092 --group orders --interval 5s --count 12 --out ./history
    """
    from kgroup.inspectors.lag import dataset as lag_dataset
    from kgroup.inspectors.lag.recorder import Event, Schedule, Tally
    from kgroup.inspectors.lag.recorder import record as record_history
    from kgroup.inspectors.lag.sampler import GroupChooser, Sampler

    every = span_ms(interval, "--interval")
    limit_ms = span_ms(duration, "--duration") if duration else None
    if limit_ms is None and count is None:
        raise InputError("say when to stop: --duration (e.g. 1h) or --count N", field="--duration")
    schedule = Schedule(every, limit_ms, count, span_ms(max_outage, "--max-outage"))
    chooser = GroupChooser(tuple(groups or ()), regex)
    lag_dataset.pyarrow()
    admin = live.connect()
    admin.metadata()  # reachability, before the data set is created
    lag_dataset.create(out)
    resumed, skipped = lag_dataset.newest_commits(out, skip_bad=True)
    for path in skipped:
        warn(f"kgroup: warning: {path}: not readable as Parquet; left as it is (new polls go to new files)")
    sampler = Sampler(admin, chooser, first_seen=resumed)
    terminal = stderr_console().is_terminal
    tally = Tally()

    def show(event: Event) -> None:
        nonlocal tally
        tally = event.tally
        for note in event.notes:
            warn(f"kgroup: note: {note}")
        if event.kind == "poll" and terminal:
            warn(
                f"poll {event.tally.polls}: {event.groups} groups, {event.partitions} partitions, "
                f"{event.tally.rows} rows so far"
            )
        elif event.kind == "retry":
            warn(f"kgroup: warning: poll failed ({event.error}); retrying in {event.wait_s:.1f} s")
        elif event.kind == "resumed":
            gap = event.tally.gaps[-1]
            warn(
                f"kgroup: cluster answered again; gap of {(gap['end_ts'] - gap['start_ts']) / 1000:.0f} s "
                f"saved ({gap['attempts']} failed attempts)"
            )

    interrupted = False
    with _first_ctrl_c_stops_after_the_poll() as stop:
        try:
            tally = record_history(out, sampler, schedule, stop, show, live.connect)
        except KeyboardInterrupt:  # the second Ctrl-C: the poll in flight is dropped, not half-written
            interrupted = True
        except NotReachableError:
            warn(_summary("saved before giving up", tally, out))
            raise
        interrupted = interrupted or stop.requested
    warn(_summary("interrupted" if interrupted else "recorded", tally, out))
    if interrupted:
        raise typer.Exit(ExitCode.INTERRUPTED)


def _summary(verb: str, tally: Any, out: str) -> str:
    """One line: polls, rows, the span they cover and the gaps, so the user knows what is on disk."""
    from datetime import datetime, timezone

    def at(ms: int | None) -> str:
        return "-" if ms is None else datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%H:%M:%SZ")

    span = f" from {at(tally.first_ts)} to {at(tally.last_ts)}" if tally.first_ts is not None else ""
    gaps = "; ".join(f"{at(g['start_ts'])}-{at(g['end_ts']) if g['end_ts'] else 'end'}" for g in tally.gaps)
    gap_text = f", {len(tally.gaps)} gap(s): {gaps}" if tally.gaps else ", no gaps"
    return (
        f"kgroup: {verb}: {tally.polls} polls, {tally.rows} rows in {out}{span}{gap_text} "
        "(every poll written is complete)"
    )
