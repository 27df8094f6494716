"""`kgroup simulate`: what-if changes to a group, run through one or more assignors side by side."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kgroup.cli.render import documents
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import (
    BootstrapOpt, ClientOpt, CommandConfigOpt, FixtureArg, GroupOpt, OutputOpt, ProfileOpt, TimeoutOpt, connect, load,
)
from kgroup.cli.render.scenario import comparison_body, outcome_body, print_comparison, print_outcome
from kgroup.inspectors.fixtures.bundled import locate
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.fixtures.group_file import Fixture, fixture_from_doc
from kgroup.inspectors.fixtures.scenario_file import is_scenario, scenario_from_doc
from kgroup.inspectors.simulation.scenario_run import run_scenario
from kgroup.inspectors.fixtures.yaml_doc import read_yaml
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.tables import comparison_table, describe_change, print_run, summary_line
from kgroup.cli.render.explain import explanation_body, print_explanations
from kgroup.assignors.analysis.evaluate import AssignorRun
from kgroup.assignors.analysis.explain import Explanation, explain as explain_run
from kgroup.assignors.model import Assignment, Cluster, TopicPartition
from kgroup.inspectors.live.admin import read_groups
from kgroup.inspectors.simulation.whatif_run import require_valid, simulate as run_simulation
from kgroup.inspectors.live.snapshot import as_fixture


@handle_errors
def simulate(
    fixture: FixtureArg = None,
    group: GroupOpt = None,
    assignor: Annotated[Optional[list[str]], typer.Option(
        "--assignor", "-a", help="Assignor to run (repeat for side by side); a built-in or package.module:Class. "
                                 "Default: the group's own.")] = None,
    add_member: Annotated[Optional[list[str]], typer.Option(
        "--add-member", help="A member joins: ID, or ID=topic1,topic2 (default: the first member's topics).")] = None,
    remove_member: Annotated[Optional[list[str]], typer.Option(
        "--remove-member", help="A member leaves (crash or shutdown).")] = None,
    add_partitions: Annotated[Optional[list[str]], typer.Option(
        "--add-partitions", help="TOPIC=N grows the topic to N partitions; TOPIC=+N adds N.")] = None,
    subscribe: Annotated[Optional[list[str]], typer.Option(
        "--subscribe", help="Change a member's subscription: ID=topic1,topic2.")] = None,
    timeline_out: Annotated[Optional[str], typer.Option(
        "--timeline-out", help="Scenarios: write the partition-ownership timeline to FILE (.svg or .html); "
        "with --protocol, one timeline per design in one .html page.",
        metavar="FILE")] = None,
    protocol: Annotated[Optional[str], typer.Option(
        "--protocol", help="Scenarios: compare designs on the same events, e.g. classic-eager,classic-cooperative,"
        "consumer,zk-watcher,external.", metavar="LIST", show_default=False)] = None,
    explain: Annotated[bool, typer.Option(
        "--explain", help="For each partition that moved, the rule that decided its owner and the inputs it read "
        "(`kgroup explain` names partitions).")] = False,
    client: ClientOpt = "java",
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    profile: ProfileOpt = None,
    timeout: TimeoutOpt = 10.0,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Predict the assignment after what-if changes and show what moves; or replay a scenario.

    With no arguments, runs the bundled demo fixture. Given a `kind: scenario` file (events such as
    `crash c2 at 30s`), it replays them through the classic coordinator and its clients to the
    millisecond: every rebalance, the final assignment, and how long each partition went unconsumed.

    Examples:

      kgroup simulate

      kgroup simulate seed-range --assignor range --assignor roundrobin

      kgroup simulate group.yaml --add-member c3 --add-partitions orders=+4 -o json

      kgroup simulate scenario-storm --timeline-out storm.html

      kgroup simulate scenario-tour --protocol classic-eager,classic-cooperative,consumer,zk-watcher,external

      kgroup simulate -b localhost:9092 --group orders-service --add-member c4

    With --bootstrap-server (or --profile, --command-config) the group is read live, as `kgroup
    snapshot` would save it, instead of from a fixture.
    """
    if bootstrap_server or command_config or profile:
        if fixture is not None:
            raise InputError("give a fixture or a live cluster (--bootstrap-server), not both", field="--bootstrap-server")
        if group is None:
            raise InputError("a live what-if needs the group: --group G", field="--group")
        admin = connect(bootstrap_server, command_config, profile, timeout)
        live = as_fixture(read_groups(admin, [group]), f"live:{admin.settings.bootstrap_servers}")
        _what_if(live, group, assignor, add_member, remove_member, add_partitions, subscribe, client, output,
                 explain or None)
        return
    doc = read_yaml(locate(fixture)) if fixture is not None else None
    if doc is not None and is_scenario(doc):
        if assignor or add_member or remove_member or add_partitions or subscribe or group or explain:
            raise InputError("what-if flags (--assignor, --add-member, ...) apply to fixtures; a scenario lists "
                             "its own events", doc.source)
        if protocol is not None:
            if timeline_out is not None and not timeline_out.endswith((".html", ".htm")):
                raise InputError(f"{timeline_out!r}: with --protocol the timelines (one per design) are written "
                                 "as one .html page", field="--timeline-out")
            _compare(doc, protocol, timeline_out, output)
            return
        _replay(doc, timeline_out, output)
        return
    if protocol is not None:
        raise InputError("--protocol compares designs on a scenario (kind: scenario), not a fixture", field="--protocol")
    if timeline_out is not None:
        raise InputError("--timeline-out needs a scenario (kind: scenario), not a fixture", field="--timeline-out")
    loaded = fixture_from_doc(doc) if doc is not None else load(fixture)
    _what_if(loaded, group, assignor, add_member, remove_member, add_partitions, subscribe, client, output,
             explain or None)


def _what_if(loaded: Fixture, group: str | None, assignor: list[str] | None, add_member: list[str] | None,
             remove_member: list[str] | None, add_partitions: list[str] | None, subscribe: list[str] | None,
             client: str, output: OutputFormat, explain: bool | list[str] | None = None,
             kind: str = "simulation") -> None:
    """`explain`: None for no explanations, True for every partition that moved, or the partitions named."""
    sim = run_simulation(loaded, group, assignor or [], add_member or [], remove_member or [],
                         add_partitions or [], subscribe or [], client, explain=explain is not None)
    require_valid(sim.runs)
    before, after = sim.before.group, sim.after.group
    chosen = None if explain is None or explain is True else chosen_partitions(explain, sim.after.cluster)
    explained = {run.assignor: explanations_of(run, before.assignment, chosen) for run in sim.runs} \
        if explain is not None else {}
    doc = document(kind, {
        "source": loaded.source,
        "group_id": before.group_id,
        "protocol": before.protocol,
        "changes": [documents.change_body(c) for c in sim.changes],
        "members_before": [m.member_id for m in before.members],
        "members_after": [m.member_id for m in after.members],
        "current": documents.assignment(before.assignment),
        "results": [{**documents.run_body(run),
                     **({"explanations": None if explained[run.assignor] is None
                         else [explanation_body(item) for item in explained[run.assignor]]}
                        if run.assignor in explained else {})}
                    for run in sim.runs],
    })

    def table(console):  # type: ignore[no-untyped-def]
        console.print(f"Group [bold]{before.group_id}[/] ({before.protocol}) · {len(before.members)} members"
                      + (f" -> {len(after.members)}" if len(after.members) != len(before.members) else ""))
        if sim.changes:
            console.print("What if: " + "; ".join(describe_change(c) for c in sim.changes), markup=False)
        console.print()
        for run in sim.runs:
            if kind == "simulation":
                print_run(console, run, f"{run.assignor}")
            else:
                console.print(f"{run.assignor}: " + summary_line(run), markup=False, highlight=False, style="bold",
                              soft_wrap=True)
            if run.assignor in explained:
                if kind == "simulation":
                    console.print(f"Why ({run.assignor}):", style="bold")
                print_explanations(console, explained[run.assignor] or [], run.assignor, traced(run))
        if len(sim.runs) > 1 and kind == "simulation":
            console.print(comparison_table(sim.runs))

    for line in loaded.warnings:
        warn(line)
    emit(doc, output, table)



def chosen_partitions(texts: list[str], cluster: Cluster) -> list[TopicPartition]:
    """TOPIC-PARTITION arguments (also comma-separated), each checked against the cluster after the what-if."""
    chosen: list[TopicPartition] = []
    for text in (t.strip() for arg in texts for t in arg.split(",")):
        if not text:
            continue
        try:
            tp = TopicPartition.parse(text)
        except ValueError as exc:
            raise InputError(str(exc), field="TOPIC-PARTITION") from None
        if not cluster.exists(tp):
            raise InputError(f"{text!r}: no such partition in the cluster", field="TOPIC-PARTITION")
        chosen.append(tp)
    return list(dict.fromkeys(chosen))


def traced(run: AssignorRun) -> bool:
    """Whether the assignor recorded its decisions (built-ins do; user and legacy assignors do not)."""
    return run.trace is not None and bool(run.trace.context or run.trace.steps)


def explanations_of(run: AssignorRun, current: Assignment,
                    chosen: list[TopicPartition] | None) -> list[Explanation] | None:
    """None when the assignor recorded nothing (JSON: `explanations: null`), or failed."""
    if run.trace is None or run.assignment is None or not traced(run):
        return None
    return explain_run(run.trace, current, run.assignment, chosen)


def _replay(doc, timeline_out: str | None, output: OutputFormat) -> None:  # type: ignore[no-untyped-def]
    if timeline_out is not None and not timeline_out.endswith((".svg", ".html", ".htm")):
        raise InputError(f"{timeline_out!r}: the timeline is written as .svg or .html", field="--timeline-out")
    outcome = run_scenario(scenario_from_doc(doc))
    if timeline_out is not None:
        from kgroup.cli.render.timeline_svg import timeline_html, timeline_svg
        from kgroup.inspectors.files import write_atomically

        picture = timeline_svg(outcome) if timeline_out.endswith(".svg") else timeline_html(outcome)
        write_atomically(timeline_out, picture, field="--timeline-out")
    for line in outcome.scenario.warnings:
        warn(line)
    emit(document("scenario-run", outcome_body(outcome)), output, lambda console: print_outcome(console, outcome))


def _compare(doc, protocols: str, timeline_out: str | None,  # type: ignore[no-untyped-def]
             output: OutputFormat) -> None:
    from kgroup.inspectors.simulation.protocol_comparison import compare, parse_protocols

    names = parse_protocols(protocols)
    scenario = scenario_from_doc(doc)
    runs = compare(scenario, names)
    if timeline_out is not None:
        from kgroup.cli.render.timeline_svg import comparison_html
        from kgroup.inspectors.files import write_atomically

        write_atomically(timeline_out, comparison_html(scenario.source, runs), field="--timeline-out")
    for line in scenario.warnings:
        warn(line)
    emit(document("protocol-comparison", comparison_body(scenario, runs)), output,
         lambda console: print_comparison(console, scenario, runs))
