"""`kgroup groups delete`: delete consumer groups (and with them their committed offsets), as
`kafka-consumer-groups.sh --delete` does: a plan first, the change only when asked, then a check.

The broker refuses a group that is not empty (GroupCoordinator's deleteGroups answers NON_EMPTY_GROUP);
kgroup refuses it first, from the group's description, so the plan already says which groups would stay.

Share groups (KIP-932) are deleted the same way, as `kafka-share-groups.sh --delete` does: Admin.deleteShareGroups
sends DeleteGroups (DeleteShareGroupsHandler), whose coordinator deletes a share group's share-partition states,
then the group (GroupCoordinatorService.deleteGroups); a share group that is not Empty is refused
(ShareGroupCommand.deleteShareGroups, ShareGroup.validateDeleteGroup: NON_EMPTY_GROUP). A share group's plan
shows its start offsets; after --execute it counts as deleted only when the cluster no longer describes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.model import TopicPartition, sort_partitions
from kgroup.assignors.offsets.reset_plan import RESETTABLE_STATES
from kgroup.inspectors.errors import NotFoundError
from kgroup.inspectors.live.admin import LiveAdmin, enum_name, state_label
from kgroup.inspectors.live.share_group_writes import share_group_ids
from kgroup.inspectors.live.share_groups import read_share_groups


@dataclass(frozen=True)
class DeletePlan:
    group_id: str
    state: str  # as `groups` and `describe` print it: Empty, Stable, PreparingRebalance
    members: int
    committed_partitions: int
    refused: str | None
    # the committed offsets the deletion would take with it, refused or not: a refusal shows its plan too
    offsets: tuple[tuple[TopicPartition, int], ...] = ()
    share: bool = False  # a share group: its start offsets in `offsets`, its deletion checked by describing it


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
        return f"a group can only be deleted when it is Empty, but its state is {state_label(state)}"
    return None


def plan_delete(admin: LiveAdmin, group_ids: list[str]) -> list[DeletePlan]:
    """One plan per group, with the offsets a deletion would remove (refused groups included).

    A group that does not exist is exit 5, as in `describe` and `triage` (GroupCoordinator.deleteGroups
    answers GROUP_ID_NOT_FOUND for it; Kafka's tool prints "Group ... does not exist"), not a refusal."""
    admin.metadata()
    shares = read_share_groups(admin, share_group_ids(admin, group_ids))
    descriptions = admin.describe([g for g in group_ids if g not in shares])
    missing = [g for g in descriptions if enum_name(descriptions[g].state) == "dead"]
    if missing:
        raise NotFoundError(
            f"group {', '.join(repr(g) for g in missing)} does not exist (the coordinator describes it as Dead)"
        )
    plans = []
    for group_id in group_ids:
        share = shares.get(group_id)
        if share is not None:
            started = tuple((TopicPartition(p.topic, p.partition), p.start_offset) for p in share.partitions)
            kept = tuple((tp, o) for tp, o in started if o is not None)
            refused = deletion_refusal(share.state.lower(), len(share.members))
            plans.append(DeletePlan(group_id, share.state, len(share.members), len(kept), refused, kept, share=True))
            continue
        description = descriptions[group_id]
        state, members = enum_name(description.state), len(description.members)
        committed = admin.committed(group_id)
        offsets = tuple((tp, committed[tp]) for tp in sort_partitions(committed))
        plans.append(
            DeletePlan(group_id, state_label(state), members, len(offsets), deletion_refusal(state, members), offsets)
        )
    return plans


def apply_delete(admin: LiveAdmin, plans: list[DeletePlan], partial: bool = False) -> list[DeleteOutcome]:
    """All or nothing unless `partial`, as `offsets reset` is; a group counts as deleted only when it no longer
    has committed offsets afterwards (OffsetFetch reads back nothing), a share group only when the cluster no
    longer describes it as one."""
    refused = [p.group_id for p in plans if p.refused]
    if refused and not partial:
        return [
            DeleteOutcome(p.group_id, False, p.refused or f"not deleted: {', '.join(refused)} refused (all or nothing)")
            for p in plans
        ]
    wanted = [p.group_id for p in plans if not p.refused]
    errors = admin.delete_groups(wanted) if wanted else {}
    outcomes = []
    for plan in plans:
        if plan.refused:
            outcomes.append(DeleteOutcome(plan.group_id, False, plan.refused))
        elif errors.get(plan.group_id):
            outcomes.append(DeleteOutcome(plan.group_id, False, errors[plan.group_id]))
        elif plan.share:
            left_as_share = bool(share_group_ids(admin, [plan.group_id]))
            outcomes.append(
                DeleteOutcome(
                    plan.group_id, not left_as_share, "still described as a share group" if left_as_share else None
                )
            )
        else:
            left = admin.committed(plan.group_id)
            outcomes.append(
                DeleteOutcome(plan.group_id, not left, None if not left else f"{len(left)} committed offsets remain")
            )
    return outcomes
