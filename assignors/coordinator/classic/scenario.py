"""Request-level scenarios for the classic coordinator: scripted JoinGroup/SyncGroup/Heartbeat/LeaveGroup.

The schema is the one of the shared conformance files (docs/conformance.md, "Request-level scenarios"):
members are declared by handle, events name a handle, and a JoinGroup without a member id binds the id
the coordinator hands out to a handle. Time follows its "Time model": at each instant, due timers fire first (each at its
own deadline), then the events of that instant in file order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgroup.assignors.coordinator.classic.coordinator import (
    ClassicCoordinator,
    CoordinatorConfig,
    JoinResponse,
    LeaveResponse,
    Protocols,
    SyncResponse,
)

GROUP_ID = "group"  # every event addresses one implicit group unless it names another

_CONFIG_FIELDS = {
    "group_initial_rebalance_delay_ms": "initial_rebalance_delay_ms",
    "classic_new_member_join_timeout_ms": "new_member_join_timeout_ms",
    "group_min_session_timeout_ms": "min_session_timeout_ms",
    "group_max_session_timeout_ms": "max_session_timeout_ms",
    "group_max_size": "max_size",
}


def coordinator_config(settings: Mapping[str, Any]) -> CoordinatorConfig:
    """The broker settings a scenario gives, by their names with dots as underscores."""
    known = {_CONFIG_FIELDS[k]: int(v) for k, v in settings.items() if k in _CONFIG_FIELDS}
    return CoordinatorConfig(**known)


def protocols_of(raw: Any) -> Protocols:
    """`[range, roundrobin]` or `[{name: range, metadata_tag: v2}]`: a different tag means other bytes."""
    result = []
    for item in raw or ():
        if isinstance(item, Mapping):
            result.append((str(item["name"]), item.get("metadata_tag")))
        else:
            result.append((str(item), None))
    return tuple(result)


@dataclass
class ClassicScenario:
    """Drives a ClassicCoordinator through a scenario's events; remembers every response by event id."""

    members: dict[str, dict[str, Any]]  # handle -> declared fields
    coordinator: ClassicCoordinator
    bound: dict[str, str] = field(default_factory=dict)  # handle -> member id
    origin: dict[str, str] = field(default_factory=dict)  # bound handle -> declaring member's handle
    responses: dict[str, JoinResponse | SyncResponse | LeaveResponse | str] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> ClassicScenario:
        settings = {**((defaults or {}).get("config") or {}), **(spec.get("config") or {})}
        members = {str(m["handle"]): dict(m) for m in spec.get("members") or ()}
        return cls(members, ClassicCoordinator(coordinator_config(settings)))

    def member_id(self, handle_or_id: str) -> str:
        """A bound handle's member id; anything else is sent literally."""
        return self.bound.get(handle_or_id, handle_or_id)

    def _declared(self, handle: str) -> dict[str, Any]:
        return self.members.get(self.origin.get(handle, handle), {})

    def advance_to(self, instant: int) -> None:
        self.coordinator.advance_to(instant)

    def apply(self, event: Mapping[str, Any]) -> None:
        kind = event["kind"]
        handler = getattr(self, f"_{kind}", None)
        if handler is None:
            raise ValueError(f"event {event.get('id')}: unknown kind {kind!r} for the classic protocol")
        self.coordinator.advance_to(int(event["at_ms"]))
        result = handler(event)
        if event.get("id") is not None:
            self.responses[str(event["id"])] = result

    def _join(self, event: Mapping[str, Any]) -> JoinResponse:
        handle = str(event["member"])
        declared = self._declared(handle)

        def pick(name: str, default: Any = None) -> Any:
            return event[name] if name in event else declared.get(name, default)

        requested = str(event.get("member_id") or "")
        response = self.coordinator.join(
            str(event.get("group_id", GROUP_ID)),
            self.member_id(requested) if requested else "",
            protocols_of(pick("protocols", ["range"])),
            instance_id=pick("instance_id"),
            client_id=self.origin.get(handle, handle),
            session_timeout_ms=int(pick("session_timeout_ms", 45_000)),
            rebalance_timeout_ms=int(pick("rebalance_timeout_ms", 300_000)),
            version=int(pick("join_version", 9)),
        )
        if not requested and response.member_id:
            target = str(event.get("bind") or handle)
            self.bound[target] = response.member_id
            self.origin.setdefault(target, self.origin.get(handle, handle))
        return response

    def _sync(self, event: Mapping[str, Any]) -> SyncResponse:
        handle = str(event["member"])
        assignments = event.get("assignments")
        given = None
        if assignments is not None:
            given = {self.member_id(str(h)): tuple(parts or ()) for h, parts in assignments.items()}
        return self.coordinator.sync(
            str(event.get("group_id", GROUP_ID)),
            self.member_id(handle),
            int(event["generation"]),
            instance_id=event.get("instance_id", self._declared(handle).get("instance_id")),
            assignments=given,
        )

    def _heartbeat(self, event: Mapping[str, Any]) -> str:
        handle = event.get("member")
        member_id = self.member_id(str(event["member_id"])) if "member_id" in event else self.member_id(str(handle))
        instance_id = event.get("instance_id", self._declared(str(handle)).get("instance_id") if handle else None)
        return self.coordinator.heartbeat(
            str(event.get("group_id", GROUP_ID)), member_id, int(event.get("generation", -1)), instance_id=instance_id
        )

    def _commit(self, event: Mapping[str, Any]) -> str:
        handle = str(event["member"])
        member_id = self.member_id(str(event["member_id"])) if "member_id" in event else self.member_id(handle)
        instance_id = event.get("instance_id", self._declared(handle).get("instance_id"))
        return self.coordinator.commit(
            str(event.get("group_id", GROUP_ID)), member_id, int(event.get("generation", -1)), instance_id=instance_id
        )

    def _force_prepare_rebalance(self, event: Mapping[str, Any]) -> None:
        """`force_prepare_rebalance`: the test hook `GroupMetadataManager.prepareRebalance`."""
        self.coordinator.force_prepare_rebalance(
            str(event.get("group_id", GROUP_ID)), str(event.get("reason", "forced by the scenario"))
        )

    def _leave(self, event: Mapping[str, Any]) -> LeaveResponse:
        entries = [
            (self.member_id(str(m.get("member_id") or "")) if m.get("member_id") else "", m.get("instance_id"))
            for m in event.get("members") or ()
        ]
        return self.coordinator.leave(str(event.get("group_id", GROUP_ID)), entries)
