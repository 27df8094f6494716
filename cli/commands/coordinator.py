"""`kgroup coordinator`: which __consumer_offsets partition coordinates a group."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from kgroup.assignors.java.semantics import coordinator_partition, java_string_hash
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import NOT_LIVE, LiveOptions, OutputOpt, live_options
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.inspectors.errors import InputError


@handle_errors
@live_options
def coordinator(
    group_ids: Annotated[list[str], typer.Argument(metavar="GROUP_ID...", help="One or more group ids.")],
    partitions: Annotated[
        Optional[int],
        typer.Option(
            "--partitions",
            "-p",
            min=1,
            help="offsets.topic.num.partitions of the cluster (default 50); with a cluster, its own count.",
            show_default=False,
        ),
    ] = None,
    live: LiveOptions = NOT_LIVE,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """The __consumer_offsets partition whose leader coordinates GROUP_ID.

    Kafka computes abs(groupId.hashCode()) % offsets.topic.num.partitions with Java semantics. With a cluster
    (-b), the partition count is the cluster's, and each group's coordinator is the partition's leader as the
    cluster's metadata shows it, with its replicas and in-sync replicas; a partition without a leader is said
    so, with which node to bring back. Nothing is sent to the coordinators.

    Examples:

      kgroup coordinator my-group

      kgroup coordinator orders-app billing --partitions 100 -o json

      kgroup coordinator orders-app -b localhost:9092
    """
    if partitions is not None and partitions > 2**31 - 1:  # offsets.topic.num.partitions is an int config
        raise InputError(f"at most {2**31 - 1} (Kafka's int), got {partitions}", field="--partitions")
    located = None
    if live.given:
        from kgroup.inspectors.live.coordinator_location import locate_on, not_shown

        admin = live.connect()
        located = locate_on(admin, group_ids)
        if located is None:
            warn(
                f"kgroup: note: {not_shown(admin.settings.bootstrap_servers)}; computed with --partitions "
                f"{partitions or 50}"
            )
        elif partitions is not None and partitions != located[0].partitions:
            warn(
                f"kgroup: note: --partitions {partitions} left aside: the cluster's __consumer_offsets has "
                f"{located[0].partitions} partitions"
            )
    if located is not None:
        for one in located:
            if one.why_none is not None:
                warn(f"kgroup: note: {one.why_none}")
        rows = [one.body() for one in located]
    else:
        count = partitions or 50
        rows = [
            {
                "group_id": g,
                "java_hash_code": java_string_hash(g),
                "partitions": count,
                "partition": coordinator_partition(g, count),
            }
            for g in group_ids
        ]
    emit(document("coordinator", {"groups": rows}), output, lambda console: console.print(_table(rows)))


_LIVE_COLUMNS = ("COORDINATOR (ID)", "REPLICAS", "ISR")  # a row read from a cluster (Located.body) has them


def _table(rows: list[dict[str, Any]]) -> Any:
    from rich.table import Table

    live = bool(rows) and "leader" in rows[0]
    t = Table(show_edge=False, pad_edge=False)
    t.add_column("GROUP")
    t.add_column("HASH-CODE", justify="right")
    t.add_column("__consumer_offsets PARTITION", justify="right")
    for column in _LIVE_COLUMNS if live else ():
        t.add_column(column)
    for row in rows:
        cells = [row["group_id"], str(row["java_hash_code"]), f"{row['partition']} of {row['partitions']}"]
        if live:
            leader = row["leader"]
            cells += [
                f"{leader['address']} ({leader['id']})" if leader is not None else "none (no leader)",
                ",".join(map(str, row["replicas"])),
                ",".join(map(str, row["isr"])) or "-",
            ]
        t.add_row(*cells)
    return t
