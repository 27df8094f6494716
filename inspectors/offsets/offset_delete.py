"""`kgroup offsets delete`: remove a group's committed offsets for some topics, as
`kafka-consumer-groups.sh --delete-offsets` does (AdminClient.deleteConsumerGroupOffsets), but a plan first.

The plan applies the coordinator's checks (kgroup.assignors.offsets.delete_rules) to what the group's
description and its members' subscriptions say, so it already shows what Kafka would refuse. --execute
sends one OffsetDelete for the partitions that were not refused (only when none was, unless partial),
then reads the group's offsets back: a partition counts as deleted only when no commit remains.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgroup.assignors.model import TopicPartition, sort_partitions
from kgroup.assignors.offsets.delete_rules import group_refusal, subscribed_topics, topic_refusal
from kgroup.inspectors.errors import NotFoundError, NotReachableError, RunError
from kgroup.inspectors.live.admin import LiveAdmin, enum_name, state_label
from kgroup.inspectors.live.leader_view import leader_views
from kgroup.inspectors.live.offset_delete_sender import offset_delete_unsupported, send_offset_delete
from kgroup.inspectors.offsets.live_reset import scope_partitions

# What a broker answers when it refuses (ConsumerGroupCommand.deleteOffsets prints these as refusals)
BROKER_REFUSALS = ("NON_EMPTY_GROUP", "GROUP_SUBSCRIBED_TO_TOPIC")


NON_EMPTY_GROUP = "NON_EMPTY_GROUP"  # the whole group refused: each of its committed partitions with it


@dataclass(frozen=True)
class DeleteRow:
    tp: TopicPartition
    current: int | None  # the committed offset to delete; None: nothing committed there
    refused: str | None = None  # why Kafka would refuse this partition (GROUP_SUBSCRIBED_TO_TOPIC)


@dataclass(frozen=True)
class OffsetDeletePlan:
    group_id: str
    state: str  # as `groups` and `describe` print it: Empty, Stable
    members: int
    refused: str | None  # why the whole group is refused (NON_EMPTY_GROUP)
    rows: tuple[DeleteRow, ...] = ()
    unsupported: str | None = None  # why this cluster cannot delete offsets at all

    @property
    def deletable(self) -> list[DeleteRow]:
        return [r for r in self.rows if r.current is not None and r.refused is None]

    @property
    def refused_rows(self) -> list[DeleteRow]:
        return [r for r in self.rows if r.current is not None and r.refused is not None]


@dataclass
class OffsetDeleteOutcome:
    deleted: list[TopicPartition] = field(default_factory=list)
    failed: dict[TopicPartition, str] = field(default_factory=dict)
    refused: dict[TopicPartition, str] = field(default_factory=dict)  # refused by the broker when sent
    held_back: str | None = None  # why nothing was sent although the group was not refused

    @property
    def executed(self) -> bool:
        """Something was deleted, and everything sent reads back as deleted."""
        return self.held_back is None and bool(self.deleted) and not self.failed and not self.refused


def delete_offsets(
    admin: LiveAdmin, group_id: str, topics: tuple[str, ...], execute: bool, partial: bool = False
) -> tuple[OffsetDeletePlan, OffsetDeleteOutcome | None]:
    """`offsets delete`: the plan, and what became of it when `execute` (None for a dry run)."""
    plan = plan_offset_delete(admin, group_id, topics)
    return plan, apply_offset_delete(admin, plan, partial) if execute else None


def plan_offset_delete(admin: LiveAdmin, group_id: str, topics: tuple[str, ...]) -> OffsetDeletePlan:
    sizes = {name: len(t.partitions) for name, t in admin.metadata().topics.items()}
    admin.check_topics_visible([t.partition(":")[0] for t in topics])  # hidden by ACLs, or missing
    partitions = scope_partitions(topics, sizes)
    description = admin.describe([group_id])[group_id]
    state, members = enum_name(description.state), len(description.members)
    if state == "dead":  # ClassicGroup.validateOffsetDelete: GROUP_ID_NOT_FOUND
        raise NotFoundError(f"group {group_id!r} does not exist (the coordinator describes it as Dead)")
    group_type = enum_name(getattr(description, "type", None))
    protocol_type, subscriptions = None, None
    if members:  # what the members subscribe to, from their ConsumerProtocol metadata
        views, _ = leader_views(admin.settings, [group_id], admin.timeout_s)
        view = views.get(group_id)
        if view is not None:
            protocol_type = view.protocol_type
            if view.members and all(m.subscription is not None for m in view.members):
                subscriptions = [m.subscription.topics for m in view.members if m.subscription is not None]
    unsupported = offset_delete_unsupported(admin.settings, admin.timeout_s)
    refused = group_refusal(group_type, state, members, protocol_type)
    committed = admin.committed(group_id)  # a refused group's too: the refusal shows what it refused
    subscribed = subscribed_topics(members, subscriptions)
    rows = tuple(
        DeleteRow(
            tp,
            committed.get(tp),
            (NON_EMPTY_GROUP if refused is not None else topic_refusal(tp.topic, subscribed, members))
            if tp in committed
            else None,
        )
        for tp in sort_partitions(partitions)
    )
    return OffsetDeletePlan(group_id, state_label(state), members, refused, rows, unsupported)


def apply_offset_delete(admin: LiveAdmin, plan: OffsetDeletePlan, partial: bool = False) -> OffsetDeleteOutcome:
    """All or nothing unless `partial`: when any partition is refused, none is sent."""
    outcome = OffsetDeleteOutcome()
    if plan.refused is not None or not plan.deletable:
        return outcome
    if plan.refused_rows and not partial:
        outcome.held_back = f"not deleted: {len(plan.refused_rows)} partition(s) refused (all or nothing)"
        return outcome
    if plan.unsupported:
        raise RunError(f"{plan.unsupported}; nothing was changed")
    wanted = [r.tp for r in plan.deletable]
    try:
        answer = send_offset_delete(admin.settings, plan.group_id, wanted, admin.timeout_s)
    except NotReachableError as exc:
        raise admin.unconfirmed_write(exc, f"OffsetDelete of {plan.group_id!r}", plan.group_id) from None
    if answer.error is not None:  # DeleteConsumerGroupOffsetsHandler: a group error fails every partition
        target = outcome.refused if answer.error.startswith(BROKER_REFUSALS) else outcome.failed
        target.update({tp: f"{answer.error} (OffsetDelete on {answer.coordinator})" for tp in wanted})
        return outcome
    left = admin.committed(plan.group_id)
    for tp in wanted:
        error = answer.partitions.get((tp.topic, tp.partition))
        if error is not None:
            target = outcome.refused if error.startswith(BROKER_REFUSALS) else outcome.failed
            target[tp] = error
        elif tp in left:
            outcome.failed[tp] = f"still committed at {left[tp]} after OffsetDelete"
        else:
            outcome.deleted.append(tp)
    return outcome
