"""What-if runs on a fixture: parse the changes a user asked for, apply them, run the chosen assignors."""

from __future__ import annotations

from dataclasses import dataclass, field

from kgroup.assignors.analysis.evaluate import AssignorRun, CurrentAssignment, evaluate
from kgroup.assignors.analysis.placement import order_can_matter, possible_orders
from kgroup.assignors.base import AssignorError
from kgroup.assignors.model import Assignment, GroupState
from kgroup.assignors.analysis.whatif import AddMember, AddPartitions, RemoveMember, Subscribe, WhatIf, WhatIfError, apply_all
from kgroup.inspectors.assignor_lookup import invalid_assignment, resolve
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


def _instances(specs: list[str], added: set[str]) -> dict[str, str]:
    instances: dict[str, str] = {}
    for spec in specs:
        member_id, sep, instance = spec.partition("=")
        if not sep or not member_id or not instance:
            raise InputError(f"{spec!r}: expected ID=GROUP_INSTANCE_ID", field="--instance")
        if member_id not in added:
            raise InputError(f"{spec!r}: {member_id!r} is not a member added with --add-member", field="--instance")
        instances[member_id] = instance
    return instances


def parse_changes(add_members: list[str], remove_members: list[str], add_partitions: list[str],
                  subscribe: list[str], state: GroupState, instances: list[str] | None = None) -> list[WhatIf]:
    """Turn the what-if flags into changes, in the order: remove, add, subscribe, grow topics."""
    changes: list[WhatIf] = [RemoveMember(m) for m in remove_members]
    static = _instances(instances or [], {spec.partition("=")[0] for spec in add_members})
    for spec in add_members:
        member_id, sep, topics = spec.partition("=")
        if not member_id:
            raise InputError(f"{spec[:80]!r}: expected ID or ID=topic1,topic2", field="--add-member")
        problem = id_problem(member_id)
        if problem:
            raise InputError(problem, field="--add-member")
        changes.append(AddMember(member_id, _topics(topics, "--add-member") if sep else None, static.get(member_id)))
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
class WhatIfFlags:
    """The what-if flags `simulate` and `check` share, as given on the command line (or saved in a plan)."""

    assignors: tuple[str, ...] = ()
    add_members: tuple[str, ...] = ()
    remove_members: tuple[str, ...] = ()
    add_partitions: tuple[str, ...] = ()
    subscribe: tuple[str, ...] = ()
    client: str | None = None  # None: the client the group records, else java (leader_client)
    instances: tuple[str, ...] = ()  # ID=GROUP_INSTANCE_ID for members added with add_members

    @property
    def changes_anything(self) -> bool:
        return bool(self.add_members or self.remove_members or self.add_partitions or self.subscribe)

    def then(self, more: WhatIfFlags) -> WhatIfFlags:
        """These changes followed by `more` (a saved plan, then the flags given with it); `more`'s
        assignors and client win when given."""
        return WhatIfFlags(more.assignors or self.assignors, self.add_members + more.add_members,
                           self.remove_members + more.remove_members, self.add_partitions + more.add_partitions,
                           self.subscribe + more.subscribe, more.client or self.client,
                           self.instances + more.instances)


# The assignors that sort members with librdkafka's comparator (rdkafka_range_assignor.c,
# rdkafka_roundrobin_assignor.c); its cooperative-sticky keeps its own maps and matched every live point.
ORDER_SORTED = ("range", "roundrobin")


@dataclass(frozen=True)
class Simulation:
    before: GroupState
    after: GroupState
    changes: tuple[WhatIf, ...]
    runs: tuple[AssignorRun, ...]
    # Per assignor, the other assignments the group may reach, depending on where the broker lists the
    # new member (see assignors.analysis.placement); empty when its place cannot change the result.
    alternatives: dict[str, tuple[Assignment, ...]] = field(default_factory=dict)


def simulate(fixture: Fixture, group_id: str | None, assignors: list[str], add_members: list[str],
             remove_members: list[str], add_partitions: list[str], subscribe: list[str],
             client: str = "java", instances: list[str] | None = None, explain: bool = False) -> Simulation:
    """With `explain`, each assignor runs under a trace (see `kgroup.assignors.trace`)."""
    before = GroupState(fixture.cluster, fixture.group(group_id))
    changes = parse_changes(add_members, remove_members, add_partitions, subscribe, before, instances)
    try:
        after = apply_all(before, changes)
    except WhatIfError as exc:
        raise InputError(str(exc)) from None
    names = assignors or [before.group.assignors[0]]
    resolved = [(name, resolve(name, client)) for name in dict.fromkeys(names)]
    # A user assignor is shown by its own `name` (Kafka's ConsumerPartitionAssignor.name()), as a built-in is.
    runs = tuple(evaluate(before, after, assignor.name, assignor, explain)
                 for name, assignor in resolved)
    added = [c.member_id for c in changes if isinstance(c, AddMember)]
    alternatives: dict[str, tuple[Assignment, ...]] = {}
    if client == "librdkafka" and len(added) <= 1 and order_can_matter(after.group):
        orders = possible_orders(after, added[0] if added else None)
        for run, (_, assignor) in zip(runs, resolved):
            if run.assignment is None or getattr(assignor, "name", "") not in ORDER_SORTED:
                continue
            seen = [run.assignment]
            for placed in orders:
                try:
                    other = Assignment.of(assignor.assign(placed.cluster, placed.group.members).owners)
                except AssignorError:
                    continue
                other = Assignment.of({m.member_id: other.owners.get(m.member_id, ()) for m in after.group.members})
                if other not in seen:
                    seen.append(other)
            if len(seen) > 1:
                alternatives[run.assignor] = tuple(seen[1:])
    return Simulation(before, after, tuple(changes), runs, alternatives)


def simulate_flags(fixture: Fixture, group_id: str | None, flags: WhatIfFlags, explain: bool = False) -> Simulation:
    return simulate(fixture, group_id, list(flags.assignors), list(flags.add_members), list(flags.remove_members),
                    list(flags.add_partitions), list(flags.subscribe), leader_client(fixture, group_id, flags.client)[0],
                    list(flags.instances), explain)


def check_current(fixture: Fixture, group_id: str | None) -> AssignorRun:
    """Evaluate the fixture's current assignment as it stands."""
    state = GroupState(fixture.cluster, fixture.group(group_id))
    return evaluate(state, state, "current", CurrentAssignment(state.group.assignment))


def require_valid(runs: tuple[AssignorRun, ...]) -> None:
    """An assignor whose output breaks Kafka's rules is a failure, reported before anything is printed."""
    for run in runs:
        if run.violations:
            raise invalid_assignment(run.assignor, run.violations)


def leader_client(fixture: Fixture, group_id: str | None, flag: str | None) -> tuple[str, str]:
    """The client whose assignors to run: the flag, else the one the group records, else Java's; and why."""
    if flag:
        return flag, "--client"
    recorded = fixture.group(group_id).client
    if recorded:
        return recorded, "recorded with the group (client:)"
    return "java", "the default"
