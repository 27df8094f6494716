"""Every assignor case of the conformance data, against kgroup's assignors.

Expected values come from running Kafka's own code; a mismatch is a bug in kgroup. Cases for assignors
kgroup does not implement yet are not collected as tests; the summary at the end of the run reports
them as not implemented, with passed/total per assignor for the rest.
"""

from __future__ import annotations

import pytest

from kgroup.assignors import registry
from kgroup.assignors.base import AssignorError
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
    if case.assignor == "server-range" and case.raw.get("subscription_type"):
        # assignor-cases.yaml gives the GroupSpec's subscription type exactly as the Kafka test set it.
        result = assignor.assign(case.cluster, case.members, case.raw["subscription_type"])  # type: ignore[call-arg]
    else:
        result = assignor.assign(case.cluster, case.members)
    return {m: {str(tp) for tp in parts} for m, parts in result.owners.items()}


@pytest.mark.parametrize("source,case", IMPLEMENTED, ids=[f"{s}:{c.assignor}:{c.id}" for s, c in IMPLEMENTED])
def test_matches_kafka(source: str, case: Case) -> None:
    if case.expected_error:
        with pytest.raises(AssignorError):
            _result(case)
        return
    got = _result(case)
    assert case.expected is not None
    # A member or thread Kafka leaves out of its map is one that got nothing.
    names = set(case.expected) | set(got)
    mismatches = {n: (sorted(case.expected.get(n, set())), sorted(got.get(n, set())))
                  for n in names if case.expected.get(n, set()) != got.get(n, set())}
    assert not mismatches, f"{case.id}: member -> (kafka, kgroup): {mismatches}"


def test_the_data_is_there() -> None:
    """The harness must find cases: an empty or misnamed data folder is a failure, not a pass."""
    assert ALL, "no conformance cases found (KGROUP_CONFORMANCE_DIR or tests/conformance/data)"


def not_implemented_summary() -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, case in NOT_IMPLEMENTED:
        counts[case.assignor] = counts.get(case.assignor, 0) + 1
    return counts
