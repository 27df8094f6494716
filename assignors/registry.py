"""The built-in assignors by the names users type.

Each assignor's module is imported the first time it is asked for: `kgroup check` with `range` does not
pay for importing the sticky and uniform algorithms.
"""

from __future__ import annotations

import importlib
from typing import Any

from kgroup.assignors.base import Assignor, AssignorInfo

# Kafka versions that changed an assignor's output (apache/kafka commit history; each names its KIP or KAFKA- issue).
_STICKY_HISTORY = (
    ("0.11", "StickyAssignor (KIP-54): the general algorithm only"),
    ("2.3", "generation in the user data (KIP-341): the newest claim on a partition wins"),
    ("2.7", "KAFKA-9987 (also 2.4.2-2.6.1): a faster constrained path when all subscriptions are equal"),
    ("3.0", "KAFKA-12464 constrained rewrite; KAFKA-12675 general path performance"),
    ("3.1", "KAFKA-12984: claims of the same generation void each other"),
    ("3.4", "KAFKA-13715: generationId taken from the subscription (v2)"),
    ("3.5", "KIP-881: rack-aware placement"),
    ("3.6", "KAFKA-14639, KAFKA-15106: revocation and isBalanced fixes"),
    ("3.8", "KAFKA-16277: owned partitions trimmed in (partition, topic) order; KAFKA-15170 rack fixes"),
)
_RANGE_HISTORY = (("3.5", "KIP-881: rack-aware placement when member and replica racks overlap"),)
_UNIFORM_HISTORY = (
    ("3.7", "UniformAssignor (KIP-848, early access): rack-aware, TreeSet-based builders"),
    ("3.8", "KAFKA-16694: racks no longer passed to server-side assignors"),
    ("3.9", "KAFKA-16864: homogeneous builder rewrite"),
    ("4.0", "KAFKA-17710: heterogeneous builder rewrite (least-loaded ranges, 16 balancing passes)"),
    (
        "4.1",
        "KAFKA-18688: homogeneous builder lets any member keep its extra partition "
        "(kgroup follows the group's release: Cluster.kafka_version; none known: 4.2)",
    ),
)
_SERVER_RANGE_HISTORY = (
    ("3.7", "server-side range (KIP-848), sticky over the current assignment"),
    ("3.9", "KAFKA-16944: stateless; the current assignment is ignored"),
)
_COOPERATIVE_HISTORY = (("2.4", "CooperativeStickyAssignor (KIP-429)"),) + _STICKY_HISTORY[2:]


class _Lazy:
    """An assignor named by its module and class, created on first use and kept."""

    def __init__(self, module: str, class_name: str, **options: Any) -> None:
        self.module, self.name, self.options = module, class_name, options
        self._instance: Assignor | None = None

    def get(self) -> Assignor:
        if self._instance is None:
            cls = getattr(importlib.import_module(f"kgroup.assignors.{self.module}"), self.name)
            self._instance = cls(**self.options)
        return self._instance


BUILTINS: dict[str, tuple[_Lazy, AssignorInfo]] = {
    "range": (
        _Lazy("client.range", "RangeAssignor"),
        AssignorInfo(
            "range",
            "client",
            "eager",
            "per topic, contiguous runs to members sorted by instance id/member id; rack-aware (KIP-881)",
            "org.apache.kafka.clients.consumer.RangeAssignor",
            _RANGE_HISTORY,
        ),
    ),
    "roundrobin": (
        _Lazy("client.roundrobin", "RoundRobinAssignor"),
        AssignorInfo(
            "roundrobin",
            "client",
            "eager",
            "all partitions in topic order dealt to sorted members by one circular cursor",
            "org.apache.kafka.clients.consumer.RoundRobinAssignor",
        ),
    ),
    "sticky": (
        _Lazy("client.sticky.assignors", "StickyAssignor"),
        AssignorInfo(
            "sticky",
            "client",
            "eager",
            "balanced, keeps owned partitions (from its user data); constrained path for equal subscriptions",
            "org.apache.kafka.clients.consumer.StickyAssignor",
            _STICKY_HISTORY,
        ),
    ),
    "cooperative-sticky": (
        _Lazy("client.sticky.assignors", "CooperativeStickyAssignor"),
        AssignorInfo(
            "cooperative-sticky",
            "client",
            "cooperative",
            "sticky, in two rebalances: partitions changing owner are withheld until revoked",
            "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
            _COOPERATIVE_HISTORY,
        ),
    ),
    "uniform": (
        _Lazy("server.uniform", "UniformAssignor"),
        AssignorInfo(
            "uniform",
            "server",
            "consumer",
            "KIP-848 default: sticky and balanced target assignment computed by the group coordinator",
            "org.apache.kafka.coordinator.group.assignor.UniformAssignor",
            _UNIFORM_HISTORY,
        ),
    ),
    "server-range": (
        _Lazy("server.range", "ServerRangeAssignor"),
        AssignorInfo(
            "server-range",
            "server",
            "consumer",
            "KIP-848 `range`: stateless, per-topic ranges over sorted members; co-partitions equal topics",
            "org.apache.kafka.coordinator.group.assignor.RangeAssignor",
            _SERVER_RANGE_HISTORY,
        ),
    ),
    "legacy-range": (
        _Lazy("client.legacy_scala", "LegacyRangeAssignor"),
        AssignorInfo(
            "legacy-range",
            "legacy",
            "zookeeper",
            "Scala consumer 0.8/0.9: range over consumer threads (num.streams)",
            "kafka.consumer.RangeAssignor (0.8.2/0.9.0)",
        ),
    ),
    "legacy-roundrobin": (
        _Lazy("client.legacy_scala", "LegacyRoundRobinAssignor"),
        AssignorInfo(
            "legacy-roundrobin",
            "legacy",
            "zookeeper",
            "Scala consumer 0.8/0.9: partitions by hashCode, dealt to threads; identical subscriptions only",
            "kafka.consumer.RoundRobinAssignor (0.8.2/0.9.0)",
        ),
    ),
}

# Share groups' assignors (KIP-932), by the names users type; chosen only for a share group (a fixture's
# `protocol: share`, a live share group). Kept out of BUILTINS on purpose: a share assignor may give one
# partition to several members, which is right for a share group and wrong for every consumer group, so
# neither a consumer group nor the one-owner property tests (tests/assignors/test_properties.py runs every
# name known_names() gives) may pick it.
SHARE_BUILTINS: dict[str, tuple[_Lazy, AssignorInfo]] = {
    "share-simple": (
        _Lazy("server.share_simple", "ShareSimpleAssignor"),
        AssignorInfo(
            "share-simple",
            "server",
            "share",
            "KIP-932 share groups' `simple`: each partition to ceil(members/partitions) members, sticky to the "
            "current target",
            "org.apache.kafka.coordinator.group.assignor.SimpleAssignor",
            (("4.2", "share groups production-ready (KIP-932); kgroup follows 4.2.1"),),
        ),
    ),
}
# The name a share group's coordinator reports (ShareGroupDescribe's AssignorName, group.share.assignors).
SHARE_NAMES = {"simple": "share-simple"}


def share_names() -> list[str]:
    return list(SHARE_BUILTINS)


def share_builtin(name: str) -> Assignor | None:
    """The share assignor `name` (or the broker's name for it, `simple`); None for any other name."""
    entry = SHARE_BUILTINS.get(SHARE_NAMES.get(name, name))
    return entry[0].get() if entry else None


def share_info(name: str) -> AssignorInfo | None:
    entry = SHARE_BUILTINS.get(SHARE_NAMES.get(name, name))
    return entry[1] if entry else None


# The consumer client whose assignor runs on the group leader. "java" is Kafka's own (the default);
# "librdkafka" (confluent-kafka 2.16.1 = librdkafka 2.16.0, kcat, most non-JVM clients) is its own code:
# another member order for range and roundrobin, its own cooperative-sticky, and no eager sticky
# (docs/librdkafka-assignors.md). Server-side and legacy assignors do not depend on the client.
CLIENTS = ("java", "librdkafka")
_LIBRDKAFKA: dict[str, _Lazy] = {
    "range": _Lazy("client.librdkafka.range", "LibrdkafkaRangeAssignor"),
    "roundrobin": _Lazy("client.librdkafka.roundrobin", "LibrdkafkaRoundRobinAssignor"),
    "sticky": _Lazy("client.librdkafka.unsupported", "NotInLibrdkafka", name="sticky"),
    "cooperative-sticky": _Lazy("client.librdkafka.cooperative_sticky", "LibrdkafkaCooperativeStickyAssignor"),
}


def known_names() -> list[str]:
    return list(BUILTINS)


def builtin(name: str, client: str = "java") -> Assignor | None:
    """The built-in assignor `name` as the `client`'s leader runs it (see CLIENTS)."""
    if client == "librdkafka" and name in _LIBRDKAFKA:
        return _LIBRDKAFKA[name].get()
    entry = BUILTINS.get(name)
    return entry[0].get() if entry else None


def info(name: str) -> AssignorInfo | None:
    entry = BUILTINS.get(name)
    return entry[1] if entry else None
