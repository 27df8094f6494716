"""`kgroup groups delete`: delete consumer groups (and with them their committed offsets), as
`kafka-consumer-groups.sh --delete` does: a plan first, the change only when asked, then a check.

The broker refuses a group that is not empty (GroupCoordinator's deleteGroups answers NON_EMPTY_GROUP);
kgroup refuses it first, from the group's description, so the plan already says which groups would stay.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.offsets.reset_plan import RESETTABLE_STATES
from kgroup.inspectors.live.admin import LiveAdmin, enum_name


@dataclass(frozen=True)
class DeletePlan:
    group_id: str
    state: str
    members: int
    committed_partitions: int
    refused: str | None


@dataclass(frozen=True)
class DeleteOutcome:
    group_id: str
    deleted: bool
    why: str | None  # why not, when not deleted


def deletion_refusal(state: str, members: int) -> str | None:
    """GroupCoordinator.deleteGroups (Kafka 4.0): only an Empty or Dead group may be deleted."""
    if members:
        return f"the group has {members} active member(s); stop its consumers first"
    if state not in RESETTABLE_STATES:
        return f"a group can only be deleted when it is Empty, but its state is {state}"
    return None


def plan_delete(admin: LiveAdmin, group_ids: list[str]) -> list[DeletePlan]:
    admin.metadata()
    descriptions = admin.describe(group_ids)
    plans = []
    for group_id in group_ids:
        description = descriptions[group_id]
        state, members = enum_name(description.state), len(description.members)
        why = deletion_refusal(state, members)
        committed = len(admin.committed(group_id)) if why is None else 0
        if why is None and state == "dead":
            why = "the group does not exist"
        plans.append(DeletePlan(group_id, state, members, committed, why))
    return plans


def apply_delete(admin: LiveAdmin, plans: list[DeletePlan], partial: bool = False) -> list[DeleteOutcome]:
    """All or nothing unless `partial`, as `offsets reset` is; a group counts as deleted only when it no longer
    has committed offsets afterwards (OffsetFetch reads back nothing)."""
    refused = [p.group_id for p in plans if p.refused]
    if refused and not partial:
        return [DeleteOutcome(p.group_id, False, p.refused or f"not deleted: {', '.join(refused)} refused "
                              "(all or nothing)") for p in plans]
    wanted = [p.group_id for p in plans if not p.refused]
    errors = admin.delete_groups(wanted) if wanted else {}
    outcomes = []
    for plan in plans:
        if plan.refused:
            outcomes.append(DeleteOutcome(plan.group_id, False, plan.refused))
        elif errors.get(plan.group_id):
            outcomes.append(DeleteOutcome(plan.group_id, False, errors[plan.group_id]))
        else:
            left = admin.committed(plan.group_id)
            outcomes.append(DeleteOutcome(plan.group_id, not left,
                                          None if not left else f"{len(left)} committed offsets remain"))
    return outcomes
