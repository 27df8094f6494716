"""Differential tests: hypothesis draws group states, Apache Kafka's assignor classes (the sidecar) and
kgroup's assignors both assign them, and the assignments must be equal, member by member.

`KGROUP_ORACLE_CASES` sets the cases per assignor (default 600: 3,600 in all, about a minute on a loaded
2-core machine, drawing the states taking most of it); a nightly-size run sets it to thousands, and
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
from tests.oracle.conftest import RUN_COUNTS
from tests.oracle.sidecar import Sidecar
from tests.oracle.strategies import client_cases, server_cases

CASES = int(os.environ.get("KGROUP_ORACLE_CASES") or 600)
SEED = os.environ.get("KGROUP_ORACLE_SEED")
UNIFORM_RELEASE = "4.0.0"


def release_for(assignor: str) -> str:
    """The Kafka release whose output kgroup reproduces for `assignor` ($KGROUP_ORACLE_KAFKA_VERSION: one
    release for all).

    kgroup's uniform follows Kafka 4.0: the 4.1 rewrite of its homogeneous builder (KAFKA-18688, "any member
    may keep the extra partition") is not reproduced (registry._UNIFORM_HISTORY), so uniform is checked
    against 4.0.0. The others have not changed since (client assignors since 3.8, server range since 3.9)
    and are checked against the rig's release.
    """
    override = os.environ.get("KGROUP_ORACLE_KAFKA_VERSION")
    if override:
        return override
    return UNIFORM_RELEASE if assignor == "uniform" else jars.version()


@pytest.mark.parametrize("assignor", CLIENT + SERVER)
def test_kgroup_assigns_as_kafka(assignor: str, oracle: Callable[[str], Sidecar]) -> None:
    release = release_for(assignor)
    sidecar = oracle(release)
    strategy = client_cases(assignor) if assignor in CLIENT else server_cases(assignor)

    @settings(max_examples=CASES, deadline=None, database=None, derandomize=SEED is None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy)
    def same_assignment(case: dict) -> None:
        case = with_gone_topic_ids(case)
        kafka = sidecar.assign(case)
        RUN_COUNTS[(assignor, release)] += 1
        diff = differences(kafka, kgroup_answer(case))
        assert not diff, report(case, release, diff)

    if SEED is not None:
        same_assignment = seed(int(SEED))(same_assignment)
    same_assignment()
