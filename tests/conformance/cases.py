"""Read the conformance data (vendored, or KGROUP_CONFORMANCE_DIR) into kgroup's model.

The YAML schema is documented at the top of assignor-cases.yaml, the JSONL one in docs/conformance.md.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition

VENDORED = Path(__file__).parent / "data"

# Names in the data -> kgroup's names.
NAMES = {"server-uniform": "uniform", "server-range": "server-range", "range-server": "server-range"}
# assignor-cases.yaml was generated from one Kafka commit of the 4.0 development line (its header says so) and
# names no release per case; kafka-assignors.jsonl carries `kafka_version` on every case.
YAML_KAFKA_VERSION = "4.0.0-SNAPSHOT"


def data_dir() -> Path:
    return Path(os.environ.get("KGROUP_CONFORMANCE_DIR") or VENDORED)


def data_file(name: str) -> Path | None:
    path = data_dir() / name
    return path if path.is_file() else None


@dataclass
class Case:
    id: str
    assignor: str  # kgroup's name
    cluster: Cluster
    members: list[Member]
    expected: dict[str, set[str]] | None = None
    expected_error: str | None = None
    legacy: bool = False
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def kafka_version(self) -> str:
        """The Kafka release whose code produced the expected values: the server assignors follow it."""
        return self.raw.get("kafka_version") or YAML_KAFKA_VERSION


def _racks(rows: list[list[str]] | None) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(r for r in row if r) for row in rows or [])


def _owned(items: list[str] | None) -> tuple[TopicPartition, ...]:
    return tuple(TopicPartition.parse(text) for text in items or [])


def yaml_cases() -> list[Case]:
    path = data_file("assignor-cases.yaml")
    if path is None:
        return []
    cases = []
    for raw in yaml.safe_load(path.read_text())["cases"]:
        topics = tuple(
            Topic(name, t["partitions"], _racks(t.get("racks")), t.get("id"))
            for name, t in (raw.get("topics") or {}).items()
            if t.get("exists", True)
        )
        legacy = raw["assignor"].startswith("legacy-")
        members = []
        for member_id, m in (raw.get("members") or {}).items():
            m = m or {}
            if legacy:
                streams = m.get("streams") or {}
                members.append(Member(member_id, tuple(streams), streams=streams))
            else:
                members.append(
                    Member(
                        member_id,
                        tuple(m.get("topics") or []),
                        m.get("instance_id"),
                        m.get("rack"),
                        owned=_owned(m.get("owned")),
                        generation=m.get("generation"),
                    )
                )
        expected = {k: set(v or []) for k, v in raw["expected"].items()} if "expected" in raw else None
        cases.append(
            Case(
                raw["name"],
                NAMES.get(raw["assignor"], raw["assignor"]),
                Cluster(topics),
                members,
                expected,
                raw.get("expected_error"),
                legacy,
                raw,
            )
        )
    return cases


def jsonl_cases() -> list[Case]:
    path = data_file("kafka-assignors.jsonl")
    if path is None:
        return []
    cases = []
    with path.open() as handle:
        for line in handle:
            if not line.strip():
                continue
            raw = json.loads(line)
            topics = tuple(
                Topic(t["name"], t["partitions"], _racks(t.get("replica_racks")), t.get("id")) for t in raw["topics"]
            )
            members = [
                Member(
                    m["member_id"],
                    tuple(m["topics"]),
                    m.get("group_instance_id"),
                    m.get("rack"),
                    owned=tuple(TopicPartition(t, p) for t, p in m.get("owned_partitions") or []),
                    generation=m.get("generation"),
                )
                for m in raw["members"]
            ]
            expected = {k: {f"{t}-{p}" for t, p in v} for k, v in raw["expected"].items()}
            cases.append(
                Case(
                    raw["id"],
                    NAMES.get(raw["assignor"], raw["assignor"]),
                    Cluster(topics),
                    members,
                    expected,
                    raw.get("expected_error"),
                    False,
                    raw,
                )
            )
    return cases


def librdkafka_cases() -> list[Case]:
    """kgroup's own set, produced by the real librdkafka assignor code (data/README.md says how).

    Members in JoinGroup-response order, topics in Metadata-response order: both are inputs there.
    Generation -1 (no owned partitions yet) is kgroup's None.
    """
    path = data_file("librdkafka-cases.jsonl") or VENDORED / "librdkafka-cases.jsonl"
    cases = []
    with path.open() as handle:
        for line in handle:
            if not line.strip():
                continue
            raw = json.loads(line)
            inp = raw["input"]
            topics = tuple(Topic(t["name"], t["partitions"], _racks(t.get("racks"))) for t in inp["topics"])
            members = [
                Member(
                    m["member_id"],
                    tuple(m["subscription"]),
                    m.get("group_instance_id"),
                    m.get("rack"),
                    owned=tuple(TopicPartition(t, p) for t, p in m.get("owned") or []),
                    generation=None if m.get("generation", -1) == -1 else m["generation"],
                )
                for m in inp["members"]
            ]
            expected = raw["expected"]
            sync = expected.get("assignment")
            cases.append(
                Case(
                    raw["id"],
                    raw["assignor"],
                    Cluster(topics),
                    members,
                    {k: {f"{t}-{p}" for t, p in v} for k, v in sync.items()} if sync is not None else None,
                    expected.get("crash") or expected.get("error"),
                    False,
                    raw,
                )
            )
    return cases


def coordinator_vectors() -> list[dict[str, Any]]:
    path = data_file("find-coordinator.yaml")
    return yaml.safe_load(path.read_text())["vectors"] if path else []
