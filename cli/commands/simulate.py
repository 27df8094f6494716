"""`kgroup simulate`: what-if changes to a group, run through one or more assignors side by side."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kgroup.cli import documents
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import FixtureArg, GroupOpt, OutputOpt, load
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render import comparison_table, describe_change, print_run
from kgroup.inspectors.simulation import require_valid, simulate as run_simulation


@handle_errors
def simulate(
    fixture: FixtureArg = None,
    group: GroupOpt = None,
    assignor: Annotated[Optional[list[str]], typer.Option(
        "--assignor", "-a", help="Assignor to run (repeat for side by side); a built-in or package.module:Class. "
                                 "Default: the group's own.")] = None,
    add_member: Annotated[Optional[list[str]], typer.Option(
        "--add-member", help="A member joins: ID, or ID=topic1,topic2 (default: the first member's topics).")] = None,
    remove_member: Annotated[Optional[list[str]], typer.Option(
        "--remove-member", help="A member leaves (crash or shutdown).")] = None,
    add_partitions: Annotated[Optional[list[str]], typer.Option(
        "--add-partitions", help="TOPIC=N grows the topic to N partitions; TOPIC=+N adds N.")] = None,
    subscribe: Annotated[Optional[list[str]], typer.Option(
        "--subscribe", help="Change a member's subscription: ID=topic1,topic2.")] = None,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Predict the assignment after what-if changes and show what moves.

    With no arguments, runs the bundled demo fixture.

    Examples:

      kgroup simulate

      kgroup simulate seed-range --assignor range --assignor roundrobin

      kgroup simulate group.yaml --add-member c3 --add-partitions orders=+4 -o json
    """
    loaded = load(fixture)
    sim = run_simulation(loaded, group, assignor or [], add_member or [], remove_member or [],
                         add_partitions or [], subscribe or [])
    require_valid(sim.runs)
    before, after = sim.before.group, sim.after.group
    doc = document("simulation", {
        "source": loaded.source,
        "group_id": before.group_id,
        "protocol": before.protocol,
        "changes": [documents.change_body(c) for c in sim.changes],
        "members_before": [m.member_id for m in before.members],
        "members_after": [m.member_id for m in after.members],
        "current": documents.assignment(before.assignment),
        "results": [documents.run_body(run) for run in sim.runs],
    })

    def table(console):  # type: ignore[no-untyped-def]
        console.print(f"Group [bold]{before.group_id}[/] ({before.protocol}) · {len(before.members)} members"
                      + (f" -> {len(after.members)}" if len(after.members) != len(before.members) else ""))
        if sim.changes:
            console.print("What if: " + "; ".join(describe_change(c) for c in sim.changes), markup=False)
        console.print()
        for run in sim.runs:
            print_run(console, run, f"{run.assignor}")
        if len(sim.runs) > 1:
            console.print(comparison_table(sim.runs))

    for line in loaded.warnings:
        warn(line)
    emit(doc, output, table)

