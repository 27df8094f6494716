"""Run one assignor on a (possibly changed) group and measure the result against the current assignment."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, repeat
from operator import itemgetter

from kgroup.assignors.base import Assignor, AssignorError
from kgroup.assignors.analysis.diff import AssignmentDiff, Balance, Stickiness, balance, diff, shared_diff, stickiness
from kgroup.assignors.model import Assignment, Cluster, GroupState, Member, TopicPartition
from kgroup.assignors.trace import Trace, tracing, untraced
from kgroup.assignors.validity import Violation, check_validity


@dataclass(frozen=True)
class Handover:
    """A partition a cooperative rebalance moves in two steps: revoked now, assigned in the follow-up."""

    tp: TopicPartition
    source: str | None  # the member that owns it and must revoke it (None: claimed by nobody valid)
    target: str
    rebalance: int = 1  # the rebalance (1, 2, ...) that withholds it; the next one assigns it


@dataclass(frozen=True)
class Rebalance:
    """One of a cooperative run's rebalances and how it changes the one before (the current, first)."""

    assignment: Assignment
    diff: AssignmentDiff


@dataclass(frozen=True)
class Basis:
    """What a run's measures compare against: the cluster, the members after the change, the current assignment."""

    cluster: Cluster
    members: tuple[Member, ...]
    current: Assignment
    shared: bool = False  # a share group's (KIP-932): a partition may have several holders


@dataclass(frozen=True)
class AssignorRun:
    """One assignor's result. `diff`, `balance` and `stickiness` are computed when first read: on a
    million partitions, `assign -o json` needs none of them and should not pay for them."""

    assignor: str
    assignment: Assignment | None = None
    error: str | None = None  # what Kafka's assignor would throw, when it would
    basis: Basis | None = field(default=None, repr=False)
    violations: tuple[Violation, ...] = ()
    threads: dict[str, tuple[TopicPartition, ...]] | None = None  # legacy assignors: per consumer thread
    # Cooperative assignors: `assignment` is where the group settles after the follow-up rebalances;
    # `rounds` is what each rebalance hands out (the last equals `assignment`); the `withheld`
    # partitions are revoked in one rebalance and assigned in the next, unconsumed in between.
    rounds: tuple[Rebalance, ...] = ()
    withheld: tuple[Handover, ...] = ()
    settled: bool = True
    # With `explain`: every decision the assignor recorded while it ran (kgroup.assignors.trace).
    trace: Trace | None = None

    @cached_property
    def diff(self) -> AssignmentDiff | None:
        if self.basis is None or self.assignment is None:
            return None
        return (shared_diff if self.basis.shared else diff)(self.basis.current, self.assignment)

    @cached_property
    def balance(self) -> Balance | None:
        if self.basis is None or self.assignment is None:
            return None
        return balance(self.basis.cluster, self.basis.members, self.assignment)

    @cached_property
    def stickiness(self) -> Stickiness | None:
        if self.basis is None or self.assignment is None:
            return None
        return stickiness(self.basis.cluster, self.basis.members, self.basis.current, self.assignment)


def evaluate(
    before: GroupState, after: GroupState, name: str, assignor: Assignor, explain: bool = False, shared: bool = False
) -> AssignorRun:
    """Assign `after`'s members and compare with `before`'s current assignment.

    With `explain`, the assignor runs under a trace and the run keeps what it recorded. `shared`: a share
    group's run, where a partition may go to several members and the diff counts moves per holder.
    """
    if not explain:
        return _evaluate(before, after, name, assignor, None, shared)
    with tracing() as trace:
        return _evaluate(before, after, name, assignor, trace, shared)


def _evaluate(
    before: GroupState, after: GroupState, name: str, assignor: Assignor, trace: Trace | None, shared: bool = False
) -> AssignorRun:
    members = after.group.members
    rounds: list[Rebalance] = []
    withheld: list[Handover] = []
    settled = True
    try:
        assign_rounds = getattr(assignor, "assign_rounds", None)
        if callable(assign_rounds):
            played = assign_rounds(after.cluster, members, _next_generation(before))
            previous = before.group.assignment
            owner = _owners((m.member_id, m.owned) for m in members)
            for number, played_round in enumerate(played.rounds, start=1):
                value = _every_member(played_round.assignment, members)
                rounds.append(Rebalance(value, diff(previous, value)))
                withheld += [
                    Handover(tp, owner.get(tp), target, number) for tp, target in sorted(played_round.withheld.items())
                ]
                previous = value
                owner = _owners(value.owners.items())
            result, settled = played.final, played.settled
        else:
            result = assignor.assign(after.cluster, members)
        threads = None
        assign_threads = getattr(assignor, "assign_threads", None)
        if callable(assign_threads):
            with untraced():  # the same run per thread: its steps are already recorded
                threads = {t: tuple(parts) for t, parts in assign_threads(after.cluster, members).items()}
    except AssignorError as exc:
        return AssignorRun(name, error=f"{exc.kafka_exception}: {exc}")
    result = _every_member(result, members)
    current = before.group.assignment
    return AssignorRun(
        assignor=name,
        assignment=result,
        basis=Basis(after.cluster, tuple(members), current, shared),
        # A share group's partition held by nobody is no broken rule but a finding (`unconsumed`, shown apart).
        violations=tuple(check_validity(after.cluster, members, result, allow_unassigned=shared, allow_shared=shared)),
        threads=threads,
        rounds=tuple(rounds),
        withheld=tuple(withheld),
        settled=settled,
        trace=trace,
    )


def _every_member(result: Assignment, members: Sequence[Member]) -> Assignment:
    """Kafka's assignors give every member an entry (a user assignor may leave some out), listed in
    the group's member order."""
    return Assignment.of({**{m.member_id: () for m in members}, **result.owners})


def _owners(holdings: Iterable[tuple[str, Sequence[TopicPartition]]]) -> dict[TopicPartition, str]:
    """Partition -> its holder (the last one listed, should two hold it), built by C: a million partitions."""
    pairs = list(holdings)
    return dict(
        zip(
            chain.from_iterable(map(itemgetter(1), pairs)),
            chain.from_iterable(map(repeat, map(itemgetter(0), pairs), map(len, map(itemgetter(1), pairs)))),
        )
    )


def _next_generation(state: GroupState) -> int | None:
    """The generation the simulated rebalance creates: one above the group's, when the fixture says."""
    return None if state.group.generation is None else state.group.generation + 1


class CurrentAssignment:
    """A stand-in assignor that returns the group's current assignment, to check it as it stands."""

    name = "current"

    def __init__(self, assignment: Assignment) -> None:
        self._assignment = assignment

    def assign(self, cluster: object, members: object) -> Assignment:
        return self._assignment
