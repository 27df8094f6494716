"""Every conformance case, run with a trace: replaying the explanations gives back the assignment.

The expected assignment is Kafka's (the case's own `expected`), so a trace that replays to it explains
what Kafka would do; each step's arithmetic is then recomputed from the inputs the step names.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kgroup.assignors import registry, trace as rules
from kgroup.assignors.client.librdkafka.cooperative_sticky import LibrdkafkaCooperativeStickyAssignor
from kgroup.assignors.client.librdkafka.errors import LibrdkafkaCrash
from kgroup.assignors.client.sticky.assignors import CooperativeStickyAssignor
from kgroup.assignors.trace import Step, Trace, tracing
from tests.conformance.cases import Case, jsonl_cases, librdkafka_cases, yaml_cases
from tests.conformance.test_assignor_conformance import server_spec

CASES = [
    c
    for c in yaml_cases() + jsonl_cases()
    if not c.legacy and not c.expected_error and c.expected is not None and registry.builtin(c.assignor)
]


def _replayed(trace: Trace, round: int | None = None) -> dict[str, set[str]]:
    return {m: {str(tp) for tp in parts} for m, parts in trace.owners(round).items() if parts}


def _nonempty(mapping: dict[str, set[str]]) -> dict[str, set[str]]:
    return {m: parts for m, parts in mapping.items() if parts}


def _check_step(step: Step, trace: Trace, case: Case) -> None:
    facts = step.facts
    context = trace.context.get(step.round, {})
    if step.rule == rules.RANGE:
        q, r = divmod(facts["partitions"], len(facts["members"]))
        assert (q, r) == (facts["quota"], facts["extra"])
        # The i-th member starts at i*q + min(i, r); find whose run holds this partition.
        starts = [i * q + min(i, r) for i in range(len(facts["members"]))]
        position = max(i for i, start in enumerate(starts) if start <= step.partition.partition)
        assert facts["members"][position] == step.owner and position == facts["position"]
    elif step.rule == rules.ROUNDROBIN:
        order = context["member_order"]
        subscribers = set(facts["subscribers"])
        at = facts["cursor"]
        while order[at] not in subscribers:
            at = (at + 1) % len(order)
        assert order[at] == step.owner
    elif step.rule == rules.KEPT:
        member = next(m for m in case.members if m.member_id == step.owner)
        assert step.partition in member.owned
    elif step.rule == rules.LEAST_LOADED and not facts.get("rack_pass"):
        assert facts["held_before"] == min(facts["loads"].values())
        assert facts["loads"][step.owner] == facts["held_before"]
    elif step.rule == rules.BALANCE_MOVE:
        # the load that called for the move: the holder of the partition asked for, which is the source unless
        # an earlier move was undone instead (getTheActualPartitionToBeMoved)
        called = facts["asked_held"] if facts.get("instead_of") else facts["source_held"]
        assert called >= facts["target_held"] + 2
    elif step.rule == rules.QUOTA_ROUND_ROBIN:
        # a kept partition its topic no longer has fills a place in a quota (ConstrainedAssignmentBuilder), so
        # a real partition is left over once every member reached its quota: a member at its quota takes it
        assert (
            facts["held_before"] - facts.get("held_beyond_topic", 0) < context["max_quota"]
            or facts.get("kept_beyond_topic", 0) > 0
        )
        assert facts["extra_queue"] or step.owner in facts["short"]
    elif step.rule == rules.FILL_QUOTA:
        assert step.owner in [member for member, _ in facts["short"]]
    elif step.rule in (rules.RANGE_RACK, rules.RANGE_COPARTITIONED, rules.RANGE_AFTER_RACKS):
        if step.rule != rules.RANGE_AFTER_RACKS:
            assert facts["rack"] is None or facts["rack"] in facts["replica_racks"]
        assert facts["held_before"] < facts["quota"] + (1 if facts["extra_left"] > 0 else 0)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.assignor}:{c.id}" for c in CASES])
def test_replaying_the_explanations_gives_the_assignment(case: Case) -> None:
    assignor = registry.builtin(case.assignor)
    with tracing() as trace:
        got = assignor.assign(case.cluster, case.members, **server_spec(case))  # type: ignore[call-arg]
    assert trace.steps or not any(got.owners.values())
    assert _replayed(trace) == _nonempty(case.expected)
    assert _replayed(trace) == _nonempty({m: {str(tp) for tp in parts} for m, parts in got.owners.items()})
    for step in trace.steps:
        assert step.rule in rules.RULES
        _check_step(step, trace, case)


COOPERATIVE = [c for c in CASES if c.assignor == "cooperative-sticky" and "expected_followup" in c.raw]


@pytest.mark.parametrize("case", COOPERATIVE, ids=[c.id for c in COOPERATIVE])
def test_cooperative_rounds_replay_round_by_round(case: Case) -> None:
    with tracing() as trace:
        played = CooperativeStickyAssignor().assign_rounds(
            case.cluster, case.members, case.raw.get("followup_generation")
        )
    assert trace.rounds() == list(range(1, len(played.rounds) + 1))
    for number, played_round in enumerate(played.rounds, start=1):
        expected = {m: {str(tp) for tp in parts} for m, parts in played_round.assignment.owners.items()}
        assert _replayed(trace, number) == _nonempty(expected)
    withheld = {str(s.partition): s.facts["target"] for s in trace.steps if s.rule == rules.WITHHELD and s.round == 1}
    assert withheld == case.raw["expected_transferring"]


def test_nothing_is_recorded_outside_tracing() -> None:
    case = next(c for c in CASES if c.assignor == "sticky")
    with tracing() as trace:
        pass
    registry.builtin("sticky").assign(case.cluster, case.members)  # type: ignore[union-attr]
    assert trace.steps == [] and rules.active() is None


# -- librdkafka's port: the default client of live confluent-kafka groups --------------------------------

LIBRDKAFKA = [c for c in librdkafka_cases() if not c.expected_error and c.expected is not None]


def _check_librdkafka_step(step: Step, trace: Trace, case: Case) -> None:
    facts = step.facts
    context = trace.context.get(step.round, {})
    assert context["client"] == "librdkafka" and context["join_order"] == [m.member_id for m in case.members]
    subscribers = {m.member_id for m in case.members if step.partition.topic in m.topics}
    if "members" in facts:  # range: the topic's subscribers, in librdkafka's order
        assert sorted(facts["members"]) == sorted(subscribers)
    if step.rule == rules.UNASSIGNABLE:
        topic = case.cluster.topic(step.partition.topic)
        assert not subscribers or topic is None or step.partition.partition >= topic.partitions
    elif step.rule == rules.HANDED_BACK:
        member = next(m for m in case.members if m.member_id == step.owner)
        assert step.partition in member.owned and step.owner == facts["claimants"][-1]
    elif step.rule == rules.WITHHELD:
        source = next(m for m in case.members if m.member_id == facts["source"])
        assert step.partition in source.owned and facts["target"] != facts["source"]
    elif step.rule == rules.CLAIM_CONFLICT:
        claimants = [m for m in case.members if m.member_id in facts["claimants"]]
        assert len({m.generation for m in claimants}) == 1 and all(step.partition in m.owned for m in claimants)
    elif step.rule == rules.LEAST_LOADED:
        assert step.owner in facts["loads"] and facts["held_before"] == facts["loads"][step.owner]
        # The first of the fewest, ties by member id in byte order.
        assert step.owner == min(facts["loads"], key=lambda m: (facts["loads"][m], m.encode()))
    if step.rule != rules.LEAST_LOADED:  # librdkafka's least-loaded ties go by bytes, checked above
        _check_step(step, trace, case)


@pytest.mark.parametrize("case", LIBRDKAFKA, ids=[f"librdkafka:{c.assignor}:{c.id}" for c in LIBRDKAFKA])
def test_replaying_librdkafka_explanations_gives_librdkafka_assignment(case: Case) -> None:
    """librdkafka's own output (the case's `expected`, SyncGroup after the leader's adjustment)."""
    assignor = registry.builtin(case.assignor, "librdkafka")
    assert assignor is not None
    with tracing() as trace:
        got = assignor.assign(case.cluster, case.members)
    assert trace.steps or not any(got.owners.values())
    assert _replayed(trace) == _nonempty(case.expected)
    for step in trace.steps:
        assert step.rule in rules.RULES
        _check_librdkafka_step(step, trace, case)


LIBRDKAFKA_COOPERATIVE = [c for c in LIBRDKAFKA if c.assignor == "cooperative-sticky"]


@pytest.mark.parametrize("case", LIBRDKAFKA_COOPERATIVE, ids=[c.id for c in LIBRDKAFKA_COOPERATIVE])
def test_librdkafka_cooperative_rounds_replay_round_by_round(case: Case) -> None:
    with tracing() as trace:
        try:
            played = LibrdkafkaCooperativeStickyAssignor().assign_rounds(case.cluster, case.members)
        except LibrdkafkaCrash:  # a follow-up librdkafka itself would crash on: the first round still replays
            assert trace.round > 1 and _replayed(trace, 1) == _nonempty(case.expected)
            return
    assert trace.rounds() == list(range(1, len(played.rounds) + 1))
    for number, played_round in enumerate(played.rounds, start=1):
        expected = {m: {str(tp) for tp in parts} for m, parts in played_round.assignment.owners.items()}
        assert _replayed(trace, number) == _nonempty(expected)
        withheld = {
            s.partition: s.facts["target"] for s in trace.steps if s.rule == rules.WITHHELD and s.round == number
        }
        assert withheld == played_round.withheld


def test_librdkafka_records_nothing_outside_tracing() -> None:
    case = next(c for c in LIBRDKAFKA if c.assignor == "cooperative-sticky")
    with tracing() as trace:
        pass
    registry.builtin("cooperative-sticky", "librdkafka").assign(case.cluster, case.members)  # type: ignore[union-attr]
    assert trace.steps == [] and rules.active() is None


# -- the legacy Scala assignors (per thread) and the coordinator's incremental uniform ----------------------

LEGACY = [c for c in yaml_cases() + jsonl_cases() if c.legacy and not c.expected_error and c.expected is not None]


@pytest.mark.parametrize("case", LEGACY, ids=[c.id for c in LEGACY])
def test_replaying_legacy_explanations_gives_each_thread_its_partitions(case: Case) -> None:
    """The case's `expected` is per thread (`<consumer>-<i>`); each step names its thread and its member."""
    assignor = registry.builtin(case.assignor)
    with tracing() as trace:
        assignor.assign(case.cluster, case.members)  # type: ignore[union-attr]
    per_thread: dict[str, set[str]] = {}
    for step in trace.steps:
        assert step.rule in (rules.LEGACY_RANGE, rules.LEGACY_ROUNDROBIN)
        thread = step.facts["thread"]
        assert thread.rsplit("-", 1)[0] == step.owner
        per_thread.setdefault(thread, set()).add(str(step.partition))
        if step.rule == rules.LEGACY_RANGE:  # thread i starts at i*q + min(i, r), as for range
            q, r = divmod(step.facts["partitions"], len(step.facts["threads"]))
            starts = [i * q + min(i, r) for i in range(len(step.facts["threads"]))]
            position = max(i for i, start in enumerate(starts) if start <= step.partition.partition)
            assert step.facts["threads"][position] == thread
        else:
            threads = trace.context[1]["threads"]
            assert threads[step.facts["index"] % len(threads)] == thread
    assert per_thread == _nonempty(case.expected)
    members = {m.member_id for m in case.members}
    assert set(_replayed(trace)) <= members


HOMOGENEOUS_UNIFORM = [
    c
    for c in CASES
    if c.assignor == "uniform"
    and len(c.members) > 1
    and len({frozenset(m.topics) for m in c.members}) == 1
    and c.members[0].topics
    and not c.raw.get("subscription_type")
]


@pytest.mark.parametrize("change", ["leave", "join"])
@pytest.mark.parametrize("case", HOMOGENEOUS_UNIFORM, ids=[c.id for c in HOMOGENEOUS_UNIFORM])
def test_replaying_the_derived_uniform_target_gives_the_full_assignors(case: Case, change: str) -> None:
    """The coordinator's incremental uniform (UniformTargets): after a member leaves or one joins, the
    derived target's steps replay to what the full UniformAssignor computes for the same group."""
    from kgroup.assignors.model import Member
    from kgroup.assignors.server.uniform import UniformAssignor
    from kgroup.assignors.server.uniform_incremental import UniformTargets

    members = [Member(m.member_id, m.topics) for m in case.members]
    first = UniformAssignor().assign(case.cluster, members)
    current = {m.member_id: frozenset(first.partitions_of(m.member_id)) for m in members}
    targets = UniformTargets()
    targets.remember(case.cluster, [m.topics for m in members], current)
    if change == "leave":
        current.pop(members.pop(0).member_id)
    else:
        members.append(Member("zz-newcomer", members[0].topics))
    with tracing() as trace:
        derived = targets.compute(case.cluster, [m.member_id for m in members], [m.topics for m in members], current)
    assert derived is not None
    given = [Member(m.member_id, m.topics, owned=tuple(sorted(current.get(m.member_id, ())))) for m in members]
    full = UniformAssignor().assign(case.cluster, given)
    assert _replayed(trace) == _nonempty({m: {str(tp) for tp in parts} for m, parts in full.owners.items()})
    for step in trace.steps:
        _check_step(step, trace, replace(case, members=given))
