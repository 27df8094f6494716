"""Every assignor case of the conformance data, against kgroup's assignors.

Expected values come from running Kafka's own code; a mismatch is a bug in kgroup. Cases for assignors
kgroup does not implement yet are not collected as tests; the summary at the end of the run reports
them as not implemented, with passed/total per assignor for the rest.
"""

from __future__ import annotations

import pytest

from kgroup.assignors import registry
from kgroup.assignors.base import AssignorError
from kgroup.assignors.model import Assignment
from kgroup.assignors.client.sticky.assignors import CooperativeStickyAssignor
from tests.conformance.cases import Case, jsonl_cases, yaml_cases

ALL = [("yaml", c) for c in yaml_cases()] + [("jsonl", c) for c in jsonl_cases()]
IMPLEMENTED = [(src, c) for src, c in ALL if registry.builtin(c.assignor) is not None]
NOT_IMPLEMENTED = [(src, c) for src, c in ALL if registry.builtin(c.assignor) is None]


def _result(case: Case) -> dict[str, set[str]]:
    assignor = registry.builtin(case.assignor)
    assert assignor is not None
    if case.legacy:
        threads = assignor.assign_threads(case.cluster, case.members)  # type: ignore[attr-defined]
        return {t: {str(tp) for tp in parts} for t, parts in threads.items()}
    return _as_strings(assignor.assign(case.cluster, case.members, **server_spec(case)))  # type: ignore[call-arg]


def server_spec(case: Case) -> dict[str, str]:
    """How a Kafka unit test built its GroupSpec, as assignor-cases.yaml records it.

    The tests may force the subscription type, list members in sorted order (a TreeMap) and give
    assignments as linked (listed-order) collections; production uses hash orders throughout. uniform
    runs as the case's Kafka release ran it (its homogeneous builder changed in 4.1, KAFKA-18688).
    """
    raw = case.raw
    spec: dict[str, str] = {}
    if case.assignor in ("server-range", "uniform") and raw.get("subscription_type"):
        spec["forced_type"] = raw["subscription_type"]
    if case.assignor == "uniform":
        spec["kafka_version"] = case.kafka_version
        if raw.get("member_iteration_order") == "sorted":
            spec["member_order"] = "sorted"
        if raw.get("owned_iteration_order") == "listed":
            spec["owned_order"] = "listed"
    return spec


def _as_strings(assignment: Assignment) -> dict[str, set[str]]:
    return {m: {str(tp) for tp in parts} for m, parts in assignment.owners.items()}


def _same(expected: dict[str, set[str]], got: dict[str, set[str]]) -> dict[str, tuple[list[str], list[str]]]:
    """Member -> (kafka, kgroup) where they differ; a member missing from a map got nothing."""
    names = set(expected) | set(got)
    return {
        n: (sorted(expected.get(n, set())), sorted(got.get(n, set())))
        for n in names
        if expected.get(n, set()) != got.get(n, set())
    }


@pytest.mark.parametrize("source,case", IMPLEMENTED, ids=[f"{s}:{c.assignor}:{c.id}" for s, c in IMPLEMENTED])
def test_matches_kafka(source: str, case: Case) -> None:
    if case.expected_error:
        with pytest.raises(AssignorError):
            _result(case)
        return
    got = _result(case)
    assert case.expected is not None
    mismatches = _same(case.expected, got)
    assert not mismatches, f"{case.id}: member -> (kafka, kgroup): {mismatches}"


COOPERATIVE = [c for _, c in ALL if c.assignor == "cooperative-sticky" and "expected_transferring" in c.raw]


@pytest.mark.parametrize("case", COOPERATIVE, ids=[c.id for c in COOPERATIVE])
def test_cooperative_rounds_match_kafka(case: Case) -> None:
    """Both rounds of a cooperative rebalance: what is withheld, to whom it goes, and the follow-up."""
    assignor = CooperativeStickyAssignor()
    generation = case.raw.get("followup_generation")
    rounds = assignor.assign_rounds(case.cluster, case.members, generation)
    transferring = {str(tp): member for tp, member in rounds.transferring.items()}
    assert transferring == case.raw["expected_transferring"]
    if "expected_followup" in case.raw:
        expected = {m: set(parts or []) for m, parts in case.raw["expected_followup"].items()}
        mismatches = _same(expected, _as_strings(rounds.second))
        assert not mismatches, f"{case.id} follow-up: member -> (kafka, kgroup): {mismatches}"


def test_the_data_is_there() -> None:
    """The harness must find cases: an empty or misnamed data folder is a failure, not a pass."""
    assert ALL, "no conformance cases found (KGROUP_CONFORMANCE_DIR or tests/conformance/data)"


def not_implemented_summary() -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, case in NOT_IMPLEMENTED:
        counts[case.assignor] = counts.get(case.assignor, 0) + 1
    return counts
