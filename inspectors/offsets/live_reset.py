"""`kgroup offsets reset` against a live cluster: the plan, the change, and the check that it took.

The plan is kafka-consumer-groups.sh's (kgroup.assignors.offsets.reset_plan); this module reads what the plan
needs from the cluster, applies it only when asked, and reads the committed offsets back afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kgroup.assignors.model import TopicPartition, sort_partitions
from kgroup.assignors.offsets.reset_plan import (
    FROM_FILE,
    SHIFT_BY,
    TO_DATETIME,
    PlannedOffset,
    ResetInputs,
    ResetRefused,
    plan_reset,
    refusal,
)
from kgroup.inspectors.errors import InputError, NotFoundError
from kgroup.inspectors.live.admin import LiveAdmin, enum_name, state_label


@dataclass(frozen=True)
class ResetRequest:
    spec: str
    value: int | None = None  # N of --to-offset / --shift-by
    timestamp_ms: int | None = None  # --to-datetime / --by-duration, already resolved
    topics: tuple[str, ...] = ()  # --topic T or T:0,1,2
    all_topics: bool = False
    from_file: Mapping[str, Mapping[TopicPartition, int]] | None = None  # group -> partition -> offset
    to_group: str | None = None  # --to-group: the committed offsets of this group (rpk group seek --to-group)


@dataclass(frozen=True)
class GroupPlan:
    group_id: str
    state: str  # as `groups` and `describe` print it: Empty, Stable
    refused: str | None
    offsets: tuple[PlannedOffset, ...] = ()  # a refused group's too: the plan that was refused


@dataclass
class GroupOutcome:
    group_id: str
    applied: list[TopicPartition] = field(default_factory=list)
    failed: dict[TopicPartition, str] = field(default_factory=dict)
    # Sent, not read back, and not confirmed by the coordinator (LiveAdmin.alter_offsets): may still take effect.
    unconfirmed: dict[TopicPartition, str] = field(default_factory=dict)
    held_back: str | None = None  # why this group's plan was not sent although it was not refused

    @property
    def executed(self) -> bool:
        """The plan was sent and every partition of it reads back as planned."""
        return self.held_back is None and bool(self.applied) and not self.failed and not self.unconfirmed


def reset_offsets(
    admin: LiveAdmin, group_ids: list[str], request: ResetRequest, execute: bool, partial: bool = False
) -> tuple[list[GroupPlan], list[GroupOutcome] | None]:
    """`offsets reset`: the plans, and what became of them when `execute` (None for a dry run)."""
    plans = prepare_reset(admin, group_ids, request)
    return plans, apply_reset(admin, plans, partial) if execute else None


def prepare_reset(admin: LiveAdmin, group_ids: list[str], request: ResetRequest) -> list[GroupPlan]:
    """One plan per group; a group with active members is refused, as ConsumerGroupCommand.resetOffsets does,
    and its plan is still computed, so that the refusal shows what would have been done."""
    sizes = {name: len(t.partitions) for name, t in admin.metadata().topics.items()}
    admin.check_topics_visible([t.partition(":")[0] for t in request.topics])  # hidden by ACLs, or missing
    scoped = scope_partitions(request.topics, sizes) if request.topics else None
    descriptions = admin.describe(group_ids)
    source = admin.committed(request.to_group) if request.to_group is not None else None
    if source is not None and not source:
        raise NotFoundError(f"group {request.to_group!r} has no committed offsets to copy (--to-group)")
    plans = []
    for group_id in group_ids:
        description = descriptions[group_id]
        state = enum_name(description.state)
        why = refusal(state, len(description.members))
        committed = admin.committed(group_id)
        requested: dict[TopicPartition, int] | None = None
        if request.spec == FROM_FILE:
            requested = dict((request.from_file or {}).get(group_id, {}))
            if not requested:
                raise InputError(f"the file has no plan for group {group_id!r}", field="--from-file")
            admin.check_topics_visible([tp.topic for tp in requested])
            check_partitions_exist(requested, sizes, "--from-file")
            partitions = list(requested)
        elif source is not None:  # the other group's commits, within --topic when given
            requested = {tp: o for tp, o in source.items() if tp.topic in sizes and (scoped is None or tp in scoped)}
            partitions = sort_partitions(requested)
        elif scoped is not None:
            partitions = scoped
        else:  # --all-topics: ConsumerGroupCommand.getPartitionsToReset takes the group's committed partitions
            partitions = [tp for tp in committed if tp.topic in sizes]
        bounds = admin.log_bounds(partitions, "read_uncommitted")
        missing = [str(tp) for tp in partitions if tp not in bounds]
        if missing:
            raise NotFoundError(f"no log offsets for {', '.join(missing)}")
        for_time = admin.offsets_for_time(partitions, request.timestamp_ms) if request.spec == TO_DATETIME else None
        inputs = ResetInputs(committed, bounds, for_time, requested)
        spec = FROM_FILE if source is not None else request.spec  # a copy is a plan of given offsets, clamped
        try:
            offsets = plan_reset(spec, partitions, inputs, request.value)
        except ResetRefused as exc:
            raise InputError(f"group {group_id!r}: {exc}", field=f"--{SHIFT_BY}") from None
        plans.append(GroupPlan(group_id, state_label(state), why, tuple(offsets)))
    return plans


def apply_reset(admin: LiveAdmin, plans: list[GroupPlan], partial: bool = False) -> list[GroupOutcome]:
    """Commit each plan, then read the group's offsets back: a partition counts as applied only if it reads back.

    All or nothing unless `partial`: when any group is refused, no group's plan is sent, so a reset of
    several groups never leaves them half moved (Kafka's tool resets one group per run; kgroup takes several).
    """
    refused = [p.group_id for p in plans if p.refused is not None]
    outcomes = []
    for plan in plans:
        outcome = GroupOutcome(plan.group_id)
        outcomes.append(outcome)
        if plan.refused is not None or not plan.offsets:
            continue
        if refused and not partial:
            outcome.held_back = f"not applied: {', '.join(refused)} refused (all or nothing)"
            continue
        wanted = {p.tp: p.new for p in plan.offsets}
        answer = admin.alter_offsets(plan.group_id, wanted)
        now = admin.committed(plan.group_id)
        for tp, offset in wanted.items():
            if tp in answer.refused:
                outcome.failed[tp] = answer.refused[tp]
            elif now.get(tp) == offset:
                outcome.applied.append(tp)
            elif answer.unconfirmed is not None:  # reads give what is committed: the commit may still come
                outcome.unconfirmed[tp] = answer.unconfirmed
            else:
                outcome.failed[tp] = f"reads back as {now.get(tp, 'no commit')}, not {offset}"
    return outcomes


def scope_partitions(topics: tuple[str, ...], sizes: dict[str, int]) -> list[TopicPartition]:
    """--topic T (all its partitions) or T:0,1,2, each checked against the cluster's metadata."""
    chosen: set[TopicPartition] = set()
    for argument in topics:
        name, colon, numbers = argument.partition(":")
        if not name:
            raise InputError(f"{argument!r}: expected TOPIC or TOPIC:P[,P...]", field="--topic")
        if name not in sizes:
            raise NotFoundError(f"topic {name!r} does not exist (--topic)")
        if not colon:
            chosen.update(TopicPartition(name, p) for p in range(sizes[name]))
            continue
        for number in numbers.split(","):
            if not number.strip().isdigit():
                raise InputError(f"{argument!r}: {number!r} is not a partition number", field="--topic")
            chosen.add(TopicPartition(name, int(number)))
    check_partitions_exist(chosen, sizes, "--topic")
    return sort_partitions(chosen)


def check_partitions_exist(
    partitions: Mapping[TopicPartition, int] | set[TopicPartition], sizes: dict[str, int], option: str
) -> None:
    for tp in sort_partitions(partitions):
        if tp.topic not in sizes:
            raise NotFoundError(f"topic {tp.topic!r} does not exist ({option})")
        if tp.partition >= sizes[tp.topic]:
            raise InputError(f"{tp}: topic {tp.topic!r} has {sizes[tp.topic]} partition(s)", field=option)
