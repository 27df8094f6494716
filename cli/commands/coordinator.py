"""`kgroup coordinator`: which __consumer_offsets partition coordinates a group."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from kgroup.assignors.java.semantics import coordinator_partition, java_string_hash
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import NOT_LIVE, LiveOptions, OutputOpt, live_options
from kgroup.cli.output import OutputFormat, document, emit, warn
from kgroup.inspectors.errors import InputError

if TYPE_CHECKING:
    from kgroup.inspectors.live.coordinator_location import Located


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
        _emit_located(located, output)
        return
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

    def table(console):
        from rich.table import Table

        t = Table(show_edge=False, pad_edge=False)
        for column in ("GROUP", "HASH-CODE", "__consumer_offsets PARTITION"):
            t.add_column(column, justify="left" if column == "GROUP" else "right")
        for row in rows:
            t.add_row(row["group_id"], str(row["java_hash_code"]), f"{row['partition']} of {count}")
        console.print(t)

    emit(document("coordinator", {"groups": rows}), output, table)


def _emit_located(located: list[Located], output: OutputFormat) -> None:
    for one in located:
        if one.why_none is not None:
            warn(f"kgroup: note: {one.why_none}")

    def table(console):
        from rich.table import Table

        t = Table(show_edge=False, pad_edge=False)
        for column in ("GROUP", "HASH-CODE", "__consumer_offsets PARTITION", "COORDINATOR (ID)", "REPLICAS", "ISR"):
            t.add_column(column, justify="right" if column in ("HASH-CODE", "__consumer_offsets PARTITION") else "left")
        for one in located:
            t.add_row(
                one.group_id,
                str(java_string_hash(one.group_id)),
                f"{one.partition} of {one.partitions}",
                f"{one.address} ({one.leader})" if one.leader is not None else "none (no leader)",
                ",".join(map(str, one.replicas)),
                ",".join(map(str, one.isr)) or "-",
            )
        console.print(t)

    emit(document("coordinator", {"groups": [one.body() for one in located]}), output, table)
