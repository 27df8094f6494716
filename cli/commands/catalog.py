"""`kgroup assignors` and `kgroup fixtures`: what kgroup ships."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from kgroup.assignors import registry
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import OutputOpt
from kgroup.cli.output import OutputFormat, document, emit
from kgroup.inspectors.fixtures.bundled import bundled_names, bundled_path
from kgroup.inspectors.fixtures.group_file import fixture_from_doc
from kgroup.inspectors.fixtures.scenario_file import is_scenario, scenario_from_doc
from kgroup.inspectors.fixtures.yaml_doc import read_yaml


@handle_errors
def assignors(
    output: OutputOpt = OutputFormat.table,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="Also show the Kafka class and the versions that changed its output."),
    ] = False,
) -> None:
    """List the built-in assignors, one line each.

    kgroup reproduces Kafka 4.0. --verbose lists, per assignor, the Kafka versions whose changes alter
    its output, so a prediction for an older client can be read with care.
    A user assignor plugs in anywhere an assignor is named, as --assignor package.module:Class.

    Example:

      kgroup assignors --verbose
    """
    # share-simple last: it runs for share groups only (registry.SHARE_BUILTINS), never for a consumer group
    infos = [registry.info(name) for name in registry.known_names()] + [
        registry.share_info(name) for name in registry.share_names()
    ]
    rows = [
        {
            "name": i.name,
            "side": i.side,
            "protocol": i.protocol,
            "summary": i.summary,
            "kafka_source": i.kafka_source,
            "history": [{"version": v, "change": c} for v, c in i.history],
        }
        for i in infos
        if i
    ]

    def table(console):
        t = Table(show_edge=False, pad_edge=False)
        for column in ("NAME", "SIDE", "PROTOCOL", "SUMMARY"):
            t.add_column(column, overflow="fold")
        for row in rows:
            t.add_row(row["name"], row["side"], row["protocol"], row["summary"])
        console.print(t)
        if not verbose:
            return
        for row in rows:
            console.print()
            console.print(f"{row['name']}  ({row['kafka_source']})", markup=False, highlight=False)
            for change in row["history"]:
                console.print(f"  {change['version']:>5}  {change['change']}", markup=False, highlight=False)
            if not row["history"]:
                console.print("  no output-changing versions recorded", markup=False, highlight=False)

    emit(document("assignors", {"kafka_version": "4.0", "assignors": rows}), output, table)


@handle_errors
def fixtures(output: OutputOpt = OutputFormat.table) -> None:
    """List the bundled fixtures and scenarios; pass a name wherever a file is expected.

    Examples:

      kgroup simulate seed-roundrobin

      kgroup simulate scenario-storm
    """
    rows = []
    for name in bundled_names():
        doc = read_yaml(bundled_path(name) or name)
        if is_scenario(doc):
            scenario = scenario_from_doc(doc)
            rows.append(
                {
                    "name": name,
                    "kind": "scenario",
                    "groups": [scenario.group.group_id],
                    "description": scenario.description,
                    "path": doc.source,
                }
            )
        else:
            fixture = fixture_from_doc(doc)
            rows.append(
                {
                    "name": name,
                    "kind": "fixture",
                    "groups": [g.group_id for g in fixture.groups],
                    "description": doc.data.get("description"),
                    "path": fixture.source,
                }
            )

    def table(console):
        t = Table(show_edge=False, pad_edge=False)
        for column in ("NAME", "KIND", "GROUPS", "DESCRIPTION"):
            t.add_column(column, overflow="fold")
        for row in rows:
            t.add_row(row["name"], row["kind"], ", ".join(row["groups"]), row["description"] or "")
        console.print(t)

    emit(document("fixtures", {"fixtures": rows}), output, table)
