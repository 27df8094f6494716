"""Classic-client scenarios of coordinator-consumer-and-clients.yaml against kgroup's clients.

The script sends the requests; kgroup's clients keep their sessions alive, revoke and take partitions,
and account for who consumed what. Besides the coordinator's state (checked as in the classic harness),
each checkpoint may compare `unconsumed` (per partition, the intervals nobody consumed it), `consumption`
(its consumers), `client_state` and `exceptions`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from kgroup.assignors.coordinator.classic.client_scenario import ClientScenario
from kgroup.assignors.model import TopicPartition
from tests.conformance.cases import data_file
from tests.conformance.test_coordinator_classic import Checker, drive


def _load() -> list[dict[str, Any]]:
    path = data_file("coordinator-consumer-and-clients.yaml")
    if path is None:
        return []
    doc = yaml.safe_load(path.read_text())
    return [s for s in doc["scenarios"] if s.get("protocol") == "classic-client"]


SCENARIOS = _load()


class ClientChecker(Checker):
    run: ClientScenario
    KEYS = Checker.KEYS | {"consumption", "unconsumed", "client_state", "exceptions"}

    def check(self, where: str, expect: Mapping[str, Any]) -> None:
        super().check(where, expect)
        simulation = self.run.simulation
        if "unconsumed" in expect:
            gaps = simulation.gaps()
            for tp, want in expect["unconsumed"].items():
                ours = [[g.start, g.end] for g in gaps.get(TopicPartition.parse(str(tp)), [])]
                self.mismatch(where, f"unconsumed.{tp}", [list(w) for w in want], ours)
        if "consumption" in expect:
            timelines = simulation.ledger.timelines()
            for tp, want in expect["consumption"].items():
                ours = [
                    {"owner": self.handle_of(s.owner), "from": s.start, "to": s.end}
                    for s in timelines.get(TopicPartition.parse(str(tp)), [])
                ]
                self.mismatch(
                    where, f"consumption.{tp}", [{k: w[k] for k in ("owner", "from", "to")} for w in want], ours
                )
        for handle, want in (expect.get("client_state") or {}).items():
            self.mismatch(where, f"client_state.{handle}", want, self.run.client(str(handle)).state)
        for handle, want in (expect.get("exceptions") or {}).items():
            raised = [name for _, name in self.run.client(str(handle)).exceptions]
            self.mismatch(where, f"exceptions.{handle}", want, raised[-1] if raised else None)

    def handle_of(self, client_handle: str) -> str:
        return client_handle


def replay(scenario: Mapping[str, Any]) -> list[str]:
    run = ClientScenario.from_spec(scenario)
    return drive(run, ClientChecker(scenario["name"], run), scenario, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_classic_clients_match_kafka(scenario: dict[str, Any]) -> None:
    failures = replay(scenario)
    assert not failures, "\n".join(failures)


def test_the_classic_client_scenarios_are_there() -> None:
    assert SCENARIOS, "no classic-client scenarios found (KGROUP_CONFORMANCE_DIR or tests/conformance/data)"
