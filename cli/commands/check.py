"""`kgroup check`: pass/fail policies on assignments (current or planned) and on scenarios, for CI."""

from __future__ import annotations

import os
from enum import Enum
from typing import Annotated, Any, Optional

import typer

from kgroup.assignors.analysis.checks import GROUP, SUBSCRIPTION, Limits
from kgroup.cli.errors import ExitCode, handle_errors
from kgroup.cli.options import (
    AddMemberOpt,
    AddPartitionsOpt,
    AddTopicOpt,
    AssignorsOpt,
    ClientOpt,
    InstanceOpt,
    OutputOpt,
    RemoveMemberOpt,
    SubscribeOpt,
    what_if_flags,
)
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.inspectors.errors import InputError


class Scope(str, Enum):
    subscription = SUBSCRIPTION
    group = GROUP


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


def _duration(text: str | None) -> int | None:
    if text is None:
        return None
    from kgroup.inspectors.offsets.reset_times import parse_duration

    ms = parse_duration(text, days=False)
    if ms is None:
        raise InputError(f"{text!r}: expected a duration such as 500ms, 45s, 5m or 1h", field="--max-unconsumed")
    return ms


@handle_errors
def check(
    files: Annotated[
        Optional[list[str]],
        typer.Argument(
            help="Fixtures, saved plans (simulate --save-plan) or scenarios, as files or bundled names; "
            "all judged, one exit code. Default: the bundled demo.",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
    group: Annotated[
        Optional[list[str]],
        typer.Option(
            "--group",
            "-g",
            help="The group to check (repeatable). Default: every group in each fixture.",
            metavar="GROUP_ID",
            show_default=False,
        ),
    ] = None,
    assignor: AssignorsOpt = None,
    add_member: AddMemberOpt = None,
    remove_member: RemoveMemberOpt = None,
    add_partitions: AddPartitionsOpt = None,
    subscribe: SubscribeOpt = None,
    add_topic: AddTopicOpt = None,
    client: ClientOpt = None,
    instance: InstanceOpt = None,
    max_imbalance: Annotated[
        Optional[int],
        typer.Option(
            help="Most partitions per member minus fewest, among the members --balance-scope compares.",
            min=0,
            metavar="N",
        ),
    ] = None,
    balance_scope: Annotated[
        Scope,
        typer.Option(
            help="Which members --max-imbalance compares. subscription (default): members with identical "
            "subscriptions, the balance Kafka's assignors promise, so a limit of 1 is reachable in any group. "
            "group: every member, subscriptions aside.",
            case_sensitive=False,
        ),
    ] = Scope.subscription,
    max_topic_imbalance: Annotated[
        Optional[int], typer.Option(help="The same within every topic, over its subscribers.", min=0, metavar="N")
    ] = None,
    min_stickiness: Annotated[
        Optional[str], typer.Option(help="Least share of owned partitions kept, e.g. 0.8 or 80%.", metavar="SHARE")
    ] = None,
    max_moves: Annotated[
        Optional[int], typer.Option(help="Most partitions that may change owner.", min=0, metavar="N")
    ] = None,
    kafka_balanced: Annotated[
        bool,
        typer.Option(
            "--kafka-balanced", help="Kafka's own balance rule: no partition could move to a member with 2+ fewer."
        ),
    ] = False,
    max_unconsumed: Annotated[
        Optional[str],
        typer.Option(
            help="Scenarios: the most time any one partition may go unconsumed (its gaps added up), e.g. 60s.",
            metavar="DURATION",
        ),
    ] = None,
    max_rebalances: Annotated[
        Optional[int], typer.Option(help="Scenarios: the most rebalances the events may cause.", min=0, metavar="N")
    ] = None,
    report: Annotated[
        Optional[str],
        typer.Option(
            "--report",
            help="Also write a JUnit XML report to FILE: one testcase per check.",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
    github_annotations: Annotated[
        Optional[bool],
        typer.Option(
            "--github-annotations/--no-github-annotations",
            help="Print a GitHub Actions ::error annotation per failed check. Default: on when GITHUB_ACTIONS=true.",
            show_default=False,
        ),
    ] = None,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Gate CI on an assignment: exit 0 when every check holds, 3 when one fails, 2 on bad input.

    Checks a fixture's current assignment; with an assignor or what-if flags (the same as `simulate`
    takes), the planned assignment after those changes; with a saved plan, that plan (and any flags given
    after it). Validity (each subscribed partition exactly once, only to a subscriber) is always checked;
    an assignor whose output breaks it exits 1, as from every command. A scenario is checked by its
    rebalances (the two scenario limits below). Each failed check is one line on stderr.

    Examples:

      kgroup check group.yaml --max-imbalance 1

      kgroup check shop.yaml -a cooperative-sticky --add-member shop-5 --remove-member shop-3 --max-imbalance 1 --min-stickiness 80%

      kgroup simulate shop.yaml --add-member shop-5 --save-plan scale-out.yaml

      kgroup check scale-out.yaml rolling-restart.yaml --max-imbalance 1 --max-unconsumed 60s --max-rebalances 2 --report junit.xml
    """
    from kgroup.inspectors.simulation.gate import run_gate
    from kgroup.inspectors.simulation.scenario_gate import ScenarioLimits

    limits = Limits(
        max_imbalance, balance_scope.value, max_topic_imbalance, _ratio(min_stickiness), max_moves, kafka_balanced
    )
    scenario_limits = ScenarioLimits(_duration(max_unconsumed), max_rebalances)
    flags = what_if_flags(assignor, add_member, remove_member, add_partitions, subscribe, client, instance, add_topic)
    gate = run_gate(list(files or []), list(group or []), flags, limits, scenario_limits)
    _write_report(gate, report)
    for line in dict.fromkeys(gate.warnings):
        warn(line)
    emit(document("check", _body(gate)), output, lambda console: _tables(console, gate))
    if gate.ok:
        return
    from kgroup.cli.render.ci import annotations, failure_lines

    for line in failure_lines(gate):
        warn(line)
    if github_annotations is None:
        github_annotations = os.environ.get("GITHUB_ACTIONS") == "true"
    if github_annotations:
        for line in annotations(gate):
            warn(line)
    raise typer.Exit(ExitCode.CHECK_FAILED)


def _write_report(gate: Any, path: str | None) -> None:
    if path is None:
        return
    from kgroup.cli.render.ci import junit_xml
    from kgroup.inspectors.files import write_atomically

    write_atomically(path, junit_xml(gate), field="--report")


def _body(gate: Any) -> dict[str, Any]:
    return {
        "ok": gate.ok,
        "checks": [
            {
                "source": case.source,
                "group_id": case.group_id,
                "assignor": case.assignor,
                "planned": case.planned,
                "name": r.name,
                "ok": r.ok,
                "expected": r.expected,
                "actual": r.actual,
            }
            for case in gate.cases
            for r in case.results
        ],
    }


def _tables(console: Any, gate: Any) -> None:
    from kgroup.cli.render.ci import case_name
    from kgroup.cli.render.tables import checks_table

    for i, case in enumerate(gate.cases):
        if i:
            console.print()
        console.print(f"{case_name(case)}: {'ok' if case.ok else 'FAILED'}", markup=False)
        console.print(checks_table(list(case.results)))
