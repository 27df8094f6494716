"""Random groups, every assignor with a trace: replaying the recorded steps gives the assignment, and each
step's stated facts (counts, quotas, orders) hold for the inputs it names.

The shared and librdkafka cases fix the shapes Kafka's and librdkafka's tests chose; these states are the
oracle's random ones (tests/oracle/strategies.py), so a rule recorded for a move it did not make (a balancing
move "because the source held two more" when both held as many) is found on shapes no test wrote down.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from kgroup.assignors import registry, trace as rules
from kgroup.assignors.base import AssignorError
from kgroup.assignors.trace import tracing
from tests.conformance.cases import Case
from tests.conformance.test_explanations import _check_librdkafka_step, _check_step, _nonempty, _replayed
from tests.oracle.cases import to_kgroup
from tests.oracle.strategies import client_cases, server_cases

JAVA = ["range", "roundrobin", "sticky", "cooperative-sticky"]
LIBRDKAFKA = ["range", "roundrobin", "cooperative-sticky"]
SERVER = ["uniform", "server-range"]
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _case(raw: dict[str, Any], assignor: str) -> Case:
    cluster, members = to_kgroup(raw)
    return Case(id="random", assignor=assignor, cluster=cluster, members=members)


def _traced(assignor_name: str, client: str | None, case: Case):  # type: ignore[no-untyped-def]
    assignor = registry.builtin(assignor_name, client) if client else registry.builtin(assignor_name)
    assert assignor is not None
    with tracing() as trace:
        try:
            got = assignor.assign(case.cluster, case.members)
        except AssignorError:  # an input Kafka refuses: nothing to explain
            return None, trace
    return got, trace


def _owners(got) -> dict[str, set[str]]:  # type: ignore[no-untyped-def]
    return _nonempty({m: {str(tp) for tp in parts} for m, parts in got.owners.items()})


@pytest.mark.parametrize("assignor", JAVA)
@SETTINGS
@given(data=client_cases("range"))  # the assignor name inside is not read: `assignor` runs
def test_java_steps_replay_and_state_true_facts(assignor: str, data: dict[str, Any]) -> None:
    case = _case(data, assignor)
    got, trace = _traced(assignor, None, case)
    if got is None:
        return
    assert _replayed(trace) == _owners(got)
    for step in trace.steps:
        assert step.rule in rules.RULES
        _check_step(step, trace, case)


@pytest.mark.parametrize("assignor", SERVER)
@SETTINGS
@given(data=server_cases("uniform"))
def test_server_steps_replay_from_a_previous_target(assignor: str, data: dict[str, Any]) -> None:
    case = _case(data, assignor)
    got, trace = _traced(assignor, None, case)
    if got is None:
        return
    assert _replayed(trace) == _owners(got)
    for step in trace.steps:
        _check_step(step, trace, case)


@pytest.mark.parametrize("assignor", LIBRDKAFKA)
@SETTINGS
@given(data=client_cases("range"))
def test_librdkafka_steps_replay_and_state_true_facts(assignor: str, data: dict[str, Any]) -> None:
    case = _case(data, assignor)
    got, trace = _traced(assignor, "librdkafka", case)
    if got is None:
        return
    assert _replayed(trace) == _owners(got)
    for step in trace.steps:
        assert step.rule in rules.RULES
        _check_librdkafka_step(step, trace, case)


def test_a_kept_partition_its_topic_no_longer_has_is_named_where_it_decides() -> None:
    """Found by the random states above: C0 claims t0-33 of a 32-partition t0. Kafka's sticky assignor keeps
    it (ConstrainedAssignmentBuilder checks the topic, not the number), so C0 reaches its quota of 8 with 7
    real partitions and t0-31, left over, goes to it as an extra; the words must say why."""
    from kgroup.cli.render.explanations import sentence

    raw = {
        "topics": [{"name": "t0", "partitions": 32}],
        "members": [{"member_id": "C0", "topics": ["t0"], "owned": [["t0", 0], ["t0", 33]], "generation": 0}]
        + [{"member_id": f"C{i}", "topics": ["t0"], "owned": []} for i in (1, 2, 3)],
    }
    case = _case(raw, "sticky")
    got, trace = _traced("sticky", None, case)
    assert got is not None
    assert len(got.owners["C0"]) == 9  # as Kafka answers: t0-33 included
    kept = next(s for s in trace.steps if str(s.partition) == "t0-33")
    assert kept.rule == rules.KEPT and kept.facts["beyond_topic"] == 32
    extra = next(s for s in trace.steps if str(s.partition) == "t0-31")
    assert (extra.rule, extra.owner, extra.facts["extra_queue"], extra.facts["held_beyond_topic"]) == (
        rules.QUOTA_ROUND_ROBIN,
        "C0",
        True,
        1,
    )
    context = trace.context[1]
    assert "t0 has only 32 partitions now" in sentence(kept, context)
    assert "it held 8 (counting 1 kept partition its topic no longer has, so it had 7 that exist)" in sentence(
        extra, context
    )


def test_a_partition_kept_and_handed_out_again_has_both_holders_and_says_why() -> None:
    """Found by the random states above: C11 keeps t0-2 of a one-partition t0, which stops the two-pointer
    walk of Kafka's getUnassignedPartitions, so t2-0, kept by C18, is dealt again, to C1: Kafka's answer
    has both holding it, and so must the replay and the words."""
    from kgroup.cli.render.explanations import sentence

    topics = [{"name": "t0", "partitions": 1}, {"name": "t2", "partitions": 8}]
    owned = {"C10": [["t0", 0]], "C11": [["t0", 0], ["t0", 2]], "C18": [["t2", 0]]}
    raw = {
        "topics": topics,
        "members": [
            {
                "member_id": f"C{i}",
                "topics": ["t2", "t0"],
                "owned": owned.get(f"C{i}", []),
                "generation": 0 if f"C{i}" in owned else None,
            }
            for i in range(19)
        ],
    }
    case = _case(raw, "cooperative-sticky")
    got, trace = _traced("cooperative-sticky", None, case)
    assert got is not None
    holders = sorted(m for m, parts in got.owners.items() if any(str(tp) == "t2-0" for tp in parts))
    assert holders == ["C1", "C18"]
    assert _replayed(trace) == _owners(got)
    again = next(s for s in trace.steps if str(s.partition) == "t2-0" and s.owner == "C1")
    assert again.facts["second_holder_of"] == "C18"
    assert "C18 kept it too, so both hold it" in sentence(again, trace.context[again.round])


def test_a_partition_handed_out_twice_stays_with_the_keeper_that_still_has_it() -> None:
    """Found by the random states above: C2 and C6 both claim t1-0 (C6 at the newer generation), and C6 also
    claims t0-2 of a one-partition t0. Kafka's cooperative-sticky keeps t1-0 with C6 and hands it to C1 as well
    (the kept partition beyond t0 stops getUnassignedPartitions' walk); its cooperative adjustment then takes it
    from C1 only, so C6 keeps it. Replaying the words must leave it with C6, and they must not promise a
    hand-over the assignment does not ask for."""
    from kgroup.cli.render.explanations import sentence

    both = ["t0", "t1"]
    raw = {
        "topics": [{"name": "t0", "partitions": 1}, {"name": "t1", "partitions": 13}],
        "members": [{"member_id": "C0", "topics": [], "owned": []}]
        + [{"member_id": f"C{i}", "topics": both, "owned": []} for i in (1, 3, 4, 5)]
        + [
            {"member_id": "C2", "topics": both, "owned": [["t0", 0], ["t1", 0]], "generation": 0},
            {"member_id": "C6", "topics": both, "owned": [["t0", 0], ["t0", 2], ["t1", 0], ["t1", 1]], "generation": 1},
        ],
    }
    case = _case(raw, "cooperative-sticky")
    got, trace = _traced("cooperative-sticky", None, case)
    assert got is not None
    assert {str(tp) for tp in got.owners["C6"]} == {"t0-2", "t1-0", "t1-1"}
    assert _replayed(trace) == _owners(got)
    withheld = next(s for s in trace.steps if s.rule == rules.WITHHELD and str(s.partition) == "t1-0")
    words = sentence(withheld, trace.context[withheld.round])
    assert "C6 still owns it and its assignment keeps it" in words and "afresh" not in words
