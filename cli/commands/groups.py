"""`kgroup groups`: list the groups (no subcommand), or `kgroup groups delete GROUP...`.

Why a subcommand of `groups` rather than `kgroup group delete` or `groups --delete`: `groups` is already
where users look for the set of groups, rpk spells the same pair `rpk group list` / `rpk group delete`,
and an action flag on a listing (`--delete`) would make a typo in a filter a deletion. `kgroup groups`
with no subcommand still lists, with the same options as before.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from kgroup.cli.commands.live import groups as list_groups
from kgroup.cli.errors import ExitCode, handle_errors
from kgroup.cli.options import NOT_LIVE, LiveOptions, live_options
from kgroup.cli.options import OutputOpt
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.tables import print_wide

groups = typer.Typer(
    name="groups",
    invoke_without_command=True,
    help="List consumer groups: id, type, state, members, assignor, coordinator and total lag.",
)


@groups.callback()
@live_options
def listing(
    ctx: typer.Context,
    regex: Annotated[
        Optional[str], typer.Option("--regex", "-r", help="Only groups whose id matches.", metavar="PATTERN")
    ] = None,
    state: Annotated[
        Optional[str], typer.Option("--state", help="Only groups in this state, e.g. Stable.", metavar="STATE")
    ] = None,
    group_type: Annotated[
        Optional[str],
        typer.Option(
            "--type", help="Only groups of this type: classic, consumer (KIP-848), share or streams.", metavar="TYPE"
        ),
    ] = None,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """List consumer groups: id, type, state, members, assignor, coordinator and total lag.

    TYPE and PROTOCOL are those `kafka-groups.sh --list` prints (Kafka 4.x): the group's type (classic,
    consumer for KIP-848's protocol, share, streams) and its protocol type.

    `kgroup groups delete GROUP...` deletes groups (a dry run unless --execute).

    Examples:

      kgroup groups -b localhost:9092

      kgroup groups -r '^payments-' --state Stable -o json

      kgroup groups --type consumer -b localhost:9092

      kgroup groups delete old-reporting --execute -b localhost:9092
    """
    if ctx.invoked_subcommand is None:
        list_groups(regex, state, live, output, group_type)


@groups.command("delete")
@handle_errors
@live_options
def delete(
    group_ids: Annotated[list[str], typer.Argument(help="One or more group ids.", show_default=False, metavar="GROUP")],
    execute: Annotated[bool, typer.Option("--execute", help="Delete them. Without it nothing changes.")] = False,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="With several groups: delete those that were not refused. By default a refused "
            "group means no group is deleted.",
        ),
    ] = False,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Delete consumer groups and their committed offsets, as `kafka-consumer-groups.sh --delete` (dry run unless --execute).

    Groups with active members (or in any state but Empty) are refused, as Kafka refuses them; with
    several groups, a refusal means none is deleted unless --allow-partial. After --execute kgroup reads
    each group's offsets back: a group counts as deleted only when none remain.
    Exit codes: 0 done (or planned), 1 a deletion failed, 4 the cluster was lost, 5 a group does not
    exist, 6 a group was refused, 8 not authorized (DELETE on the group).

    Examples:

      kgroup groups delete old-reporting -b localhost:9092              # the plan only

      kgroup groups delete old-reporting old-audit --execute -b localhost:9092
    """
    from kgroup.inspectors.offsets.group_delete import apply_delete, plan_delete

    ids = list(dict.fromkeys(group_ids))
    admin = live.connect()
    plans = plan_delete(admin, ids)
    outcomes = {o.group_id: o for o in apply_delete(admin, plans, allow_partial)} if execute else {}
    for plan in plans:
        if plan.refused:
            warn(f"kgroup: error: group {plan.group_id} refused: {plan.refused}")

    def result(plan: Any) -> str:
        if plan.refused:
            return "refused"
        if not execute:
            return "planned (dry run)"
        outcome = outcomes[plan.group_id]
        return "deleted" if outcome.deleted else f"not deleted: {outcome.why}"

    bodies: list[dict[str, Any]] = [
        {
            "group": p.group_id,
            "state": p.state,
            "members": p.members,
            "committed_partitions": p.committed_partitions,
            "refused": p.refused,
            "executed": bool(execute and outcomes[p.group_id].deleted),
            "result": result(p),
            "partitions": [
                {"topic": tp.topic, "partition": tp.partition, "current_offset": offset} for tp, offset in p.offsets
            ],
        }
        for p in plans
    ]
    doc = document("group-delete", {"executed": bool(bodies) and all(b["executed"] for b in bodies), "groups": bodies})

    def table(console: Console) -> None:
        # the plan first: the offsets each group's deletion removes (a refused group's too: what was refused)
        if any(p.offsets for p in plans):
            offsets = Table(box=None, pad_edge=False)
            for column in ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET"):
                offsets.add_column(column, justify="right" if column in ("PARTITION", "CURRENT-OFFSET") else "left")
            for p in plans:
                for tp, offset in p.offsets:
                    offsets.add_row(p.group_id, tp.topic, str(tp.partition), str(offset))
            print_wide(console, offsets)
            console.print()
        rows = Table(box=None, pad_edge=False)
        for column in ("GROUP", "STATE", "MEMBERS", "COMMITTED-PARTITIONS", "RESULT"):
            rows.add_column(column, justify="right" if column in ("MEMBERS", "COMMITTED-PARTITIONS") else "left")
        for body in bodies:
            why = f": {body['refused']}" if body["refused"] else ""
            rows.add_row(
                body["group"],
                body["state"],
                str(body["members"]),
                str(body["committed_partitions"]),
                body["result"] + why,
            )
        print_wide(console, rows)

    emit(doc, output, table)
    deletable = [p.group_id for p in plans if not p.refused]
    if not execute:
        if deletable and len(deletable) < len(plans):
            warn(
                "kgroup: dry run: nothing was changed; --execute would delete nothing while a group is refused "
                f"(or add --allow-partial to delete {', '.join(deletable)})"
            )
        elif deletable:
            warn("kgroup: dry run: nothing was changed; add --execute to delete these groups")
        else:
            warn("kgroup: dry run: nothing was changed")
    if any(p.refused for p in plans):
        raise typer.Exit(ExitCode.REFUSED)
    if execute and not all(o.deleted for o in outcomes.values()):
        raise typer.Exit(ExitCode.RUNTIME_ERROR)
