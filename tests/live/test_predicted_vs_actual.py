"""The key live test: kgroup's predicted assignment is what real consumers receive.

Real confluent-kafka consumers join and leave a group on the real broker. After each change, the test
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
from tests.live.real_group import RealGroup

PARTITIONS = 6


def _predict(path: Path, topic: str, group: RealGroup, held_before: dict[str, set[tuple[str, int]]],
             assignor: str, client: str | None = None) -> dict[str, set[tuple[str, int]]]:
    ids = group.member_ids()
    fixture = {
        "schema": "kgroup/v1",
        "cluster": {"topics": [{"name": topic, "partitions": PARTITIONS}]},
        "groups": [{
            "group_id": group.group, "protocol": "classic", "assignors": [assignor],
            "members": [{"member_id": ids[name], "client_id": name, "topics": [topic],
                         **({"generation": 1} if held_before.get(name) else {})} for name in ids],
            "assignment": {ids[name]: {topic: sorted(p for _, p in held_before[name])}
                           for name in ids if held_before.get(name)},
        }],
    }
    path.write_text(yaml.safe_dump(fixture))
    args = ["assign", str(path), "-a", assignor, "-o", "json"] + (["--client", client] if client else [])
    result = run(*args)
    assert result.exit_code == 0, result.output
    predicted = json.loads(result.stdout)["assignment"]
    by_id = {member_id: name for name, member_id in ids.items()}
    return {by_id[member_id]: {(t, int(p)) for t, p in (tp.rsplit("-", 1) for tp in parts)}
            for member_id, parts in predicted.items()}


@pytest.mark.parametrize("strategy", ["range", "roundrobin", "cooperative-sticky"])
def test_prediction_matches_real_consumers_after_each_join_and_leave(
        broker: str, names: tuple[str, str], tmp_path: Path, strategy: str) -> None:
    topic, group_id = names
    admin = AdminClient({"bootstrap.servers": broker})
    admin.create_topics([NewTopic(topic, PARTITIONS)])[topic].result(10)
    group = RealGroup(broker, group_id, topic, PARTITIONS, strategy)
    try:
        group.join("A")
        held = group.settle({})
        assert held == {"A": {(topic, p) for p in range(PARTITIONS)}}
        for step, change in enumerate([("join", "B"), ("join", "C"), ("leave", "C")]):
            before, callbacks = held, group.callbacks()
            action, name = change
            group.join(name) if action == "join" else group.leave(name)
            held = group.settle(callbacks)
            # confluent-kafka's leader runs librdkafka's own assignors (kgroup's --client librdkafka port).
            predicted = _predict(tmp_path / f"step{step}.yaml", topic, group,
                                 {n: h for n, h in before.items() if n in group.members}, strategy, "librdkafka")
            assert held == predicted, f"after {action} {name}: real {held}, kgroup predicted {predicted}"
    finally:
        group.close()
