"""`kgroup offsets reset` on share groups (KIP-932), as `kafka-share-groups.sh --reset-offsets` does
(ShareGroupCommand.resetOffsets): a plan first, AlterShareGroupOffsets on --execute, then a check.

A share group commits no offsets: its share coordinator keeps, per topic-partition, a start offset below which
every record is done with. A reset sets that start offset; the next share consumer acquires records from
there. The plan is computed as for a consumer group (kgroup.assignors.offsets.reset_plan: the log bounds, the
offset for a time, clamping into the log, as Kafka's OffsetsUtils does for both tools), with the start offset
as CURRENT-OFFSET, and rendered the same way (GroupPlan, GroupOutcome).

ShareGroupCommand resets to the earliest or latest offset or to a date-time; kgroup also takes --by-duration
(a date-time), --to-offset and --from-file (given offsets, clamped into the log). What moves from the group's
own committed offsets (--shift-by, --to-current) or copies another group's (--to-group) is refused (exit 2):
a share-partition's start offset is not a consumer's position. With --all-topics the partitions are those the
group has a state for (ShareGroupCommand.getPartitionsToReset: Admin.listShareGroupOffsets).

A group with members is refused (exit 6): ShareGroupCommand.resetOffsets refuses a group that is not Empty or
Dead, and the coordinator answers NON_EMPTY_GROUP while it has members
(GroupMetadataManager.alterShareGroupOffsets, throwIfShareGroupIsNotEmpty).
"""

from __future__ import annotations

from typing import cast

from kgroup.assignors.model import TopicPartition, sort_partitions
from kgroup.assignors.offsets.reset_plan import (
    FROM_FILE,
    SHIFT_BY,
    TO_CURRENT,
    TO_DATETIME,
    ResetInputs,
    plan_reset,
    refusal,
)
from kgroup.inspectors.errors import InputError, NotFoundError
from kgroup.inspectors.live.admin import CommitAnswer, LiveAdmin
from kgroup.inspectors.live.share_group_writes import send_alter_share_offsets, share_group_ids
from kgroup.inspectors.live.share_groups import ShareGroup, read_share_groups
from kgroup.inspectors.offsets.live_reset import (
    GroupOutcome,
    GroupPlan,
    ResetRequest,
    check_partitions_exist,
    apply_reset,
    reset_offsets,
    scope_partitions,
)
from kgroup.inspectors.offsets.reset_request import TO_GROUP

# The reset specs a share group does not take, and why (ShareGroupCommandOptions: --to-datetime, --to-earliest,
# --to-latest only).
NOT_FOR_SHARE_GROUPS = {
    SHIFT_BY: "--shift-by moves a committed offset, and a share group commits none",
    TO_CURRENT: "--to-current keeps a committed offset, and a share group commits none",
    TO_GROUP: "--to-group copies a consumer group's committed offsets",
}


def reset_group_offsets(
    admin: LiveAdmin, group_ids: list[str], request: ResetRequest, execute: bool, partial: bool = False
) -> tuple[list[GroupPlan], list[GroupOutcome] | None]:
    """`offsets reset`: share groups here, every other group through live_reset.reset_offsets. One run resets
    share groups or consumer groups, not both (an InputError names them)."""
    shared = share_group_ids(admin, group_ids)
    if not shared:
        return reset_offsets(admin, group_ids, request, execute, partial)
    others = [g for g in group_ids if g not in shared]
    if others:
        raise InputError(
            f"{', '.join(shared)} {'is a share group' if len(shared) == 1 else 'are share groups'} and "
            f"{', '.join(others)} not: reset share groups and consumer groups in separate runs",
            field="GROUP",
        )
    why = NOT_FOR_SHARE_GROUPS.get(request.spec)
    if why is not None:
        raise InputError(
            f"{why}; a share group is reset --to-earliest, --to-latest, --to-datetime, --by-duration, "
            "--to-offset or --from-file",
            field=f"--{request.spec}",
        )
    groups = read_share_groups(admin, shared)
    gone = [g for g in shared if g not in groups]
    if gone:
        raise NotFoundError(f"share group {', '.join(repr(g) for g in gone)} no longer exists")
    plans = [_plan(admin, groups[g], request) for g in shared]
    return plans, apply_share_reset(admin, plans, partial) if execute else None


def start_offsets(group: ShareGroup) -> dict[TopicPartition, int]:
    """The share-partitions that have a start offset, with it."""
    return {
        TopicPartition(p.topic, p.partition): p.start_offset for p in group.partitions if p.start_offset is not None
    }


def _plan(admin: LiveAdmin, group: ShareGroup, request: ResetRequest) -> GroupPlan:
    sizes = {name: len(t.partitions) for name, t in admin.metadata().topics.items()}
    admin.check_topics_visible([t.partition(":")[0] for t in request.topics])  # hidden by ACLs, or missing
    requested = None
    if request.spec == FROM_FILE:
        requested = dict((request.from_file or {}).get(group.group_id, {}))
        if not requested:
            raise InputError(f"the file has no plan for group {group.group_id!r}", field="--from-file")
        admin.check_topics_visible([tp.topic for tp in requested])
        check_partitions_exist(requested, sizes, "--from-file")
        partitions = sort_partitions(requested)
    elif request.topics:
        partitions = scope_partitions(request.topics, sizes)
    else:  # --all-topics: every partition the group has a state for, with a start offset or not
        partitions = sort_partitions(
            {TopicPartition(p.topic, p.partition) for p in group.partitions if p.topic in sizes}
        )
    bounds = admin.log_bounds(partitions, "read_uncommitted")
    missing = [str(tp) for tp in partitions if tp not in bounds]
    if missing:
        raise NotFoundError(f"no log offsets for {', '.join(missing)}")
    timestamp = request.timestamp_ms if request.spec == TO_DATETIME else None
    for_time = admin.offsets_for_time(partitions, timestamp) if timestamp is not None else None
    inputs = ResetInputs(start_offsets(group), bounds, for_time, requested)
    offsets = plan_reset(request.spec, partitions, inputs, request.value)
    return GroupPlan(group.group_id, group.state, refusal(group.state.lower(), len(group.members)), tuple(offsets))


def apply_share_reset(admin: LiveAdmin, plans: list[GroupPlan], partial: bool = False) -> list[GroupOutcome]:
    """AlterShareGroupOffsets per plan, then the start offsets read back: a partition counts as applied only
    when its start offset reads back as planned. All or nothing unless `partial`: live_reset.apply_reset's
    rules, with the start offsets where a consumer group has its commits."""
    return apply_reset(cast(LiveAdmin, _StartOffsets(admin)), plans, partial)


class _StartOffsets:
    """The two calls apply_reset makes of a LiveAdmin, on a share group's start offsets."""

    def __init__(self, admin: LiveAdmin) -> None:
        self.admin = admin

    def alter_offsets(self, group_id: str, offsets: dict[TopicPartition, int]) -> CommitAnswer:
        answer = send_alter_share_offsets(self.admin.settings, group_id, offsets, self.admin.timeout_s)
        if answer.error is not None:  # AlterShareGroupOffsetsHandler: a top-level error fails every partition
            return CommitAnswer({tp: answer.error for tp in offsets}, None)
        errors = {tp: answer.partitions.get((tp.topic, tp.partition)) for tp in offsets}
        return CommitAnswer({tp: error for tp, error in errors.items() if error is not None}, None)

    def committed(self, group_id: str) -> dict[TopicPartition, int]:
        read = read_share_groups(self.admin, [group_id]).get(group_id)
        return start_offsets(read) if read is not None else {}
