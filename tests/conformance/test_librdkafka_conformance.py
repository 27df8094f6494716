"""`--client librdkafka` against the outputs of the real librdkafka assignor code (data/librdkafka-cases.jsonl).

Every expected value was printed by librdkafka's own `rd_kafka_assignor_run` (and, for cooperative-sticky,
its leader's `rd_kafka_cooperative_protocol_adjust_assignment`), never by kgroup; a mismatch is a bug in
kgroup's port. Cases where librdkafka crashes must give kgroup's crash error; `sticky` must be refused.
"""

from __future__ import annotations

import pytest

from kgroup.assignors import registry
from kgroup.assignors.client.librdkafka.cooperative_sticky import LibrdkafkaCooperativeStickyAssignor
from kgroup.assignors.client.librdkafka.errors import LibrdkafkaCrash, UnsupportedAssignor
from kgroup.assignors.model import Assignment
from tests.conformance.cases import Case, librdkafka_cases

CASES = librdkafka_cases()


def _as_strings(assignment: Assignment) -> dict[str, set[str]]:
    return {m: {str(tp) for tp in parts} for m, parts in assignment.owners.items()}


def _differences(expected: dict[str, set[str]], got: dict[str, set[str]]) -> dict[str, tuple[list[str], list[str]]]:
    """Member -> (librdkafka, kgroup) where they differ; a member missing from a map got nothing."""
    names = set(expected) | set(got)
    return {
        n: (sorted(expected.get(n, set())), sorted(got.get(n, set())))
        for n in names
        if expected.get(n, set()) != got.get(n, set())
    }


@pytest.mark.parametrize("case", CASES, ids=[f"librdkafka:{c.assignor}:{c.id}" for c in CASES])
def test_matches_librdkafka(case: Case) -> None:
    assignor = registry.builtin(case.assignor, "librdkafka")
    assert assignor is not None
    if case.expected_error:
        kind = LibrdkafkaCrash if case.expected_error.startswith("crash") else UnsupportedAssignor
        with pytest.raises(kind):
            assignor.assign(case.cluster, case.members)
        return
    assert case.expected is not None
    mismatches = _differences(case.expected, _as_strings(assignor.assign(case.cluster, case.members)))
    assert not mismatches, f"{case.id} SyncGroup: member -> (librdkafka, kgroup): {mismatches}"
    raw_output = case.raw["expected"].get("assignor_output")
    if raw_output is not None:
        assert isinstance(assignor, LibrdkafkaCooperativeStickyAssignor)
        expected = {m: {f"{t}-{p}" for t, p in parts} for m, parts in raw_output.items()}
        mismatches = _differences(expected, _as_strings(assignor.assignor_output(case.cluster, case.members)))
        assert not mismatches, f"{case.id} assignor output: member -> (librdkafka, kgroup): {mismatches}"


def test_the_librdkafka_data_is_there_and_covers_every_assignor() -> None:
    """An empty or partial file must fail, not pass: every strategy, crashes and mixed static members."""
    kinds = {c.assignor for c in CASES}
    assert kinds == {"range", "roundrobin", "cooperative-sticky", "sticky"}
    assert any(c.expected_error and c.expected_error.startswith("crash") for c in CASES)
    assert any(len({m.instance_id is None for m in c.members}) == 2 for c in CASES if c.assignor == "range")
