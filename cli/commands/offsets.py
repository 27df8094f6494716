"""`kgroup offsets reset` and `kgroup offsets delete`: kafka-consumer-groups.sh --reset-offsets and
--delete-offsets, each a dry run unless --execute, with the same plan table, CSV and JSON conventions."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from kgroup.cli.errors import ExitCode, handle_errors
from kgroup.cli.options import NOT_LIVE, LiveOptions, live_options
from kgroup.cli.options import OutputOpt
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.offsets import delete_tables, reset_tables
from kgroup.inspectors.offsets.share_reset import reset_group_offsets
from kgroup.inspectors.offsets.reset_csv import plan_csv
from kgroup.inspectors.offsets.reset_request import ResetFlags, reset_request
from kgroup.inspectors.offsets.results import (
    delete_body,
    reset_body,
    reset_executed,
    reset_failures,
    reset_unconfirmed,
)

offsets = typer.Typer(
    name="offsets", help="Reset or delete a group's committed offsets (dry run unless --execute).", no_args_is_help=True
)


@offsets.command("reset")
@handle_errors
@live_options
def reset(
    group_ids: Annotated[list[str], typer.Argument(help="One or more group ids.", show_default=False, metavar="GROUP")],
    to_earliest: Annotated[bool, typer.Option("--to-earliest", help="To the log start.")] = False,
    to_latest: Annotated[bool, typer.Option("--to-latest", help="To the log end (skip everything).")] = False,
    to_current: Annotated[
        bool, typer.Option("--to-current", help="To the committed offset; never-committed partitions to the log end.")
    ] = False,
    to_offset: Annotated[
        Optional[int],
        typer.Option("--to-offset", help="To offset N (clamped into the log).", metavar="N", show_default=False),
    ] = None,
    shift_by: Annotated[
        Optional[int],
        typer.Option(
            "--shift-by",
            help="Committed offset plus N (N may be negative; clamped into the log).",
            metavar="N",
            show_default=False,
        ),
    ] = None,
    to_datetime: Annotated[
        Optional[str],
        typer.Option(
            "--to-datetime",
            help="To the first record at or after YYYY-MM-DDTHH:mm:SS.sss[zone] (UTC if no zone).",
            metavar="T",
            show_default=False,
        ),
    ] = None,
    by_duration: Annotated[
        Optional[str],
        typer.Option(
            "--by-duration",
            help="To the first record at or after now minus an ISO-8601 duration (PT30M).",
            metavar="D",
            show_default=False,
        ),
    ] = None,
    from_file: Annotated[
        Optional[str],
        typer.Option(
            "--from-file",
            help="To the offsets in a CSV plan (as --export writes it).",
            metavar="CSV",
            show_default=False,
        ),
    ] = None,
    to_group: Annotated[
        Optional[str],
        typer.Option(
            "--to-group",
            help="To the committed offsets of group OTHER (rpk group seek --to-group), on the "
            "partitions OTHER has committed (within --topic when given).",
            metavar="OTHER",
            show_default=False,
        ),
    ] = None,
    topics: Annotated[
        Optional[list[str]],
        typer.Option("--topic", help="TOPIC or TOPIC:P[,P...]; repeatable.", show_default=False, metavar="TOPIC"),
    ] = None,
    all_topics: Annotated[bool, typer.Option("--all-topics", help="Every partition the group has committed.")] = False,
    execute: Annotated[bool, typer.Option("--execute", help="Apply the plan. Without it nothing changes.")] = False,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="With several groups: apply the groups that were not refused. By default a "
            "refused group means no group is changed.",
        ),
    ] = False,
    export: Annotated[
        bool,
        typer.Option(
            "--export",
            help="Print the plan as CSV (topic,partition,offset; with the group first for several "
            "groups) for --from-file.",
        ),
    ] = False,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Reset committed offsets like `kafka-consumer-groups.sh --reset-offsets`: plan first, change on --execute.

    Prints the plan as GROUP TOPIC PARTITION NEW-OFFSET (then CURRENT-OFFSET and a note where the new
    offset is not what was asked). Groups with active members are refused, as Kafka refuses them.
    After --execute kgroup reads the committed offsets back and reports any partition that did not take.
    With several groups --execute is all or nothing: if any group is refused, no group is changed (unless
    --allow-partial). Each group's result is in the table and in JSON (`executed` per group, and at the top
    only when every group's plan was applied). A share group (KIP-932) is reset as kafka-share-groups.sh
    resets it (AlterShareGroupOffsets; not --shift-by, --to-current or --to-group).
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
    request = reset_request(
        ids,
        ResetFlags(
            to_earliest,
            to_latest,
            to_current,
            to_offset,
            shift_by,
            to_datetime,
            by_duration,
            from_file,
            to_group,
            tuple(topics or ()),
            all_topics,
        ),
    )
    plans, outcomes = reset_group_offsets(live.connect(), ids, request, execute, allow_partial)
    for plan in plans:
        if plan.refused:
            warn(f"kgroup: error: group {plan.group_id} refused: {plan.refused}")
    if export:
        sys.stdout.write(
            plan_csv(
                ((p.group_id, o.tp, o.new) for p in plans if not p.refused for o in p.offsets), with_group=len(ids) > 1
            )
        )
    else:
        doc = document(
            "offset-reset",
            {"executed": reset_executed(plans, outcomes), "groups": [reset_body(p, outcomes) for p in plans]},
        )
        emit(doc, output, lambda console: reset_tables(console, plans, outcomes))
    plannable = [p.group_id for p in plans if not p.refused and p.offsets]
    if outcomes is not None and any(o.held_back for o in outcomes):
        warn(
            "kgroup: error: nothing was changed: a group was refused and the reset is all or nothing "
            "(--allow-partial applies the groups that were not refused)"
        )
    elif not execute:
        if plannable and any(p.refused for p in plans):
            warn(
                f"kgroup: dry run: nothing was changed; --execute would change nothing while a group is refused "
                f"(or add --allow-partial to apply {', '.join(plannable)})"
            )
        elif plannable:
            warn("kgroup: dry run: nothing was changed; add --execute to apply this plan")
        else:
            warn("kgroup: dry run: nothing was changed")
    failed, unconfirmed = reset_failures(outcomes), reset_unconfirmed(outcomes)
    if failed:
        warn(f"kgroup: error: {len(failed)} partition(s) not reset: " + "; ".join(failed))
    if unconfirmed:  # the cluster could not be used within --timeout, and the commit may still take effect
        warn(
            "kgroup: error: "
            + "; ".join(unconfirmed)
            + "; the offsets read back unchanged for now: read them again (kgroup describe) before running this again"
        )
        raise typer.Exit(ExitCode.NOT_REACHABLE)
    if failed:
        raise typer.Exit(ExitCode.RUNTIME_ERROR)
    if any(p.refused for p in plans):
        raise typer.Exit(ExitCode.REFUSED)


@offsets.command("delete")
@handle_errors
@live_options
def delete(
    group_id: Annotated[
        str, typer.Argument(help="The group whose offsets to delete.", show_default=False, metavar="GROUP")
    ],
    topics: Annotated[
        list[str],
        typer.Option(
            "--topic", help="TOPIC or TOPIC:P[,P...]; repeatable, at least one.", show_default=False, metavar="TOPIC"
        ),
    ],
    execute: Annotated[bool, typer.Option("--execute", help="Delete them. Without it nothing changes.")] = False,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="Delete the partitions Kafka allows when others are refused. By default a "
            "refused partition means none is deleted.",
        ),
    ] = False,
    export: Annotated[
        bool,
        typer.Option(
            "--export",
            help="Print the offsets that would be deleted as CSV (topic,partition,offset): `offsets "
            "reset GROUP --from-file` puts them back.",
        ),
    ] = False,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Delete a group's committed offsets for topics, like `kafka-consumer-groups.sh --delete-offsets`: plan first, change on --execute.

    Prints the plan as GROUP TOPIC PARTITION CURRENT-OFFSET NOTE. Kafka's coordinator refuses the
    partitions of a topic the group's active members subscribe to (GROUP_SUBSCRIBED_TO_TOPIC), and
    every partition of an active group that does not use the consumer protocol (NON_EMPTY_GROUP);
    kgroup refuses them first, from the members' subscriptions. A refused partition means nothing is
    deleted unless --allow-partial. After --execute kgroup reads the group's offsets back: STATUS says
    `deleted` only for a partition that no longer has a commit. The broker must offer OffsetDelete
    (API 47, Kafka 2.4+). A share group's offsets (KIP-932) are deleted per whole topic, once it is
    Empty (DeleteShareGroupOffsets).
    Exit codes: 0 done (or planned), 1 some partitions failed, 5 no such group or topic, 6 refused,
    8 not authorized (DELETE on the group, READ on the topic).

    Examples:

      kgroup offsets delete orders-service --topic old-orders -b localhost:9092

      kgroup offsets delete orders-service --topic old-orders --export > before.csv

      kgroup offsets delete orders-service --topic old-orders:0,1 --execute -b localhost:9092
    """
    from kgroup.inspectors.offsets.share_offset_delete import delete_group_offsets

    plan, outcome = delete_group_offsets(live.connect(), group_id, tuple(topics), execute, allow_partial)
    if plan.refused:
        warn(f"kgroup: error: group {group_id} refused: {plan.refused}")
    for row in plan.refused_rows if not plan.refused else ():  # a whole group refused is one line, above
        warn(f"kgroup: error: {row.tp}: {row.refused}")
    if plan.unsupported and not execute:
        warn(f"kgroup: warning: {plan.unsupported}; --execute would fail")
    if export:
        sys.stdout.write(plan_csv(((group_id, r.tp, r.current) for r in plan.deletable), with_group=False))
    else:
        body = delete_body(plan, outcome)
        doc = document("offset-delete", {"executed": body["executed"], "groups": [body]})
        emit(doc, output, lambda console: delete_tables(console, plan, outcome))
    if outcome is not None and outcome.held_back:
        warn(
            "kgroup: error: nothing was changed: a partition was refused and the deletion is all or nothing "
            "(--allow-partial deletes the partitions that were not refused)"
        )
    elif not execute:
        if plan.deletable and plan.refused_rows:
            warn(
                "kgroup: dry run: nothing was changed; --execute would change nothing while a partition is "
                f"refused (or add --allow-partial to delete {len(plan.deletable)} partition(s))"
            )
        elif plan.deletable and not plan.unsupported:
            warn("kgroup: dry run: nothing was changed; add --execute to delete these offsets")
        else:
            warn("kgroup: dry run: nothing was changed")
    failed = outcome.failed if outcome is not None else {}
    if failed:
        warn(
            f"kgroup: error: {len(failed)} partition(s) not deleted: "
            + "; ".join(f"{tp}: {why}" for tp, why in failed.items())
        )
        raise typer.Exit(ExitCode.RUNTIME_ERROR)
    if plan.refused or plan.refused_rows or (outcome is not None and outcome.refused):
        raise typer.Exit(ExitCode.REFUSED)
