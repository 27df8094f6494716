"""A saved plan as an assignment: what `kgroup diff` compares when given `simulate --save-plan` output."""

from __future__ import annotations

from kgroup.inspectors.errors import RunError
from kgroup.inspectors.fixtures.group_file import SavedAssignment, load_assignment_source
from kgroup.inspectors.fixtures.plan_file import is_plan, plan_from_doc
from kgroup.inspectors.fixtures.yaml_doc import read_yaml
from kgroup.inspectors.simulation.gate import plan_flags
from kgroup.inspectors.simulation.whatif_run import require_valid, simulate_flags


def plan_group(path: str) -> str | None:
    """The group a plan is for; None for any other document (or one that cannot be read: said later)."""
    try:
        doc = read_yaml(path)
    except Exception:
        return None
    return str(doc.data.get("group_id")) if is_plan(doc) else None


def assignment_source(path: str, group_id: str | None) -> SavedAssignment:
    """A fixture's current assignment, a saved assignment, or the assignment a plan's first assignor gives."""
    doc = read_yaml(path)
    if not is_plan(doc):
        return load_assignment_source(path, group_id)
    plan = plan_from_doc(doc)
    run = simulate_flags(plan.fixture, plan.group_id, plan_flags(plan)).runs[0]
    require_valid((run,))
    if run.error is not None or run.assignment is None:
        raise RunError(f"assignor {run.assignor}: {run.error}")
    return SavedAssignment(path, plan.group_id, run.assignor, run.assignment)


def unrelated(before: SavedAssignment, after: SavedAssignment) -> str | None:
    """Why two assignments look like different groups (not one group before and after), or None."""
    if before.group_id and after.group_id and before.group_id != after.group_id:
        return f"group {before.group_id!r} against group {after.group_id!r}"
    members = set(before.assignment.owners) & set(after.assignment.owners)
    topics = {tp.topic for parts in before.assignment.owners.values() for tp in parts} & {
        tp.topic for parts in after.assignment.owners.values() for tp in parts
    }
    if not members and not topics:
        return "no member and no topic in common"
    return None
