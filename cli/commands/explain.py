"""`kgroup explain`: why each partition goes where it goes, in the assignor's own recorded steps."""

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
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.whatif import print_whatif, whatif_body, whatif_notes
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.fixtures.bundled import locate
from kgroup.inspectors.fixtures.scenario_file import is_scenario, scenario_from_doc, with_client
from kgroup.inspectors.fixtures.yaml_doc import read_yaml
from kgroup.inspectors.simulation.whatif import (
    WhatIfAnswer,
    answer,
    chosen_partitions,
    from_document,
    from_live_options,
)


def _scenario(doc, chosen: list[str], output: OutputFormat, client: str | None) -> None:
    """The rebalances that moved each partition, their triggers, and why it went unconsumed."""
    from kgroup.cli.render.explanations import print_stories, story_body
    from kgroup.inspectors.simulation.scenario_explain import stories
    from kgroup.inspectors.simulation.scenario_run import run_scenario

    scenario = with_client(scenario_from_doc(doc), client)
    outcome = run_scenario(scenario)
    partitions = chosen_partitions(chosen, scenario.cluster) if chosen else None
    told = stories(outcome, partitions)
    for line in scenario.warnings:
        warn(line)
    emit(
        document(
            "scenario-explanation",
            {
                "source": scenario.source,
                "group_id": scenario.group.group_id,
                "partitions": [story_body(s) for s in told],
            },
        ),
        output,
        lambda console: print_stories(console, told),
    )


@handle_errors
@live_options
def explain(
    fixture: FixtureArg = None,
    partitions: Annotated[
        Optional[list[str]],
        typer.Argument(
            help="TOPIC-PARTITION to explain (several, or comma-separated). Default: every partition that moves.",
            metavar="TOPIC-PARTITION",
            show_default=False,
        ),
    ] = None,
    group: GroupOpt = None,
    assignor: AssignorsOpt = None,
    add_member: AddMemberOpt = None,
    remove_member: RemoveMemberOpt = None,
    add_partitions: AddPartitionsOpt = None,
    subscribe: SubscribeOpt = None,
    add_topic: AddTopicOpt = None,
    client: ClientOpt = None,
    instance: InstanceOpt = None,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Explain why each partition goes to its owner: the assignor's rule and the inputs it read.

    Takes the same what-if flags as `kgroup simulate`; the assignor records each decision while it
    runs (member sort order and quotas for range, the cursor for roundrobin, kept/revoked/balancing
    moves for the sticky assignors and uniform), so the answer is the assignment's own reasoning.

    Examples:

      kgroup explain demo --add-member c4

      kgroup explain demo orders-3 --add-member c4 -a cooperative-sticky

      kgroup explain kip848-uniform -o json

      kgroup explain -b localhost:9092 --group orders-service orders-3 --add-member c4

      kgroup explain scenario-gc-pause payments-2

    Given a scenario (`kind: scenario`), it tells each partition's story instead: the rebalances that
    moved it and their triggers, and each stretch it went unconsumed, why it began and what ended it.
    """
    chosen = list(partitions or [])
    flags = what_if_flags(assignor, add_member, remove_member, add_partitions, subscribe, client, instance, add_topic)
    if live.given:
        if fixture is not None:  # with a live cluster, every positional argument is a partition
            chosen.insert(0, fixture)
        given = from_live_options(live.connect, None, group, flags, "explanation")
        _show(answer(given, explain=chosen or True), output)
        return
    doc = read_yaml(locate(fixture)) if fixture is not None else None
    if doc is not None and is_scenario(doc):
        if flags.changes_anything or flags.assignors or group:
            raise InputError(
                "what-if flags (--assignor, --add-member, ...) apply to fixtures; a scenario lists its own events",
                doc.source,
            )
        _scenario(doc, chosen, output, client)
        return
    given = from_document(doc if doc is not None else read_yaml(locate(None)), group, flags)
    _show(answer(given, explain=chosen or True), output)


def _show(answered: WhatIfAnswer, output: OutputFormat) -> None:
    for line in whatif_notes(answered):
        warn(line)
    emit(
        document("explanation", whatif_body(answered)),
        output,
        lambda console: print_whatif(console, answered, "explanation"),
    )
