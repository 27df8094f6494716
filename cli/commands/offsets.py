"""`kgroup offsets reset` and `kgroup offsets delete`: kafka-consumer-groups.sh --reset-offsets and
--delete-offsets, each a dry run unless --execute, with the same plan table, CSV and JSON conventions."""

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

offsets = typer.Typer(name="offsets", help="Reset or delete a group's committed offsets (dry run unless --execute).",
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
        "--topic", help="TOPIC or TOPIC:P[,P...]; repeatable.", show_default=False, metavar="TOPIC")] = None,
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
    Exit codes: 0 done (or planned), 1 some partitions failed, 6 a group was refused, 8 not authorized
    (READ on the group and the topic).

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
            warn(f"kgroup: error: group {plan.group_id} refused: {plan.refused}")
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


def _status(outcome: GroupOutcome | None, tp: Any, refused: bool = False) -> str | None:
    if refused:
        return "refused"
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
                            "new_offset": o.new, "note": o.note, "status": _status(outcome, o.tp, bool(plan.refused))}
                           for o in plan.offsets]}


def _plan_table(console: Console, plans: list[GroupPlan], outcomes: list[GroupOutcome] | None) -> None:
    rows = [(p, o) for p in plans for o in p.offsets]
    if not rows:
        console.print("nothing to reset")
    else:  # a refused group's rows too: the plan that was refused
        _partition_table(console, rows, outcomes, any(p.refused for p in plans))
    # after --execute (one group or several) or a refusal: what became of each group's plan
    if len(plans) > 1 or any(p.refused for p in plans) or outcomes is not None:
        _groups_table(console, [(p.group_id, p.state, len(p.offsets),
                                 _result(p, _outcome_of(outcomes, p.group_id)) + (f": {p.refused}" if p.refused else ""))
                                for p in plans])


def _groups_table(console: Console, rows: list[tuple[str, str, int, str]]) -> None:
    """Per group: GROUP STATE PARTITIONS RESULT, after the partition table (reset and delete alike)."""
    console.print()
    groups = Table(box=None, pad_edge=False)
    for column in ("GROUP", "STATE", "PARTITIONS", "RESULT"):
        groups.add_column(column, justify="right" if column == "PARTITIONS" else "left")
    for group_id, state, partitions, result in rows:
        groups.add_row(group_id, state, str(partitions), result)
    print_wide(console, groups)


def _partition_table(console: Console, rows: list[Any], outcomes: list[GroupOutcome] | None,
                     refused: bool = False) -> None:
    table = Table(box=None, pad_edge=False)
    status = outcomes is not None or refused
    columns = ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET", "CURRENT-OFFSET", "NOTE"] + (["STATUS"] if status else [])
    for column in columns:
        table.add_column(column, justify="right" if column in ("PARTITION", "NEW-OFFSET", "CURRENT-OFFSET") else "left")
    for plan, o in rows:
        cells = [plan.group_id, o.tp.topic, str(o.tp.partition), str(o.new), dash(o.current), dash(o.note)]
        if status:
            cells.append(_status(_outcome_of(outcomes, plan.group_id), o.tp, bool(plan.refused))
                         or "planned (dry run)")
        table.add_row(*cells)
    print_wide(console, table)


def _exit(plans: list[GroupPlan], outcomes: list[GroupOutcome] | None) -> None:
    failed = [f"{o.group_id} {tp}: {why}" for o in outcomes or () for tp, why in o.failed.items()]
    if failed:
        warn(f"kgroup: error: {len(failed)} partition(s) not reset: " + "; ".join(failed))
        raise typer.Exit(ExitCode.RUNTIME_ERROR)
    if any(p.refused for p in plans):
        raise typer.Exit(ExitCode.REFUSED)


@offsets.command("delete")
@handle_errors
def delete(
    group_id: Annotated[str, typer.Argument(help="The group whose offsets to delete.", show_default=False,
                                            metavar="GROUP")],
    topics: Annotated[list[str], typer.Option(
        "--topic", help="TOPIC or TOPIC:P[,P...]; repeatable, at least one.", show_default=False, metavar="TOPIC")],
    execute: Annotated[bool, typer.Option("--execute", help="Delete them. Without it nothing changes.")] = False,
    allow_partial: Annotated[bool, typer.Option(
        "--allow-partial", help="Delete the partitions Kafka allows when others are refused. By default a "
                                "refused partition means none is deleted.")] = False,
    export: Annotated[bool, typer.Option(
        "--export", help="Print the offsets that would be deleted as CSV (topic,partition,offset): `offsets "
                         "reset GROUP --from-file` puts them back.")] = False,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    profile: ProfileOpt = None,
    timeout: TimeoutOpt = 10.0,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Delete a group's committed offsets for topics, like `kafka-consumer-groups.sh --delete-offsets`: plan first, change on --execute.

    Prints the plan as GROUP TOPIC PARTITION CURRENT-OFFSET NOTE. Kafka's coordinator refuses the
    partitions of a topic the group's active members subscribe to (GROUP_SUBSCRIBED_TO_TOPIC), and
    every partition of an active group that does not use the consumer protocol (NON_EMPTY_GROUP);
    kgroup refuses them first, from the members' subscriptions. A refused partition means nothing is
    deleted unless --allow-partial. After --execute kgroup reads the group's offsets back: STATUS says
    `deleted` only for a partition that no longer has a commit. The broker must offer OffsetDelete
    (API 47, Kafka 2.4+).
    Exit codes: 0 done (or planned), 1 some partitions failed, 5 no such group or topic, 6 refused,
    8 not authorized (DELETE on the group, READ on the topic).

    Examples:

      kgroup offsets delete orders-service --topic old-orders -b localhost:9092

      kgroup offsets delete orders-service --topic old-orders --export > before.csv

      kgroup offsets delete orders-service --topic old-orders:0,1 --execute -b localhost:9092
    """
    from kgroup.inspectors.offsets.offset_delete import apply_offset_delete, plan_offset_delete

    admin = connect(bootstrap_server, command_config, profile, timeout)
    plan = plan_offset_delete(admin, group_id, tuple(topics))
    outcome = apply_offset_delete(admin, plan, allow_partial) if execute else None
    if plan.refused:
        warn(f"kgroup: error: group {group_id} refused: {plan.refused}")
    for row in plan.refused_rows if not plan.refused else ():  # a whole group refused is one line, above
        warn(f"kgroup: error: {row.tp}: {row.refused}")
    if plan.unsupported and not execute:
        warn(f"kgroup: warning: {plan.unsupported}; --execute would fail")
    if export:
        sys.stdout.write(plan_csv(((group_id, r.tp, r.current) for r in plan.deletable), with_group=False))
    else:
        body = _delete_body(plan, outcome)
        doc = document("offset-delete", {"executed": body["executed"], "groups": [body]})
        emit(doc, output, lambda console: _delete_table(console, plan, outcome))
    if outcome is not None and outcome.held_back:
        warn("kgroup: error: nothing was changed: a partition was refused and the deletion is all or nothing "
             "(--allow-partial deletes the partitions that were not refused)")
    elif not execute:
        if plan.deletable and plan.refused_rows:
            warn("kgroup: dry run: nothing was changed; --execute would change nothing while a partition is "
                 f"refused (or add --allow-partial to delete {len(plan.deletable)} partition(s))")
        elif plan.deletable and not plan.unsupported:
            warn("kgroup: dry run: nothing was changed; add --execute to delete these offsets")
        else:
            warn("kgroup: dry run: nothing was changed")
    failed = outcome.failed if outcome is not None else {}
    if failed:
        warn(f"kgroup: error: {len(failed)} partition(s) not deleted: "
             + "; ".join(f"{tp}: {why}" for tp, why in failed.items()))
        raise typer.Exit(ExitCode.RUNTIME_ERROR)
    if plan.refused or plan.refused_rows or (outcome is not None and outcome.refused):
        raise typer.Exit(ExitCode.REFUSED)


def _delete_status(row: Any, outcome: Any) -> str | None:
    if outcome is None:
        return None
    if row.current is None:
        return "nothing to delete"
    if row.refused:
        return "refused"
    if outcome.held_back:
        return "not deleted"
    for kind, found in (("refused", outcome.refused), ("failed", outcome.failed)):
        if row.tp in found:
            return f"{kind}: {found[row.tp]}"
    return "deleted" if row.tp in outcome.deleted else None


def _delete_result(plan: Any, outcome: Any) -> str:
    """The group's result in a word or a short phrase, the same in the table and in JSON."""
    refused = len(plan.refused_rows)
    if plan.refused:
        return "refused"
    if not plan.deletable and not refused:
        return "nothing to delete"
    if outcome is None:
        return f"{refused} of {refused + len(plan.deletable)} partitions refused" if refused else "planned (dry run)"
    if outcome.held_back:
        return outcome.held_back
    trouble = [f"{kind}: {len(found)} of {len(plan.deletable)} partitions"
               for kind, found in (("refused by the broker", outcome.refused), ("failed", outcome.failed)) if found]
    if trouble:
        return "; ".join(trouble)
    return f"deleted; {refused} partition(s) refused" if refused else "deleted"


def _delete_body(plan: Any, outcome: Any) -> dict[str, Any]:
    return {"group": plan.group_id, "state": plan.state, "members": plan.members, "refused": plan.refused,
            # true only when every partition asked for was deleted; per-partition `status` says which were
            "executed": outcome is not None and outcome.executed and not plan.refused_rows,
            "result": _delete_result(plan, outcome),
            "partitions": [{"topic": r.tp.topic, "partition": r.tp.partition, "current_offset": r.current,
                            "refused": r.refused, "note": _delete_note(r), "status": _delete_status(r, outcome)}
                           for r in plan.rows]}


def _delete_note(row: Any) -> str | None:
    if row.current is None:
        return "nothing committed"
    if row.refused == "NON_EMPTY_GROUP":  # offset_delete.NON_EMPTY_GROUP: the whole group was refused
        return "refused: NON_EMPTY_GROUP"
    return "refused: GROUP_SUBSCRIBED_TO_TOPIC" if row.refused else None


def _delete_table(console: Console, plan: Any, outcome: Any) -> None:
    if not plan.rows:
        if not plan.refused:
            console.print("nothing to delete")
    else:
        table = Table(box=None, pad_edge=False)
        columns = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "NOTE"] + (["STATUS"] if outcome is not None else [])
        for column in columns:
            table.add_column(column, justify="right" if column in ("PARTITION", "CURRENT-OFFSET") else "left")
        for row in plan.rows:
            cells = [plan.group_id, row.tp.topic, str(row.tp.partition), dash(row.current), dash(_delete_note(row))]
            if outcome is not None:
                cells.append(dash(_delete_status(row, outcome)))
            table.add_row(*cells)
        print_wide(console, table)
    if plan.refused or plan.refused_rows:
        _groups_table(console, [(plan.group_id, plan.state, len(plan.rows), _delete_result(plan, outcome)
                                 + (f": {plan.refused}" if plan.refused else ""))])
