"""`kgroup simulate`: what-if changes to a group, run through one or more assignors side by side."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kgroup.cli.render import documents
from kgroup.cli.render.alternatives import alternatives_body, alternatives_notes
from kgroup.cli.render.handover import handover_body, print_handover
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import (
    AddMemberOpt, AddPartitionsOpt, AddTopicOpt, AssignorsOpt, BootstrapOpt, ClientOpt, CommandConfigOpt, FixtureArg, GroupOpt,
    InstanceOpt, OutputOpt, ProfileOpt, RemoveMemberOpt, SubscribeOpt, TimeoutOpt, connect, what_if_flags,
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
from kgroup.inspectors.simulation.whatif_run import leader_client, require_valid, simulate_flags
from kgroup.inspectors.simulation.live_whatif import read_live
from kgroup.inspectors.fixtures.plan_file import is_plan, plan_from_doc
from kgroup.inspectors.simulation.gate import plan_flags


@handle_errors
def simulate(
    fixture: FixtureArg = None,
    group: GroupOpt = None,
    assignor: AssignorsOpt = None,
    add_member: AddMemberOpt = None,
    remove_member: RemoveMemberOpt = None,
    add_partitions: AddPartitionsOpt = None,
    subscribe: SubscribeOpt = None,
    add_topic: AddTopicOpt = None,
    save_plan: Annotated[Optional[str], typer.Option(
        "--save-plan", help="Also write the group and these what-if flags to FILE (kind: plan), which `check`, "
        "`diff` and `simulate` read back.", metavar="FILE", show_default=False)] = None,
    timeline_out: Annotated[Optional[str], typer.Option(
        "--timeline-out", help="Scenarios: write the partition-ownership timeline to FILE (.svg or .html); "
        "with --protocol, one timeline per design in one .html page.",
        metavar="FILE")] = None,
    protocol: Annotated[Optional[str], typer.Option(
        "--protocol", help="Scenarios: compare designs on the same events, e.g. classic-eager,classic-cooperative,"
        "consumer,zk-watcher,external.", metavar="LIST", show_default=False)] = None,
    client: ClientOpt = None,
    instance: InstanceOpt = None,
    explain: Annotated[bool, typer.Option(
        "--explain", help="For each partition that moved, the rule that decided its owner and the inputs it read "
        "(`kgroup explain` names partitions).")] = False,
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

      kgroup simulate group.yaml --add-member c4=orders,audit --add-topic audit=8

      kgroup simulate scenario-storm --timeline-out storm.html

      kgroup simulate scenario-tour --protocol classic-eager,classic-cooperative,consumer,zk-watcher,external

      kgroup simulate -b localhost:9092 --group orders-service --add-member c4

    With --bootstrap-server (or --profile, --command-config) the group is read live, as `kgroup
    snapshot` would save it, instead of from a fixture.
    """
    flags = what_if_flags(assignor, add_member, remove_member, add_partitions, subscribe, client, instance,
                          add_topic)
    if bootstrap_server or command_config or profile:
        if fixture is not None:
            raise InputError("give a fixture or a live cluster (--bootstrap-server), not both", field="--bootstrap-server")
        if group is None:
            raise InputError("a live what-if needs the group: --group G", field="--group")
        read = read_live(connect(bootstrap_server, command_config, profile, timeout), group, flags)
        _what_if(read.fixture, group, read.flags, output,
                 lambda: _save_plan(save_plan, read.document, read.source, group, read.flags), read.client_reason,
                 explain or None)
        return
    doc = read_yaml(locate(fixture)) if fixture is not None else None
    if doc is not None and is_scenario(doc):
        if flags.changes_anything or flags.assignors or group or save_plan or explain:
            raise InputError("what-if flags (--assignor, --add-member, --save-plan, ...) apply to fixtures; a "
                             "scenario lists its own events", doc.source)
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
    if doc is None:
        doc = read_yaml(locate(None))
    loaded, chosen, flags = fixture_or_plan(doc, group, flags)
    raw = doc.data
    _what_if(loaded, chosen, flags, output, lambda: _save_plan(save_plan, raw, loaded.source, chosen, flags),
             explain=explain or None)


def fixture_or_plan(doc, group: str | None, flags):  # type: ignore[no-untyped-def]
    """The fixture and group a what-if runs on, and its flags: a plan's own flags first, then the ones given."""
    if is_plan(doc):
        plan = plan_from_doc(doc)
        if group is not None and group != plan.group_id:
            raise InputError(f"the plan is for group {plan.group_id!r}, not {group!r}", doc.source)
        loaded = plan.fixture
        return loaded, loaded.group(plan.group_id).group_id, plan_flags(plan).then(flags)
    loaded = fixture_from_doc(doc)
    return loaded, loaded.group(group).group_id, flags


def _save_plan(path: str | None, fixture_data, source: str, group_id: str, flags) -> None:  # type: ignore[no-untyped-def]
    """The group as it is and the flags, not the result: `check` and `diff` replay them (plan_file.py)."""
    if path is None:
        return
    import yaml

    from kgroup.inspectors.files import write_atomically
    from kgroup.inspectors.fixtures.plan_file import plan_document

    values = {"assignor": flags.assignors, "add_member": flags.add_members, "remove_member": flags.remove_members,
              "add_partitions": flags.add_partitions, "subscribe": flags.subscribe, "instance": flags.instances,
              "add_topic": flags.add_topics, "absent_topic": flags.absent_topics}
    body = plan_document(source, fixture_data, group_id, values, flags.client)
    write_atomically(path, yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=120), field="--save-plan")


def _what_if(loaded: Fixture, group: str | None, flags, output: OutputFormat,  # type: ignore[no-untyped-def]
             save=lambda: None, live_reason: str | None = None, explain: bool | list[str] | None = None,
             kind: str = "simulation") -> None:
    """`explain`: None for no explanations, True for every partition that moved, or the partitions named."""
    client, why = leader_client(loaded, group, flags.client)
    if flags.client is None and live_reason:
        why = live_reason
    sim = simulate_flags(loaded, group, flags, explain=explain is not None)
    require_valid(sim.runs)
    save()  # only once the flags are known good: no plan file for a what-if that cannot run
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
        "client": client,
        "client_from": why,
        "warnings": list(loaded.warnings) + list(sim.warnings),
        # Subscribed topics the cluster does not have after the changes: Kafka assigns nothing of them.
        "unknown_topics": {topic: list(members) for topic, members in sim.unknown_topics.items()},
        "current": documents.assignment(before.assignment),
        "results": [{**documents.run_body(run),
                     **({"explanations": None if explained[run.assignor] is None
                         else [explanation_body(item) for item in explained[run.assignor]]}
                        if run.assignor in explained else {}),
                     **alternatives_body(sim, run.assignor),
                     **({"reconciliation": handover_body(sim.handovers[run.assignor])}
                        if run.assignor in sim.handovers else {})}
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
            if run.assignor in sim.handovers and kind == "simulation":
                print_handover(console, sim.handovers[run.assignor], run.assignor)
            if run.assignor in explained:
                if kind == "simulation":
                    console.print(f"Why ({run.assignor}):", style="bold")
                print_explanations(console, explained[run.assignor] or [], run.assignor, traced(run))
        if len(sim.runs) > 1 and kind == "simulation":
            console.print(comparison_table(sim.runs))

    for line in loaded.warnings + sim.warnings:
        warn(line)
    if flags.client is None and client != "java":
        warn(f"note: assignors run as {client}'s leader runs them ({why}); --client java to compare")
    for line in alternatives_notes(sim):
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
    """Whether the assignor recorded its decisions (built-ins do; user assignors do not)."""
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

        write_atomically(timeline_out, comparison_html(scenario, runs), field="--timeline-out")
    for line in scenario.warnings:
        warn(line)
    emit(document("protocol-comparison", comparison_body(scenario, runs)), output,
         lambda console: print_comparison(console, scenario, runs))
