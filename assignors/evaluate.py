"""Run one assignor on a (possibly changed) group and measure the result against the current assignment."""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.base import Assignor, AssignorError
from kgroup.assignors.diff import AssignmentDiff, Balance, Stickiness, balance, diff, stickiness
from kgroup.assignors.model import Assignment, GroupState, TopicPartition
from kgroup.assignors.validity import Violation, check_validity


@dataclass(frozen=True)
class AssignorRun:
    assignor: str
    assignment: Assignment | None = None
    error: str | None = None  # what Kafka's assignor would throw, when it would
    diff: AssignmentDiff | None = None
    balance: Balance | None = None
    stickiness: Stickiness | None = None
    violations: tuple[Violation, ...] = ()
    threads: dict[str, tuple[TopicPartition, ...]] | None = None  # legacy assignors: per consumer thread


def evaluate(before: GroupState, after: GroupState, name: str, assignor: Assignor) -> AssignorRun:
    """Assign `after`'s members and compare with `before`'s current assignment."""
    members = after.group.members
    try:
        result = assignor.assign(after.cluster, members)
        threads = None
        assign_threads = getattr(assignor, "assign_threads", None)
        if callable(assign_threads):
            threads = {t: tuple(parts) for t, parts in assign_threads(after.cluster, members).items()}
    except AssignorError as exc:
        return AssignorRun(name, error=f"{exc.kafka_exception}: {exc}")
    # Kafka's assignors give every member an entry; a user assignor may leave some out.
    result = Assignment.of({**{m.member_id: () for m in members}, **result.owners})
    current = before.group.assignment
    return AssignorRun(
        assignor=name, assignment=result,
        diff=diff(current, result),
        balance=balance(after.cluster, members, result),
        stickiness=stickiness(after.cluster, members, current, result),
        violations=tuple(check_validity(after.cluster, members, result)),
        threads=threads,
    )


class CurrentAssignment:
    """A stand-in assignor that returns the group's current assignment, to check it as it stands."""

    name = "current"

    def __init__(self, assignment: Assignment) -> None:
        self._assignment = assignment

    def assign(self, cluster: object, members: object) -> Assignment:
        return self._assignment
