"""The member order a broker's JoinGroup response will carry, and what that changes under librdkafka.

librdkafka sorts members with a comparator that compares group.instance.ids only when both members are
static and member ids otherwise (rdkafka_assignor.c `rd_kafka_group_member_cmp`). With static and
dynamic members mixed that is not a total order, so the result of glibc's merge sort depends on the
order the JoinGroup response lists the members in. Kafka's Java order (static first by instance id) is
total, so there it never matters.

On Apache Kafka that order is the classic group's member map (member_map.py), which DescribeGroups lists
too: the members a snapshot read keep their order, and only the newcomer is open: where its random member
id lands in the map, and how it sorts against ids with the same `prefix-`. Each outcome then has a
likelihood, the share of random ids that lead to it, and the most likely one is the prediction. Where the
described order is not that map's (another broker, ids that are not `prefix-UUID`), the order is not
knowable: every order is tried, none is more likely.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import permutations
from typing import Any

from kgroup.assignors.analysis.evaluate import AssignorRun, evaluate
from kgroup.assignors.analysis.member_map import Landing, map_capacity, newcomer_landings
from kgroup.assignors.base import Assignor, AssignorError
from kgroup.assignors.model import Assignment, Cluster, Group, GroupState, Member
from kgroup.assignors.trace import active

# Up to this many members every order is tried (6! = 720 runs of an eager assignor); above it only a new
# member's place among the others.
EVERY_ORDER_UP_TO = 6

# ClassicGroup.generateMemberId: client.id or group.instance.id, "-", java.util.UUID.randomUUID().
_KAFKA_MEMBER_ID = re.compile(r".*-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.DOTALL)


def order_can_matter(group: Group) -> bool:
    """Whether librdkafka's member comparator is not a total order on this group's members."""
    static = sum(1 for m in group.members if m.instance_id is not None)
    return 0 < static < len(group.members)


def possible_orders(state: GroupState, newcomer: str | None) -> list[GroupState]:
    """`state` with its members in every order the broker may list them in: all orders for a small group,
    else the new member (if any) at each place among the others."""
    members = state.group.members
    if len(members) <= EVERY_ORDER_UP_TO:
        return [replace(state, group=replace(state.group, members=order)) for order in permutations(members)]
    return newcomer_placements(state, newcomer) if newcomer is not None else []


def newcomer_placements(state: GroupState, newcomer: str) -> list[GroupState]:
    """`state` with `newcomer` moved to each place in the member order, from first to last."""
    members = state.group.members
    joining = next(m for m in members if m.member_id == newcomer)
    others = tuple(m for m in members if m.member_id != newcomer)
    return [replace(state, group=replace(state.group, members=others[:i] + (joining,) + others[i:]))
            for i in range(len(others) + 1)]


class StandIn:
    """`assignor`, run with the newcomer under `stand_in`: an id that sorts among the others as the random
    id the broker will give it does; the result names the newcomer as the what-if did."""

    def __init__(self, assignor: Assignor, newcomer: str, stand_in: str) -> None:
        self.assignor, self.newcomer, self.stand_in = assignor, newcomer, stand_in
        self.name = getattr(assignor, "name", "")

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        renamed = [replace(m, member_id=self.stand_in) if m.member_id == self.newcomer else m for m in members]
        trace = active()
        recorded = len(trace.steps) if trace is not None else 0
        owners = self.assignor.assign(cluster, renamed).owners
        if trace is not None:  # an explanation names the newcomer as the what-if does, not by its stand-in
            trace.steps[recorded:] = [replace(step, owner=self._named(step.owner), facts=self._named(step.facts))
                                      for step in trace.steps[recorded:]]
            trace.context = self._named(trace.context)
        return Assignment.of({self.newcomer if member == self.stand_in else member: parts
                              for member, parts in owners.items()})

    def _named(self, value: Any) -> Any:
        if value == self.stand_in:
            return self.newcomer
        if isinstance(value, dict):
            return {self._named(k): self._named(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
            return type(value)(self._named(v) for v in value)
        return value


@dataclass(frozen=True)
class Outcome:
    """One assignment the group may reach, a member order that leads to it, and how likely it is (None:
    not knowable)."""

    assignment: Assignment
    state: GroupState
    assignor: Assignor
    likelihood: Fraction | None


@dataclass(frozen=True)
class Outcomes:
    """Every assignment the broker's member order may lead to, the most likely first when that is known.

    `buckets`: the member map's table size the likelihoods assume (the fewest the described order
    allows); None when the order is not knowable and every outcome is only possible."""

    outcomes: tuple[Outcome, ...]
    buckets: int | None

    @property
    def knowable(self) -> bool:
        return self.buckets is not None


def kafka_member_order(member_ids: list[str]) -> int | None:
    """The buckets of the Apache Kafka member map that lists these ids in this order, or None when the ids
    are not ids that broker makes or no map lists them so."""
    if not all(_KAFKA_MEMBER_ID.fullmatch(m) for m in member_ids):
        return None
    return map_capacity(member_ids)


def broker_outcomes(state: GroupState, newcomer: str | None, assignor: Assignor) -> Outcomes:
    """What `assignor` may give the group, over the orders the broker may list its members in.

    `state` lists the members as the broker described them, `newcomer` (if any) last, under the id the
    what-if gave it; the broker will give it `client.id-UUID` (`group.instance.id-UUID` if static).
    """
    members = state.group.members
    joining = next((m for m in members if m.member_id == newcomer), None)
    others = [m for m in members if m is not joining]
    buckets = kafka_member_order([m.member_id for m in others])
    if buckets is None:
        # The order as described, the newcomer last, first: with no order more likely, that one is shown.
        orders = [state, *possible_orders(state, newcomer)]
        return Outcomes(_tally([(placed, assignor, None) for placed in orders], state), None)
    if joining is None:
        return Outcomes(_tally([(state, assignor, Fraction(1))], state), buckets)
    prefix = joining.instance_id if joining.instance_id is not None else (joining.client_id or joining.member_id)
    ordered, landings = newcomer_landings([m.member_id for m in others], prefix, buckets)
    if _sorts_as_member_ids(others, joining.instance_id, {x.member_id for x in landings}):
        # The sort's result is then the same whatever order it starts from: only how the id sorts counts.
        shares: dict[str, Fraction] = {}
        for landing in landings:
            shares[landing.member_id] = shares.get(landing.member_id, Fraction(0)) + landing.likelihood
        landings = [Landing(len(ordered), member_id, share) for member_id, share in shares.items()]
    by_id = {m.member_id: m for m in others}
    runs = []
    for landing in landings:
        order = [by_id[m] for m in ordered]
        order.insert(landing.position, joining)
        runs.append((replace(state, group=replace(state.group, members=tuple(order))),
                     StandIn(assignor, joining.member_id, landing.member_id), landing.likelihood))
    return Outcomes(_tally(runs, state), buckets)


def _sorts_as_member_ids(others: list[Member], instance_id: str | None, stand_ins: set[str]) -> bool:
    """Whether librdkafka's comparator (instance ids when both are static, member ids otherwise) orders
    every pair as their member ids do, with the newcomer under any of its stand-in ids: then it is a total
    order and glibc's sort gives one result from every input order. On Apache Kafka it usually holds, a
    static member's id starting with its instance id. Java's order is total anyway."""
    def agree(a_id: str, a_instance: str, b_id: str, b_instance: str) -> bool:
        by_id = (a_id.encode() > b_id.encode()) - (a_id.encode() < b_id.encode())
        by_instance = (a_instance.encode() > b_instance.encode()) - (a_instance.encode() < b_instance.encode())
        return by_id == by_instance

    static = [(m.member_id, m.instance_id) for m in others if m.instance_id is not None]
    if not all(agree(a, ai, b, bi) for i, (a, ai) in enumerate(static) for b, bi in static[i + 1:]):
        return False
    return instance_id is None or all(agree(s, instance_id, b, bi) for s in stand_ins for b, bi in static)


def _tally(runs: Sequence[tuple[GroupState, Assignor, Fraction | None]], state: GroupState) -> tuple[Outcome, ...]:
    """The distinct assignments the runs give, likelihoods summed, most likely first (ties: first found)."""
    outcomes: list[Outcome] = []
    for placed, assignor, likelihood in runs:
        try:
            owners = assignor.assign(placed.cluster, placed.group.members).owners
        except AssignorError:
            continue
        got = Assignment.of({m.member_id: owners.get(m.member_id, ()) for m in state.group.members})
        for i, seen in enumerate(outcomes):
            if seen.assignment == got:
                if likelihood is not None and seen.likelihood is not None:
                    outcomes[i] = replace(seen, likelihood=seen.likelihood + likelihood)
                break
        else:
            outcomes.append(Outcome(got, placed, assignor, likelihood))
    if all(o.likelihood is not None for o in outcomes):
        outcomes.sort(key=lambda o: -o.likelihood)  # type: ignore[operator]
    return tuple(outcomes)


def weigh_orders(run: AssignorRun, assignor: Assignor, before: GroupState, after: GroupState,
                 newcomer: str | None, explain: bool, alternatives: dict[str, tuple[Assignment, ...]],
                 likelihoods: dict[str, tuple[Fraction, ...]]) -> AssignorRun:
    """`run` (the members as described, a newcomer last) replaced by the run of the most likely outcome
    when the broker's member map decides; the other outcomes go to `alternatives`, and with a known map
    every outcome's likelihood, the prediction's first, to `likelihoods`."""
    found = broker_outcomes(after, newcomer, assignor).outcomes
    if not found or found[0].likelihood is None:
        others = tuple(o.assignment for o in found if o.assignment != run.assignment)
        if others:
            alternatives[run.assignor] = others
        return run
    if len(found) > 1:
        alternatives[run.assignor] = tuple(o.assignment for o in found[1:])
        likelihoods[run.assignor] = tuple(o.likelihood for o in found if o.likelihood is not None)
    if found[0].assignment == run.assignment:
        return run
    return evaluate(before, found[0].state, run.assignor, found[0].assignor, explain)
