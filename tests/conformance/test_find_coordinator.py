"""FindCoordinator vectors computed with real Java: group id -> __consumer_offsets partition."""

from __future__ import annotations

import pytest

from kgroup.assignors.java.semantics import coordinator_partition, java_string_hash, kafka_abs
from tests.conformance.cases import coordinator_vectors

VECTORS = coordinator_vectors()


@pytest.mark.parametrize("vector", VECTORS, ids=[repr(v["group_id"])[:40] for v in VECTORS])
def test_partition_for_group(vector: dict) -> None:
    group_id = vector["group_id"]
    assert java_string_hash(group_id) == vector["java_hash_code"]
    assert kafka_abs(vector["java_hash_code"]) == vector["kafka_abs"]
    for partitions, expected in vector["partition"].items():
        assert coordinator_partition(group_id, int(partitions)) == expected


def test_vectors_found() -> None:
    assert VECTORS, "find-coordinator.yaml has no vectors"
