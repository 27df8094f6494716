"""`kgroup simulate`: what-if changes to a group, run through one or more assignors side by side."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kgroup.cli.errors import handle_errors
from kgroup.cli.options import NOT_LIVE, LiveOptions, live_options
from kgroup.cli.options import (
    AddMemberOpt,
    AddPartitionsOpt,
    AddTopicOpt,
    AssignorsOpt,
    ClientOpt,
    FixtureArg,
    GroupOpt,
    InstanceOpt,
    OutputOpt,
    RemoveMemberOpt,
    SubscribeOpt,
    what_if_flags,
)
from kgroup.cli.render.scenario import comparison_body, outcome_body, print_comparison, print_outcome
from kgroup.inspectors.fixtures.bundled import locate
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.fixtures.scenario_file import is_scenario, scenario_from_doc, with_client
from kgroup.inspectors.simulation.scenario_run import run_scenario
from kgroup.inspectors.fixtures.yaml_doc import read_yaml
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.whatif import print_whatif, whatif_body, whatif_notes
from kgroup.inspectors.simulation.whatif import WhatIfAnswer, answer, from_document, from_live_options


@handle_errors
@live_options
def simulate(
    fixture: FixtureArg = None,
    group: GroupOpt = None,
    assignor: AssignorsOpt = None,
    add_member: AddMemberOpt = None,
    remove_member: RemoveMemberOpt = None,
    add_partitions: AddPartitionsOpt = None,
    subscribe: SubscribeOpt = None,
    add_topic: AddTopicOpt = None,
    save_plan: Annotated[
        Optional[str],
        typer.Option(
            "--save-plan",
            help="Also write the group and these what-if flags to FILE (kind: plan), which `check`, "
            "`diff` and `simulate` read back.",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
    timeline_out: Annotated[
        Optional[str],
        typer.Option(
            "--timeline-out",
            help="Scenarios: write the partition-ownership timeline to FILE (.svg or .html); "
            "with --protocol, one timeline per design in one .html page.",
            metavar="FILE",
        ),
    ] = None,
    protocol: Annotated[
        Optional[str],
        typer.Option(
            "--protocol",
            help="Scenarios: compare designs on the same events, e.g. classic-eager,classic-cooperative,"
            "consumer,zk-watcher,external.",
            metavar="LIST",
            show_default=False,
        ),
    ] = None,
    client: ClientOpt = None,
    instance: InstanceOpt = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="For each partition that moved, the rule that decided its owner and the inputs it read "
            "(`kgroup explain` names partitions).",
        ),
    ] = False,
    live: LiveOptions = NOT_LIVE,
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
    flags = what_if_flags(assignor, add_member, remove_member, add_partitions, subscribe, client, instance, add_topic)
    if live.given:
        given = from_live_options(live.connect, fixture, group, flags, "what-if")
        show_what_if(answer(given, explain or None, save_plan), output)
        return
    doc = read_yaml(locate(fixture)) if fixture is not None else None
    if doc is not None and is_scenario(doc):
        if flags.changes_anything or flags.assignors or group or save_plan or explain:
            raise InputError(
                "what-if flags (--assignor, --add-member, --save-plan, ...) apply to fixtures; a "
                "scenario lists its own events",
                doc.source,
            )
        if protocol is not None:
            if timeline_out is not None and not timeline_out.endswith((".html", ".htm")):
                raise InputError(
                    f"{timeline_out!r}: with --protocol the timelines (one per design) are written as one .html page",
                    field="--timeline-out",
                )
            _compare(doc, protocol, timeline_out, output, client)
            return
        _replay(doc, timeline_out, output, client)
        return
    if protocol is not None:
        raise InputError(
            "--protocol compares designs on a scenario (kind: scenario), not a fixture", field="--protocol"
        )
    if timeline_out is not None:
        raise InputError("--timeline-out needs a scenario (kind: scenario), not a fixture", field="--timeline-out")
    given = from_document(doc if doc is not None else read_yaml(locate(None)), group, flags)
    show_what_if(answer(given, explain or None, save_plan), output)


def show_what_if(answered: WhatIfAnswer, output: OutputFormat) -> None:
    for line in whatif_notes(answered):
        warn(line)
    emit(
        document("simulation", whatif_body(answered)),
        output,
        lambda console: print_whatif(console, answered, "simulation"),
    )


def _replay(doc, timeline_out: str | None, output: OutputFormat, client: str | None) -> None:  # type: ignore[no-untyped-def]
    if timeline_out is not None and not timeline_out.endswith((".svg", ".html", ".htm")):
        raise InputError(f"{timeline_out!r}: the timeline is written as .svg or .html", field="--timeline-out")
    outcome = run_scenario(with_client(scenario_from_doc(doc), client))
    if timeline_out is not None:
        from kgroup.cli.render.timeline_svg import timeline_html, timeline_svg
        from kgroup.inspectors.files import write_atomically

        picture = timeline_svg(outcome) if timeline_out.endswith(".svg") else timeline_html(outcome)
        write_atomically(timeline_out, picture, field="--timeline-out")
    for line in outcome.scenario.warnings:
        warn(line)
    emit(
        lambda: document("scenario-run", outcome_body(outcome)), output, lambda console: print_outcome(console, outcome)
    )


def _compare(
    doc,
    protocols: str,
    timeline_out: str | None,  # type: ignore[no-untyped-def]
    output: OutputFormat,
    client: str | None,
) -> None:
    from kgroup.inspectors.simulation.protocol_comparison import compare, parse_protocols

    names = parse_protocols(protocols)
    scenario = with_client(scenario_from_doc(doc), client)
    runs = compare(scenario, names, timelines=timeline_out is not None)
    if timeline_out is not None:
        from kgroup.cli.render.timeline_svg import comparison_html
        from kgroup.inspectors.files import write_atomically

        write_atomically(timeline_out, comparison_html(scenario, runs), field="--timeline-out")
    for line in scenario.warnings:
        warn(line)
    emit(
        document("protocol-comparison", comparison_body(scenario, runs)),
        output,
        lambda console: print_comparison(console, scenario, runs),
    )
