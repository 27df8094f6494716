"""Results as plain dicts for `-o json|yaml`: stable, snake_case, documented in docs/fixtures.md."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from operator import itemgetter
from typing import Any

from kgroup.assignors.analysis.diff import AssignmentDiff
from kgroup.assignors.analysis.evaluate import AssignorRun
from kgroup.assignors.model import Assignment, TopicPartition
from kgroup.assignors.analysis.whatif import AddMember, AddPartitions, AddTopic, RemoveMember, Subscribe, WhatIf
from kgroup.inspectors.fixtures.partition_ranges import by_topic


def partitions(parts: Iterable[TopicPartition]) -> list[str]:
    return list(map("%s-%s".__mod__, parts))  # TopicPartition.__str__, formatted in C without a call per item


def ranges(parts: Iterable[TopicPartition]) -> dict[str, Any]:
    """Partitions per topic in the compact notation fixtures and saved assignments read (docs/fixtures.md)."""
    return by_topic(parts)


def compact_assignment(value: Assignment) -> dict[str, dict[str, Any]]:
    return {member: ranges(parts) for member, parts in value.owners.items()}


def assignment(value: Assignment) -> dict[str, list[str]]:
    return {member: partitions(parts) for member, parts in value.owners.items()}


def diff_body(value: AssignmentDiff) -> dict[str, Any]:
    return {
        "moved": value.moved,
        "moves": [
            {"partition": p, "from": s, "to": t}
            for p, s, t in zip(
                partitions(map(itemgetter(0), value.moves)),
                map(itemgetter(1), value.moves),
                map(itemgetter(2), value.moves),
            )
        ],
        "members": [
            {
                "member_id": c.member_id,
                "before": len(c.before),
                "after": len(c.after),
                "kept": partitions(c.kept),
                "revoked": partitions(c.revoked),
                "gained": partitions(c.gained),
            }
            for c in value.members
        ],
    }


def run_body(run: AssignorRun) -> dict[str, Any]:
    if run.error is not None or run.assignment is None:
        return {"assignor": run.assignor, "error": run.error}
    assert run.balance and run.stickiness and run.diff
    body: dict[str, Any] = {
        "assignor": run.assignor,
        "error": None,
        "assignment": assignment(run.assignment),
        **diff_body(run.diff),
        "balance": {
            "min": run.balance.overall.minimum,
            "max": run.balance.overall.maximum,
            "spread": run.balance.overall.spread,
            "per_topic": {
                t: {"min": s.minimum, "max": s.maximum, "spread": s.spread} for t, s in run.balance.per_topic
            },
            "kafka_balanced": run.balance.kafka_balanced,
        },
        "stickiness": {"kept": run.stickiness.kept, "keepable": run.stickiness.keepable, "ratio": run.stickiness.ratio},
        "valid": not run.violations,
        "violations": [{"rule": v.rule, "detail": v.detail} for v in run.violations],
    }
    if run.threads is not None:
        body["threads"] = {t: partitions(parts) for t, parts in run.threads.items()}
    if run.rounds:
        body["rebalances"] = [
            {
                "rebalance": number,
                "assignment": assignment(value.assignment),
                "withheld": [
                    {"partition": str(h.tp), "revoked_by": h.source, "assigned_to": h.target}
                    for h in run.withheld
                    if h.rebalance == number
                ],
            }
            for number, value in enumerate(run.rounds, start=1)
        ]
        body["settled"] = run.settled
    return body


def change_body(change: WhatIf) -> dict[str, Any]:
    kind = {
        AddMember: "add-member",
        RemoveMember: "remove-member",
        Subscribe: "subscribe",
        AddTopic: "add-topic",
        AddPartitions: "add-partitions",
    }[type(change)]
    body: dict[str, Any] = {"kind": kind}
    for key, value in asdict(change).items():
        body[key] = list(value) if isinstance(value, tuple) else value
    return body
