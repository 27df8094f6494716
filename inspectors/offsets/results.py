"""What became of an offsets reset or delete, in the words the table and the JSON share: one result per
group, one status per partition, and the documents' bodies (docs/live.md: offset-reset, offset-delete)."""

from __future__ import annotations

from typing import Any

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.offsets.live_reset import GroupOutcome, GroupPlan
from kgroup.inspectors.offsets.offset_delete import NON_EMPTY_GROUP, DeleteRow, OffsetDeleteOutcome, OffsetDeletePlan


def outcome_of(outcomes: list[GroupOutcome] | None, group_id: str) -> GroupOutcome | None:
    return next((o for o in outcomes or () if o.group_id == group_id), None)


def reset_status(outcome: GroupOutcome | None, tp: TopicPartition, refused: bool = False) -> str | None:
    if refused:
        return "refused"
    if outcome is None:
        return None
    if outcome.held_back:
        return "not applied"
    if tp in outcome.unconfirmed:
        return "unconfirmed"  # why: once per group (`reset_unconfirmed`), the same for each of its partitions
    return f"failed: {outcome.failed[tp]}" if tp in outcome.failed else "applied"


def reset_result(plan: GroupPlan, outcome: GroupOutcome | None) -> str:
    """One group's result in a word or a short phrase."""
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
    if outcome.unconfirmed:
        return f"unconfirmed: {len(outcome.unconfirmed)} of {len(plan.offsets)} partitions"
    return "applied"


def reset_executed(plans: list[GroupPlan], outcomes: list[GroupOutcome] | None) -> bool:
    """Every group's plan was applied (a group with nothing to reset counts as applied)."""
    return (
        outcomes is not None
        and not any(p.refused for p in plans)
        and all(o.executed or not p.offsets for p, o in zip(plans, outcomes))
    )


def reset_body(plan: GroupPlan, outcomes: list[GroupOutcome] | None) -> dict[str, Any]:
    outcome = outcome_of(outcomes, plan.group_id)
    return {
        "group": plan.group_id,
        "state": plan.state,
        "refused": plan.refused,
        "executed": outcome is not None and outcome.executed,
        "result": reset_result(plan, outcome),
        "unconfirmed": next(iter(outcome.unconfirmed.values()), None) if outcome is not None else None,
        "partitions": [
            {
                "topic": o.tp.topic,
                "partition": o.tp.partition,
                "current_offset": o.current,
                "new_offset": o.new,
                "note": o.note,
                "status": reset_status(outcome, o.tp, bool(plan.refused)),
            }
            for o in plan.offsets
        ],
    }


def reset_failures(outcomes: list[GroupOutcome] | None) -> list[str]:
    return [f"{o.group_id} {tp}: {why}" for o in outcomes or () for tp, why in o.failed.items()]


def reset_unconfirmed(outcomes: list[GroupOutcome] | None) -> list[str]:
    """Per group whose commit the coordinator could not confirm: how many partitions, and why (one reason per
    group: the commit is one record batch)."""
    return [
        f"group {o.group_id}: {len(o.unconfirmed)} partition(s) unconfirmed, {next(iter(o.unconfirmed.values()))}"
        for o in outcomes or ()
        if o.unconfirmed
    ]


def delete_status(row: DeleteRow, outcome: OffsetDeleteOutcome | None) -> str | None:
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


def delete_result(plan: OffsetDeletePlan, outcome: OffsetDeleteOutcome | None) -> str:
    """The group's result in a word or a short phrase."""
    refused = len(plan.refused_rows)
    if plan.refused:
        return "refused"
    if not plan.deletable and not refused:
        return "nothing to delete"
    if outcome is None:
        return f"{refused} of {refused + len(plan.deletable)} partitions refused" if refused else "planned (dry run)"
    if outcome.held_back:
        return outcome.held_back
    trouble = [
        f"{kind}: {len(found)} of {len(plan.deletable)} partitions"
        for kind, found in (("refused by the broker", outcome.refused), ("failed", outcome.failed))
        if found
    ]
    if trouble:
        return "; ".join(trouble)
    return f"deleted; {refused} partition(s) refused" if refused else "deleted"


def delete_note(row: DeleteRow) -> str | None:
    if row.current is None:
        return "nothing committed"
    if row.refused == NON_EMPTY_GROUP:  # the whole group was refused
        return "refused: NON_EMPTY_GROUP"
    return "refused: GROUP_SUBSCRIBED_TO_TOPIC" if row.refused else None


def delete_body(plan: OffsetDeletePlan, outcome: OffsetDeleteOutcome | None) -> dict[str, Any]:
    return {
        "group": plan.group_id,
        "state": plan.state,
        "members": plan.members,
        "refused": plan.refused,
        # true only when every partition asked for was deleted; per-partition `status` says which were
        "executed": outcome is not None and outcome.executed and not plan.refused_rows,
        "result": delete_result(plan, outcome),
        "partitions": [
            {
                "topic": r.tp.topic,
                "partition": r.tp.partition,
                "current_offset": r.current,
                "refused": r.refused,
                "note": delete_note(r),
                "status": delete_status(r, outcome),
            }
            for r in plan.rows
        ],
    }
