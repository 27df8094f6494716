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

The newcomer's random id decides more than that: wherever it sorts among ids with its prefix (members on
one client.id: librdkafka's default `rdkafka`, or an application's own), Java's range and roundrobin
(AbstractPartitionAssignor.MemberInfo.compareTo), its sticky assignors (the leader's HashMap of member
ids) and librdkafka's cooperative-sticky give different assignments. `broker_outcomes` runs any of them
once per class of places that can differ (member_map.newcomer_classes: RANK, POSITION, BUCKET).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import permutations
from typing import Any

from kgroup.assignors.analysis.evaluate import AssignorRun, evaluate
from kgroup.assignors.analysis.member_map import POSITION, RANK, Landing, map_capacity, newcomer_classes
from kgroup.assignors.base import Assignor, AssignorError
from kgroup.assignors.model import Assignment, Cluster, Group, GroupState, Member
from kgroup.assignors.trace import active

# Up to this many members every order is tried (6! = 720 runs of an eager assignor); above it only a new
# member's place among the others.
EVERY_ORDER_UP_TO = 6

# At most this many of a newcomer's places are run (the most likely first), and fewer on a large group: the
# members plus partitions of all runs at most SORTED_BUDGET for an assignor that only sorts (range,
# roundrobin), STICKY_BUDGET for a sticky one (about 25 ms per 1,000 on one core); the rest go unweighed,
# and the what-if says so.
MAX_PLACES = 512
SORTED_BUDGET = 500_000
STICKY_BUDGET = 60_000


def places_cap(state: GroupState, by: str = POSITION, total: bool = True) -> int:
    """How many of a newcomer's places `broker_outcomes` runs on this group."""
    size = len(state.group.members) + sum(t.partitions for t in state.cluster.topics)
    budget = SORTED_BUDGET if by == RANK or (by == POSITION and total) else STICKY_BUDGET
    return max(8, min(MAX_PLACES, budget // max(size, 1)))


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
    return [
        replace(state, group=replace(state.group, members=others[:i] + (joining,) + others[i:]))
        for i in range(len(others) + 1)
    ]


class StandIn:
    """`assignor`, run with the newcomer under `stand_in`: an id that sorts among the others as the random
    id the broker will give it does; the result names the newcomer as the what-if did."""

    def __init__(self, assignor: Assignor, newcomer: str, stand_in: str) -> None:
        self.assignor, self.newcomer, self.stand_in = assignor, newcomer, stand_in
        self.name = getattr(assignor, "name", "")

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        return self._assignment(self._run(self.assignor.assign, cluster, members))

    def _run(self, method: Any, cluster: Cluster, members: Sequence[Member], *args: Any) -> Any:
        """`method` on the members with the newcomer renamed; the trace it records names it back."""
        renamed = [replace(m, member_id=self.stand_in) if m.member_id == self.newcomer else m for m in members]
        trace = active()
        recorded = len(trace.steps) if trace is not None else 0
        result = method(cluster, renamed, *args)
        if trace is not None:  # an explanation names the newcomer as the what-if does, not by its stand-in
            trace.steps[recorded:] = [
                replace(step, owner=self._named(step.owner), facts=self._named(step.facts))
                for step in trace.steps[recorded:]
            ]
            trace.context = self._named(trace.context)
        return result

    def _assignment(self, assignment: Assignment) -> Assignment:
        return Assignment.of(
            {self.newcomer if member == self.stand_in else member: parts for member, parts in assignment.owners.items()}
        )

    def _named(self, value: Any) -> Any:
        if value == self.stand_in:
            return self.newcomer
        if isinstance(value, dict):
            return {self._named(k): self._named(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
            return type(value)(self._named(v) for v in value)
        return value


class CooperativeStandIn(StandIn):
    """A StandIn for a cooperative assignor: its rebalance and follow-ups, as `evaluate` runs them."""

    def assign_rounds(self, cluster: Cluster, members: Sequence[Member], generation: int | None = None) -> Any:
        """A cooperative assignor's rebalance and follow-ups (`assign_rounds`), the newcomer renamed back."""
        played = self._run(self.assignor.assign_rounds, cluster, members, generation)  # type: ignore[attr-defined]
        back = self._assignment
        return replace(
            played,
            rounds=tuple(
                replace(
                    r,
                    assignment=back(r.assignment),
                    withheld={tp: self.newcomer if m == self.stand_in else m for tp, m in r.withheld.items()},
                )
                for r in played.rounds
            ),
        )


def stand_in(assignor: Assignor, newcomer: str, member_id: str) -> StandIn:
    """`assignor` run with the newcomer under `member_id`, cooperative when `assignor` is."""
    kind = CooperativeStandIn if callable(getattr(assignor, "assign_rounds", None)) else StandIn
    return kind(assignor, newcomer, member_id)


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
    capped: bool = False  # more places than `places_cap`: the least likely were not run

    @property
    def knowable(self) -> bool:
        return self.buckets is not None


def kafka_member_order(member_ids: list[str]) -> int | None:
    """The buckets of the Apache Kafka member map that lists these ids in this order, or None when the ids
    are not ids that broker makes or no map lists them so."""
    if not all(_KAFKA_MEMBER_ID.fullmatch(m) for m in member_ids):
        return None
    return map_capacity(member_ids)


def broker_outcomes(
    state: GroupState, newcomer: str | None, assignor: Assignor, by: str = POSITION, total: bool = True
) -> Outcomes:
    """What `assignor` may give the group, over the places the newcomer's random member id may take.

    `state` lists the members as the broker described them, `newcomer` (if any) last, under the id the
    what-if gave it; the broker will give it `client.id-UUID` (`group.instance.id-UUID` if static).
    `by`: what of that id the assignor depends on (member_map: RANK, POSITION, BUCKET). `total`: with
    POSITION, a sort on librdkafka's comparator follows (range, roundrobin), so that where the order is
    total only the rank counts, and where it is not (static and dynamic mixed, ids not Kafka's) every
    order the broker may list is possible.
    """
    members = state.group.members
    joining = next((m for m in members if m.member_id == newcomer), None)
    others = [m for m in members if m is not joining]
    buckets = kafka_member_order([m.member_id for m in others])
    if buckets is None:
        if by != POSITION or not total:  # not Kafka's ids: only what the what-if gave is run
            return Outcomes(_tally([(state, assignor, None)], state), None)
        # The order as described, the newcomer last, first: with no order more likely, that one is shown.
        orders = [state, *possible_orders(state, newcomer)]
        return Outcomes(_tally([(placed, assignor, None) for placed in orders], state), None)
    if joining is None:
        return Outcomes(_tally([(state, assignor, Fraction(1))], state), buckets)
    prefix = joining.instance_id if joining.instance_id is not None else (joining.client_id or joining.member_id)
    cap = places_cap(state, by, total)
    collapse = by == POSITION and total
    ordered, landings, count = newcomer_classes(
        [m.member_id for m in others], prefix, buckets, by, None if collapse else cap
    )
    if collapse and _sorts_as_member_ids(others, joining.instance_id, {x.member_id for x in landings}):
        # The sort's result is then the same whatever order it starts from: only how the id sorts counts.
        shares: dict[str, Fraction] = {}
        for landing in landings:
            shares[landing.member_id] = shares.get(landing.member_id, Fraction(0)) + landing.likelihood
        landings = [Landing(len(ordered), member_id, share) for member_id, share in shares.items()]
    capped = (len(landings) if collapse else count) > cap
    if capped:  # the most likely places first; those left out are not weighed
        landings = sorted(landings, key=lambda x: -x.likelihood)[:cap]
    by_id = {m.member_id: m for m in others}
    runs = []
    for landing in landings:
        order = [by_id[m] for m in ordered]
        order.insert(landing.position, joining)
        runs.append(
            (
                replace(state, group=replace(state.group, members=tuple(order))),
                stand_in(assignor, joining.member_id, landing.member_id),
                landing.likelihood,
            )
        )
    return Outcomes(_tally(runs, state), buckets, capped)


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
    if not all(agree(a, ai, b, bi) for i, (a, ai) in enumerate(static) for b, bi in static[i + 1 :]):
        return False
    return instance_id is None or all(agree(s, instance_id, b, bi) for s in stand_ins for b, bi in static)


def _tally(runs: Sequence[tuple[GroupState, Assignor, Fraction | None]], state: GroupState) -> tuple[Outcome, ...]:
    """The distinct assignments the runs give, likelihoods summed, most likely first (ties: first found)."""
    outcomes: list[Outcome] = []
    index: dict[Assignment, int] = {}  # an outcome -> its place in `outcomes`
    for placed, assignor, likelihood in runs:
        try:
            owners = _final(assignor, placed).owners
        except AssignorError:
            continue
        got = Assignment.of({m.member_id: owners.get(m.member_id, ()) for m in state.group.members})
        i = index.get(got)
        if i is None:
            index[got] = len(outcomes)
            outcomes.append(Outcome(got, placed, assignor, likelihood))
        elif likelihood is not None and outcomes[i].likelihood is not None:
            outcomes[i] = replace(outcomes[i], likelihood=outcomes[i].likelihood + likelihood)  # type: ignore[operator]
    if all(o.likelihood is not None for o in outcomes):
        outcomes.sort(key=lambda o: -o.likelihood)  # type: ignore[operator]
    return tuple(outcomes)


def _final(assignor: Assignor, placed: GroupState) -> Assignment:
    """Where the group settles: a cooperative assignor's last follow-up, as `evaluate` runs it."""
    assign_rounds = getattr(assignor, "assign_rounds", None)
    if callable(assign_rounds):
        generation = None if placed.group.generation is None else placed.group.generation + 1
        final: Assignment = assign_rounds(placed.cluster, placed.group.members, generation).final
        return final
    return assignor.assign(placed.cluster, placed.group.members)


def weigh_orders(
    run: AssignorRun,
    assignor: Assignor,
    before: GroupState,
    after: GroupState,
    newcomer: str | None,
    explain: bool,
    alternatives: dict[str, tuple[Assignment, ...]],
    likelihoods: dict[str, tuple[Fraction, ...]],
    by: str = POSITION,
    total: bool = True,
    notes: list[str] | None = None,
) -> AssignorRun:
    """`run` (the members as described, a newcomer last) replaced by the run of the most likely outcome
    when the broker's member map decides; the other outcomes go to `alternatives`, and with a known map
    every outcome's likelihood, the prediction's first, to `likelihoods`. `by`, `total`: as
    `broker_outcomes`; `notes` gets a line when the newcomer had more places than were run."""
    weighed = broker_outcomes(after, newcomer, assignor, by, total)
    found = weighed.outcomes
    if weighed.capped and notes is not None:
        notes.append(
            f"note: {run.assignor}: the new member's random id may land in more places than kgroup runs "
            f"({places_cap(after, by, total)}, the most likely first): the likelihoods shown add up to "
            f"{float(sum(o.likelihood or 0 for o in found)):.1%}, the rest was not weighed"
        )
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
