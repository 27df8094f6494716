"""`kgroup coordinator -b` on Apache Kafka: the cluster's own `__consumer_offsets` partition count decides.

A broker formatted with `offsets.topic.num.partitions=7` (not Kafka's 50) puts each group on partition
abs(hashCode) % 7. Before any group has used the broker `__consumer_offsets` does not exist (Kafka creates it at
the first FindCoordinator), so the command can only compute with --partitions and says so; once a group has
committed, it reads the count from the cluster, and the broker it names is the one Kafka's own FindCoordinator
answer names (confluent-kafka's describe, not kgroup's transport).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from tests.cli.helpers import run_process
from tests.kafka import broker as kafka_broker
from tests.live.conftest import require_kafka
from tests.live.traffic import commit, topic_with_records

OFFSETS_PARTITIONS = 7
GROUPS = ("billing", "orders-service", "my-group")  # on three different partitions of 7


def _partition_for(group: str, partitions: int) -> int:
    """GroupCoordinatorService.partitionFor by its definition: Utils.abs of Java's String.hashCode
    (s[0]*31^(n-1) + ... + s[n-1] in 32-bit two's complement), modulo the partition count."""
    code = 0
    for char in group:  # these ids are ASCII: one UTF-16 unit per character
        code = (31 * code + ord(char)) & 0xFFFFFFFF
    signed = code - (1 << 32) if code & 0x80000000 else code
    return abs(signed) % partitions


@pytest.fixture(scope="module")
def fresh_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kafka_broker.Node]:
    """A broker no group has used yet, with seven `__consumer_offsets` partitions; stopped by pid after."""
    require_kafka()
    node = kafka_broker.single(
        tmp_path_factory.mktemp("fresh-kafka"), extra={"offsets.topic.num.partitions": str(OFFSETS_PARTITIONS)}
    )
    node.start()
    try:
        yield node
    finally:
        node.stop(kill=True)


def test_the_coordinator_is_located_with_the_clusters_own_partition_count(fresh_kafka: kafka_broker.Node) -> None:
    broker = fresh_kafka.address
    before = run_process("coordinator", *GROUPS, "-b", broker, "-o", "json")
    assert before.returncode == 0, before.stderr
    assert before.stderr == (
        f"kgroup: note: __consumer_offsets is not in the metadata of {broker} (not created yet: Kafka creates it "
        "at the first FindCoordinator, with offsets.topic.num.partitions partitions; or this principal may not "
        "describe it); computed with --partitions 50\n"
    )
    assert [g["partitions"] for g in json.loads(before.stdout)["groups"]] == [50] * len(GROUPS)

    # Creates __consumer_offsets (FindCoordinator) and waits until each of its coordinators has loaded: an
    # explicit commit is not retried by confluent-kafka on NOT_COORDINATOR.
    kafka_broker.warm_up_coordinators(broker, OFFSETS_PARTITIONS)
    topic_with_records(broker, "orders", [3, 2])
    for group in GROUPS:
        commit(broker, group, {("orders", 0): 1})
    after = run_process("coordinator", *GROUPS, "-b", broker, "-o", "json")
    assert after.returncode == 0 and after.stderr == "", after.stderr
    located = json.loads(after.stdout)["groups"]
    admin = AdminClient({"bootstrap.servers": broker})  # kept alive until its answers are read
    described = admin.describe_consumer_groups(list(GROUPS), request_timeout=30)
    for group, where in zip(GROUPS, located):
        kafka = described[group].result(30).coordinator
        assert where["group_id"] == group and where["partitions"] == OFFSETS_PARTITIONS
        assert where["partition"] == _partition_for(group, OFFSETS_PARTITIONS)
        assert where["leader"] == {"id": kafka.id, "address": f"{kafka.host}:{kafka.port}"}
        assert where["replicas"] == [1] == where["isr"]
    assert len({w["partition"] for w in located}) == len(GROUPS)

    told = run_process("coordinator", "billing", "-b", broker, "--partitions", "50")
    assert told.returncode == 0
    assert (
        told.stderr == "kgroup: note: --partitions 50 left aside: the cluster's __consumer_offsets has 7 partitions\n"
    )
    assert f" {_partition_for('billing', 7)} of 7 " in told.stdout and f"{broker} (1)" in told.stdout, told.stdout


def test_an_unreachable_cluster_is_one_line_and_exit_4(tmp_path: Path) -> None:
    closed = f"127.0.0.1:{kafka_broker.free_port()}"
    done = run_process("coordinator", "billing", "-b", closed, "--timeout", "3")
    assert done.returncode == 4 and done.stdout == ""
    assert done.stderr.startswith(f"kgroup: error: cannot reach {closed} (from --bootstrap-server)"), done.stderr
    assert len(done.stderr.splitlines()) == 1
