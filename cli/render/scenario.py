"""What `kgroup simulate SCENARIO.yaml` prints: the rebalance timeline, the final assignment, the
partitions nobody consumed, and the pathologies found; and the same as a document for JSON/YAML."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from kgroup.assignors.coordinator.classic.records import RebalanceRecord
from kgroup.cli.render.tables import compact, print_wide
from kgroup.inspectors.simulation.scenario_run import ScenarioOutcome

TOP_PARTITIONS = 20


def seconds(ms: int | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.1f}s"


def _moves(record: RebalanceRecord) -> list[str]:
    """One line per member: what it revoked (-), lost, and was assigned (+)."""
    lines = []
    for member in dict.fromkeys([*record.revoked, *record.lost, *record.assigned]):
        pieces = []
        if record.revoked.get(member):
            pieces.append("-" + compact(sorted(set(record.revoked[member]))))
        if record.lost.get(member):
            pieces.append("lost " + compact(sorted(set(record.lost[member]))))
        if record.assigned.get(member):
            pieces.append("+" + compact(sorted(set(record.assigned[member]))))
        lines.append(f"{member}  {'  '.join(pieces)}")
    return lines


def print_outcome(console: Console, outcome: ScenarioOutcome) -> None:
    scenario, sim = outcome.scenario, outcome.simulation
    group = scenario.group
    protocols = sorted({c.protocol for c in sim.clients.values()})
    console.print(f"Scenario {scenario.source}" + (f": {scenario.description}" if scenario.description else ""),
                  markup=False)
    console.print(f"Group {group.group_id} · classic ({'/'.join(protocols)}) · {len(group.members)} members at start"
                  f" · {seconds(scenario.duration_ms)} simulated", markup=False)
    console.print()
    console.print(f"Rebalances: {len(sim.rebalances)}", style="bold")
    for r in sim.rebalances:
        took = f"{seconds(r.end - r.start)}" if r.end is not None else "still running"
        end = seconds(r.end) if r.end is not None else "(open)"
        console.print(f"#{r.index}  {seconds(r.start)} -> {end} ({took})  generation {r.generation or '-'}  "
                      f"trigger: {r.trigger}  leader: {r.leader or '-'}  assignor: {r.assignor or '-'}"
                      + (f"  joined: {', '.join(r.joined)}" if r.joined else "")
                      + (f"  left: {', '.join(r.left)}" if r.left else ""), markup=False)
        for line in _moves(r):
            console.print(f"    {line}", markup=False)
    console.print()
    final = Table(title="Final assignment (what each running consumer owns)", title_justify="left",
                  show_edge=False, pad_edge=False)
    for column in ("MEMBER", "PARTITIONS", "COUNT"):
        final.add_column(column, overflow="fold", justify="right" if column == "COUNT" else "left")
    for handle, parts in sim.assignment().items():
        final.add_row(handle, compact(sorted(parts)), str(len(parts)))
    console.print(final)
    console.print()
    ranked = sorted(((outcome.unconsumed_ms(tp), tp) for tp in sim.created), key=lambda x: (-x[0], x[1]))
    worst = [(ms, tp) for ms, tp in ranked if ms > 0][:TOP_PARTITIONS]
    gaps = Table(title=f"Unconsumed: {outcome.total_unconsumed_ms / 1000:.1f} partition-seconds in total"
                       + (f" (worst {len(worst)} of {len(ranked)} partitions)" if len(ranked) > len(worst) else ""),
                 title_justify="left", show_edge=False, pad_edge=False)
    for column in ("PARTITION", "SECONDS", "WHEN NOBODY CONSUMED IT"):
        gaps.add_column(column, overflow="fold", justify="right" if column == "SECONDS" else "left")
    for ms, tp in worst:
        spans = [f"{seconds(g.start)}-{seconds(g.end) if g.end is not None else 'end'}"
                 for g in outcome.gaps[tp] if g.length(sim.now) > 0]
        gaps.add_row(str(tp), f"{ms / 1000:.1f}", ", ".join(spans[:6]) + (f" (+{len(spans) - 6})" if len(spans) > 6 else ""))
    console.print(gaps)
    if outcome.findings:
        console.print()
        console.print("Warnings", style="bold yellow")
        for finding in outcome.findings:
            console.print(f"- [{finding.kind}] {finding.message}", markup=False)


def _tp_list(parts: Any) -> list[str]:
    return [str(tp) for tp in sorted(set(parts))]


def outcome_body(outcome: ScenarioOutcome) -> dict[str, Any]:
    scenario, sim = outcome.scenario, outcome.simulation
    return {
        "source": scenario.source,
        "description": scenario.description,
        "group_id": scenario.group.group_id,
        "duration_ms": scenario.duration_ms,
        "clients": {h: {"protocol": c.protocol, "assignors": list(c.config.assignors),
                        "instance_id": c.config.instance_id, "running": c.alive,
                        "exceptions": [{"at_ms": t, "exception": e} for t, e in c.exceptions]}
                    for h, c in sim.clients.items()},
        "rebalances": [{
            "index": r.index, "start_ms": r.start, "end_ms": r.end, "outcome": r.outcome, "generation": r.generation,
            "trigger": r.trigger, "leader": r.leader, "assignor": r.assignor, "joined": list(r.joined),
            "left": list(r.left), "revoked": {m: _tp_list(p) for m, p in r.revoked.items()},
            "lost": {m: _tp_list(p) for m, p in r.lost.items()},
            "assigned": {m: _tp_list(p) for m, p in r.assigned.items()}} for r in sim.rebalances],
        "final_assignment": {h: _tp_list(p) for h, p in sim.assignment().items()},
        "unconsumed": {
            "total_partition_seconds": outcome.total_unconsumed_ms / 1000,
            "partitions": {str(tp): {"seconds": outcome.unconsumed_ms(tp) / 1000,
                                     "gaps": [[g.start, g.end] for g in outcome.gaps[tp]]}
                           for tp in sorted(sim.created)},
        },
        "findings": [{"kind": f.kind, "at_ms": f.at_ms, "members": list(f.members), "message": f.message}
                     for f in outcome.findings],
        "events": [{"at_ms": e.at_ms, "kind": e.kind, "member": e.member, **dict(e.detail)} for e in sim.log],
    }


def comparison_body(scenario: Any, runs: list[Any]) -> dict[str, Any]:
    return {"scenario": scenario.source, "duration_ms": scenario.duration_ms,
            "events": [{"at_ms": e.at_ms, "kind": e.kind, "subject": e.subject} for e in scenario.events],
            "protocols": [{"protocol": r.protocol, "rebalances": r.rebalances, "unconsumed_ms": r.unconsumed_ms,
                           "longest_outage_ms": r.longest_outage_ms, "partitions_owned_twice": r.owned_twice,
                           "messages_at_risk": None if r.messages_at_risk is None else round(r.messages_at_risk),
                           "time_to_stable_ms": list(r.time_to_stable_ms), "notes": list(r.notes)} for r in runs]}


def print_comparison(console: Console, scenario: Any, runs: list[Any]) -> None:
    """One row per design: the same events, what each design costs."""
    console.print(f"{scenario.source}: {len(scenario.events)} event(s) over {_seconds(scenario.duration_ms)}")
    table = Table(box=None, pad_edge=False)
    table.add_column("PROTOCOL")
    for column in ("REBALANCES", "UNCONSUMED-PARTITION-S", "LONGEST-OUTAGE", "OWNED-TWICE", "MSGS-AT-RISK"):
        table.add_column(column, justify="right")
    table.add_column("TIME-TO-STABLE (PER EVENT)")
    for r in runs:
        settle = " ".join("never" if t is None else _seconds(t) for t in r.time_to_stable_ms)
        table.add_row(r.protocol, str(r.rebalances), f"{r.unconsumed_ms / 1000:,.1f}", _seconds(r.longest_outage_ms),
                      str(r.owned_twice), "-" if r.messages_at_risk is None else f"{r.messages_at_risk:,.0f}",
                      settle or "-")
    print_wide(console, table)
    console.print("events: " + "; ".join(f"{e.kind} {e.subject} at {_seconds(e.at_ms)}" for e in scenario.events))
    if runs and runs[0].messages_at_risk is None:
        console.print("MSGS-AT-RISK needs produce_rates in the scenario (messages/s per topic)")
    for r in runs:
        for note in r.notes:
            console.print(f"note: {r.protocol}: {note}")


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}s"
