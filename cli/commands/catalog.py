"""`kgroup assignors` and `kgroup fixtures`: what kgroup ships."""

from __future__ import annotations

from rich.table import Table

from kgroup.assignors import registry
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import OutputOpt
from kgroup.cli.output import OutputFormat, document, emit
from kgroup.inspectors.assignor_lookup import PLANNED
from kgroup.inspectors.bundled import bundled_names, bundled_path
from kgroup.inspectors.fixtures import load_fixture


@handle_errors
def assignors(output: OutputOpt = OutputFormat.table) -> None:
    """List the built-in assignors, one line each.

    A user assignor plugs in anywhere an assignor is named, as --assignor package.module:Class.

    Example:

      kgroup assignors
    """
    infos = [registry.info(name) for name in registry.known_names()]
    rows = [{"name": i.name, "side": i.side, "protocol": i.protocol, "summary": i.summary,
             "kafka_source": i.kafka_source} for i in infos if i]

    def table(console):  # type: ignore[no-untyped-def]
        t = Table(show_edge=False, pad_edge=False)
        for column in ("NAME", "SIDE", "PROTOCOL", "SUMMARY"):
            t.add_column(column, overflow="fold")
        for row in rows:
            t.add_row(row["name"], row["side"], row["protocol"], row["summary"])
        console.print(t)
        console.print(f"Not implemented yet: {', '.join(PLANNED)}", markup=False)

    emit(document("assignors", {"assignors": rows, "not_implemented": list(PLANNED)}), output, table)


@handle_errors
def fixtures(output: OutputOpt = OutputFormat.table) -> None:
    """List the bundled fixtures; pass a name wherever a fixture file is expected.

    Example:

      kgroup simulate seed-roundrobin
    """
    rows = []
    for name in bundled_names():
        fixture = load_fixture(bundled_path(name) or name)
        rows.append({"name": name, "groups": [g.group_id for g in fixture.groups],
                     "path": fixture.source})

    def table(console):  # type: ignore[no-untyped-def]
        t = Table(show_edge=False, pad_edge=False)
        for column in ("NAME", "GROUPS", "PATH"):
            t.add_column(column, overflow="fold")
        for row in rows:
            t.add_row(row["name"], ", ".join(row["groups"]), row["path"])
        console.print(t)

    emit(document("fixtures", {"fixtures": rows}), output, table)
