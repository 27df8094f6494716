"""Differential tests: hypothesis draws group states, Apache Kafka's assignor classes (the sidecar) and
kgroup's assignors both assign them, and the assignments must be equal, member by member.

`KGROUP_ORACLE_CASES` sets the cases per assignor and release (default 600: 6,000 in all, the four client
assignors against the rig's release, uniform and server-range against 4.0.0, 4.2.1 and 4.4.0 each); a
nightly-size run sets it to thousands, and
`KGROUP_ORACLE_SEED` to explore new states (without it the draws are derandomized, so a CI run is
reproducible). A failure prints the shrunk state as one JSON line: fix kgroup, then keep the state with
`python -m tests.oracle.record` (tests/oracle/fixed/README.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, seed, settings

from tests.kafka import jars
from tests.oracle.cases import CLIENT, SERVER, differences, kgroup_answer, report, with_gone_topic_ids
from tests.oracle.conftest import RULES_DIFFER, RUN_COUNTS
from tests.oracle.sidecar import Sidecar
from tests.oracle.strategies import client_cases, server_cases

CASES = int(os.environ.get("KGROUP_ORACLE_CASES") or 600)
SEED = os.environ.get("KGROUP_ORACLE_SEED")
# The release on the other side of KAFKA-18688, to count the cases where the two uniform behaviours differ
# (a run where they never do would not have tested the change).
OTHER_RULES = {"4.0.0": "4.2.1", "4.2.1": "4.0.0"}
# The server assignors run in the broker, so kgroup follows the broker's release for them
# (kgroup.assignors.server.releases): each is checked against the oldest and the newest release it
# reproduces, and the rig's, kgroup told which one. uniform's homogeneous builder changed in 4.1 (KAFKA-18688);
# range has not changed since 3.9 (KAFKA-16944), which the 4.0.0, 4.2.1 and 4.4.0 runs all confirm.
SERVER_RELEASES = ("4.0.0", "4.2.1", "4.4.0")


def runs() -> list[tuple[str, str]]:
    """(assignor, Kafka release) pairs to compare ($KGROUP_ORACLE_KAFKA_VERSION: one release for all).

    The client assignors have not changed since 3.8 and are checked against the rig's release."""
    override = os.environ.get("KGROUP_ORACLE_KAFKA_VERSION")
    if override:
        return [(a, override) for a in CLIENT + SERVER]
    server = tuple(dict.fromkeys(SERVER_RELEASES + (jars.version(),)))
    return [(a, jars.version()) for a in CLIENT] + [(a, r) for a in SERVER for r in server]


RUNS = runs()


@pytest.mark.parametrize("assignor,release", RUNS, ids=[f"{a}-{r}" for a, r in RUNS])
def test_kgroup_assigns_as_kafka(
    assignor: str, release: str, oracle: Callable[[str], Sidecar], record_property: Callable[[str, object], None]
) -> None:
    sidecar = oracle(release)
    strategy = client_cases(assignor) if assignor in CLIENT else server_cases(assignor)

    @settings(
        max_examples=CASES,
        deadline=None,
        database=None,
        derandomize=SEED is None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(strategy)
    def same_assignment(case: dict) -> None:
        case = with_gone_topic_ids(case)
        kafka = sidecar.assign(case)
        RUN_COUNTS[(assignor, release)] += 1
        ours = kgroup_answer(case, release)
        if assignor == "uniform":
            other = OTHER_RULES.get(release)
            if other is not None and differences(ours, kgroup_answer(case, other)):
                RULES_DIFFER[(assignor, release)] += 1
        diff = differences(kafka, ours)
        assert not diff, report(case, release, diff)

    if SEED is not None:
        same_assignment = seed(int(SEED))(same_assignment)
    try:
        same_assignment()
    finally:  # for the summary (tests/conftest.py), also from an xdist worker and after a failure
        record_property("oracle_cases", (assignor, release, RUN_COUNTS[(assignor, release)]))
        record_property("oracle_rules_differ", (assignor, release, RULES_DIFFER[(assignor, release)]))
    if assignor == "uniform" and release in OTHER_RULES and CASES >= 100:
        # The draws met states where 4.0's and 4.2's rules give different targets, so this release was told
        # apart from the other, not matched by luck.
        assert RULES_DIFFER[(assignor, release)] > 0, f"no drawn state told Kafka {release}'s uniform apart"
