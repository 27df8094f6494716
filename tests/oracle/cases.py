"""One oracle case (the sidecar's JSON, tests/oracle/sidecar.py) as kgroup's model, and the comparison.

The translation mirrors tests/conformance/cases.py (`jsonl_cases`), so a case means the same to Kafka and to
kgroup: `owned` and `generation` are `Member.owned` and `Member.generation` (the StickyAssignor user data
for `sticky`, the subscription's ownedPartitions and generationId for `cooperative-sticky`, the current
target assignment for the server assignors; None: the member was never assigned), `replica_racks` are
`Topic.replica_racks`, and a server topic's `id` is `Topic.topic_id`. An owned partition of a topic without
metadata keeps the id kgroup gives such a topic (`derived_topic_id`), sent to Kafka as `gone_topic_ids`.
"""

from __future__ import annotations

import json
from typing import Any

from kgroup.assignors import registry
from kgroup.assignors.base import AssignorError
from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition
from kgroup.assignors.server.group_spec import derived_topic_id

CLIENT = ("range", "roundrobin", "sticky", "cooperative-sticky")
SERVER = ("uniform", "server-range")


def with_gone_topic_ids(case: dict[str, Any]) -> dict[str, Any]:
    """The case as Kafka needs it: server-side owned partitions of deleted topics get kgroup's stand-in id."""
    if case["assignor"] not in SERVER:
        return case
    known = {t["name"] for t in case["topics"]}
    gone = sorted({tp[0] for m in case["members"] for tp in m["owned"]} - known)
    return {**case, "gone_topic_ids": {name: derived_topic_id(name) for name in gone}}


def to_kgroup(case: dict[str, Any]) -> tuple[Cluster, list[Member]]:
    topics = tuple(
        Topic(
            t["name"], t["partitions"], tuple(frozenset(racks) for racks in t.get("replica_racks") or []), t.get("id")
        )
        for t in case["topics"]
    )
    members = [
        Member(
            m["member_id"],
            tuple(m["topics"]),
            m.get("instance_id"),
            m.get("rack"),
            owned=tuple(TopicPartition(t, p) for t, p in m["owned"]),
            generation=m.get("generation"),
        )
        for m in case["members"]
    ]
    return Cluster(topics), members


def kgroup_answer(case: dict[str, Any], release: str | None = None) -> dict[str, Any]:
    """kgroup's answer in the sidecar's shape; a Kafka exception kgroup reproduces is an error answer.

    `release`: the Kafka release the answer is compared with; uniform follows that release's rules (it
    changed in 4.1, KAFKA-18688), as it follows a live broker's."""
    assignor = registry.builtin(case["assignor"])
    assert assignor is not None, case["assignor"]
    cluster, members = to_kgroup(case)
    options = {"kafka_version": release} if case["assignor"] == "uniform" and release else {}
    try:
        assignment = assignor.assign(cluster, members, **options)  # type: ignore[call-arg]
    except AssignorError as error:
        return {"error": f"{error.kafka_exception}: {error}"}
    return {"assignment": {m: [[tp.topic, tp.partition] for tp in parts] for m, parts in assignment.owners.items()}}


def differences(kafka: dict[str, Any], kgroup: dict[str, Any]) -> dict[str, Any]:
    """Where the answers differ: member -> (Kafka's partitions, kgroup's), compared as sets; a member
    absent from an assignment got nothing. An error on either side is compared by exception class."""
    if "error" in kafka or "error" in kgroup:
        kafka_error = kafka.get("error", "").split(":")[0]
        kgroup_error = kgroup.get("error", "").split(":")[0]
        return {} if kafka_error == kgroup_error else {"<error>": (kafka.get("error"), kgroup.get("error"))}
    theirs = {m: {tuple(tp) for tp in parts} for m, parts in kafka["assignment"].items()}
    ours = {m: {tuple(tp) for tp in parts} for m, parts in kgroup["assignment"].items()}
    return {
        m: (sorted(theirs.get(m, ())), sorted(ours.get(m, ())))
        for m in sorted(set(theirs) | set(ours))
        if theirs.get(m, set()) != ours.get(m, set())
    }


def report(case: dict[str, Any], release: str, diff: dict[str, Any]) -> str:
    """A failure message: the case as one JSON line (ready for tests/oracle/fixed/) and the differences."""
    lines = [f"kgroup differs from Apache Kafka {release} ({case['assignor']}); member -> (Kafka, kgroup):"]
    lines += [f"  {member}: {theirs} != {ours}" for member, (theirs, ours) in diff.items()]
    lines.append("case: " + json.dumps(case, ensure_ascii=False, sort_keys=True))
    return "\n".join(lines)
