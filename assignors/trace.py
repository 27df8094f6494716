"""Why each partition went where it went: the decisions an assignor records while it runs, when asked.

An assignor reads `active()` once per run; None (the usual case) means nobody asked and it records
nothing. Under `tracing()` it records one `Step` per decision, in the order it took them: a partition
given to a member (`owner`) or taken away (`owner` None), the rule that decided it and the inputs the
rule read (`facts`, plain values: str, int, lists and dicts of them). Replaying the steps of one round
in order gives back that round's assignment (`Trace.owners`), which is how the tests hold an
explanation to the assignment it explains.

Standard library and the model only, so client-side and server-side assignors can both import it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from kgroup.assignors.model import Member, TopicPartition


class Rule(StrEnum):
    """The rules, by the names the renderer and the JSON output use."""

    RANGE = "range"  # contiguous run of the topic's partitions to the i-th subscriber in member order
    RANGE_RACK = "range-rack"  # rack pass: the lowest partition with a replica on the member's rack
    RANGE_COPARTITIONED = "range-copartitioned"  # rack pass over same-size topics: partition p of each together
    RANGE_AFTER_RACKS = "range-after-racks"  # the rack pass gave way: plain range over what was left
    ROUNDROBIN = "roundrobin"  # the global circular cursor over sorted members
    KEPT = "kept"  # stays with the member that owned it
    CLAIM_CONFLICT = "claim-conflict"  # two members claimed it in the same generation: neither keeps it
    OLDER_CLAIM = "older-claim"  # a newer generation's claim on it wins
    OVER_QUOTA = "over-quota"  # its owner already keeps its quota: released
    NOT_SUBSCRIBED = "not-subscribed"  # its owner no longer subscribes to the topic: released
    RACK_MISMATCH = "rack-mismatch"  # its owner's rack holds no replica of it: released
    QUOTA_ROUND_ROBIN = "quota-round-robin"  # sticky, equal subscriptions: next member short of its quota
    RACK_ROUND_ROBIN = "rack-round-robin"  # the same, first among members on a replica's rack
    LEAST_LOADED = "least-loaded"  # to the subscriber with the fewest partitions, ties by member order
    BALANCE_MOVE = "balance-move"  # moved from a member with too many to one with too few
    BALANCE_UNDONE = "balance-undone"  # the balancing did not improve the score: back where it was
    WITHHELD = "withheld"  # cooperative: its owner must revoke it first; the next rebalance hands it over
    FILL_QUOTA = "fill-quota"  # uniform, equal subscriptions: next member still short of its quota
    UNASSIGNABLE = "unassignable"  # claimed, but no member subscribes to its topic or it no longer exists
    HANDED_BACK = "handed-back"  # librdkafka's leader: an owned partition the assignor left out goes back to its owner
    LEGACY_RANGE = "legacy-range"  # Scala ZooKeeper consumer: range over the topic's threads in string order
    LEGACY_ROUNDROBIN = "legacy-roundrobin"  # the same: partitions by hash of "[topic,partition]", dealt to threads


# Short names: every assignor records its steps under them, and the renderer keys its words by them.
RANGE = Rule.RANGE
RANGE_RACK = Rule.RANGE_RACK
RANGE_COPARTITIONED = Rule.RANGE_COPARTITIONED
RANGE_AFTER_RACKS = Rule.RANGE_AFTER_RACKS
ROUNDROBIN = Rule.ROUNDROBIN
KEPT = Rule.KEPT
CLAIM_CONFLICT = Rule.CLAIM_CONFLICT
OLDER_CLAIM = Rule.OLDER_CLAIM
OVER_QUOTA = Rule.OVER_QUOTA
NOT_SUBSCRIBED = Rule.NOT_SUBSCRIBED
RACK_MISMATCH = Rule.RACK_MISMATCH
QUOTA_ROUND_ROBIN = Rule.QUOTA_ROUND_ROBIN
RACK_ROUND_ROBIN = Rule.RACK_ROUND_ROBIN
LEAST_LOADED = Rule.LEAST_LOADED
BALANCE_MOVE = Rule.BALANCE_MOVE
BALANCE_UNDONE = Rule.BALANCE_UNDONE
WITHHELD = Rule.WITHHELD
FILL_QUOTA = Rule.FILL_QUOTA
UNASSIGNABLE = Rule.UNASSIGNABLE
HANDED_BACK = Rule.HANDED_BACK
LEGACY_RANGE = Rule.LEGACY_RANGE
LEGACY_ROUNDROBIN = Rule.LEGACY_ROUNDROBIN

RULES = tuple(Rule)


@dataclass(frozen=True, slots=True)
class Step:
    """One decision: after it, `partition` belongs to `owner` (None: to nobody, for now)."""

    partition: TopicPartition
    owner: str | None
    rule: Rule
    facts: Mapping[str, Any]
    round: int = 1  # cooperative rebalances: 1 for the first, 2 for the follow-up, ...


@dataclass
class Trace:
    """The steps of one assignor run, and the shared inputs (`context`) of each round."""

    steps: list[Step] = field(default_factory=list)
    # Per round, inputs every step of that round read: the assignor, the path it took, member order.
    context: dict[int, dict[str, Any]] = field(default_factory=dict)
    round: int = 1

    def record(self, tp: TopicPartition, owner: str | None, rule: Rule, **facts: Any) -> None:
        self.steps.append(Step(tp, owner, rule, facts, self.round))

    def note(self, **facts: Any) -> None:
        """Inputs shared by the whole round (e.g. the path taken, the coordinator's member order)."""
        self.context.setdefault(self.round, {}).update(facts)

    def note_entry(self, key: str, name: str, value: Any) -> None:
        """One entry of a per-round mapping (e.g. `kept`: member -> what it kept), added without copying it."""
        self.context.setdefault(self.round, {}).setdefault(key, {})[name] = value

    def note_member_order(self, ordered: list[Member] | tuple[Member, ...]) -> None:
        """The member order a rule read (`member_order.member_sort_key`), with each static member's id."""
        self.note(
            member_order=[m.member_id for m in ordered],
            static={m.member_id: m.instance_id for m in ordered if m.instance_id is not None},
        )

    def note_librdkafka_order(self, join_order: list[Member] | tuple[Member, ...] | Any) -> None:
        """librdkafka sorts members with a comparator that is not a total order (instance ids only when
        both members are static) through glibc's merge sort, so the order it starts from, the JoinGroup
        order, is an input too."""
        members = list(join_order)
        self.note(
            member_sort="librdkafka",
            join_order=[m.member_id for m in members],
            mixed_static=len({m.instance_id is None for m in members}) == 2,
        )

    def next_round(self) -> None:
        self.round += 1

    def rounds(self) -> list[int]:
        return sorted({step.round for step in self.steps} | set(self.context)) or [1]

    def owners(self, round: int | None = None) -> dict[str, list[TopicPartition]]:
        """Replay the steps of one round (default: the last) from nothing: member -> its partitions."""
        if round is None:
            round = self.rounds()[-1]
        holders: dict[TopicPartition, list[str]] = {}
        for step in self.steps:
            if step.round != round:
                continue
            held = holders.setdefault(step.partition, [])
            source = step.facts.get("source")
            if step.facts.get("second_holder_of") and step.owner is not None:
                held.append(step.owner)  # handed out again while its keeper keeps it
            elif step.rule == BALANCE_MOVE and len(held) > 1 and source in held and step.owner is not None:
                held[held.index(source)] = step.owner  # one of two holders gives it up, the other keeps it
            elif step.rule == WITHHELD and len(held) > 1 and step.facts.get("target") in held:
                held.remove(step.facts["target"])  # the newcomer waits; the holder that still has it keeps it
            else:
                held[:] = [step.owner] if step.owner is not None else []
        result: dict[str, list[TopicPartition]] = {}
        for tp, owners in holders.items():
            for owner in owners:
                result.setdefault(owner, []).append(tp)
        return result

    def why(self, tp: TopicPartition) -> list[Step]:
        """Every step about `tp`, in order."""
        return [step for step in self.steps if step.partition == tp]


_ACTIVE: ContextVar[Trace | None] = ContextVar("kgroup_assignor_trace", default=None)


def active() -> Trace | None:
    """The trace to record into, or None when nobody asked (then the assignor records nothing)."""
    return _ACTIVE.get()


@contextmanager
def untraced() -> Iterator[None]:
    """Run a second view of the same decisions (e.g. per thread) without recording them twice."""
    token = _ACTIVE.set(None)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


@contextmanager
def tracing(trace: Trace | None = None) -> Iterator[Trace]:
    """Record the decisions of every assignor run inside the block into one trace."""
    trace = trace if trace is not None else Trace()
    token = _ACTIVE.set(trace)
    try:
        yield trace
    finally:
        _ACTIVE.reset(token)
