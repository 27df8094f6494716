"""A what-if's answer on screen and in JSON: `simulate` (kind simulation) and `explain` (kind explanation)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from kgroup.cli.render import documents
from kgroup.cli.render.alternatives import alternatives_body, alternatives_notes
from kgroup.cli.render.explanations import explanation_body, print_explanations
from kgroup.cli.render.handover import handover_body, print_handover
from kgroup.cli.render.tables import client_ids, comparison_table, describe_change, print_run, summary_line
from kgroup.assignors.analysis.evaluate import AssignorRun
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.registry import share_names
from kgroup.inspectors.simulation.whatif import WhatIfAnswer, traced

# SimpleAssignor (KIP-932) takes no explanation hooks: kgroup's port replays Kafka's HashMap orders and records
# no decisions, so `explain` says so rather than print an empty list.
NOT_RECORDED = "explanations are not recorded for simple (the share assignor): its moves are listed, not explained"


def _unrecorded(run: AssignorRun) -> bool:
    return run.assignor in share_names() and not traced(run)


def share_body(answer: WhatIfAnswer, run: AssignorRun) -> dict[str, Any]:
    """A share group's run, what holds for shared partitions: how many members hold each partition, which
    subscribed partitions nobody holds (unconsumed), and the analyses that do not apply."""
    if run.assignment is None:
        return {}
    after = answer.sim.after
    holders = run.assignment.owner_map()
    subscribed = {t for m in after.group.members for t in m.topics}
    unconsumed = [
        str(TopicPartition(t.name, p))
        for t in after.cluster.topics
        if t.name in subscribed
        for p in range(t.partitions)
        if (t.name, p) not in holders
    ]
    return {
        "share": {
            "holders": {str(tp): len(members) for tp, members in sorted(holders.items())},
            "shared_partitions": sum(1 for members in holders.values() if len(members) > 1),
            "unconsumed": unconsumed,
            "moved_counts": "holders replaced: a partition moves relative to each holder; a move with `from` or "
            "`to` null is a share taken or given up while other holders may keep it",
            "not_applicable": {
                "kafka_balanced": "Kafka's balance rule (AbstractStickyAssignorTest) assumes one owner per partition",
                "reconciliation": "a share group's members take their target at their next heartbeat; there is "
                "no revocation step (ShareGroupAssignmentBuilder)",
            },
        }
    }


def _run_body(run: AssignorRun, share: bool) -> dict[str, Any]:
    """A run's body; a share group's `kafka_balanced` is null: that rule assumes one owner per partition."""
    body = documents.run_body(run)
    if share and isinstance(body.get("balance"), dict):
        body["balance"]["kafka_balanced"] = None
    return body


def _share_lines(answer: WhatIfAnswer, run: AssignorRun) -> list[str]:
    body = share_body(answer, run).get("share")
    if not body:
        return []
    unconsumed = body["unconsumed"]
    return [
        f"share group: {body['shared_partitions']} partition(s) held by several members; unconsumed (held by no "
        f"member): {', '.join(unconsumed[:10]) + (' ...' if len(unconsumed) > 10 else '') if unconsumed else 'none'}; "
        "`moved` counts holders replaced; Kafka's one-owner balance check does not apply"
    ]


def whatif_body(answer: WhatIfAnswer) -> dict[str, Any]:
    sim, explained = answer.sim, answer.explained
    before, after = sim.before.group, sim.after.group
    return {
        "source": answer.input.fixture.source,
        "group_id": before.group_id,
        "protocol": before.protocol,
        "changes": [documents.change_body(c) for c in sim.changes],
        "members_before": [m.member_id for m in before.members],
        "members_after": [m.member_id for m in after.members],
        "client": answer.client,
        "client_from": answer.client_from,
        "warnings": answer.warnings,
        # Subscribed topics the cluster does not have after the changes: Kafka assigns nothing of them.
        "unknown_topics": {topic: list(members) for topic, members in sim.unknown_topics.items()},
        "current": documents.assignment(before.assignment),
        "results": [
            {
                **_run_body(run, before.protocol == "share"),
                **(
                    {
                        "explanations": None
                        if explained[run.assignor] is None
                        else [explanation_body(item) for item in explained[run.assignor] or ()]
                    }
                    if run.assignor in explained
                    else {}
                ),
                **({"explanations_note": NOT_RECORDED} if run.assignor in explained and _unrecorded(run) else {}),
                **(share_body(answer, run) if before.protocol == "share" else {}),
                **alternatives_body(sim, run.assignor),
                **(
                    {"reconciliation": handover_body(sim.handovers[run.assignor])}
                    if run.assignor in sim.handovers
                    else {}
                ),
            }
            for run in sim.runs
        ],
    }


def print_whatif(console: Console, answer: WhatIfAnswer, kind: str) -> None:
    """kind simulation: each run's table, hand-overs and comparison; explanation: one line per run, then why."""
    sim, explained = answer.sim, answer.explained
    before, after = sim.before.group, sim.after.group
    console.print(
        f"Group [bold]{before.group_id}[/] ({before.protocol}) · {len(before.members)} members"
        + (f" -> {len(after.members)}" if len(after.members) != len(before.members) else "")
    )
    if sim.changes:
        console.print("What if: " + "; ".join(describe_change(c) for c in sim.changes), markup=False)
    console.print()
    clients = client_ids((*before.members, *after.members))
    for run in sim.runs:
        if kind == "simulation":
            print_run(console, run, f"{run.assignor}", clients)
        else:
            console.print(
                f"{run.assignor}: " + summary_line(run), markup=False, highlight=False, style="bold", soft_wrap=True
            )
        if run.assignor in sim.handovers and kind == "simulation":
            print_handover(console, sim.handovers[run.assignor], run.assignor, clients)
        if before.protocol == "share":
            for line in _share_lines(answer, run):
                console.print(line, markup=False, highlight=False, soft_wrap=True)
        if run.assignor in explained and _unrecorded(run):
            console.print(f"{run.assignor}: {NOT_RECORDED}", markup=False, highlight=False)
        elif run.assignor in explained:
            if kind == "simulation":
                console.print(f"Why ({run.assignor}):", style="bold")
            print_explanations(console, explained[run.assignor] or [], run.assignor, traced(run))
    if len(sim.runs) > 1 and kind == "simulation":
        console.print(comparison_table(sim.runs))


def whatif_notes(answer: WhatIfAnswer) -> list[str]:
    """The lines for stderr: warnings, the client chosen when kgroup chose it, the alternatives' notes."""
    notes = list(answer.warnings)
    if answer.input.flags.client is None and answer.client != "java":
        notes.append(
            f"note: assignors run as {answer.client}'s leader runs them ({answer.client_from}); "
            "--client java to compare"
        )
    return notes + list(alternatives_notes(answer.sim))
