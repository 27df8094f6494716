"""The words `offsets reset` and `offsets delete` use for what became of a plan, the same in table and JSON."""

from __future__ import annotations

from kgroup.assignors.model import TopicPartition
from kgroup.assignors.offsets.reset_plan import PlannedOffset
from kgroup.inspectors.offsets.live_reset import GroupOutcome, GroupPlan
from kgroup.inspectors.offsets.offset_delete import DeleteRow, OffsetDeleteOutcome, OffsetDeletePlan
from kgroup.inspectors.offsets.results import (
    delete_body,
    delete_result,
    reset_body,
    reset_executed,
    reset_failures,
    reset_result,
    reset_unconfirmed,
)

T0, T1 = TopicPartition("t", 0), TopicPartition("t", 1)


def _plan(group_id: str, refused: str | None = None) -> GroupPlan:
    return GroupPlan(group_id, "Empty", refused, (PlannedOffset(T0, 5, 3), PlannedOffset(T1, 7, 4)))


def test_a_dry_run_is_planned_and_not_executed() -> None:
    plans = [_plan("g")]
    assert reset_result(plans[0], None) == "planned (dry run)"
    assert not reset_executed(plans, None)
    assert [p["status"] for p in reset_body(plans[0], None)["partitions"]] == [None, None]


def test_a_partition_that_did_not_read_back_fails_the_group_and_is_named() -> None:
    plans = [_plan("g")]
    outcomes = [GroupOutcome("g", applied=[T0], failed={T1: "reads back as 4, not 7"})]
    assert reset_result(plans[0], outcomes[0]) == "failed: 1 of 2 partitions"
    assert not reset_executed(plans, outcomes)
    assert [p["status"] for p in reset_body(plans[0], outcomes)["partitions"]] == [
        "applied",
        "failed: reads back as 4, not 7",
    ]
    assert reset_failures(outcomes) == ["g t-1: reads back as 4, not 7"]


def test_a_group_held_back_by_another_groups_refusal_says_so() -> None:
    plans = [_plan("a", refused="the group has active members"), _plan("b")]
    outcomes = [GroupOutcome("a"), GroupOutcome("b", held_back="not applied: a refused (all or nothing)")]
    assert [reset_result(p, o) for p, o in zip(plans, outcomes)] == [
        "refused",
        "not applied: a refused (all or nothing)",
    ]
    assert [p["status"] for p in reset_body(plans[1], outcomes)["partitions"]] == ["not applied", "not applied"]
    assert [p["status"] for p in reset_body(plans[0], outcomes)["partitions"]] == ["refused", "refused"]
    assert not reset_executed(plans, outcomes)


def test_every_plan_applied_is_executed() -> None:
    plans = [_plan("g")]
    outcomes = [GroupOutcome("g", applied=[T0, T1])]
    assert reset_result(plans[0], outcomes[0]) == "applied"
    assert reset_executed(plans, outcomes)


def test_a_delete_with_a_subscribed_topic_refused_deletes_the_rest_only_when_partial() -> None:
    plan = OffsetDeletePlan(
        "g",
        "Stable",
        1,
        None,
        (DeleteRow(T0, 5, "GROUP_SUBSCRIBED_TO_TOPIC"), DeleteRow(T1, 7), DeleteRow(TopicPartition("t", 2), None)),
    )
    assert delete_result(plan, None) == "1 of 2 partitions refused"
    held = OffsetDeleteOutcome(held_back="not deleted: 1 partition(s) refused (all or nothing)")
    body = delete_body(plan, held)
    assert [(p["note"], p["status"]) for p in body["partitions"]] == [
        ("refused: GROUP_SUBSCRIBED_TO_TOPIC", "refused"),
        (None, "not deleted"),
        ("nothing committed", "nothing to delete"),
    ]
    assert body["executed"] is False
    partial = OffsetDeleteOutcome(deleted=[T1])
    assert delete_result(plan, partial) == "deleted; 1 partition(s) refused"
    assert delete_body(plan, partial)["executed"] is False  # not every partition asked for was deleted


def test_a_commit_the_coordinator_could_not_confirm_is_unconfirmed_not_failed() -> None:
    plans = [_plan("g")]
    why = "the group's coordinator answered COORDINATOR_NOT_AVAILABLE until --timeout (8 s): ..."
    outcomes = [GroupOutcome("g", unconfirmed={T0: why, T1: why})]
    assert reset_result(plans[0], outcomes[0]) == "unconfirmed: 2 of 2 partitions"
    assert not reset_executed(plans, outcomes)
    body = reset_body(plans[0], outcomes)
    assert [p["status"] for p in body["partitions"]] == ["unconfirmed", "unconfirmed"]
    assert body["unconfirmed"] == why
    assert reset_failures(outcomes) == []
    assert reset_unconfirmed(outcomes) == [f"group g: 2 partition(s) unconfirmed, {why}"]
