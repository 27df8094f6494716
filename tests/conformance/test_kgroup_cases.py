"""kgroup's own request-level cases (tests/conformance/kgroup-cases.yaml), replayed by the same harnesses as
the shared set: what kgroup added to the harness (force_prepare_rebalance, expectation keys) and the
regressions for differences a blind set found (issue 36) are checked against Kafka's behaviour, transcribed
from its code."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from kgroup.assignors.coordinator.classic.scenario import ClassicScenario
from kgroup.assignors.coordinator.consumer.scenario import ConsumerScenario
from tests.conformance import test_coordinator_clients, test_coordinator_designs
from tests.conformance.test_coordinator_classic import Checker, drive
from tests.conformance.test_coordinator_consumer import ConsumerChecker

DOC = yaml.safe_load((Path(__file__).parent / "kgroup-cases.yaml").read_text())
SCENARIOS = [s for s in DOC["scenarios"] if s["protocol"] == "classic"]


def _classic(scenario: Mapping[str, Any]) -> list[str]:
    run = ClassicScenario.from_spec(scenario, DOC.get("defaults"))
    return drive(run, Checker(scenario["name"], run), scenario, None)


def _consumer(scenario: Mapping[str, Any]) -> list[str]:
    run = ConsumerScenario.from_spec(scenario, (DOC.get("defaults") or {}).get("config"))
    checker = ConsumerChecker(scenario["name"], run, list(scenario.get("events") or ()))
    return drive(run, checker, scenario, None)  # type: ignore[arg-type]


REPLAY: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "classic": _classic,
    "consumer": _consumer,
    "consumer-client": _consumer,
    "classic-client": test_coordinator_clients.replay,
    "zk-watcher": test_coordinator_designs.replay,
    "external-coordinator": test_coordinator_designs.replay,
}
ALL = DOC["scenarios"]


@pytest.mark.parametrize("scenario", ALL, ids=[s["name"] for s in ALL])
def test_kgroup_cases_match_kafka(scenario: dict[str, Any]) -> None:
    failures = REPLAY[scenario["protocol"]](scenario)
    assert not failures, "\n".join(failures)


def test_an_expectation_key_the_harness_does_not_read_fails() -> None:
    scenario = {
        **SCENARIOS[0],
        "expect": [{"after": "e1", "group": {"state": "PreparingRebalance"}, "members": {"A": {"epoch": 1}}}],
    }
    run = ClassicScenario.from_spec(scenario, DOC.get("defaults"))
    failures = drive(run, Checker(scenario["name"], run), scenario, None)
    assert failures == [f"{scenario['name']} [after e1] members: not a key this harness knows"]


def test_an_unknown_event_kind_fails() -> None:
    scenario = {**SCENARIOS[0], "events": [{"id": "x", "at_ms": 0, "kind": "explode"}], "expect": []}
    run = ClassicScenario.from_spec(scenario, DOC.get("defaults"))
    with pytest.raises(ValueError, match="unknown kind 'explode'"):
        drive(run, Checker(scenario["name"], run), scenario, None)
