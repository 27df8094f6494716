"""`kgroup offsets reset`: kafka-consumer-groups.sh --reset-offsets, a dry run unless --execute."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from kgroup.assignors.offsets.reset_plan import (FROM_FILE, SHIFT_BY, TO_CURRENT, TO_DATETIME, TO_EARLIEST, TO_LATEST,
                                           TO_OFFSET)
from kgroup.cli.errors import ExitCode, handle_errors
from kgroup.cli.options import BootstrapOpt, CommandConfigOpt, OutputOpt, ProfileOpt, TimeoutOpt, connect
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.tables import dash, print_wide
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.offsets.live_reset import GroupOutcome, GroupPlan, ResetRequest, apply_reset, prepare_reset
from kgroup.inspectors.offsets.plan_file import plan_csv, read_plan_csv
from kgroup.inspectors.offsets.reset_times import ago_ms, datetime_ms

offsets = typer.Typer(name="offsets", help="Change a group's committed offsets (dry run unless --execute).",
                      no_args_is_help=True)


@offsets.command("reset")
@handle_errors
def reset(
    group_ids: Annotated[list[str], typer.Argument(help="One or more group ids.", show_default=False, metavar="GROUP")],
    to_earliest: Annotated[bool, typer.Option("--to-earliest", help="To the log start.")] = False,
    to_latest: Annotated[bool, typer.Option("--to-latest", help="To the log end (skip everything).")] = False,
    to_current: Annotated[bool, typer.Option(
        "--to-current", help="To the committed offset; never-committed partitions to the log end.")] = False,
    to_offset: Annotated[Optional[int], typer.Option("--to-offset", help="To offset N (clamped into the log).",
                                                     metavar="N", show_default=False)] = None,
    shift_by: Annotated[Optional[int], typer.Option("--shift-by", help="Committed offset plus N (N may be "
                                                    "negative; clamped into the log).", metavar="N",
                                                    show_default=False)] = None,
    to_datetime: Annotated[Optional[str], typer.Option(
        "--to-datetime", help="To the first record at or after YYYY-MM-DDTHH:mm:SS.sss[zone] (UTC if no zone).",
        metavar="T", show_default=False)] = None,
    by_duration: Annotated[Optional[str], typer.Option(
        "--by-duration", help="To the first record at or after now minus an ISO-8601 duration (PT30M).",
        metavar="D", show_default=False)] = None,
    from_file: Annotated[Optional[str], typer.Option(
        "--from-file", help="To the offsets in a CSV plan (as --export writes it).", metavar="CSV",
        show_default=False)] = None,
    to_group: Annotated[Optional[str], typer.Option(
        "--to-group", help="To the committed offsets of group OTHER (rpk group seek --to-group), on the "
                           "partitions OTHER has committed (within --topic when given).", metavar="OTHER",
        show_default=False)] = None,
    topics: Annotated[Optional[list[str]], typer.Option(
        "--topic", help="TOPIC or TOPIC:P[,P...]; repeatable.", show_default=False)] = None,
    all_topics: Annotated[bool, typer.Option("--all-topics", help="Every partition the group has committed.")] = False,
    execute: Annotated[bool, typer.Option("--execute", help="Apply the plan. Without it nothing changes.")] = False,
    allow_partial: Annotated[bool, typer.Option(
        "--allow-partial", help="With several groups: apply the groups that were not refused. By default a "
                                "refused group means no group is changed.")] = False,
    export: Annotated[bool, typer.Option(
        "--export", help="Print the plan as CSV (topic,partition,offset; with the group first for several "
                         "groups) for --from-file.")] = False,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    profile: ProfileOpt = None,
    timeout: TimeoutOpt = 10.0,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Reset committed offsets like `kafka-consumer-groups.sh --reset-offsets`: plan first, change on --execute.

    Prints the plan as GROUP TOPIC PARTITION NEW-OFFSET (then CURRENT-OFFSET and a note where the new
    offset is not what was asked). Groups with active members are refused, as Kafka refuses them.
    After --execute kgroup reads the committed offsets back and reports any partition that did not take.
    With several groups --execute is all or nothing: if any group is refused, no group is changed (unless
    --allow-partial). Each group's result is in the table and in JSON (`executed` per group, and at the top
    only when every group's plan was applied).
    Exit codes: 0 done (or planned), 1 some partitions failed, 6 a group was refused.

    Examples:

      kgroup offsets reset orders-service --topic orders --to-earliest -b localhost:9092

      kgroup offsets reset orders-service --all-topics --shift-by -100 --execute

      kgroup offsets reset orders-service --all-topics --to-latest --export > plan.csv

      kgroup offsets reset orders-service --from-file plan.csv --execute

      kgroup offsets reset orders-service-v2 --to-group orders-service --execute
    """
    ids = list(dict.fromkeys(group_ids))
    request = _request(ids, to_earliest, to_latest, to_current, to_offset, shift_by, to_datetime, by_duration,
                       from_file, tuple(topics or ()), all_topics, to_group)
    admin = connect(bootstrap_server, command_config, profile, timeout)
    plans = prepare_reset(admin, ids, request)
    outcomes = apply_reset(admin, plans, allow_partial) if execute else None
    for plan in plans:
        if plan.refused:
            warn(f"kgroup: error: group {plan.group_id}: {plan.refused}")
    if export:
        sys.stdout.write(plan_csv(((p.group_id, o.tp, o.new) for p in plans if not p.refused for o in p.offsets),
                                  with_group=len(ids) > 1))
    else:
        executed = outcomes is not None and all(o.executed or not p.offsets for p, o in zip(plans, outcomes)) \
            and not any(p.refused for p in plans)
        doc = document("offset-reset", {"executed": executed, "groups": [_body(p, outcomes) for p in plans]})
        emit(doc, output, lambda console: _plan_table(console, plans, outcomes))
    plannable = [p.group_id for p in plans if not p.refused and p.offsets]
    if outcomes is not None and any(o.held_back for o in outcomes):
        warn("kgroup: error: nothing was changed: a group was refused and the reset is all or nothing "
             "(--allow-partial applies the groups that were not refused)")
    elif not execute:
        if plannable and any(p.refused for p in plans):
            warn(f"kgroup: dry run: nothing was changed; --execute would change nothing while a group is refused "
                 f"(or add --allow-partial to apply {', '.join(plannable)})")
        elif plannable:
            warn("kgroup: dry run: nothing was changed; add --execute to apply this plan")
        else:
            warn("kgroup: dry run: nothing was changed")
    _exit(plans, outcomes)


def _request(ids: list[str], to_earliest: bool, to_latest: bool, to_current: bool, to_offset: int | None,
             shift_by: int | None, to_datetime: str | None, by_duration: str | None, from_file: str | None,
             topics: tuple[str, ...], all_topics: bool, to_group: str | None = None) -> ResetRequest:
    chosen = {TO_EARLIEST: to_earliest, TO_LATEST: to_latest, TO_CURRENT: to_current, TO_OFFSET: to_offset is not None,
              SHIFT_BY: shift_by is not None, TO_DATETIME: to_datetime is not None,
              "by-duration": by_duration is not None, FROM_FILE: from_file is not None,
              "to-group": to_group is not None}
    specs = [name for name, on in chosen.items() if on]
    if len(specs) != 1:
        raise InputError("give exactly one of --to-earliest, --to-latest, --to-current, --to-offset, --shift-by, "
                         "--to-datetime, --by-duration, --from-file, --to-group" + (f" (got {', '.join('--' + s for s in specs)})"
                                                                         if specs else ""), field="reset spec")
    spec = specs[0]
    if spec == "to-group":
        if to_group in ids:
            raise InputError(f"{to_group!r} is also a group to reset", field="--to-group")
        if topics and all_topics:
            raise InputError("give --all-topics or --topic, not both", field="--topic")
        return ResetRequest("to-group", topics=topics, all_topics=all_topics, to_group=to_group)
    if spec == FROM_FILE:
        if topics or all_topics:
            raise InputError("--from-file takes its partitions from the file; drop --topic/--all-topics",
                             field="--from-file")
        return ResetRequest(FROM_FILE, from_file=read_plan_csv(str(from_file), ids))
    if bool(topics) == all_topics:
        raise InputError("give the scope: --all-topics or --topic TOPIC[:P,...] (not both)", field="--topic")
    if to_offset is not None and to_offset < 0:
        raise InputError(f"{to_offset}: an offset is not negative", field="--to-offset")
    if spec == "by-duration":
        return ResetRequest(TO_DATETIME, timestamp_ms=ago_ms(str(by_duration)), topics=topics, all_topics=all_topics)
    timestamp = datetime_ms(to_datetime) if to_datetime is not None else None
    return ResetRequest(spec, to_offset if spec == TO_OFFSET else shift_by, timestamp, topics, all_topics)


def _outcome_of(outcomes: list[GroupOutcome] | None, group_id: str) -> GroupOutcome | None:
    return next((o for o in outcomes or () if o.group_id == group_id), None)


def _status(outcome: GroupOutcome | None, tp: Any) -> str | None:
    if outcome is None:
        return None
    if outcome.held_back:
        return "not applied"
    return f"failed: {outcome.failed[tp]}" if tp in outcome.failed else "applied"


def _result(plan: GroupPlan, outcome: GroupOutcome | None) -> str:
    """One group's result in a word or a short phrase, the same in the table and in JSON."""
    if plan.refused:
        return "refused"
    if not plan.offsets:
        return "nothing to reset"
    if outcome is None:
        return "planned (dry run)"
    if outcome.held_back:
        return outcome.held_back
    if outcome.failed:
        return f"failed: {len(outcome.failed)} of {len(plan.offsets)} partitions"
    return "applied"


def _body(plan: GroupPlan, outcomes: list[GroupOutcome] | None) -> dict[str, Any]:
    outcome = _outcome_of(outcomes, plan.group_id)
    return {"group": plan.group_id, "state": plan.state, "refused": plan.refused,
            "executed": outcome is not None and outcome.executed, "result": _result(plan, outcome),
            "partitions": [{"topic": o.tp.topic, "partition": o.tp.partition, "current_offset": o.current,
                            "new_offset": o.new, "note": o.note, "status": _status(outcome, o.tp)}
                           for o in plan.offsets]}


def _plan_table(console: Console, plans: list[GroupPlan], outcomes: list[GroupOutcome] | None) -> None:
    rows = [(p, o) for p in plans for o in p.offsets]
    if not rows:
        console.print("nothing to reset")
    else:
        _partition_table(console, rows, outcomes)
    if len(plans) > 1 or any(p.refused for p in plans):
        console.print()
        groups = Table(box=None, pad_edge=False)
        for column in ("GROUP", "STATE", "PARTITIONS", "RESULT"):
            groups.add_column(column, justify="right" if column == "PARTITIONS" else "left")
        for plan in plans:
            why = f": {plan.refused}" if plan.refused else ""
            groups.add_row(plan.group_id, plan.state, str(len(plan.offsets)),
                           _result(plan, _outcome_of(outcomes, plan.group_id)) + why)
        print_wide(console, groups)


def _partition_table(console: Console, rows: list[Any], outcomes: list[GroupOutcome] | None) -> None:
    table = Table(box=None, pad_edge=False)
    columns = ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET", "CURRENT-OFFSET", "NOTE"] + (["STATUS"] if outcomes else [])
    for column in columns:
        table.add_column(column, justify="right" if column in ("PARTITION", "NEW-OFFSET", "CURRENT-OFFSET") else "left")
    for plan, o in rows:
        cells = [plan.group_id, o.tp.topic, str(o.tp.partition), str(o.new), dash(o.current), dash(o.note)]
        if outcomes:
            cells.append(_status(_outcome_of(outcomes, plan.group_id), o.tp) or "-")
        table.add_row(*cells)
    print_wide(console, table)


def _exit(plans: list[GroupPlan], outcomes: list[GroupOutcome] | None) -> None:
    failed = [f"{o.group_id} {tp}: {why}" for o in outcomes or () for tp, why in o.failed.items()]
    if failed:
        warn(f"kgroup: error: {len(failed)} partition(s) not reset: " + "; ".join(failed))
        raise typer.Exit(ExitCode.RUNTIME_ERROR)
    if any(p.refused for p in plans):
        raise typer.Exit(ExitCode.REFUSED)
