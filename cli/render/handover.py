"""A KIP-848 group's way to its new target: who revokes what before whom, and how long partitions wait."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console

from kgroup.assignors.coordinator.consumer.handover import Handover


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g} s"


def _list(parts: tuple[Any, ...]) -> str:
    return ", ".join(str(p) for p in parts)


def handover_body(h: Handover) -> dict[str, Any]:
    return {
        "target_epoch": h.group_epoch,
        "heartbeat_interval_ms": h.heartbeat_interval_ms,
        "heartbeat_interval_assumed": not h.interval_known,
        "unconsumed_at_most_ms": h.unconsumed_at_most_ms,
        "settled_within_ms": h.settled_within_ms,
        "departed": list(h.departed),
        "members": [
            {
                "member_id": s.member_id,
                "state_after_first_heartbeat": s.state,
                "keeps": [str(tp) for tp in s.keeps],
                "revokes": [str(tp) for tp in s.revokes],
                "receives_free": [str(tp) for tp in s.receives_free],
                "receives_after_revocation": [str(tp) for tp in s.receives_after_revocation],
                "waits_for": list(s.waits_for),
            }
            for s in h.steps
        ],
        "moves": [
            {
                "partition": str(m.partition),
                "from": m.source,
                "to": m.target,
                "waits_for_revocation": m.waits_for_revocation,
            }
            for m in h.moves
        ],
    }


def print_handover(console: Console, h: Handover, assignor: str, clients: Mapping[str, str] | None = None) -> None:
    """The reconciliation path under the heartbeat interval (worst case over the members' phases). `clients`:
    client.id by member id (tables.client_ids), said beside each member id it names."""
    clients = clients or {}

    def named(member: str) -> str:
        return f"{member} ({clients[member]})" if member in clients else member

    epoch = f" (epoch {h.group_epoch})" if h.group_epoch is not None else ""
    default = ", the group's" if h.interval_known else ", Kafka's default, assumed: the group's own is not known"
    console.print(
        f"Reconciliation to the new target{epoch} ({assignor}, heartbeat interval "
        f"{_seconds(h.heartbeat_interval_ms)}{default}):",
        style="bold",
        markup=False,
        highlight=False,
    )
    if not h.moves:
        console.print("  no partition changes owner: every member is already on its target", markup=False)
        return
    for step in h.steps:
        parts = []
        if step.revokes:
            parts.append(f"revokes {_list(step.revokes)} first")
        if step.receives_free:
            parts.append(f"takes {_list(step.receives_free)} at its next heartbeat")
        if step.receives_after_revocation:
            parts.append(
                f"gets {_list(step.receives_after_revocation)} once {', '.join(map(named, step.waits_for))} "
                "acknowledged revoking them"
            )
        if parts:
            console.print(
                f"  {named(step.member_id)}: " + "; ".join(parts) + f" [{step.state}]",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
    for member in h.departed:
        console.print(
            f"  {named(member)}: left; its partitions were released when it did", markup=False, highlight=False
        )
    handed = [m for m in h.moves if m.target is not None]
    console.print(
        f"  {len(h.revoked_first)} of {len(handed)} partitions taking a new owner wait for a revocation; "
        f"each goes unconsumed at most {_seconds(h.unconsumed_at_most_ms)} (one heartbeat interval); "
        f"the group is on its new target within {_seconds(h.settled_within_ms)}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
