"""`kgroup check`: pass/fail policies on an assignment, for CI."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kgroup.assignors.analysis.checks import Limits, run_checks
from kgroup.cli.render import documents
from kgroup.cli.errors import ExitCode, handle_errors
from kgroup.cli.options import FixtureArg, GroupOpt, OutputOpt, load
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.tables import checks_table
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.simulation.whatif_run import check_current, simulate


def _ratio(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise InputError(f"{text!r}: expected a share such as 0.8 or 80%", field="--min-stickiness") from None
    if not 0 <= value <= 1:
        raise InputError(f"{text!r}: expected a share between 0 and 1 (or 0% and 100%)", field="--min-stickiness")
    return value


@handle_errors
def check(
    fixture: FixtureArg = None,
    assignor: Annotated[Optional[str], typer.Option(
        "--assignor", "-a", help="Check what this assignor would produce. Default: the fixture's current assignment.")]
    = None,
    group: GroupOpt = None,
    max_imbalance: Annotated[Optional[int], typer.Option(
        help="Most partitions per member minus fewest, whole group.", min=0)] = None,
    max_topic_imbalance: Annotated[Optional[int], typer.Option(
        help="The same within every topic, over its subscribers.", min=0)] = None,
    min_stickiness: Annotated[Optional[str], typer.Option(
        help="Least share of owned partitions kept, e.g. 0.8 or 80%.")] = None,
    max_moves: Annotated[Optional[int], typer.Option(help="Most partitions that may change owner.", min=0)] = None,
    kafka_balanced: Annotated[bool, typer.Option(
        "--kafka-balanced", help="Kafka's own balance rule: no partition could move to a member with 2+ fewer.")]
    = False,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Gate CI on an assignment: exit 0 when every check holds, 3 when one fails, 2 on bad input.

    Validity (each subscribed partition exactly once, only to a subscriber) is always checked.

    Examples:

      kgroup check group.yaml --max-imbalance 1

      kgroup check group.yaml -a roundrobin --min-stickiness 80% --kafka-balanced
    """
    limits = Limits(max_imbalance, max_topic_imbalance, _ratio(min_stickiness), max_moves, kafka_balanced)
    loaded = load(fixture)
    if assignor:
        run = simulate(loaded, group, [assignor], [], [], [], []).runs[0]
    else:
        run = check_current(loaded, group)
    results = run_checks(run, limits)
    ok = all(r.ok for r in results)
    doc = document("check", {"source": loaded.source, "assignor": run.assignor, **documents.check_body(results)})
    for line in loaded.warnings:
        warn(line)
    emit(doc, output, lambda console: console.print(checks_table(results)))
    if not ok:
        for r in results:
            if not r.ok:
                warn(f"check failed: {r.name}: expected {r.expected}, actual {r.actual}")
        raise typer.Exit(ExitCode.CHECK_FAILED)
