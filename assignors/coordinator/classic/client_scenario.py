"""Request-level scenarios with clients (`protocol: classic-client`; schema: docs/conformance.md).

The script sends every JoinGroup, SyncGroup, Heartbeat and LeaveGroup, as in `scenario.py`; the
clients named by the script also keep their own state (onJoinPrepare revocations, assignments, commits,
processing, crashes, GC pauses, closes) and keep their sessions alive with background heartbeats, so a
scenario can check which partitions nobody consumed and which exceptions the application saw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgroup.assignors.coordinator.classic.client import COOPERATIVE, PREPARING_REBALANCE, ClassicClient, ClientConfig
from kgroup.assignors.coordinator.classic.coordinator import (
    ClassicCoordinator,
    JoinResponse,
    LeaveResponse,
    SyncResponse,
)
from kgroup.assignors.coordinator.classic.scenario import GROUP_ID, coordinator_config
from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation, Resolver
from kgroup.assignors.model import Cluster, Topic, TopicPartition
from kgroup.assignors.registry import builtin


def _resolve(name: str) -> Any:
    assignor = builtin(name)
    if assignor is None:
        raise ValueError(f"unknown assignor {name!r}")
    return assignor


def client_config(settings: Mapping[str, Any], member: Mapping[str, Any]) -> ClientConfig:
    """Client settings of a scenario's `config`, overridden by a member's own fields."""
    merged = {**settings, **member}
    protocol = str(merged.get("rebalance_protocol", "")).upper()
    assignors = ("cooperative-sticky",) if protocol == COOPERATIVE else ("range",)
    if merged.get("protocols"):
        assignors = tuple(str(p["name"] if isinstance(p, Mapping) else p) for p in merged["protocols"])
    return ClientConfig(
        session_timeout_ms=int(merged.get("session_timeout_ms", 45_000)),
        heartbeat_interval_ms=int(merged.get("heartbeat_interval_ms", 3000)),
        max_poll_interval_ms=int(merged.get("max_poll_interval_ms", merged.get("rebalance_timeout_ms", 300_000))),
        instance_id=merged.get("instance_id"),
        assignors=assignors,
        join_version=int(merged.get("join_version", 9)),
    )


@dataclass
class ClientScenario:
    simulation: ClassicSimulation
    settings: dict[str, Any]
    declared: dict[str, dict[str, Any]]
    bound: dict[str, str] = field(default_factory=dict)  # handle -> member id
    owner: dict[str, str] = field(default_factory=dict)  # bound handle -> client handle
    responses: dict[str, JoinResponse | SyncResponse | LeaveResponse | str] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], resolve: Resolver = _resolve) -> ClientScenario:
        settings = dict(spec.get("config") or {})
        cluster = Cluster(tuple(Topic(str(name), int(count)) for name, count in (spec.get("topics") or {}).items()))
        simulation = ClassicSimulation(cluster, resolve, coordinator_config(settings), autonomous=False)
        declared = {str(m["handle"]): dict(m) for m in spec.get("members") or ()}
        scenario = cls(simulation, settings, declared)
        scenario._load(spec.get("initial_state"), [t.name for t in cluster.topics])
        return scenario

    @property
    def coordinator(self) -> ClassicCoordinator:
        return self.simulation.coordinator

    def member_id(self, handle_or_id: str) -> str:
        return self.bound.get(handle_or_id, handle_or_id)

    def client(self, handle: str) -> ClassicClient:
        """The client a handle stands for (a bound handle stands for the client that joined with it)."""
        name = self.owner.get(handle, handle)
        existing = self.simulation.clients.get(name)
        if existing is not None:
            return existing
        topics = self.declared.get(name, {}).get("subscription") or [t.name for t in self.simulation.cluster.topics]
        client = self.simulation.add_client(name, client_config(self.settings, self.declared.get(name, {})), topics)
        self.simulation.start(client)
        return client

    def _load(self, initial: Mapping[str, Any] | None, topics: list[str]) -> None:
        if not initial:
            return
        members = initial.get("members") or {}
        owned, last_heartbeat, phase = {}, {}, {}
        for handle, fields in members.items():
            handle = str(handle)
            fields = fields or {}
            self.simulation.add_client(handle, client_config(self.settings, fields), topics)
            owned[handle] = tuple(TopicPartition.parse(str(tp)) for tp in fields.get("assigned") or ())
            if "last_heartbeat_ms" in fields:
                last_heartbeat[handle] = int(fields["last_heartbeat_ms"])
            if "heartbeat_phase_ms" in fields:
                phase[handle] = int(fields["heartbeat_phase_ms"])
            self.bound[handle] = handle
        first = next(iter(self.simulation.clients.values()), None)
        protocol = first.config.assignors[0] if first else "range"
        self.simulation.load(
            int(initial.get("generation", 1)), protocol, str(initial.get("leader")), owned, last_heartbeat, phase
        )

    def advance_to(self, instant: int) -> None:
        self.simulation.run_until(instant)

    def apply(self, event: Mapping[str, Any]) -> None:
        kind = str(event["kind"])
        handler = getattr(self, "_" + kind, None)
        if handler is None:
            raise ValueError(f"event {event.get('id')}: unknown kind {kind!r} for a classic-client scenario")
        self.simulation.run_until(int(event["at_ms"]))
        result = handler(event)
        self.simulation.settle()
        if event.get("id") is not None and result is not None:
            self.responses[str(event["id"])] = result

    def _join(self, event: Mapping[str, Any]) -> JoinResponse:
        handle = str(event["member"])
        client = self.client(handle)
        requested = str(event.get("member_id") or "")
        if not client.alive:
            # a JoinGroup from a closed or crashed client is its restarted process (a static member's restart:
            # GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin hands it the old member's place)
            self.simulation.start(client)
        if client.state != PREPARING_REBALANCE:
            self.simulation.prepare_join(client)
        response = self.simulation.send_join(
            client,
            self.member_id(requested) if requested else "",
            version=int(event.get("join_version", client.config.join_version)),
        )
        if not requested and response.member_id:
            target = str(event.get("bind") or handle)
            self.bound[target] = response.member_id
            self.owner.setdefault(target, client.handle)
        return response

    def _sync(self, event: Mapping[str, Any]) -> SyncResponse:
        client = self.client(str(event["member"]))
        given = None
        if event.get("assignments") is not None:
            given = {
                self.member_id(str(h)): tuple(TopicPartition.parse(str(tp)) for tp in parts or ())
                for h, parts in event["assignments"].items()
            }
        return self.simulation.send_sync(client, given, generation=int(event["generation"]))

    def _heartbeat(self, event: Mapping[str, Any]) -> str:
        handle = str(event["member"])
        client = self.client(handle)
        member_id = self.member_id(str(event.get("member_id", handle)))
        return self.coordinator.heartbeat(
            GROUP_ID,
            member_id,
            int(event.get("generation", -1)),
            instance_id=event.get("instance_id", client.config.instance_id),
        )

    def _leave(self, event: Mapping[str, Any]) -> LeaveResponse:
        entries = [
            (self.member_id(str(m["member_id"])) if m.get("member_id") else "", m.get("instance_id"))
            for m in event.get("members") or ()
        ]
        response = self.coordinator.leave(GROUP_ID, entries)
        for member_id, _ in entries:
            leaving = next(
                (c for c in self.simulation.clients.values() if c.member_id == member_id and member_id), None
            )
            if leaving is not None:
                leaving.reset_generation()  # the heartbeat thread's maybeLeaveGroup
        return response

    def _force_prepare_rebalance(self, event: Mapping[str, Any]) -> None:
        self.coordinator.force_prepare_rebalance(GROUP_ID, str(event.get("reason", "forced by the scenario")))

    def _commit_sync(self, event: Mapping[str, Any]) -> str | None:
        return self.simulation.commit_sync(self.client(str(event["member"])))

    def _process(self, event: Mapping[str, Any]) -> None:
        self.simulation.process(self.client(str(event["member"])), int(event["duration_ms"]))

    def _poll_returns(self, event: Mapping[str, Any]) -> None:
        self.simulation.note("poll-returns", str(event["member"]), records=event.get("records"))

    def _crash(self, event: Mapping[str, Any]) -> None:
        self.simulation.crash(self.client(str(event["member"])))

    def _close(self, event: Mapping[str, Any]) -> None:
        self.simulation.close(self.client(str(event["member"])))

    def _gc_pause(self, event: Mapping[str, Any]) -> None:
        self.simulation.gc_pause(self.client(str(event["member"])), int(event["duration_ms"]))

    def _start(self, event: Mapping[str, Any]) -> None:
        client = self.client(str(event["member"]))
        if not client.alive:
            self.simulation.start(client)

    def _subscribe(self, event: Mapping[str, Any]) -> None:
        self.simulation.subscribe(self.client(str(event["member"])), [str(t) for t in event["topics"]])
