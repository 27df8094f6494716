"""What-if runs on a fixture: parse the changes a user asked for, apply them, run the chosen assignors."""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.analysis.evaluate import AssignorRun, CurrentAssignment, evaluate
from kgroup.assignors.model import GroupState
from kgroup.assignors.analysis.whatif import AddMember, AddPartitions, RemoveMember, Subscribe, WhatIf, WhatIfError, apply_all
from kgroup.inspectors.assignor_lookup import resolve
from kgroup.inspectors.errors import InputError, RunError
from kgroup.inspectors.fixtures.group_file import Fixture
from kgroup.inspectors.limits import MAX_PARTITIONS_PER_TOPIC, id_problem, partition_budget


def _topics(text: str, flag: str) -> tuple[str, ...]:
    topics = tuple(t.strip() for t in text.split(",") if t.strip())
    for topic in topics:
        problem = id_problem(topic)
        if problem:
            raise InputError(problem, field=flag)
    if not topics:
        raise InputError(f"{text!r}: expected a comma-separated list of topics", field=flag)
    return topics


def parse_changes(add_members: list[str], remove_members: list[str], add_partitions: list[str],
                  subscribe: list[str], state: GroupState) -> list[WhatIf]:
    """Turn the what-if flags into changes, in the order: remove, add, subscribe, grow topics."""
    changes: list[WhatIf] = [RemoveMember(m) for m in remove_members]
    for spec in add_members:
        member_id, sep, topics = spec.partition("=")
        if not member_id:
            raise InputError(f"{spec[:80]!r}: expected ID or ID=topic1,topic2", field="--add-member")
        problem = id_problem(member_id)
        if problem:
            raise InputError(problem, field="--add-member")
        changes.append(AddMember(member_id, _topics(topics, "--add-member") if sep else None))
    for spec in subscribe:
        member_id, sep, topics = spec.partition("=")
        if not sep or not member_id:
            raise InputError(f"{spec!r}: expected ID=topic1,topic2", field="--subscribe")
        changes.append(Subscribe(member_id, _topics(topics, "--subscribe")))
    for spec in add_partitions:
        topic, sep, count = spec.partition("=")
        relative = count.startswith("+")
        digits = count[1:] if relative else count
        if not sep or not topic or not digits.isascii() or not digits.isdigit():
            raise InputError(f"{spec[:80]!r}: expected TOPIC=N (new total) or TOPIC=+N (add N)",
                             field="--add-partitions")
        existing = state.cluster.topic(topic)
        if existing is None:
            raise InputError(f"{spec[:80]!r}: topic {topic[:60]!r} is not in the cluster", field="--add-partitions")
        # Checked on the digits first: no number (and no partition list) is built from an absurd value.
        total = existing.partitions + int(digits) if relative and len(digits) <= 9 else \
            int(digits) if len(digits) <= 9 else MAX_PARTITIONS_PER_TOPIC + 1
        if total > MAX_PARTITIONS_PER_TOPIC:
            raise InputError(f"{spec[:80]!r}: a topic has at most {MAX_PARTITIONS_PER_TOPIC} partitions "
                             "(kgroup's limit per topic)", field="--add-partitions")
        grown = sum(t.partitions for t in state.cluster.topics) - existing.partitions + total
        if grown > partition_budget():
            raise InputError(f"{spec[:80]!r}: the cluster would have more than {partition_budget()} partitions "
                             "(kgroup's limit; KGROUP_MAX_PARTITIONS=N raises it)", field="--add-partitions")
        changes.append(AddPartitions(topic, total))
    return changes


@dataclass(frozen=True)
class Simulation:
    before: GroupState
    after: GroupState
    changes: tuple[WhatIf, ...]
    runs: tuple[AssignorRun, ...]


def simulate(fixture: Fixture, group_id: str | None, assignors: list[str], add_members: list[str],
             remove_members: list[str], add_partitions: list[str], subscribe: list[str],
             client: str = "java") -> Simulation:
    before = GroupState(fixture.cluster, fixture.group(group_id))
    changes = parse_changes(add_members, remove_members, add_partitions, subscribe, before)
    try:
        after = apply_all(before, changes)
    except WhatIfError as exc:
        raise InputError(str(exc)) from None
    names = assignors or [before.group.assignors[0]]
    resolved = [(name, resolve(name, client)) for name in dict.fromkeys(names)]
    runs = tuple(evaluate(before, after, name, assignor) for name, assignor in resolved)
    return Simulation(before, after, tuple(changes), runs)


def check_current(fixture: Fixture, group_id: str | None) -> AssignorRun:
    """Evaluate the fixture's current assignment as it stands."""
    state = GroupState(fixture.cluster, fixture.group(group_id))
    return evaluate(state, state, "current", CurrentAssignment(state.group.assignment))


def require_valid(runs: tuple[AssignorRun, ...]) -> None:
    """An assignor whose output breaks Kafka's rules is a failure, reported before anything is printed."""
    for run in runs:
        if run.violations:
            details = "; ".join(v.detail for v in run.violations[:3])
            more = f" (+{len(run.violations) - 3} more)" if len(run.violations) > 3 else ""
            raise RunError(f"assignor {run.assignor} returned an invalid assignment: {details}{more}")
