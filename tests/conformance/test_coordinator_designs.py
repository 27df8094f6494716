"""The ZooKeeper-watcher and external-coordinator scenarios of coordinator-consumer-and-clients.yaml
(docs/scenarios.md, "Comparing designs") against kgroup's models of those designs, replayed as
docs/conformance.md ("Request-level scenarios") says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from kgroup.assignors.coordinator.designs.external_coordinator import ExternalConfig, ExternalCoordinatorGroup
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.coordinator.designs.zk_watcher import AttemptResult, ZkConfig, ZkWatcherGroup
from tests.conformance.cases import data_file
from tests.conformance.test_coordinator_classic import CHECKPOINT_KEYS, drive

PROTOCOLS = ("zk-watcher", "external-coordinator")


def _load() -> list[dict[str, Any]]:
    path = data_file("coordinator-consumer-and-clients.yaml")
    if path is None:
        return []
    return [s for s in yaml.safe_load(path.read_text())["scenarios"] if s.get("protocol") in PROTOCOLS]


SCENARIOS = _load()


def _partitions(topics: Mapping[str, int]) -> list[TopicPartition]:
    return [TopicPartition(str(t), p) for t, n in topics.items() for p in range(int(n))]


def _tp(text: Any) -> TopicPartition:
    return TopicPartition.parse(str(text))


class ZkRun:
    """Scripted: the rebalance attempts come from the events, not from watches."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        config = spec.get("config") or {}
        self.model = ZkWatcherGroup(
            _partitions(spec.get("topics") or {}),
            ZkConfig(int(config.get("rebalance_max_retries", 4)), int(config.get("rebalance_backoff_ms", 2000))),
            autonomous=False,
        )
        initial = spec.get("initial_state") or {}
        self.model.load(
            [str(c) for c in initial.get("consumers") or ()],
            {_tp(tp): owner for tp, owner in (initial.get("owners") or {}).items()},
        )
        self.responses: dict[str, AttemptResult] = {}

    def advance_to(self, instant: int) -> None:
        self.model.advance_to(instant)

    def apply(self, event: Mapping[str, Any]) -> None:
        self.advance_to(int(event["at_ms"]))
        kind, consumer = str(event["kind"]), str(event.get("consumer", ""))
        if kind == "consumer_start":
            self.model.start(consumer)
        elif kind == "consumer_crash":
            self.model.crash(consumer)
        elif kind == "rebalance_attempt":
            view = event.get("view")
            self.responses[str(event["id"])] = self.model.attempt(
                consumer, int(event.get("attempt", 0)), None if view is None else [str(v) for v in view]
            )
        elif kind == "zk_down":
            self.model.zookeeper_down()
        elif kind == "zk_up":
            self.model.zookeeper_up()
        else:
            raise ValueError(f"unknown zk-watcher event kind {kind!r}")


class ExternalRun:
    def __init__(self, spec: Mapping[str, Any]) -> None:
        config = spec.get("config") or {}
        self.model = ExternalCoordinatorGroup(
            _partitions(spec.get("topics") or {}),
            ExternalConfig(int(config.get("coordinator_check_interval_ms", 1000))),
        )
        initial = spec.get("initial_state") or {}
        self.model.load(
            str(initial.get("coordinator_state", "Initial")),
            [str(c) for c in initial.get("live_consumers") or ()],
            {_tp(tp): owner for tp, owner in (initial.get("assignments") or {}).items()},
        )
        self.responses: dict[str, Any] = {}

    def advance_to(self, instant: int) -> None:
        self.model.advance_to(instant)

    def apply(self, event: Mapping[str, Any]) -> None:
        self.advance_to(int(event["at_ms"]))
        kind, consumer = str(event["kind"]), str(event.get("consumer", ""))
        actions = {
            "sd_register": lambda: self.model.register(consumer),
            "consumer_crash": lambda: self.model.crash(consumer),
            "sd_isolate": lambda: self.model.isolate(consumer),
            "sd_down": lambda: setattr(self.model, "sd_up", False),
            "sd_up": lambda: setattr(self.model, "sd_up", True),
            "zk_down": lambda: setattr(self.model, "zk_up", False),
            "zk_up": lambda: setattr(self.model, "zk_up", True),
            "tick": lambda: None,
        }
        if kind not in actions:
            raise ValueError(f"unknown external-coordinator event kind {kind!r}")
        actions[kind]()


class DesignChecker:
    def __init__(self, name: str, run: ZkRun | ExternalRun) -> None:
        self.name = name
        self.run = run
        self.failures: list[str] = []

    def mismatch(self, where: str, key: str, kafka: Any, ours: Any) -> None:
        if kafka != ours:
            self.failures.append(f"{self.name} [{where}] {key}: expected {kafka!r}, kgroup {ours!r}")

    KEYS = frozenset({"owners", "results", "coordinator", "assignments", "consuming", "unconsumed", "consumption"})

    def check(self, where: str, expect: Mapping[str, Any]) -> None:
        for key in expect:
            if key not in CHECKPOINT_KEYS and key not in self.KEYS:
                self.failures.append(f"{self.name} [{where}] {key}: not a key this harness knows")
        model = self.run.model
        for tp, owner in (expect.get("owners") or {}).items():
            self.mismatch(where, f"owners.{tp}", owner, model.owners.get(_tp(tp)))  # type: ignore[union-attr]
        for event_id, want in (expect.get("results") or {}).items():
            got = self.run.responses.get(str(event_id))
            ours = (
                None
                if got is None
                else {
                    "share": [str(tp) for tp in got.share],
                    "claimed": [str(tp) for tp in got.claimed],
                    "failed_on": None if got.failed_on is None else str(got.failed_on),
                    "next_attempt_at": got.next_attempt_at,
                    "exception": got.exception,
                    "exception_at_ms": got.exception_at_ms,
                }
            )
            for key, value in want.items():
                self.mismatch(where, f"results.{event_id}.{key}", value, None if ours is None else ours.get(key))
        coordinator = expect.get("coordinator") or {}
        if coordinator:
            ours = {"state": model.state, "toClose": model.to_close, "toStart": model.to_start}  # type: ignore[union-attr]
            for key, value in coordinator.items():
                self.mismatch(where, f"coordinator.{key}", value, ours.get(key))
        for tp, owner in (expect.get("assignments") or {}).items():
            self.mismatch(where, f"assignments.{tp}", owner, model.assignments.get(_tp(tp)))  # type: ignore[union-attr]
        for consumer, want in (expect.get("consuming") or {}).items():
            self.mismatch(
                where,
                f"consuming.{consumer}",
                sorted(want),
                sorted(tp.partition for tp in model.consuming.get(str(consumer), ())),
            )
        if "consumption" in expect:
            timelines = model.ledger.timelines()
            for tp, want in expect["consumption"].items():
                ours = [{"owner": s.owner, "from": s.start, "to": s.end} for s in timelines.get(_tp(tp), [])]
                self.mismatch(
                    where, f"consumption.{tp}", [{k: w[k] for k in ("owner", "from", "to")} for w in want], ours
                )
        if "unconsumed" in expect:
            gaps = model.gaps()
            for tp, want in expect["unconsumed"].items():
                ours_gaps = [[g.start, g.end] for g in gaps.get(_tp(tp), [])]
                self.mismatch(where, f"unconsumed.{tp}", [list(w) for w in want], ours_gaps)


def replay(scenario: Mapping[str, Any]) -> list[str]:
    run: ZkRun | ExternalRun = ZkRun(scenario) if scenario["protocol"] == "zk-watcher" else ExternalRun(scenario)
    return drive(run, DesignChecker(scenario["name"], run), scenario, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_older_designs_match_the_spec(scenario: dict[str, Any]) -> None:
    failures = replay(scenario)
    assert not failures, "\n".join(failures)


def test_the_design_scenarios_are_there() -> None:
    assert {s["protocol"] for s in SCENARIOS} == set(PROTOCOLS)
