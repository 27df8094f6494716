"""A what-if's answer on screen and in JSON: `simulate` (kind simulation) and `explain` (kind explanation)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from kgroup.cli.render import documents
from kgroup.cli.render.alternatives import alternatives_body, alternatives_notes
from kgroup.cli.render.explanations import explanation_body, print_explanations
from kgroup.cli.render.handover import handover_body, print_handover
from kgroup.cli.render.tables import comparison_table, describe_change, print_run, summary_line
from kgroup.inspectors.simulation.whatif import WhatIfAnswer, traced


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
                **documents.run_body(run),
                **(
                    {
                        "explanations": None
                        if explained[run.assignor] is None
                        else [explanation_body(item) for item in explained[run.assignor] or ()]
                    }
                    if run.assignor in explained
                    else {}
                ),
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
    for run in sim.runs:
        if kind == "simulation":
            print_run(console, run, f"{run.assignor}")
        else:
            console.print(
                f"{run.assignor}: " + summary_line(run), markup=False, highlight=False, style="bold", soft_wrap=True
            )
        if run.assignor in sim.handovers and kind == "simulation":
            print_handover(console, sim.handovers[run.assignor], run.assignor)
        if run.assignor in explained:
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
