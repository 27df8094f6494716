"""Assignments of the same topic share one TopicPartition object per partition.

The classic simulator keeps every consumption segment of a run; a thousand eager rebalances of 100,000
partitions would otherwise hold a hundred million partition objects (bench/simulator.py's shape).
"""

from __future__ import annotations

import pytest

from kgroup.assignors.model import Cluster, Member, Topic
from kgroup.assignors.registry import builtin


@pytest.mark.parametrize("name", ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"])
def test_two_assignments_hand_out_the_same_partition_objects(name: str) -> None:
    cluster = Cluster((Topic("orders", 8), Topic("payments", 3)))
    first = builtin(name).assign(cluster, [Member("a", ("orders", "payments")), Member("b", ("orders", "payments"))])
    second = builtin(name).assign(cluster, [Member("c", ("orders", "payments")), Member("a", ("orders", "payments"))])
    objects = {id(tp) for parts in first.owners.values() for tp in parts}
    again = {id(tp) for parts in second.owners.values() for tp in parts}
    assert len(objects) == 11
    assert objects == again
