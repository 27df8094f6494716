"""The tables of `offsets reset` and `offsets delete`: the plan per partition, then what became of each group."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from kgroup.cli.render.tables import dash, print_wide
from kgroup.inspectors.offsets.live_reset import GroupOutcome, GroupPlan
from kgroup.inspectors.offsets.offset_delete import OffsetDeleteOutcome, OffsetDeletePlan
from kgroup.inspectors.offsets.results import (
    delete_note,
    delete_result,
    delete_status,
    outcome_of,
    reset_result,
    reset_status,
)


def reset_tables(console: Console, plans: list[GroupPlan], outcomes: list[GroupOutcome] | None) -> None:
    rows = [(p, o) for p in plans for o in p.offsets]
    if not rows:
        console.print("nothing to reset")
    else:  # a refused group's rows too: the plan that was refused
        refused = any(p.refused for p in plans)
        table = Table(box=None, pad_edge=False)
        status = outcomes is not None or refused
        columns = ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET", "CURRENT-OFFSET", "NOTE"] + (
            ["STATUS"] if status else []
        )
        for column in columns:
            table.add_column(
                column, justify="right" if column in ("PARTITION", "NEW-OFFSET", "CURRENT-OFFSET") else "left"
            )
        for plan, o in rows:
            cells = [plan.group_id, o.tp.topic, str(o.tp.partition), str(o.new), dash(o.current), dash(o.note)]
            if status:
                cells.append(
                    reset_status(outcome_of(outcomes, plan.group_id), o.tp, bool(plan.refused)) or "planned (dry run)"
                )
            table.add_row(*cells)
        print_wide(console, table)
    # after --execute (one group or several) or a refusal: what became of each group's plan
    if len(plans) > 1 or any(p.refused for p in plans) or outcomes is not None:
        groups_table(
            console,
            [
                (
                    p.group_id,
                    p.state,
                    len(p.offsets),
                    reset_result(p, outcome_of(outcomes, p.group_id)) + (f": {p.refused}" if p.refused else ""),
                )
                for p in plans
            ],
        )


def delete_tables(console: Console, plan: OffsetDeletePlan, outcome: OffsetDeleteOutcome | None) -> None:
    if not plan.rows:
        if not plan.refused:
            console.print("nothing to delete")
    else:
        table = Table(box=None, pad_edge=False)
        columns = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "NOTE"] + (
            ["STATUS"] if outcome is not None else []
        )
        for column in columns:
            table.add_column(column, justify="right" if column in ("PARTITION", "CURRENT-OFFSET") else "left")
        for row in plan.rows:
            cells = [plan.group_id, row.tp.topic, str(row.tp.partition), dash(row.current), dash(delete_note(row))]
            if outcome is not None:
                cells.append(dash(delete_status(row, outcome)))
            table.add_row(*cells)
        print_wide(console, table)
    if plan.refused or plan.refused_rows:
        groups_table(
            console,
            [
                (
                    plan.group_id,
                    plan.state,
                    len(plan.rows),
                    delete_result(plan, outcome) + (f": {plan.refused}" if plan.refused else ""),
                )
            ],
        )


def groups_table(console: Console, rows: list[tuple[str, str, int, str]]) -> None:
    """Per group: GROUP STATE PARTITIONS RESULT, after the partition table (reset and delete alike)."""
    console.print()
    groups = Table(box=None, pad_edge=False)
    for column in ("GROUP", "STATE", "PARTITIONS", "RESULT"):
        groups.add_column(column, justify="right" if column == "PARTITIONS" else "left")
    for group_id, state, partitions, result in rows:
        groups.add_row(group_id, state, str(partitions), result)
    print_wide(console, groups)
