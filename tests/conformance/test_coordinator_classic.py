"""Classic-protocol coordinator scenarios (coordinator-classic.yaml) against kgroup's coordinator.

Each scenario is replayed as docs/conformance.md ("Request-level scenarios") says: at each instant the due timers fire, then
the events in file order; expectations are checked after an event (`after`), before one (`before`), or
after every event of an instant (`at_ms`). Only the keys an expectation lists are compared. A failure
names the scenario, the checkpoint and the key, with Kafka's and kgroup's values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from kgroup.assignors.coordinator.classic.coordinator import JoinResponse, LeaveResponse, SyncResponse
from kgroup.assignors.coordinator.classic.scenario import GROUP_ID, ClassicScenario
from tests.conformance.cases import data_file


def _load() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    path = data_file("coordinator-classic.yaml")
    if path is None:
        return {}, []
    doc = yaml.safe_load(path.read_text())
    return doc.get("defaults") or {}, [s for s in doc["scenarios"] if s.get("protocol") == "classic"]


DEFAULTS, SCENARIOS = _load()


def _variants(scenario: Mapping[str, Any]) -> list[str | None]:
    return list(scenario.get("variants") or [None])


CASES = [(s, v) for s in SCENARIOS for v in _variants(s)]


def _applies(item: Mapping[str, Any], variant: str | None) -> bool:
    return item.get("variant") is None or item.get("variant") == variant


# Keys every expectation may carry (docs/conformance.md, "Schema"), and the ones each harness compares.
CHECKPOINT_KEYS = frozenset({"at_ms", "after", "before", "note", "variant"})


class Checker:
    KEYS = frozenset({"group", "responses", "timers"})

    def __init__(self, name: str, run: ClassicScenario) -> None:
        self.name = name
        self.run = run
        self.failures: list[str] = []

    def ids(self, handles: Any) -> set[str]:
        return {self.run.member_id(str(h)) for h in handles or ()}

    def mismatch(self, where: str, key: str, kafka: Any, ours: Any) -> None:
        if kafka != ours:
            self.failures.append(f"{self.name} [{where}] {key}: kafka {kafka!r}, kgroup {ours!r}")

    def unknown_keys(self, where: str, expect: Mapping[str, Any]) -> None:
        """A key the schema defines but this harness does not read must fail, not pass unchecked."""
        for key in expect:
            if key not in CHECKPOINT_KEYS and key not in self.KEYS:
                self.failures.append(f"{self.name} [{where}] {key}: not a key this harness knows")

    def check(self, where: str, expect: Mapping[str, Any]) -> None:
        self.unknown_keys(where, expect)
        group = self.run.coordinator.groups.get(GROUP_ID)
        for key, want in (expect.get("group") or {}).items():
            self.check_group(where, key, want, group)
        for event_id, want in (expect.get("responses") or {}).items():
            self.check_response(where, str(event_id), want)
        for key, want in (expect.get("timers") or {}).items():
            self.check_timer(where, key, want)

    def check_group(self, where: str, key: str, want: Any, group: Any) -> None:
        if group is None:
            self.failures.append(f"{self.name} [{where}] group: kafka has it, kgroup has no group")
            return
        if key == "state":
            self.mismatch(where, "group.state", want, group.state)
        elif key == "generation":
            self.mismatch(where, "group.generation", want, group.generation)
        elif key == "leader":
            self.mismatch(where, "group.leader", None if want is None else self.run.member_id(str(want)), group.leader)
        elif key == "protocol":
            self.mismatch(where, "group.protocol", want, group.protocol_name)
        elif key == "members":
            self.mismatch(where, "group.members", self.ids(want), set(group.members))
        elif key == "pending_members":
            if isinstance(want, int):
                self.mismatch(where, "group.pending_members", want, len(group.pending_join))
            else:
                self.mismatch(where, "group.pending_members", self.ids(want), set(group.pending_join))
        elif key == "awaiting_join":
            ours = {m.member_id for m in group.members.values() if m.awaiting_join is not None}
            self.mismatch(where, "group.awaiting_join", self.ids(want), ours)
        else:
            self.failures.append(f"{self.name} [{where}] group.{key}: not a key this harness knows")

    def check_response(self, where: str, event_id: str, want: Mapping[str, Any]) -> None:
        got = self.run.responses.get(event_id)
        label = f"responses.{event_id}"
        if got is None:
            self.failures.append(f"{self.name} [{where}] {label}: kafka answered, kgroup has no such request")
            return
        if isinstance(got, str):  # Heartbeat
            self.mismatch(where, f"{label}.error", want.get("error"), got)
            return
        if isinstance(got, LeaveResponse):
            if "error" in want:
                self.mismatch(where, f"{label}.error", want["error"], got.error)
            ours = {member_id: error for member_id, _, error in got.members}
            for handle, error in (want.get("members") or {}).items():
                self.mismatch(where, f"{label}.members.{handle}", error, ours.get(self.run.member_id(str(handle))))
            return
        for key, value in want.items():
            self.check_answer(where, f"{label}.{key}", key, value, got)

    def check_answer(self, where: str, label: str, key: str, value: Any, got: JoinResponse | SyncResponse) -> None:
        if key == "done":
            self.mismatch(where, label, value, got.done)
        elif key == "error":
            self.mismatch(where, label, value, got.error if got.done else None)
        elif key == "generation":
            self.mismatch(where, label, value, getattr(got, "generation", None))
        elif key == "leader":
            self.mismatch(
                where, label, None if value is None else self.run.member_id(str(value)), getattr(got, "leader", None)
            )
        elif key == "member_id":
            self.mismatch(
                where, label, self.run.member_id(str(value)) if value else "", getattr(got, "member_id", None)
            )
        elif key == "members_listed":
            self.mismatch(where, label, self.ids(value), {m[0] for m in getattr(got, "members", ())})
        elif key == "skip_assignment":
            self.mismatch(where, label, value, getattr(got, "skip_assignment", None))
        elif key == "assignment":
            # the schema writes partitions as `topic-N` strings; a client's SyncGroup answer carries
            # TopicPartition objects, the request-level one whatever the script sent: compare both as text
            self.mismatch(
                where,
                label,
                sorted(str(tp) for tp in value or ()),
                sorted(str(tp) for tp in getattr(got, "assignment", ())),
            )
        else:
            self.failures.append(f"{self.name} [{where}] {label}: not a key this harness knows")

    def check_timer(self, where: str, key: str, want: Any) -> None:
        timers = self.run.coordinator.timers
        coordinator = self.run.coordinator
        if key in ("join", "sync"):
            name = coordinator.join_key(GROUP_ID) if key == "join" else coordinator.sync_key(GROUP_ID)
            self.mismatch(where, f"timers.{key}", None if want == "none" else want, timers.deadline(name))
        elif key == "heartbeat":
            for handle, deadline in (want or {}).items():
                name = coordinator.heartbeat_key(GROUP_ID, self.run.member_id(str(handle)))
                self.mismatch(
                    where, f"timers.heartbeat.{handle}", None if deadline == "none" else deadline, timers.deadline(name)
                )
        else:
            self.failures.append(f"{self.name} [{where}] timers.{key}: not a key this harness knows")


def replay(scenario: Mapping[str, Any], variant: str | None) -> list[str]:
    """Run one scenario; the list of expectation failures (empty: it matches Kafka)."""
    run = ClassicScenario.from_spec(scenario, DEFAULTS)
    checker = Checker(scenario["name"] + (f"/{variant}" if variant else ""), run)
    return drive(run, checker, scenario, variant)


def drive(run: Any, checker: Checker, scenario: Mapping[str, Any], variant: str | None) -> list[str]:
    """docs/conformance.md, "Time model": at each instant the due timers, then the events in file order, with
    each expectation checked before or after its event, or after every event of its instant."""
    events = [e for e in scenario.get("events") or () if _applies(e, variant)]
    expects = [x for x in scenario.get("expect") or () if _applies(x, variant)]
    after = {str(x["after"]): x for x in expects if "after" in x}
    before = {str(x["before"]): x for x in expects if "before" in x}
    at_end: dict[int, list[Mapping[str, Any]]] = {}
    for x in expects:
        if "after" not in x and "before" not in x:
            at_end.setdefault(int(x["at_ms"]), []).append(x)
    instants = sorted({int(e["at_ms"]) for e in events} | set(at_end))
    for instant in instants:
        run.advance_to(instant)
        for event in (e for e in events if int(e["at_ms"]) == instant):
            event_id = str(event.get("id"))
            if event_id in before:
                checker.check(f"at {instant} before {event_id}", before[event_id])
            run.apply(event)
            if event_id in after:
                checker.check(f"after {event_id}", after[event_id])
        for x in at_end.get(instant, ()):
            checker.check(f"at {instant}", x)
    return checker.failures


@pytest.mark.parametrize("scenario,variant", CASES, ids=[s["name"] + (f"/{v}" if v else "") for s, v in CASES])
def test_classic_coordinator_matches_kafka(scenario: dict[str, Any], variant: str | None) -> None:
    failures = replay(scenario, variant)
    assert not failures, "\n".join(failures)


def test_the_classic_scenarios_are_there() -> None:
    assert SCENARIOS, "no classic scenarios found (KGROUP_CONFORMANCE_DIR or tests/conformance/data)"
