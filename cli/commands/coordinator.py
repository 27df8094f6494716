"""`kgroup coordinator`: which __consumer_offsets partition coordinates a group."""

from __future__ import annotations

from typing import Annotated

import typer

from kgroup.assignors.java.semantics import coordinator_partition, java_string_hash
from kgroup.cli.errors import handle_errors
from kgroup.cli.options import OutputOpt
from kgroup.cli.output import OutputFormat, document, emit
from kgroup.inspectors.errors import InputError


@handle_errors
def coordinator(
    group_ids: Annotated[list[str], typer.Argument(metavar="GROUP_ID...", help="One or more group ids.")],
    partitions: Annotated[
        int, typer.Option("--partitions", "-p", min=1, help="offsets.topic.num.partitions of the cluster.")
    ] = 50,
    output: OutputOpt = OutputFormat.table,
) -> None:
    """The __consumer_offsets partition whose leader coordinates GROUP_ID.

    Kafka computes abs(groupId.hashCode()) % offsets.topic.num.partitions with Java semantics.

    Examples:

      kgroup coordinator my-group

      kgroup coordinator orders-app billing --partitions 100 -o json
    """
    if partitions > 2**31 - 1:  # offsets.topic.num.partitions is an int config (KafkaConfig)
        raise InputError(f"at most {2**31 - 1} (Kafka's int), got {partitions}", field="--partitions")
    rows = [
        {
            "group_id": g,
            "java_hash_code": java_string_hash(g),
            "partitions": partitions,
            "partition": coordinator_partition(g, partitions),
        }
        for g in group_ids
    ]

    def table(console):
        from rich.table import Table

        t = Table(show_edge=False, pad_edge=False)
        for column in ("GROUP", "HASH-CODE", "__consumer_offsets PARTITION"):
            t.add_column(column, justify="left" if column == "GROUP" else "right")
        for row in rows:
            t.add_row(row["group_id"], str(row["java_hash_code"]), f"{row['partition']} of {partitions}")
        console.print(t)

    emit(document("coordinator", {"groups": rows}), output, table)
