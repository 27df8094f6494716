"""KIP-848 scenarios of coordinator-consumer-and-clients.yaml (`protocol: consumer` and `consumer-client`)
against kgroup's consumer-protocol coordinator, replayed as docs/conformance.md ("Request-level scenarios") says.

Keys compared: group (state, epochs, members), members (epoch, previous epoch, state, assigned, pending
revocation), target, responses (error, member epoch, heartbeat interval, assignment or `absent`), timers
(session and rebalance deadlines), unit `reconcile` results, and for clients `consumption`/`unconsumed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from kgroup.assignors.coordinator.consumer.coordinator import HeartbeatResponse
from kgroup.assignors.coordinator.consumer.reconcile import Reconciliation
from kgroup.assignors.coordinator.consumer.scenario import GROUP_ID, ConsumerScenario, as_mapping, refresh_deadline_of
from kgroup.assignors.model import TopicPartition
from tests.conformance.cases import data_file
from tests.conformance.test_coordinator_classic import CHECKPOINT_KEYS, drive

PROTOCOLS = ("consumer", "consumer-client")


def _load() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    path = data_file("coordinator-consumer-and-clients.yaml")
    if path is None:
        return {}, []
    doc = yaml.safe_load(path.read_text())
    return (doc.get("defaults") or {}).get("config") or {}, [
        s for s in doc["scenarios"] if s.get("protocol") in PROTOCOLS
    ]


DEFAULTS, SCENARIOS = _load()


def _parts(raw: Mapping[str, Any] | None) -> dict[str, list[int]]:
    return {str(t): sorted(int(p) for p in ps) for t, ps in (raw or {}).items() if ps}


def _progress(p: Reconciliation) -> dict[str, Any]:
    return {
        "epoch": p.epoch,
        "previous_epoch": p.previous_epoch,
        "state": p.state,
        "assigned": as_mapping(p.assigned),
        "pending_revocation": as_mapping(p.pending_revocation),
    }


class ConsumerChecker:
    def __init__(self, name: str, run: ConsumerScenario, events: list[Mapping[str, Any]]) -> None:
        self.name = name
        self.run = run
        self.scenario_events = events
        self.failures: list[str] = []

    def mismatch(self, where: str, key: str, kafka: Any, ours: Any) -> None:
        if kafka != ours:
            self.failures.append(f"{self.name} [{where}] {key}: kafka {kafka!r}, kgroup {ours!r}")

    KEYS = frozenset(
        {"group", "members", "target", "responses", "timers", "result", "results", "consumption", "unconsumed"}
    )

    def check(self, where: str, expect: Mapping[str, Any]) -> None:
        for key in expect:
            if key not in CHECKPOINT_KEYS and key not in self.KEYS:
                self.failures.append(f"{self.name} [{where}] {key}: not a key this harness knows")
        group = self.run.group
        for key, want in (expect.get("group") or {}).items():
            ours = {
                "state": group.state if group else "Dead",
                "group_epoch": group.group_epoch if group else None,
                "assignment_epoch": group.assignment_epoch if group else None,
                "members": set(group.members) if group else set(),
            }
            if key not in ours:
                self.failures.append(f"{self.name} [{where}] group.{key}: not a key this harness knows")
                continue
            self.mismatch(where, f"group.{key}", set(map(str, want)) if key == "members" else want, ours[key])
        for handle, want in (expect.get("members") or {}).items():
            member = group.members.get(str(handle)) if group else None
            if member is None:
                self.failures.append(f"{self.name} [{where}] members.{handle}: kafka has it, kgroup does not")
                continue
            ours = _progress(member.progress)
            for key, value in want.items():
                wanted = _parts(value) if key in ("assigned", "pending_revocation") else value
                self.mismatch(where, f"members.{handle}.{key}", wanted, ours.get(key, f"<no {key}>"))
        for handle, want in (expect.get("target") or {}).items():
            self.mismatch(
                where,
                f"target.{handle}",
                _parts(want),
                as_mapping(group.target.get(str(handle), ())) if group else None,
            )
        for event_id, want in (expect.get("responses") or {}).items():
            self.check_response(where, str(event_id), want)
        for kind, want in (expect.get("timers") or {}).items():
            self.check_timers(where, kind, want)
        if "result" in expect or "results" in expect:
            results = expect.get("results") or {self.last_reconcile(): expect["result"]}
            for event_id, want in results.items():
                got = self.run.responses.get(str(event_id))
                if want == "unchanged":
                    self.mismatch(
                        where,
                        f"results.{event_id}",
                        "unchanged",
                        "unchanged" if self.unchanged(str(event_id), got) else _progress(got),
                    )
                elif isinstance(want, Mapping) and set(want) == {"error"}:
                    # an error result given as an object: `{error: FENCED_MEMBER_EPOCH}`
                    self.mismatch(
                        where,
                        f"results.{event_id}.error",
                        want["error"],
                        got if isinstance(got, str) else _progress(got),
                    )
                elif isinstance(got, Reconciliation):
                    ours = _progress(got)
                    for key, value in want.items():
                        wanted = _parts(value) if key in ("assigned", "pending_revocation") else value
                        self.mismatch(where, f"results.{event_id}.{key}", wanted, ours.get(key))
                else:
                    self.mismatch(where, f"results.{event_id}", want, got)
        if "consumption" in expect:
            timelines = self.run.owned_ledger.timelines()
            for tp, want in expect["consumption"].items():
                ours = [
                    {"owner": s.owner, "from": s.start, "to": s.end}
                    for s in timelines.get(TopicPartition.parse(str(tp)), [])
                ]
                self.mismatch(
                    where, f"consumption.{tp}", [{k: w[k] for k in ("owner", "from", "to")} for w in want], ours
                )
        if "unconsumed" in expect:
            gaps = self.run.gaps()
            for tp, want in expect["unconsumed"].items():
                ours = [[g.start, g.end] for g in gaps.get(TopicPartition.parse(str(tp)), [])]
                self.mismatch(where, f"unconsumed.{tp}", [list(w) for w in want], ours)

    def last_reconcile(self) -> str:
        return next(reversed(self.run.responses))

    def unchanged(self, event_id: str, got: Any) -> bool:
        event = next(e for e in self.scenario_events if str(e.get("id")) == event_id)
        fields = event["member"]
        return isinstance(got, Reconciliation) and _progress(got) == {
            "epoch": fields["epoch"],
            "previous_epoch": fields["previous_epoch"],
            "state": fields["state"],
            "assigned": _parts(fields.get("assigned")),
            "pending_revocation": _parts(fields.get("pending_revocation")),
        }

    def check_response(self, where: str, event_id: str, want: Mapping[str, Any]) -> None:
        got = self.run.responses.get(event_id)
        if not isinstance(got, HeartbeatResponse):
            self.failures.append(f"{self.name} [{where}] responses.{event_id}: kafka answered, kgroup has {got!r}")
            return
        for key, value in want.items():
            label = f"responses.{event_id}.{key}"
            if key == "error":
                self.mismatch(where, label, value, got.error)
            elif key == "member_epoch":
                self.mismatch(where, label, value, got.member_epoch)
            elif key == "member_id":
                self.mismatch(where, label, "" if value is None else str(value), got.member_id or "")
            elif key == "heartbeat_interval_ms":
                self.mismatch(where, label, value, got.heartbeat_interval_ms)
            elif key == "assignment":
                self.mismatch(
                    where,
                    label,
                    value if value == "absent" else _parts(value),
                    "absent" if got.assignment is None else as_mapping(got.assignment),
                )
            else:
                self.failures.append(f"{self.name} [{where}] {label}: not a key this harness knows")

    def check_timers(self, where: str, kind: str, want: Any) -> None:
        coordinator = self.run.coordinator
        if kind == "metadata_refresh_deadline":
            group = self.run.group
            ours = group.refresh_deadline if group is not None else None
            wanted = refresh_deadline_of(want)
            if not isinstance(want, (Mapping, list, tuple)) and want != "expired":
                ours = None if ours is None else (ours[0], 0)  # only the deadline was given
            self.mismatch(where, "timers.metadata_refresh_deadline", wanted, ours)
            return
        key_of = {"session": coordinator.session_key, "rebalance": coordinator.rebalance_key}.get(kind)
        if key_of is None:
            self.failures.append(f"{self.name} [{where}] timers.{kind}: not a key this harness knows")
            return
        for handle, deadline in want.items():
            self.mismatch(
                where,
                f"timers.{kind}.{handle}",
                None if deadline == "none" else deadline,
                coordinator.timers.deadline(key_of(GROUP_ID, str(handle))),
            )


def replay(scenario: Mapping[str, Any]) -> list[str]:
    run = ConsumerScenario.from_spec(scenario, DEFAULTS)
    checker = ConsumerChecker(scenario["name"], run, list(scenario.get("events") or ()))
    return drive(run, checker, scenario, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_consumer_protocol_matches_kafka(scenario: dict[str, Any]) -> None:
    failures = replay(scenario)
    assert not failures, "\n".join(failures)


def test_the_consumer_protocol_scenarios_are_there() -> None:
    assert SCENARIOS, "no consumer-protocol scenarios found (KGROUP_CONFORMANCE_DIR or tests/conformance/data)"
