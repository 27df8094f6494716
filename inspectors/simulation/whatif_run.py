"""What-if runs on a fixture: parse the changes a user asked for, apply them, run the chosen assignors."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kgroup.assignors.analysis.evaluate import AssignorRun, CurrentAssignment, evaluate
from kgroup.assignors.analysis.member_map import BUCKET, POSITION, RANK
from kgroup.assignors.analysis.placement import kafka_member_order, order_can_matter, weigh_orders
from kgroup.assignors.base import Assignor, AssignorError
from kgroup.assignors.registry import SHARE_NAMES, builtin, share_builtin, share_names
from kgroup.assignors.model import Assignment, Cluster, GroupState, Topic
from kgroup.assignors.analysis.whatif import (
    AddMember,
    AddPartitions,
    AddTopic,
    RemoveMember,
    Subscribe,
    WhatIf,
    WhatIfError,
    apply_all,
    named_member,
    unknown_topics,
)
from kgroup.inspectors.assignor_lookup import invalid_assignment, resolve
from kgroup.inspectors.errors import InputError, RunError
from kgroup.inspectors.fixtures.group_file import Fixture
from kgroup.inspectors.limits import MAX_PARTITIONS_PER_TOPIC, id_problem, partition_budget, topic_name_problem

if TYPE_CHECKING:  # imported when a consumer-protocol group or uniform is simulated: `check` stays light
    from kgroup.assignors.coordinator.consumer.handover import Handover


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


def _partition_count(spec: str, digits: str, flag: str, form: str, base: int = 0) -> int:
    """`base` plus the count its digits give, checked on the digits first: no number (and no partition list)
    is built from an absurd value."""
    if not digits.isascii() or not digits.isdigit():
        raise InputError(f"{spec[:80]!r}: expected {form}", field=flag)
    count = base + int(digits) if len(digits) <= 9 else MAX_PARTITIONS_PER_TOPIC + 1
    if count > MAX_PARTITIONS_PER_TOPIC:
        raise InputError(
            f"{spec[:80]!r}: a topic has at most {MAX_PARTITIONS_PER_TOPIC} partitions (kgroup's limit per topic)",
            field=flag,
        )
    return count


def _within_budget(cluster: Cluster, spec: str, flag: str) -> None:
    if sum(t.partitions for t in cluster.topics) > partition_budget():
        raise InputError(
            f"{spec[:80]!r}: the cluster would have more than {partition_budget()} partitions "
            "(kgroup's limit; KGROUP_MAX_PARTITIONS=N raises it)",
            field=flag,
        )


def _created(add_topics: list[str], cluster: Cluster) -> tuple[list[AddTopic], Cluster]:
    """--add-topic TOPIC=N: topics created before the rebalance, and the cluster with them."""
    created: list[AddTopic] = []
    for spec in add_topics:
        topic, sep, digits = spec.partition("=")
        if not sep or not topic:
            raise InputError(f"{spec[:80]!r}: expected TOPIC=N (a new topic with N partitions)", field="--add-topic")
        problem = topic_name_problem(topic)
        if problem:
            raise InputError(problem, field="--add-topic")
        count = _partition_count(spec, digits, "--add-topic", "TOPIC=N (a new topic with N partitions)")
        if count == 0:  # CreateTopics refuses INVALID_PARTITIONS
            raise InputError(f"{spec[:80]!r}: a topic has at least 1 partition", field="--add-topic")
        existing = cluster.topic(topic)
        if existing is not None:
            again = any(c.topic == topic for c in created)
            raise InputError(
                f"{spec[:80]!r}: "
                + (
                    f"topic {topic!r} is given twice"
                    if again
                    else f"topic {topic!r} already exists with {existing.partitions} partitions "
                    "(to grow it: --add-partitions)"
                ),
                field="--add-topic",
            )
        created.append(AddTopic(topic, count))
        cluster = Cluster(cluster.topics + (Topic(topic, count),))
        _within_budget(cluster, spec, "--add-topic")
    return created, cluster


def _require_known(changes: list[WhatIf], cluster: Cluster, absent: set[str], specs: dict[int, str]) -> None:
    """A topic a what-if subscribes a member to must be in the cluster, or known not to exist (a live read).

    Offline, a fixture may simply not list a topic its group does not consume: predicting without it would
    silently give that topic's partitions to nobody, so its size is asked for instead.
    """
    for i, change in enumerate(changes):
        if not isinstance(change, (AddMember, Subscribe)) or change.topics is None:
            continue
        for topic in change.topics:
            if cluster.topic(topic) is None and topic not in absent:
                flag = "--add-member" if isinstance(change, AddMember) else "--subscribe"
                raise InputError(
                    f"{specs[i][:80]!r}: topic {topic!r} is not in the cluster, so its partitions are "
                    f"unknown; give its size with --add-topic {topic}=N (N partitions)",
                    field=flag,
                )


def _member_id(state: GroupState, name: str, flag: str) -> str:
    """The member id of the member `name` names (a member id, group.instance.id or client.id: named_member), so
    that the report, the JSON and the simulation all name the member as the coordinator does."""
    try:
        return named_member(state.group, name).member_id
    except WhatIfError as exc:
        raise InputError(str(exc), field=flag) from None


def parse_changes(
    add_members: list[str],
    remove_members: list[str],
    add_partitions: list[str],
    subscribe: list[str],
    state: GroupState,
    instances: list[str] | None = None,
    add_topics: list[str] | None = None,
    absent_topics: list[str] | None = None,
) -> list[WhatIf]:
    """Turn the what-if flags into changes, in the order: remove, add, subscribe, create topics, grow topics.

    `absent_topics`: topics known not to exist on the cluster (read live), which members may subscribe to.
    """
    changes: list[WhatIf] = [RemoveMember(_member_id(state, m, "--remove-member")) for m in remove_members]
    specs: dict[int, str] = {}
    static = _instances(instances or [], {spec.partition("=")[0] for spec in add_members})
    for spec in add_members:
        member_id, sep, topics = spec.partition("=")
        if not member_id:
            raise InputError(f"{spec[:80]!r}: expected ID or ID=topic1,topic2", field="--add-member")
        problem = id_problem(member_id)
        if problem:
            raise InputError(problem, field="--add-member")
        specs[len(changes)] = spec
        changes.append(AddMember(member_id, _topics(topics, "--add-member") if sep else None, static.get(member_id)))
    for spec in subscribe:
        member_id, sep, topics = spec.partition("=")
        if not sep or not member_id:
            raise InputError(f"{spec!r}: expected ID=topic1,topic2", field="--subscribe")
        specs[len(changes)] = spec
        changes.append(Subscribe(_member_id(state, member_id, "--subscribe"), _topics(topics, "--subscribe")))
    created, cluster = _created(add_topics or [], state.cluster)
    _require_known(changes, cluster, set(absent_topics or ()), specs)
    changes += created
    for spec in add_partitions:
        topic, sep, count = spec.partition("=")
        relative = count.startswith("+")
        digits = count[1:] if relative else count
        form = "TOPIC=N (new total) or TOPIC=+N (add N)"
        if not sep or not topic or not digits:
            raise InputError(f"{spec[:80]!r}: expected {form}", field="--add-partitions")
        existing = cluster.topic(topic)
        if existing is None:
            raise InputError(
                f"{spec[:80]!r}: topic {topic[:60]!r} is not in the cluster (a new topic: --add-topic {topic[:60]}=N)",
                field="--add-partitions",
            )
        total = _partition_count(spec, digits, "--add-partitions", form, existing.partitions if relative else 0)
        # Kafka's CreatePartitions refuses a count not greater than the current one (INVALID_PARTITIONS).
        if total < existing.partitions:
            raise InputError(
                f"{spec[:80]!r}: topic {topic!r} has {existing.partitions} partitions; Kafka cannot "
                f"shrink a topic to {total}",
                field="--add-partitions",
            )
        if total == existing.partitions:
            raise InputError(
                f"{spec[:80]!r}: topic {topic!r} already has {total} partitions, so nothing grows "
                "(Kafka's CreatePartitions refuses it: INVALID_PARTITIONS)",
                field="--add-partitions",
            )
        cluster = Cluster(tuple(replace(t, partitions=total) if t.name == topic else t for t in cluster.topics))
        _within_budget(cluster, spec, "--add-partitions")
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
    add_topics: tuple[str, ...] = ()  # TOPIC=N: topics created before the rebalance
    # Topics a live read found missing from the cluster, which the changes may subscribe members to; a plan
    # saved from a live what-if keeps them (`absent_topic`), so that replaying it offline is not refused.
    absent_topics: tuple[str, ...] = ()

    @property
    def changes_anything(self) -> bool:
        return bool(self.add_members or self.remove_members or self.add_partitions or self.subscribe or self.add_topics)

    def subscribed_topics(self) -> tuple[str, ...]:
        """The topics --add-member and --subscribe name, as written (parse_changes checks them)."""
        specs = [s.partition("=")[2] for s in self.add_members + self.subscribe]
        return tuple(dict.fromkeys(t.strip() for spec in specs for t in spec.split(",") if t.strip()))

    def created_topics(self) -> tuple[str, ...]:
        return tuple(spec.partition("=")[0] for spec in self.add_topics)

    def named_topics(self) -> tuple[str, ...]:
        """Every topic the flags name: a live what-if reads each one's metadata."""
        grown = tuple(spec.partition("=")[0] for spec in self.add_partitions)
        return tuple(dict.fromkeys(self.subscribed_topics() + self.created_topics() + grown))

    def then(self, more: WhatIfFlags) -> WhatIfFlags:
        """These changes followed by `more` (a saved plan, then the flags given with it); `more`'s
        assignors and client win when given."""
        return WhatIfFlags(
            more.assignors or self.assignors,
            self.add_members + more.add_members,
            self.remove_members + more.remove_members,
            self.add_partitions + more.add_partitions,
            self.subscribe + more.subscribe,
            more.client or self.client,
            self.instances + more.instances,
            self.add_topics + more.add_topics,
            tuple(dict.fromkeys(self.absent_topics + more.absent_topics)),
        )


# The assignors that sort members with librdkafka's comparator (rdkafka_range_assignor.c,
# rdkafka_roundrobin_assignor.c), which is not a total order with static and dynamic members mixed.
ORDER_SORTED = ("range", "roundrobin")

# What of a newcomer's random member id (client.id-UUID, group.instance.id-UUID if static) each client's
# built-in assignor depends on (assignors/analysis/member_map.py), and whether a sort on librdkafka's
# comparator follows (placement.broker_outcomes `total`):
# - Java range, roundrobin: AbstractPartitionAssignor.MemberInfo.compareTo, instance id when static, else
#   member id: only how the id sorts;
# - Java sticky, cooperative-sticky: AbstractStickyAssignor walks the leader's HashMap of member ids
#   (ConsumerCoordinator.onLeaderElected) and sorts by member id in places: its bucket and rank;
# - librdkafka range, roundrobin (rd_kafka_group_member_cmp) and cooperative-sticky
#   (rdkafka_sticky_assignor.c, maps in JoinGroup order, ties by member id): its place and rank.
PLACES: dict[tuple[str, str], tuple[str, bool]] = {
    ("java", "range"): (RANK, False),
    ("java", "roundrobin"): (RANK, False),
    ("java", "sticky"): (BUCKET, False),
    ("java", "cooperative-sticky"): (BUCKET, False),
    ("librdkafka", "range"): (POSITION, True),
    ("librdkafka", "roundrobin"): (POSITION, True),
    ("librdkafka", "cooperative-sticky"): (POSITION, False),
}


def _places(client: str, assignor: Assignor) -> tuple[str, bool] | None:
    """PLACES' entry for a built-in assignor (not a user assignor that took a built-in's name)."""
    name = getattr(assignor, "name", "")
    return PLACES.get((client, name)) if builtin(name, client) is assignor else None


@dataclass(frozen=True)
class Simulation:
    before: GroupState
    after: GroupState
    changes: tuple[WhatIf, ...]
    runs: tuple[AssignorRun, ...]
    # Per assignor, the other assignments the group may reach, depending on where the broker lists the
    # new member (see assignors.analysis.placement); empty when its place cannot change the result.
    alternatives: dict[str, tuple[Assignment, ...]] = field(default_factory=dict)
    # Per assignor with alternatives: how likely its prediction, then each alternative, is (most likely
    # first), where the broker's member map decides; absent where no order is more likely than another.
    likelihoods: dict[str, tuple[Fraction, ...]] = field(default_factory=dict)
    # Subscribed topics the cluster lacks after the changes -> their subscribers: Kafka assigns nothing of them.
    unknown_topics: dict[str, tuple[str, ...]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # about the changes (a fixture's own warnings are the fixture's)
    # A KIP-848 (protocol: consumer) group, per assignor: how the members get from what they own to the new
    # target (revocations first, then hand-overs) under the heartbeat interval.
    handovers: dict[str, Handover] = field(default_factory=dict)


def _prepared(
    fixture: Fixture,
    group_id: str | None,
    assignors: list[str],
    client: str,
    instances: list[str] | None,
    parse: Callable[[GroupState], list[Any]],
) -> tuple[GroupState, list[Any], GroupState, bool, list[tuple[str, Assignor]]]:
    """The group before and after the changes, whether it is a share group, and the assignors to run: everything
    `simulate` reads from its input before any assignor runs (an InputError for what is wrong with it)."""
    before = GroupState(fixture.cluster, fixture.group(group_id))
    changes = parse(before)  # the what-if changes, read against the group
    try:
        after = apply_all(before, changes)
    except WhatIfError as exc:
        raise InputError(str(exc)) from None
    names = assignors or [before.group.assignors[0]]
    share = before.group.protocol == "share"
    if share and instances:
        raise InputError("a share group has no static members (KIP-932: no group.instance.id)", field="--instance")
    try:
        resolved = [
            (name, _share_assignor(name) if share else _consumer_assignor(name, client))
            for name in dict.fromkeys(names)
        ]
    except InputError as exc:
        if assignors or exc.field != "--assignor":
            raise
        # the group's own assignor, as the fixture names it: the file is at fault, not a flag
        index = fixture.groups.index(before.group) if before.group in fixture.groups else 0
        raise InputError(exc.message, fixture.source, field=f"groups[{index}].assignors[0]") from None
    return before, changes, after, share, resolved


def simulate(
    fixture: Fixture,
    group_id: str | None,
    assignors: list[str],
    add_members: list[str],
    remove_members: list[str],
    add_partitions: list[str],
    subscribe: list[str],
    client: str = "java",
    instances: list[str] | None = None,
    explain: bool = False,
    add_topics: list[str] | None = None,
    absent_topics: list[str] | None = None,
) -> Simulation:
    """With `explain`, each assignor runs under a trace (see `kgroup.assignors.trace`)."""
    before, changes, after, share, resolved = _prepared(
        fixture,
        group_id,
        assignors,
        client,
        instances,
        lambda before: parse_changes(
            add_members, remove_members, add_partitions, subscribe, before, instances, add_topics, absent_topics
        ),
    )
    # A KIP-848 group's server assignor starts from each member's current target, not from what it owns; so does
    # a share group's (TargetAssignmentBuilder.ShareTargetAssignmentBuilder hands SimpleAssignor the target).
    assigned = _with_targets(after, before) if before.group.protocol in ("consumer", "share") else after
    if share:
        assigned = _coordinator_order(assigned, changes)
    # A user assignor is shown by its own `name` (Kafka's ConsumerPartitionAssignor.name()), as a built-in is.
    runs = tuple(evaluate(before, assigned, assignor.name, assignor, explain, share) for name, assignor in resolved)
    added = [c.member_id for c in changes if isinstance(c, AddMember)]
    alternatives: dict[str, tuple[Assignment, ...]] = {}
    likelihoods: dict[str, tuple[Fraction, ...]] = {}
    notes: list[str] = []
    weighed = []
    for run, (_, assignor) in zip(runs, resolved):
        places = _places(client, assignor)
        if run.assignment is not None and places is not None and _weighs(added, after, *places):
            run = weigh_orders(
                run,
                assignor,
                before,
                after,
                added[0] if added else None,
                explain,
                alternatives,
                likelihoods,
                *places,
                notes,
            )
        weighed.append(run)
    runs = tuple(weighed)
    unknown = unknown_topics(after)
    notes += _release_notes(runs, resolved, assigned)
    if share and any(isinstance(c, (AddPartitions, AddTopic)) for c in changes):
        notes.append(
            "note: a share group's coordinator assigns a new partition once its share state is initialised "
            "(GroupMetadataManager: InitializeShareGroupState, then the group's initialised topics); until then its "
            "target leaves the partition out: this prediction is the target that follows"
        )
    if share and added:
        notes.append(
            f"note: a share consumer makes its own member id (a random UUID, KIP-1082), and SimpleAssignor "
            f"walks the members in the HashMap order of their ids: the prediction is for the id "
            f"{', '.join(added)}; the newcomer's real id may place it elsewhere and change the answer"
        )
    notes += _leader_time_notes(runs, client, after)
    handovers = {}
    if before.group.protocol == "consumer":
        from kgroup.assignors.coordinator.consumer.handover import handover

        present = [m.member_id for m in after.group.members]
        handovers = {
            run.assignor: handover(before.group, present, run.assignment) for run in runs if run.assignment is not None
        }
    return Simulation(
        before,
        after,
        tuple(changes),
        runs,
        alternatives,
        unknown_topics=unknown,
        warnings=_unknown_warnings(changes, unknown) + tuple(notes),
        likelihoods=likelihoods,
        handovers=handovers,
    )


def _coordinator_order(state: GroupState, changes: list[WhatIf]) -> GroupState:
    """A share group's members in the order its coordinator will iterate them: the fixture's (as the broker
    listed them), newcomers placed where its member map puts them (share_simple.coordinator_member_order)."""
    from kgroup.assignors.server.share_simple import coordinator_member_order

    added = [c.member_id for c in changes if isinstance(c, AddMember)]
    by_id = {m.member_id: m for m in state.group.members}
    present = [m for m in by_id if m not in added]
    order = coordinator_member_order(present, added)
    return replace(state, group=replace(state.group, members=tuple(by_id[m] for m in order)))


def _share_assignor(name: str) -> Assignor:
    """A share group's assignor: `simple` (share-simple), the only one Kafka 4.2 ships (group.share.assignors)."""
    found = share_builtin(name)
    if found is None:
        raise InputError(
            f"{name!r} is not a share group's assignor; a share group (protocol: share) uses simple (share-simple)",
            field="--assignor",
        )
    return found


def _consumer_assignor(name: str, client: str) -> Assignor:
    """A classic or consumer-protocol group's assignor; a share assignor is refused by name."""
    if name in share_names() or name in SHARE_NAMES and builtin(name, client) is None:
        raise InputError(
            f"{name!r} is a share group's assignor: it may give a partition to several members, which only a "
            "share group (protocol: share) allows",
            field="--assignor",
        )
    return resolve(name, client)


def _with_targets(after: GroupState, before: GroupState) -> GroupState:
    """`after` with each member's `owned` set to its current target (`before`'s assignment; a newcomer has
    none): Kafka's TargetAssignmentBuilder hands the assignor the target assignment, whatever the members
    still own while they reconcile."""
    from kgroup.assignors.coordinator.consumer.handover import targets_as_owned

    targets = targets_as_owned(before.group)
    members = tuple(replace(m, owned=targets.get(m.member_id, ())) for m in after.group.members)
    return replace(after, group=replace(after.group, members=members))


def _release_notes(runs: tuple[AssignorRun, ...], resolved: list[tuple[str, Assignor]], state: GroupState) -> list[str]:
    """Where the built-in uniform's answer depends on the broker's release (KAFKA-18688, 4.1), which one it
    followed and that the other gives another target."""
    notes: list[str] = []
    for run, (_, assignor) in zip(runs, resolved):
        if run.assignment is None or getattr(assignor, "name", None) != "uniform" or builtin("uniform") is not assignor:
            continue
        from kgroup.assignors.server.group_spec import HETEROGENEOUS, subscription_type
        from kgroup.assignors.server.releases import UNIFORM_4_0, UNIFORM_4_1, uniform_release, uniform_rules

        if subscription_type(state.group.members) == HETEROGENEOUS:
            continue  # UniformHeterogeneousAssignmentBuilder is the same from 4.0 to 4.2
        release = state.cluster.kafka_version
        other = UNIFORM_4_0 if uniform_rules(release) == UNIFORM_4_1 else UNIFORM_4_1
        try:
            theirs = assignor.assign(
                state.cluster,
                state.group.members,  # type: ignore[call-arg]
                kafka_version="4.0.0" if other == UNIFORM_4_0 else "4.2.1",
            )
        except AssignorError:
            continue
        if Assignment.of({**{m: () for m in run.assignment.owners}, **theirs.owners}) != run.assignment:
            others = "Kafka 4.0 gives" if other == UNIFORM_4_0 else "Kafka 4.1 and later give"
            notes.append(
                f"note: {run.assignor} followed {uniform_release(release)}; {others} another target "
                "here (KAFKA-18688 changed which members keep an extra partition)"
                + ("" if release else "; `kafka_version:` under the fixture's cluster names the release")
            )
    return notes


def _weighs(added: list[str], after: GroupState, by: str, total: bool) -> bool:
    """Whether the places a newcomer's random id (or the broker's order) may take are worth running: one
    newcomer whose id Kafka makes among ids Kafka made, or librdkafka's comparator not being a total order."""
    if len(added) > 1:
        return False
    mixed = by == POSITION and total and order_can_matter(after.group)
    if not added:
        return mixed
    return (
        mixed or kafka_member_order([m.member_id for m in after.group.members if m.member_id != added[0]]) is not None
    )


def _unknown_warnings(changes: list[WhatIf], unknown: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """One warning per topic a change subscribes a member to that does not exist (the fixture warns about
    its own members' subscriptions when it is read)."""
    named = dict.fromkeys(t for c in changes if isinstance(c, (AddMember, Subscribe)) and c.topics for t in c.topics)
    return tuple(
        f"warning: topic {topic!r} does not exist on the cluster: Kafka assigns nothing of it to "
        f"{', '.join(unknown[topic])} until it is created (the client reports UNKNOWN_TOPIC_OR_PART); "
        f"--add-topic {topic}=N predicts the group once it exists"
        for topic in named
        if topic in unknown
    )


def simulate_flags(fixture: Fixture, group_id: str | None, flags: WhatIfFlags, explain: bool = False) -> Simulation:
    return simulate(
        fixture,
        group_id,
        list(flags.assignors),
        list(flags.add_members),
        list(flags.remove_members),
        list(flags.add_partitions),
        list(flags.subscribe),
        leader_client(fixture, group_id, flags.client)[0],
        list(flags.instances),
        explain,
        list(flags.add_topics),
        list(flags.absent_topics),
    )


def check_flags(fixture: Fixture, group_id: str | None, flags: WhatIfFlags) -> None:
    """What `simulate_flags` would refuse in `flags` (an InputError naming the flag), without running anything."""
    client = leader_client(fixture, group_id, flags.client)[0]
    instances = list(flags.instances)
    _prepared(
        fixture,
        group_id,
        list(flags.assignors),
        client,
        instances,
        lambda before: parse_changes(
            list(flags.add_members),
            list(flags.remove_members),
            list(flags.add_partitions),
            list(flags.subscribe),
            before,
            instances,
            list(flags.add_topics),
            list(flags.absent_topics),
        ),
    )


def check_current(fixture: Fixture, group_id: str | None) -> AssignorRun:
    """Evaluate the fixture's current assignment as it stands."""
    state = GroupState(fixture.cluster, fixture.group(group_id))
    return evaluate(state, state, "current", CurrentAssignment(state.group.assignment))


def _leader_time_notes(runs: tuple[AssignorRun, ...], client: str, state: GroupState) -> list[str]:
    """Where librdkafka's own leader will compute cooperative-sticky for long (leader_time: its
    subscription check is quadratic in the partitions), how long: the rebalance lasts at least that."""
    if client != "librdkafka" or not any(r.assignor == "cooperative-sticky" for r in runs):
        return []
    from kgroup.assignors.client.librdkafka.leader_time import WORTH_SAYING_S, identical_check_seconds

    found = identical_check_seconds(state.cluster, state.group.members)
    if found is None or found[0] < WORTH_SAYING_S:
        return []
    seconds, partitions = found
    spent = f"{seconds // 60:.0f} minutes" if seconds >= 120 else f"{seconds:.0f} s"
    return [
        f"note: librdkafka's leader will compute this cooperative-sticky assignment for at least {spent} "
        f"(areSubscriptionsIdentical compares each of {len(state.group.members):,} members' {partitions:,} "
        "potential partitions with the previous member's by linear search); the rebalance lasts at least "
        "that long: the other members wait in SyncGroup for the leader's assignment"
    ]


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
