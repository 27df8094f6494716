"""Differences the oracle found, kept as fixed cases (tests/oracle/fixed/*.json, README there).

Each file holds the shrunk state, Kafka's answer to it and the release that gave it. kgroup must give that
answer (offline, no JVM); with the sidecar, Kafka must still give it, so the record cannot go stale.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.cases import differences, kgroup_answer, report, with_gone_topic_ids
from tests.oracle.sidecar import Sidecar

FIXED = Path(__file__).parent / "fixed"


def fixed_cases() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(FIXED.glob("*.json"))]


CASES = fixed_cases()


def test_fixed_cases_are_there() -> None:
    """An empty or misnamed folder must fail, not pass silently."""
    assert CASES, f"no fixed cases in {FIXED}"


@pytest.mark.parametrize("fixed", CASES, ids=[c["id"] for c in CASES])
def test_kgroup_gives_kafkas_recorded_answer(fixed: dict[str, Any]) -> None:
    case = with_gone_topic_ids(fixed["case"])
    diff = differences(fixed["kafka"], kgroup_answer(case, fixed["kafka_release"]))
    assert not diff, report(case, fixed["kafka_release"], diff)


def test_kafka_still_gives_the_recorded_answers(oracle: Callable[[str], Sidecar]) -> None:
    for release in sorted({c["kafka_release"] for c in CASES}):
        mine = [c for c in CASES if c["kafka_release"] == release]
        answers = oracle(release).assign_all([with_gone_topic_ids(c["case"]) for c in mine])
        for fixed, answer in zip(mine, answers):
            assert not differences(fixed["kafka"], answer), f"{fixed['id']}: Kafka {release} now answers {answer}"
