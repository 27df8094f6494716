"""`kgroup diff`: compare two assignments (fixtures or saved assignments)."""

from __future__ import annotations

from typing import Annotated

import typer

from kgroup.assignors.analysis.diff import diff as diff_assignments
from kgroup.cli.render import documents
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import GroupOpt, OutputOpt
from kgroup.cli.output import OutputFormat, document, emit
from kgroup.cli.render.tables import assignment_table
from kgroup.inspectors.fixtures.bundled import locate
from kgroup.inspectors.fixtures.group_file import load_assignment_source


@handle_errors
def diff(
    old: Annotated[str, typer.Argument(help="The assignment before: a fixture or a saved assignment.")],
    new: Annotated[str, typer.Argument(help="The assignment after: a fixture or a saved assignment.")],
    group: GroupOpt = None,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Show which partitions move between two assignments, member by member.

    Examples:

      kgroup assign group.yaml -a range -o yaml > range.yaml

      kgroup assign group.yaml -a roundrobin -o yaml > rr.yaml

      kgroup diff range.yaml rr.yaml
    """
    before = load_assignment_source(locate(old), group)
    after = load_assignment_source(locate(new), group)
    change = diff_assignments(before.assignment, after.assignment)
    doc = document("diff", {"old": before.source, "new": after.source, **documents.diff_body(change)})

    def table(console):  # type: ignore[no-untyped-def]
        console.print(assignment_table(f"{before.source} -> {after.source}", after.assignment, change))
        console.print(f"moved {change.moved} partitions"
                      + (f", {len(change.moves) - change.moved} gained or lost an owner"
                         if len(change.moves) != change.moved else ""), markup=False)

    emit(doc, output, table)
