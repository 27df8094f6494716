"""`kgroup assign`: run one assignor on a fixture's group as it stands."""

from __future__ import annotations

from typing import Annotated

import typer

from kgroup.cli.render import documents
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import NOT_LIVE, ClientOpt, FixtureArg, GroupOpt, LiveOptions, OutputOpt, live_options, load
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.cli.render.tables import client_ids, print_run
from kgroup.inspectors.errors import RunError
from kgroup.inspectors.simulation.whatif_run import WhatIfFlags, leader_client, require_valid, simulate


@handle_errors
@live_options
def assign(
    fixture: FixtureArg = None,
    assignor: Annotated[
        str, typer.Option("--assignor", "-a", help="A built-in assignor or package.module:Class.", metavar="NAME")
    ] = "",
    group: GroupOpt = None,
    client: ClientOpt = None,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """Compute the assignment an assignor gives the group's members.

    `-o yaml` writes a saved assignment that `kgroup diff` reads.

    Examples:

      kgroup assign seed-roundrobin --assignor roundrobin

      kgroup assign group.yaml -a range -o yaml > range.yaml

      kgroup assign group.yaml -a cooperative-sticky --client librdkafka

      kgroup assign -b localhost:9092 --group queue-workers      # a live group, read as `snapshot` reads it

    With --bootstrap-server (or --profile, --command-config) the group is read live instead of from a fixture.
    """
    if live.given:
        from kgroup.inspectors.simulation.whatif import from_live_options

        loaded = from_live_options(live.connect, fixture, group, WhatIfFlags(), "assignment").fixture
    else:
        loaded = load(fixture)
    sim = simulate(
        loaded, group, [assignor] if assignor else [], [], [], [], [], leader_client(loaded, group, client)[0]
    )
    run = sim.runs[0]
    require_valid(sim.runs)
    if run.error is not None or run.assignment is None:
        raise RunError(f"assignor {run.assignor}: {run.error}")
    body = {
        "group_id": sim.before.group.group_id,
        "assignor": run.assignor,
        "assignment": (
            documents.compact_assignment(run.assignment)
            if output is OutputFormat.yaml
            else documents.assignment(run.assignment)
        ),
    }
    if run.threads is not None:
        body["threads"] = {t: documents.partitions(p) for t, p in run.threads.items()}
    for line in loaded.warnings:
        warn(line)
    clients = client_ids(sim.before.group.members)
    emit(document("assignment", body), output, lambda console: print_run(console, run, run.assignor, clients))
