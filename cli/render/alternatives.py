"""The other assignments a what-if may lead to, where the broker's member order decides, and how likely each is."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kgroup.cli.render import documents


def percent(share: Fraction) -> str:
    """A likelihood for people: whole percents, one decimal under 10% (1/16 is 6.2%, not 6%)."""
    value = float(share) * 100
    return f"{value:.1f}%" if value < 9.95 else f"{value:.0f}%"


def alternatives_body(sim: Any, assignor: str) -> dict[str, Any]:
    """The JSON fields of one result: `alternatives`, and where known `likelihood` (the prediction's) and
    `alternative_likelihoods` (each alternative's, in the same order); nothing when only one is possible."""
    if assignor not in sim.alternatives:
        return {}
    body: dict[str, Any] = {"alternatives": [documents.assignment(a) for a in sim.alternatives[assignor]]}
    shares = sim.likelihoods.get(assignor)
    if shares:
        body["likelihood"] = round(float(shares[0]), 6)
        body["alternative_likelihoods"] = [round(float(s), 6) for s in shares[1:]]
    return body


def alternatives_notes(sim: Any) -> list[str]:
    """One stderr note per assignor with alternatives: how many outcomes, and how likely the one shown is."""
    notes = []
    for name, others in sim.alternatives.items():
        count = len(others) + 1
        shares = sim.likelihoods.get(name)
        if shares:
            notes.append(
                f"note: {name}: {count} assignments are possible, {percent(shares[0])} likely the one shown: the "
                "broker names the new member client.id-UUID (group.instance.id-UUID if static), and where that "
                "random id lands in its member map and sorts among the members' ids decides; the others "
                f"({', '.join(percent(s) for s in shares[1:])}) are under "
                "`alternatives`, with `alternative_likelihoods`, in -o json"
            )
        else:
            notes.append(
                f"note: {name}: the order the broker lists the members in decides between {count} assignments "
                "(librdkafka orders a static and a dynamic member by member id, which with both kinds present is "
                "not a total order, and member ids are random), and none can be called more likely: the order "
                "described is not Apache Kafka's member map, or its member ids are not Kafka's; shown: the members "
                "in the order the broker describes them, a new one last; the others are under `alternatives` in "
                "-o json"
            )
    return notes
