"""The built-in assignors by the names users type."""

from __future__ import annotations

from kgroup.assignors.base import Assignor, AssignorInfo
from kgroup.assignors.legacy import LegacyRangeAssignor, LegacyRoundRobinAssignor
from kgroup.assignors.range import RangeAssignor
from kgroup.assignors.roundrobin import RoundRobinAssignor
from kgroup.assignors.server_range import ServerRangeAssignor

BUILTINS: dict[str, tuple[Assignor, AssignorInfo]] = {
    "range": (RangeAssignor(), AssignorInfo(
        "range", "client", "eager",
        "per topic, contiguous runs to members sorted by instance id/member id; rack-aware (KIP-881)",
        "org.apache.kafka.clients.consumer.RangeAssignor")),
    "roundrobin": (RoundRobinAssignor(), AssignorInfo(
        "roundrobin", "client", "eager",
        "all partitions in topic order dealt to sorted members by one circular cursor",
        "org.apache.kafka.clients.consumer.RoundRobinAssignor")),
    "server-range": (ServerRangeAssignor(), AssignorInfo(
        "server-range", "server", "consumer",
        "KIP-848 `range`: stateless, per-topic ranges over sorted members; co-partitions equal topics",
        "org.apache.kafka.coordinator.group.assignor.RangeAssignor")),
    "legacy-range": (LegacyRangeAssignor(), AssignorInfo(
        "legacy-range", "legacy", "zookeeper",
        "Scala consumer 0.8/0.9: range over consumer threads (num.streams)",
        "kafka.consumer.RangeAssignor (0.8.2/0.9.0)")),
    "legacy-roundrobin": (LegacyRoundRobinAssignor(), AssignorInfo(
        "legacy-roundrobin", "legacy", "zookeeper",
        "Scala consumer 0.8/0.9: partitions by hashCode, dealt to threads; identical subscriptions only",
        "kafka.consumer.RoundRobinAssignor (0.8.2/0.9.0)")),
}

def known_names() -> list[str]:
    return list(BUILTINS)


def builtin(name: str) -> Assignor | None:
    entry = BUILTINS.get(name)
    return entry[0] if entry else None


def info(name: str) -> AssignorInfo | None:
    entry = BUILTINS.get(name)
    return entry[1] if entry else None
