"""A three-node Apache Kafka cluster: the coordinator kgroup reports is the one Kafka chose, and every
node answers for the whole cluster.

Kafka places a group on the leader of `__consumer_offsets` partition abs(groupId.hashCode) % 50
(GroupCoordinatorService.partitionFor / `kgroup coordinator`); with three nodes the groups below are
spread over all of them, so a wrong hash or a wrong leader lookup shows.
"""

from __future__ import annotations

import json

from confluent_kafka.admin import AdminClient

from tests.cli.helpers import run
from tests.kafka.broker import Node
from tests.live.traffic import commit, topic_with_records


def _offsets_leaders(bootstrap: str) -> dict[int, int]:
    topics = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=30).topics
    return {p.id: p.leader for p in topics["__consumer_offsets"].partitions.values()}


def test_each_groups_coordinator_is_the_leader_of_its_offsets_partition(
    kafka_cluster: list[Node], names: tuple[str, str]
) -> None:
    topic, group = names
    bootstrap = ",".join(node.address for node in kafka_cluster)
    topic_with_records(bootstrap, topic, [3, 3, 3])
    groups = [f"{group}-{i}" for i in range(12)]
    for g in groups:
        commit(bootstrap, g, {(topic, 0): 1})

    placed = run("coordinator", *groups, "-o", "json")
    listed = run("groups", "-b", kafka_cluster[2].address, "-r", f"^{group}-", "-o", "json")

    assert placed.exit_code == 0 and listed.exit_code == 0, placed.output + listed.output
    partition_of = {row["group_id"]: row["partition"] for row in json.loads(placed.stdout)["groups"]}
    leaders = _offsets_leaders(bootstrap)
    reported = {g["group"]: g["coordinator"]["id"] for g in json.loads(listed.stdout)["groups"]}
    assert reported == {g: leaders[partition_of[g]] for g in groups}
    assert len(set(reported.values())) == 3  # the twelve groups landed on all three nodes


def test_describe_through_any_node_gives_the_same_answer(kafka_cluster: list[Node], names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(kafka_cluster[0].address, topic, [4, 2])
    commit(kafka_cluster[0].address, group, {(topic, 0): 3, (topic, 1): 2})

    answers = []
    for node in kafka_cluster:
        result = run("describe", group, "-b", node.address, "-o", "json")
        assert result.exit_code == 0, result.output
        (body,) = json.loads(result.stdout)["groups"]
        answers.append({(p["topic"], p["partition"]): (p["current_offset"], p["lag"]) for p in body["partitions"]})

    assert answers == [{(topic, 0): (3, 1), (topic, 1): (2, 0)}] * 3
