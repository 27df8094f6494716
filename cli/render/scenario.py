"""What `kgroup simulate SCENARIO.yaml` prints: the rebalance timeline, the final assignment, the
partitions nobody consumed, and the pathologies found; and the same as a document for JSON/YAML."""

from __future__ import annotations

from itertools import islice
from typing import Any

from rich.console import Console
from kgroup.cli.render.titled import Table

from kgroup.assignors.coordinator.classic.records import RebalanceRecord
from kgroup.cli.render.tables import compact, print_wide
from kgroup.inspectors.simulation.scenario_run import ScenarioOutcome

TOP_PARTITIONS = 20
# Member lines shown under one rebalance (its waits, then its moves): an eager rebalance of a thousand-member
# group moves every member, and a report of hundreds of them would bury the timeline; -o json has them all.
MEMBERS_SHOWN = 20
# Events shown in a design comparison (each row's TIME-TO-STABLE cells and the events line): a rolling restart
# of a large group is hundreds of events, and one cell per event would make every row a wall of numbers.
EVENTS_SHOWN = 20


def seconds(ms: int | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.1f}s"


def _moved(record: RebalanceRecord) -> int:
    return len({*record.revoked, *record.lost, *record.assigned})


def _moves(record: RebalanceRecord, limit: int) -> list[str]:
    """One line per member, the first `limit` members: what it revoked (-), lost, and was assigned (+)."""
    lines = []
    for member in islice(dict.fromkeys([*record.revoked, *record.lost, *record.assigned]), limit):
        pieces = []
        if record.revoked.get(member):
            pieces.append("-" + compact(sorted(set(record.revoked[member]))))
        if record.lost.get(member):
            pieces.append("lost " + compact(sorted(set(record.lost[member]))))
        if record.assigned.get(member):
            pieces.append("+" + compact(sorted(set(record.assigned[member]))))
        lines.append(f"{member}  {'  '.join(pieces)}")
    return lines


def _names(members: Any) -> str:
    """Who joined or left a rebalance: the first MEMBERS_SHOWN, then how many more (a large group's first
    rebalance is every member joining)."""
    shown = ", ".join(islice(members, MEMBERS_SHOWN))
    return shown + (f" and {len(members) - MEMBERS_SHOWN} more" if len(members) > MEMBERS_SHOWN else "")


def _print_some(console: Console, lines: list[str], total: int, what: str) -> None:
    for line in lines:
        console.print(f"    {line}", markup=False)
    if total > len(lines):
        console.print(f"    ... {total - len(lines)} more {what} (-o json lists them all)", markup=False)


def print_outcome(console: Console, outcome: ScenarioOutcome) -> None:
    scenario, sim = outcome.scenario, outcome.simulation
    group = scenario.group
    protocols = sorted({c.protocol for c in sim.clients.values()})
    for line in scenario.rejected_settings:
        console.print(line, markup=False, style="bold yellow", soft_wrap=True)
    console.print(
        f"Scenario {scenario.source}" + (f": {scenario.description}" if scenario.description else ""), markup=False
    )
    console.print(
        f"Group {group.group_id} · classic ({'/'.join(protocols)}) · {group.client or 'java'} clients"
        f" · {len(group.members)} members at start · {seconds(scenario.duration_ms)} simulated",
        markup=False,
    )
    console.print()
    console.print(f"Rebalances: {len(sim.rebalances)}", style="bold")
    for r, why in zip(sim.rebalances, outcome.explanations):
        took = (
            seconds(r.end - r.start)
            if r.end is not None
            else f"still open at the end, {seconds(sim.now - r.start)} so far"
        )
        end = seconds(r.end) if r.end is not None else "(open)"
        console.print(
            f"#{r.index}  {seconds(r.start)} -> {end} ({took})  generation {r.generation or '-'}  "
            f"trigger: {why.trigger}  leader: {r.leader or '-'}  assignor: {r.assignor or '-'}"
            + (f"  joined: {_names(r.joined)}" if r.joined else "")
            + (f"  left: {_names(r.left)}" if r.left else ""),
            markup=False,
        )
        waits = [_wait_text(wait, why, r.start, sim.now) for wait in why.waited[:MEMBERS_SHOWN]]
        _print_some(console, waits, len(why.waited), "members waited for")
        _print_some(console, _moves(r, MEMBERS_SHOWN), _moved(r), "members moved partitions")
    if scenario.events:
        console.print()
        console.print(
            "Events (TIME-TO-STABLE: until every live member consumes its final share and no rebalance "
            "the event caused is still running)",
            style="bold",
        )
        for event, settle in zip(scenario.events, outcome.settle):
            console.print(
                f"{seconds(event.at_ms)}  {event_text(event)}  ->  {_event_outcome(outcome, event, settle)}",
                markup=False,
            )
    console.print()
    final = Table(
        title="Final assignment (what each running consumer owns)",
        title_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    for column in ("MEMBER", "PARTITIONS", "COUNT"):
        final.add_column(column, overflow="fold", justify="right" if column == "COUNT" else "left")
    for handle, parts in sim.assignment().items():
        final.add_row(handle, compact(sorted(parts)), str(len(parts)))
    console.print(final)
    console.print()
    ranked = sorted(((outcome.unconsumed_ms(tp), tp) for tp in sim.created), key=lambda x: (-x[0], x[1]))
    worst = [(ms, tp) for ms, tp in ranked if ms > 0][:TOP_PARTITIONS]
    # Folded at the console's width like every other line: never in a pipe, at N under `--width N`.
    console.print(
        f"Unconsumed: {outcome.total_unconsumed_ms / 1000:.1f} partition-seconds in total"
        + (f" (worst {len(worst)} of {len(ranked)} partitions)" if len(ranked) > len(worst) else ""),
        style="italic",
        markup=False,
        highlight=False,
    )
    gaps = Table(show_edge=False, pad_edge=False)
    for column in ("PARTITION", "SECONDS", "WHEN NOBODY CONSUMED IT"):
        gaps.add_column(column, overflow="fold", justify="right" if column == "SECONDS" else "left")
    for ms, tp in worst:
        spans = [
            f"{seconds(g.start)}-{seconds(g.end) if g.end is not None else 'end'}"
            for g in outcome.gaps[tp]
            if g.length(sim.now) > 0
        ]
        more = f" (+{len(spans) - 6})" if len(spans) > 6 else ""
        gaps.add_row(str(tp), f"{ms / 1000:.1f}", ", ".join(spans[:6]) + more)
    console.print(gaps)
    if outcome.findings:
        console.print()
        console.print("Warnings", style="bold yellow")
        for finding in outcome.findings:
            console.print(f"- [{finding.kind}] {finding.message}", markup=False)


def _wait_text(wait: Any, why: Any, start: int, now: int) -> str:
    """`waited 32.0s for c3, in a slow batch (...); its JoinGroup came at 140.0s`."""
    if wait.joined_at is not None:
        until, came = wait.joined_at, f"its JoinGroup came at {seconds(wait.joined_at)}"
    elif why.join_phase_end is None:
        until, came = now, "it never rejoined (still waited for at the end)"
    else:
        until = why.join_phase_end
        came = f"it never rejoined; the join phase completed without it at {seconds(why.join_phase_end)}"
    return f"waited {seconds(until - start)} for {wait.member}, {wait.doing}; {came}"


def event_text(event: Any) -> str:
    """An event as the scenario file would write it."""
    fields = event.fields
    text = f"{event.kind} {event.subject}"
    if event.kind == "gc-pause" or event.kind == "outage":
        text += f" for {fields['duration'] / 1000:g}s"
    elif event.kind == "slow-poll":
        text += f" processing {fields['processing'] / 1000:g}s" + (
            f" batches {fields['batches']}" if fields.get("batches", 1) != 1 else ""
        )
    elif event.kind == "add-partitions":
        text += f" to {fields['total']}"
    elif event.kind == "restart":
        text += (" static" if fields.get("static") else "") + f" down {fields['down'] / 1000:g}s"
    elif event.kind == "subscribe":
        text += " topics " + ",".join(fields["topics"])
    return text


def _event_outcome(outcome: ScenarioOutcome, event: Any, settle: Any) -> str:
    sim = outcome.simulation
    following = [e.at_ms for e in outcome.scenario.events if e.at_ms > event.at_ms]
    until = following[0] if following else sim.now + 1
    caused = outcome.caused_by(event)
    rebalances = (
        f"rebalance{'s' if len(caused) > 1 else ''} " + ", ".join(f"#{i}" for i in caused) if caused else "no rebalance"
    )
    others: dict[int, list[int]] = {}  # source event -> rebalances in this event's window that follow from it
    for r, causes in zip(sim.rebalances, outcome.causes):
        if event.at_ms <= r.start < until and r.index not in caused and causes:
            others.setdefault(min(causes), []).append(r.index)
    if others:  # this event's TIME-TO-STABLE waits for them too
        rebalances += (
            " (meanwhile "
            + "; ".join(
                ", ".join(f"#{i}" for i in found) + f" from the {seconds(outcome.scenario.events[e].at_ms)} event"
                for e, found in others.items()
            )
            + ")"
        )
    if event.kind == "restart" and event.fields.get("static") and not event.fields.get("adopts_static") and not caused:
        back = event.at_ms + int(event.fields["down"])
        rebalances = (
            f"no rebalance: a static member back at {seconds(back)} under its group.instance.id takes its "
            "old partitions again"
        )
    if event.kind == "restart" and event.fields.get("adopts_static"):
        rebalances += f" (it left as a dynamic member and is back with group.instance.id {event.fields['instance_id']})"
    if not settle.applies:
        stable = "Kafka's group coordinator depends on neither ZooKeeper nor service discovery: no effect"
    elif settle.ms is None:
        stable = "never stable again before the run ended"
    elif settle.interrupted:
        stable = f"not stable yet when the next event came {seconds(settle.ms)} later"
    else:
        stable = f"stable after {seconds(settle.ms)}"
    later = [r for r in sim.rebalances if r.index in caused and r.start >= until]
    if later and settle.applies:  # TIME-TO-STABLE ends at the next event; say when this one struck again
        stable += ", then " + ", ".join(f"#{r.index} at {seconds(r.start)}" for r in later)
    return f"{rebalances}; {stable}"


def _tp_list(parts: Any) -> list[str]:
    return [str(tp) for tp in sorted(set(parts))]


def outcome_body(outcome: ScenarioOutcome) -> dict[str, Any]:
    scenario, sim = outcome.scenario, outcome.simulation
    return {
        "warnings": list(scenario.rejected_settings),
        "source": scenario.source,
        "description": scenario.description,
        "group_id": scenario.group.group_id,
        "duration_ms": scenario.duration_ms,
        "client": scenario.group.client or "java",
        "clients": {
            h: {
                "protocol": c.protocol,
                "assignors": list(c.config.assignors),
                "instance_id": c.config.instance_id,
                "running": c.alive,
                "exceptions": [{"at_ms": t, "exception": e} for t, e in c.exceptions],
            }
            for h, c in sim.clients.items()
        },
        "rebalances": [
            {
                "index": r.index,
                "start_ms": r.start,
                "end_ms": r.end,
                "outcome": r.outcome,
                "generation": r.generation,
                "trigger": r.trigger,
                "cause": why.trigger,
                "caused_by_events": list(causes),
                "waited_for": [{"member": w.member, "joined_at_ms": w.joined_at, "doing": w.doing} for w in why.waited],
                "leader": r.leader,
                "assignor": r.assignor,
                "joined": list(r.joined),
                "left": list(r.left),
                "revoked": {m: _tp_list(p) for m, p in r.revoked.items()},
                "lost": {m: _tp_list(p) for m, p in r.lost.items()},
                "assigned": {m: _tp_list(p) for m, p in r.assigned.items()},
            }
            for r, why, causes in zip(sim.rebalances, outcome.explanations, outcome.causes)
        ],
        "time_to_stable": [
            {
                "event": e.index,
                "at_ms": e.at_ms,
                "kind": e.kind,
                "subject": e.subject,
                "ms": s.ms,
                "interrupted": s.interrupted,
                "rebalances": outcome.caused_by(e),
            }
            for e, s in zip(scenario.events, outcome.settle)
        ],
        "final_assignment": {h: _tp_list(p) for h, p in sim.assignment().items()},
        "unconsumed": {
            "total_partition_seconds": outcome.total_unconsumed_ms / 1000,
            "partitions": {
                str(tp): {
                    "seconds": outcome.unconsumed_ms(tp) / 1000,
                    "gaps": [[g.start, g.end] for g in outcome.gaps[tp]],
                }
                for tp in sorted(sim.created)
            },
        },
        "findings": [
            {"kind": f.kind, "at_ms": f.at_ms, "members": list(f.members), "message": f.message}
            for f in outcome.findings
        ],
        "events": [{"at_ms": e.at_ms, "kind": e.kind, "member": e.member, **dict(e.detail)} for e in sim.log],
    }


def settle_text(settle: Any, marked: bool = False) -> str:
    """One TIME-TO-STABLE cell (docs/scenarios.md): `never`, `>Ns` (not settled when the next event came N s
    later), or the time; `*` when the design cannot express the event."""
    if marked:
        return "*"
    if not settle.applies:
        return "n/a"
    if settle.ms is None:
        return "never"
    return (">" if settle.interrupted else "") + _seconds(settle.ms)


def settle_cells(run: Any) -> str:
    """A design's TIME-TO-STABLE cells, the first EVENTS_SHOWN of them, then how many more (empty: no events)."""
    cells = " ".join(settle_text(t, i in run.not_modelled) for i, t in islice(enumerate(run.settle), EVENTS_SHOWN))
    return cells + (f" +{len(run.settle) - EVENTS_SHOWN} more" if len(run.settle) > EVENTS_SHOWN else "")


def comparison_body(scenario: Any, runs: list[Any]) -> dict[str, Any]:
    return {
        "warnings": list(scenario.rejected_settings),
        "scenario": scenario.source,
        "duration_ms": scenario.duration_ms,
        "client": scenario.group.client or "java",
        "events": [{"at_ms": e.at_ms, "kind": e.kind, "subject": e.subject} for e in scenario.events],
        "protocols": [
            {
                "protocol": r.protocol,
                "rebalances": r.rebalances,
                "unconsumed_ms": r.unconsumed_ms,
                "longest_outage_ms": r.longest_outage_ms,
                "partitions_owned_twice": r.owned_twice,
                "messages_at_risk": None if r.messages_at_risk is None else round(r.messages_at_risk),
                "time_to_stable_ms": list(r.time_to_stable_ms),
                "time_to_stable_interrupted": [s.interrupted for s in r.settle],
                "time_to_stable_applies": [s.applies for s in r.settle],
                "events_not_modelled": [scenario.events[i].index for i in r.not_modelled],
                "notes": list(r.notes),
                **_outcome_body(r.protocol, r.outcome),
            }
            for r in runs
        ],
    }


def _outcome_body(protocol: str, outcome: Any) -> dict[str, Any]:
    """A Kafka design's rebalances (generations, or group epochs for the consumer protocol) and final state;
    null for the older designs, whose models keep neither."""
    if outcome is None:
        return {"rebalance_list": None, "final_assignment": None, "member_epochs": None}
    epoch = "group_epoch" if protocol == "consumer" else "generation"
    return {
        "rebalance_list": [{"start_ms": r.start_ms, "end_ms": r.end_ms, epoch: r.epoch} for r in outcome.rounds],
        "final_assignment": {m: _tp_list(p) for m, p in sorted(outcome.final.items())},
        "member_epochs": None if outcome.member_epochs is None else dict(sorted(outcome.member_epochs.items())),
    }


def print_comparison(console: Console, scenario: Any, runs: list[Any]) -> None:
    """One row per design: the same events, what each design costs."""
    for line in scenario.rejected_settings:
        console.print(line, markup=False, style="bold yellow", soft_wrap=True)
    console.print(
        f"{scenario.source}: {len(scenario.events)} event(s) over {_seconds(scenario.duration_ms)}"
        f" · {scenario.group.client or 'java'} clients",
        markup=False,
    )
    table = Table(box=None, pad_edge=False)
    table.add_column("PROTOCOL")
    for column in ("REBALANCES", "UNCONSUMED-PARTITION-S", "LONGEST-OUTAGE", "OWNED-TWICE", "MSGS-AT-RISK"):
        table.add_column(column, justify="right")
    table.add_column("TIME-TO-STABLE (PER EVENT)")
    marked_any = False
    for r in runs:
        star = "*" if r.not_modelled else ""
        marked_any = marked_any or bool(star)
        settle = settle_cells(r)
        table.add_row(
            r.protocol + star,
            str(r.rebalances) + star,
            f"{r.unconsumed_ms / 1000:,.1f}" + star,
            _seconds(r.longest_outage_ms) + star,
            str(r.owned_twice) + star,
            ("-" if r.messages_at_risk is None else f"{r.messages_at_risk:,.0f}") + star,
            settle or "-",
        )
    print_wide(console, table)
    shown = "; ".join(f"{e.kind} {e.subject} at {_seconds(e.at_ms)}" for e in scenario.events[:EVENTS_SHOWN])
    hidden = len(scenario.events) - EVENTS_SHOWN
    more = f"; ... {hidden} more events (-o json lists them all, with every TIME-TO-STABLE)" if hidden > 0 else ""
    console.print(f"events: {shown}{more}", markup=False)
    console.print(
        "TIME-TO-STABLE: from the event until every live member consumes its final share and no "
        "rebalance it caused is still running; >N: not settled when the next event came N later; "
        "n/a: the design does not depend on what the event changes",
        markup=False,
    )
    if marked_any:
        console.print(
            "*: the design cannot express an event of this scenario; its numbers leave that event out", markup=False
        )
    if runs and runs[0].messages_at_risk is None:
        console.print("MSGS-AT-RISK needs produce_rates in the scenario (messages/s per topic)")
    for r in runs:
        for note in r.notes:
            console.print(f"note: {r.protocol}: {note}", markup=False)


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}s"
