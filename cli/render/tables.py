"""Tables for people (rich). Pure functions of results; the commands choose where they go."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import groupby
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table as AnyTable

from kgroup.assignors.analysis.checks import CheckResult
from kgroup.assignors.analysis.diff import AssignmentDiff
from kgroup.assignors.analysis.evaluate import AssignorRun
from kgroup.assignors.model import Assignment, Member, TopicPartition
from kgroup.cli.render.titled import Table
from kgroup.assignors.analysis.whatif import AddMember, AddTopic, RemoveMember, Subscribe, WhatIf


def _ranges(numbers: list[int]) -> str:
    """`0-2,5` for [0, 1, 2, 5]; numbers ascending."""
    runs: list[str] = []
    start = prev = numbers[0]
    for n in numbers[1:]:
        if n != prev + 1:
            runs.append(str(start) if start == prev else f"{start}-{prev}")
            start = n
        prev = n
    runs.append(str(start) if start == prev else f"{start}-{prev}")
    return ",".join(runs)


def compact(parts: Iterable[TopicPartition]) -> str:
    """`orders[0-2,5] payments[1]`: partitions grouped by topic, consecutive numbers as ranges."""
    chunks = [
        f"{topic}[{_ranges([tp.partition for tp in items])}]"
        for topic, items in groupby(parts, key=lambda tp: tp.topic)
    ]
    return " ".join(chunks) or "-"


def _signed(parts: tuple[TopicPartition, ...], sign: str) -> str:
    return " ".join(f"{sign}{tp}" for tp in parts) if len(parts) <= 4 else f"{sign}{len(parts)}: {compact(parts)}"


TABLE_MEMBERS = 100
TABLE_PARTITIONS = 10_000
CELL_LINES = 4


def _clipped(text: str) -> str:
    """A cell of a large table: its first few topics and how many more there are."""
    chunks = text.split(" ")
    if len(chunks) <= CELL_LINES:
        return text
    return " ".join(chunks[: CELL_LINES - 1] + [f"... {len(chunks) - CELL_LINES + 1} more"])


def client_ids(members: Iterable[Member]) -> dict[str, str]:
    """Each member's client.id where its member id does not already say it: a consumer-protocol member's id is a
    random Uuid, so the application's name for it is only in client.id (a classic member's id starts with it)."""
    return {m.member_id: m.client_id for m in members if m.client_id and m.client_id not in m.member_id}


def assignment_table(
    title: str, value: Assignment, change: AssignmentDiff | None = None, clients: Mapping[str, str] | None = None
) -> Table | _ClientIdsFitted:
    """`clients`: client_ids(); a CLIENT-ID column follows MEMBER when some member has one (as in
    kafka-consumer-groups.sh --describe --members), where the output is wide enough for it."""
    listed = list(value.owners) + ([c.member_id for c in change.members] if change else [])
    clients = {m: clients[m] for m in listed if clients and m in clients}
    if not clients:
        return _assignment_table(title, value, change, {}, client_column=False)
    return _ClientIdsFitted(
        _assignment_table(title, value, change, clients, client_column=True),
        _assignment_table(title, value, change, clients, client_column=False),
    )


_UNBOUNDED = 1_000_000


class _ClientIdsFitted:
    """An assignment table with its CLIENT-ID column where the output is wide enough for the table's widest
    rendering, else with each client.id in parentheses under its member id: beside a 22-character KIP-848
    member id, the column left an 80-column terminal too little room to keep a partition's name whole."""

    def __init__(self, with_column: Table, under_member: Table) -> None:
        self.with_column, self.under_member = with_column, under_member

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # rich clamps a table's measure to the width it is given: measured unbounded, it is the widest rendering.
        widest = Measurement.get(console, options.update_width(_UNBOUNDED), self.with_column).maximum
        fits = widest <= options.max_width
        yield self.with_column if fits else self.under_member


def _assignment_table(
    title: str, value: Assignment, change: AssignmentDiff | None, clients: Mapping[str, str], client_column: bool
) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    columns = ("MEMBER",) + (("CLIENT-ID",) if client_column else ()) + ("PARTITIONS", "COUNT")
    for column in columns + (("GAINED", "REVOKED") if change else ()):
        table.add_column(
            column,
            justify="right" if column == "COUNT" else "left",
            overflow="fold",
            no_wrap=column in ("MEMBER", "CLIENT-ID"),
        )

    def named(member: str, suffix: str = "") -> list[str]:
        if client_column:
            return [member + suffix, clients.get(member, "")]
        return [f"{member}{suffix}\n({clients[member]})" if member in clients else member + suffix]

    changes = {c.member_id: c for c in change.members} if change else {}
    shown = value.owners.items()
    if len(value.owners) > TABLE_MEMBERS:  # a table of 2,000 members is for nobody; the documents list all
        shown = list(shown)[:TABLE_MEMBERS]
        table.caption = f"{TABLE_MEMBERS} of {len(value.owners)} members shown; -o json or -o yaml lists every one"
    large = len(value.owners) > TABLE_MEMBERS or sum(map(len, value.owners.values())) > TABLE_PARTITIONS
    cell = _clipped if large else (lambda text: text)
    for member, parts in shown:
        row = [*named(member), cell(compact(parts)), str(len(parts))]
        if change:
            c = changes.get(member)
            row += [
                cell(_signed(c.gained, "+")) if c and c.gained else "",
                cell(_signed(c.revoked, "-")) if c and c.revoked else "",
            ]
        table.add_row(*row)
    if change:  # members that left still lose their partitions
        for c in change.members:
            if c.member_id not in value.owners and c.revoked:
                table.add_row(*named(c.member_id, " (left)"), "-", "0", "", _signed(c.revoked, "-"))
    return table


def summary_line(run: AssignorRun) -> str:
    if run.error is not None:
        return f"The assignor would fail: {run.error}"
    assert run.balance and run.stickiness and run.diff
    b = run.balance.overall
    topic_spread = max((s.spread for _, s in run.balance.per_topic), default=0)
    sticky = (
        "n/a (nothing owned)"
        if run.stickiness.ratio is None
        else f"{run.stickiness.ratio:.0%} ({run.stickiness.kept}/{run.stickiness.keepable} kept)"
    )
    valid = "valid" if not run.violations else "INVALID: " + "; ".join(v.detail for v in run.violations[:3])
    return (
        f"moved {run.diff.moved} · partitions per member {b.minimum}..{b.maximum} (spread {b.spread}) · "
        f"max per-topic spread {topic_spread} · stickiness {sticky} · {valid}"
    )


def comparison_table(runs: Iterable[AssignorRun]) -> Table:
    runs = list(runs)
    table = Table(title="Side by side", title_justify="left", show_edge=False, pad_edge=False)
    # The assignor name is what the reader compares by: narrow terminals squeeze the numbers instead.
    table.add_column("ASSIGNOR", no_wrap=True, min_width=max(len(run.assignor) for run in runs))
    for column in ("MOVED", "MIN", "MAX", "SPREAD", "TOPIC-SPREAD", "STICKINESS", "KAFKA-BALANCED", "VALID"):
        table.add_column(column, justify="right")
    for run in runs:
        if run.error is not None or not (run.balance and run.stickiness and run.diff):
            table.add_row(run.assignor, *["-"] * 7, "error")
            continue
        ratio = run.stickiness.ratio
        table.add_row(
            run.assignor,
            str(run.diff.moved),
            str(run.balance.overall.minimum),
            str(run.balance.overall.maximum),
            str(run.balance.overall.spread),
            str(max((s.spread for _, s in run.balance.per_topic), default=0)),
            "n/a" if ratio is None else f"{ratio:.0%}",
            "yes" if run.balance.kafka_balanced else "no",
            "yes" if not run.violations else "no",
        )
    return table


def threads_table(threads: dict[str, tuple[TopicPartition, ...]]) -> Table:
    table = Table(title="Per consumer thread", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("THREAD")
    table.add_column("PARTITIONS", overflow="fold")
    for thread in sorted(threads):
        table.add_row(thread, compact(threads[thread]))
    return table


def checks_table(results: list[CheckResult]) -> Table:
    table = Table(show_edge=False, pad_edge=False)
    for column in ("CHECK", "RESULT", "EXPECTED", "ACTUAL"):
        table.add_column(column, overflow="fold")
    for r in results:
        table.add_row(r.name, "ok" if r.ok else "FAIL", r.expected, r.actual)
    return table


def handover_lines(run: AssignorRun) -> list[str]:
    """A cooperative run in words: what each rebalance withholds and the next one hands over."""
    if not run.rounds:
        return []
    if not run.withheld:
        return ["cooperative: one rebalance; no partition changes owner, so nothing is withheld"]
    lines = []
    for number in range(1, len(run.rounds) + 1):
        held = [h for h in run.withheld if h.rebalance == number]
        if held:
            moves = ", ".join(f"{h.tp} {h.source or '(unowned)'}->{h.target}" for h in held)
            noun = "partition" if len(held) == 1 else "partitions"
            lines.append(
                f"cooperative: rebalance {number} withholds {len(held)} {noun} until revoked, "
                f"unconsumed until rebalance {number + 1}: {moves}"
            )
    if not run.settled:
        lines.append(f"cooperative: still withholding partitions after {len(run.rounds)} rebalances")
    return lines


def print_run(console: Console, run: AssignorRun, title: str, clients: Mapping[str, str] | None = None) -> None:
    if run.assignment is not None:
        if len(run.rounds) > 1:
            for number, value in enumerate(run.rounds, start=1):
                label = f"{title}: rebalance {number} of {len(run.rounds)}"
                if number == len(run.rounds):
                    label += " (settled)" if run.settled else " (not settled)"
                console.print(assignment_table(label, value.assignment, value.diff, clients))
        else:
            console.print(assignment_table(title, run.assignment, run.diff, clients))
        if run.threads:
            console.print(threads_table(run.threads))
    else:
        console.print(title)
    for line in handover_lines(run):
        console.print(line, markup=False, highlight=False)
    console.print(summary_line(run), markup=False)
    console.print()


def describe_change(change: WhatIf) -> str:
    if isinstance(change, AddMember):
        return f"{change.member_id} joins" + (f" ({','.join(change.topics)})" if change.topics else "")
    if isinstance(change, RemoveMember):
        return f"{change.member_id} leaves"
    if isinstance(change, Subscribe):
        return f"{change.member_id} subscribes to {','.join(change.topics)}"
    if isinstance(change, AddTopic):
        return f"{change.topic} is created with {change.partitions} partitions"
    return f"{change.topic} grows to {change.partitions} partitions"


def print_wide(console: Console, table: AnyTable) -> None:
    """Kafka's tool never folds a column: long member ids stay on one line, as scripts and greps expect."""
    for column in table.columns:
        column.no_wrap = True
    natural = table.__rich_measure__(console, console.options.update(max_width=100_000)).maximum
    if natural <= console.width:
        console.print(table)
    else:  # rich clamps print(width=) to the console's width, so a wider console of the same stream
        Console(file=console.file, width=natural, highlight=False, soft_wrap=False).print(table)


def dash(value: Any) -> str:
    return "-" if value is None or value == "" else str(value)
