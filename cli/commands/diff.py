"""`kgroup diff`: compare two assignments (fixtures, saved assignments or plans)."""

from __future__ import annotations

from typing import Annotated

import typer

from kgroup.assignors.analysis.diff import diff as diff_assignments, shared_diff
from kgroup.cli.render import documents
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import GroupOpt, OutputOpt
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.tables import assignment_table
from kgroup.inspectors.fixtures.bundled import locate
from kgroup.inspectors.simulation.plans import assignment_source, plan_group, unrelated


@handle_errors
def diff(
    old: Annotated[str, typer.Argument(help="The assignment before: a fixture, a saved assignment or a plan.")],
    new: Annotated[str, typer.Argument(help="The assignment after: a fixture, a saved assignment or a plan.")],
    group: GroupOpt = None,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Show which partitions move between two assignments, member by member.

    Examples:

      kgroup assign group.yaml -a range -o yaml > range.yaml

      kgroup assign group.yaml -a roundrobin -o yaml > rr.yaml

      kgroup diff range.yaml rr.yaml

      kgroup simulate shop.yaml --add-member shop-5 --save-plan scale-out.yaml

      kgroup diff shop.yaml scale-out.yaml

    A plan (`simulate --save-plan`) stands for the assignment its first assignor gives after its changes.
    """
    group = group or plan_group(locate(old)) or plan_group(locate(new))  # a plan names its group
    before = assignment_source(locate(old), group)
    after = assignment_source(locate(new), group)
    # A share group's assignments (KIP-932) may give a partition several holders: moves are then per holder.
    shared = any(len(holders) > 1 for a in (before.assignment, after.assignment) for holders in a.owner_map().values())
    change = (shared_diff if shared else diff_assignments)(before.assignment, after.assignment)
    why = unrelated(before, after)
    if why:
        warn(f"note: {before.source} and {after.source} look like unrelated groups: {why}")
    doc = document("diff", {"old": before.source, "new": after.source, **documents.diff_body(change)})

    def table(console):
        console.print(assignment_table(f"{before.source} -> {after.source}", after.assignment, change))
        console.print(
            f"moved {change.moved} partitions"
            + (
                f", {len(change.moves) - change.moved} gained or lost an owner"
                if len(change.moves) != change.moved
                else ""
            ),
            markup=False,
        )

    emit(doc, output, table)
