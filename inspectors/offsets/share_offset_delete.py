"""`kgroup offsets delete` on share groups (KIP-932), as `kafka-share-groups.sh --delete-offsets` does
(ShareGroupCommand.deleteOffsets, Admin.deleteShareGroupOffsets): a plan first, DeleteShareGroupOffsets on
--execute, then a check.

A share group's offsets (its share-partitions' states) are deleted a whole topic at a time: the request names
topics, never partitions, so --topic TOPIC:P is refused (exit 2). The plan shows each partition of the topics
with its start offset (CURRENT-OFFSET), in the table and JSON of a consumer group's deletion
(OffsetDeletePlan); each partition takes its topic's result. The coordinator refuses the whole request while
the group is not Empty (GroupCoordinatorShard.initiateDeleteShareGroupOffsets, ShareGroup.validateDeleteGroup:
NON_EMPTY_GROUP); kgroup refuses it first, from the group's description (exit 6). A topic the group has no
start offset for has nothing to delete (the coordinator would answer "There is no offset information to
delete.").
"""

from __future__ import annotations

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.errors import InputError, NotFoundError
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.live.share_group_writes import send_delete_share_offsets, share_group_ids
from kgroup.inspectors.live.share_groups import read_share_groups
from kgroup.inspectors.offsets.live_reset import scope_partitions
from kgroup.inspectors.offsets.offset_delete import (
    BROKER_REFUSALS,
    NON_EMPTY_GROUP,
    DeleteRow,
    OffsetDeleteOutcome,
    OffsetDeletePlan,
    delete_offsets,
)
from kgroup.inspectors.offsets.share_reset import start_offsets


def delete_group_offsets(
    admin: LiveAdmin, group_id: str, topics: tuple[str, ...], execute: bool, partial: bool = False
) -> tuple[OffsetDeletePlan, OffsetDeleteOutcome | None]:
    """`offsets delete`: a share group's here, any other group's through offset_delete.delete_offsets."""
    if not share_group_ids(admin, [group_id]):
        return delete_offsets(admin, group_id, topics, execute, partial)
    plan = plan_share_offset_delete(admin, group_id, topics)
    return plan, apply_share_offset_delete(admin, plan) if execute else None


def plan_share_offset_delete(admin: LiveAdmin, group_id: str, topics: tuple[str, ...]) -> OffsetDeletePlan:
    by_partition = [t for t in topics if ":" in t]
    if by_partition:
        raise InputError(
            f"{by_partition[0]!r}: a share group's offsets are deleted a whole topic at a time "
            "(DeleteShareGroupOffsets names topics, not partitions); give --topic TOPIC",
            field="--topic",
        )
    sizes = {name: len(t.partitions) for name, t in admin.metadata().topics.items()}
    admin.check_topics_visible(list(topics))  # hidden by ACLs, or missing
    partitions = scope_partitions(topics, sizes)
    group = read_share_groups(admin, [group_id]).get(group_id)
    if group is None:
        raise NotFoundError(f"share group {group_id!r} no longer exists")
    refused = None
    if group.state != "Empty":
        refused = (
            f"the share group is {group.state} with {len(group.members)} member(s); Kafka deletes its offsets "
            "only when it is Empty (NON_EMPTY_GROUP); stop its consumers first"
        )
    current = start_offsets(group)
    rows = tuple(
        DeleteRow(tp, current.get(tp), NON_EMPTY_GROUP if refused is not None and tp in current else None)
        for tp in partitions
    )
    return OffsetDeletePlan(group_id, group.state, len(group.members), refused, rows)


def apply_share_offset_delete(admin: LiveAdmin, plan: OffsetDeletePlan) -> OffsetDeleteOutcome:
    """One DeleteShareGroupOffsets for the topics that have start offsets, then the offsets read back: a
    partition counts as deleted only when its topic was answered without an error and it has no start offset
    left. Nothing is sent for a refused group."""
    outcome = OffsetDeleteOutcome()
    if plan.refused is not None or not plan.deletable:
        return outcome
    wanted = [r.tp for r in plan.deletable]
    answer = send_delete_share_offsets(
        admin.settings, plan.group_id, sorted({tp.topic for tp in wanted}), admin.timeout_s
    )
    if answer.error is not None:  # DeleteShareGroupOffsetsHandler: a group error fails every topic
        target = outcome.refused if answer.error.startswith(BROKER_REFUSALS) else outcome.failed
        target.update({tp: answer.error for tp in wanted})
        return outcome
    read = read_share_groups(admin, [plan.group_id]).get(plan.group_id)
    left: dict[TopicPartition, int] = start_offsets(read) if read is not None else {}
    for tp in wanted:
        if tp.topic not in answer.topics:
            outcome.failed[tp] = f"DeleteShareGroupOffsets on {answer.coordinator} did not answer for {tp.topic}"
        elif answer.topics[tp.topic] is not None:
            outcome.failed[tp] = str(answer.topics[tp.topic])
        elif tp in left:
            outcome.failed[tp] = f"start offset {left[tp]} still there after DeleteShareGroupOffsets"
        else:
            outcome.deleted.append(tp)
    return outcome
