"""kgroup's own request-level cases (tests/conformance/kgroup-cases.yaml), replayed by the same harness as
the shared set: what kgroup added to the harness (force_prepare_rebalance, expectation keys) is checked
against Kafka's behaviour, transcribed from its code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kgroup.assignors.coordinator.classic.scenario import ClassicScenario
from tests.conformance.test_coordinator_classic import Checker, drive

DOC = yaml.safe_load((Path(__file__).parent / "kgroup-cases.yaml").read_text())
SCENARIOS = [s for s in DOC["scenarios"] if s["protocol"] == "classic"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_kgroup_classic_cases_match_kafka(scenario: dict[str, Any]) -> None:
    run = ClassicScenario.from_spec(scenario, DOC.get("defaults"))
    failures = drive(run, Checker(scenario["name"], run), scenario, None)
    assert not failures, "\n".join(failures)


def test_an_expectation_key_the_harness_does_not_read_fails() -> None:
    scenario = {**SCENARIOS[0], "expect": [{"after": "e1", "group": {"state": "PreparingRebalance"},
                                            "members": {"A": {"epoch": 1}}}]}
    run = ClassicScenario.from_spec(scenario, DOC.get("defaults"))
    failures = drive(run, Checker(scenario["name"], run), scenario, None)
    assert failures == [f"{scenario['name']} [after e1] members: not a key this harness knows"]


def test_an_unknown_event_kind_fails() -> None:
    scenario = {**SCENARIOS[0], "events": [{"id": "x", "at_ms": 0, "kind": "explode"}], "expect": []}
    run = ClassicScenario.from_spec(scenario, DOC.get("defaults"))
    with pytest.raises(ValueError, match="unknown kind 'explode'"):
        drive(run, Checker(scenario["name"], run), scenario, None)
