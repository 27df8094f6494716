"""The key live test: kgroup's predicted assignment is what real consumers receive, on Apache Kafka.

Real consumers join and leave a group on the real broker: confluent-kafka's (librdkafka's assignors:
range, roundrobin, cooperative-sticky) and Kafka's Java consumer of the broker's release (range,
roundrobin, sticky, cooperative-sticky), on the classic protocol. After each change, the test
writes the group as kgroup sees it (the members' real member ids and subscriptions, and what each held
before the change, which cooperative-sticky reads) to a kgroup/v1 fixture, runs `kgroup assign` with
the group's assignor, and asserts the prediction equals what the consumers were given in their
on_assign callbacks once the group settled. A leave is a graceful close (LeaveGroup).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from confluent_kafka.admin import AdminClient, NewTopic

from tests.cli.helpers import run
from tests.live import java_consumers
from tests.live.real_consumers import Consumers
from tests.live.real_group import RealGroup

PARTITIONS = 6
CASES = [("librdkafka", s) for s in ("range", "roundrobin", "cooperative-sticky")] + [
    ("java", s) for s in ("range", "roundrobin", "sticky", "cooperative-sticky")
]


@pytest.fixture(scope="session")
def java_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return java_consumers.compiled(tmp_path_factory)


def _predict(
    path: Path, topic: str, group: RealGroup, held_before: dict[str, set[tuple[str, int]]], assignor: str, client: str
) -> dict[str, set[tuple[str, int]]]:
    ids = group.member_ids()
    fixture = {
        "schema": "kgroup/v1",
        "cluster": {"topics": [{"name": topic, "partitions": PARTITIONS}]},
        "groups": [
            {
                "group_id": group.group,
                "protocol": "classic",
                "assignors": [assignor],
                "members": [
                    {
                        "member_id": ids[name],
                        "client_id": name,
                        "topics": [topic],
                        **({"generation": 1} if held_before.get(name) else {}),
                    }
                    for name in ids
                ],
                "assignment": {
                    ids[name]: {topic: sorted(p for _, p in held_before[name])} for name in ids if held_before.get(name)
                },
            }
        ],
    }
    path.write_text(yaml.safe_dump(fixture))
    args = ["assign", str(path), "-a", assignor, "-o", "json", "--client", client]
    result = run(*args)
    assert result.exit_code == 0, result.output
    predicted = json.loads(result.stdout)["assignment"]
    by_id = {member_id: name for name, member_id in ids.items()}
    return {
        by_id[member_id]: {(t, int(p)) for t, p in (tp.rsplit("-", 1) for tp in parts)}
        for member_id, parts in predicted.items()
    }


@pytest.mark.parametrize("client,strategy", CASES, ids=[f"{c}-{s}" for c, s in CASES])
def test_prediction_matches_real_consumers_after_each_join_and_leave(
    broker: str, names: tuple[str, str], tmp_path: Path, client: str, strategy: str, request: pytest.FixtureRequest
) -> None:
    topic, group_id = names
    admin = AdminClient({"bootstrap.servers": broker})
    admin.create_topics([NewTopic(topic, PARTITIONS)])[topic].result(10)
    consumers = (
        java_consumers.JavaConsumers(
            broker, group_id, {topic: PARTITIONS}, strategy, request.getfixturevalue("java_classes"), tmp_path
        )
        if client == "java"
        else Consumers(broker, group_id, {topic: PARTITIONS}, strategy)
    )
    group = RealGroup(consumers, topic)
    try:
        group.join("A")
        held = group.settle({})
        assert held == {"A": {(topic, p) for p in range(PARTITIONS)}}
        for step, change in enumerate([("join", "B"), ("join", "C"), ("leave", "C")]):
            before, callbacks = held, group.callbacks()
            action, name = change
            group.join(name) if action == "join" else group.leave(name)
            held = group.settle(callbacks)
            # The leader runs its own client's assignors: confluent-kafka's are librdkafka's (kgroup's
            # --client librdkafka port), the Java consumer's are Kafka's.
            predicted = _predict(
                tmp_path / f"step{step}.yaml",
                topic,
                group,
                {n: h for n, h in before.items() if n in group.members},
                strategy,
                client,
            )
            assert held == predicted, f"after {action} {name}: real {held}, kgroup predicted {predicted}"
    finally:
        group.close()
