"""kgroup's model of a KIP-848 coordinator's member order against Kafka 4.2.1's own `TimelineHashMap`.

`TargetAssignmentBuilder.build` puts a group's members into its HashMap as the group's TimelineHashMap of
members iterates them, so where two member ids share a bucket of that HashMap, the assignor sees them in that
order (issue 36: a CI replay of consumer-protocol-join-leave once swapped two partitions because kgroup used
join order). A seeded generator draws member lifecycles (joins, which replay a member record and then an
assignment record; record updates; leaves) over ids shaped like Kafka's (22 base64url characters) and short ones;
tests/oracle/java/TimelineOrder.java replays them on Kafka's class, kgroup on `TimelineHashTable`, and the
iteration order must be the same after every operation. `KGROUP_TIMELINE_ORACLE_CASES` sets the count.
"""

from __future__ import annotations

import base64
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kgroup.assignors.java.timeline_table import TimelineHashTable, timeline_slot
from tests.oracle.json_main import json_main

RELEASE = "4.2.1"
CASES = int(os.environ.get("KGROUP_TIMELINE_ORACLE_CASES") or 300)
SEED = 4107
SOURCE = Path(__file__).parent / "java" / "TimelineOrder.java"

Ops = list[list[str]]


@pytest.fixture(scope="module")
def kafka_orders() -> Iterator[Callable[[list[Ops]], list[list[list[str]]]]]:
    with json_main(SOURCE, RELEASE, "the TimelineHashMap oracle", heap="256m") as run:
        yield run


def _member_id(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return f"m{rng.randrange(40)}"  # short ids: many share a slot in a small table
    return base64.urlsafe_b64encode(rng.randbytes(16)).decode().rstrip("=")  # Uuid.randomUuid().toString()


def _lifecycle(rng: random.Random) -> Ops:
    """Joins (member record, then assignment record), record updates and leaves, an order asked after each."""
    ops: Ops = []
    present: list[str] = []
    for _ in range(rng.randrange(1, 40)):
        roll = rng.random()
        if present and roll < 0.25:
            ops.append(["remove", present.pop(rng.randrange(len(present)))])
        elif present and roll < 0.4:
            ops.append(["put", rng.choice(present)])
        else:
            member = _member_id(rng)
            ops += [["put", member], ["put", member]]
            if member not in present:
                present.append(member)
        ops.append(["order"])
    return ops


def _kgroup_orders(ops: Ops) -> list[list[str]]:
    table = TimelineHashTable()
    orders = []
    for op in ops:
        if op[0] == "put":
            table.put(op[1])
        elif op[0] == "remove":
            table.remove(op[1])
        else:
            orders.append(table.order())
    return orders


def test_iteration_order_matches_kafka(kafka_orders: Callable[[list[Ops]], list[list[list[str]]]]) -> None:
    rng = random.Random(SEED)
    cases = [_lifecycle(rng) for _ in range(CASES)]
    answers = kafka_orders(cases)
    shared_slot = 0  # cases whose final table has a slot of two or more keys: the newest-first rule at work
    for ops, kafka in zip(cases, answers):
        assert _kgroup_orders(ops) == kafka, f"operations {ops}"
        table = TimelineHashTable()
        for op in ops:
            if op[0] == "put":
                table.put(op[1])
            elif op[0] == "remove":
                table.remove(op[1])
        slots = [timeline_slot(key, table.capacity) for key in table.order()]
        shared_slot += len(set(slots)) < len(slots)
    assert shared_slot >= CASES // 10, f"only {shared_slot} of {CASES} cases put two keys in one slot"


def test_a_table_listed_in_kafkas_order_iterates_in_it(
    kafka_orders: Callable[[list[Ops]], list[list[list[str]]]],
) -> None:
    """How kgroup loads a group from a describe (members as the coordinator iterates them): built anew from
    that list, the table must iterate in it, same-slot members newest first included."""
    rng = random.Random(SEED + 1)
    cases: list[Ops] = []
    for _ in range(CASES // 3):
        members = list(dict.fromkeys(_member_id(rng) for _ in range(rng.randrange(2, 60))))
        cases.append([op for m in members for op in (["put", m], ["put", m])] + [["order"]])
    for ops, kafka in zip(cases, kafka_orders(cases)):
        listed = kafka[0]
        assert TimelineHashTable.listed(listed).order() == listed, f"listed {listed}"
