"""A KIP-848 member's target, in the order its coordinator holds it, decides which partition uniform takes away
(issue 36: the live what-if's rare uniform miss).

The coordinator holds each member's target as `Assignment.fromRecord` builds it: a HashMap whose order within a
bucket is the record's, and the record follows the assignor's map, to which `computeIfAbsent` puts a newly given
topic first in its bucket. So a member that had topic A and is then given topic B, the two topic ids in one of
the map's 16 buckets, holds them as B's partitions then A's whatever their names, and when a newcomer makes it
over quota, uniform (UniformHomogeneousAssignmentBuilder.maybeRevokePartitions) gives up from the end of that
order. kgroup used to read the target sorted by name. Here, on the session's Apache Kafka broker with
librdkafka consumers: seventeen one-partition topics (two ids must share a bucket), a member subscribed to
the earlier-named of such a pair and then to both, then `kgroup simulate -b --add-member`, then that member
joining; the prediction must be the broker's new target.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from typing import Any

from confluent_kafka import Consumer

from kgroup.assignors.java.hash_order import spread, uuid_of
from kgroup.inspectors.live.wire.consumer_group_describe import describe_consumer_groups
from tests.cli.helpers import run_process
from tests.kafka.broker import create_topics

SETTLE_TIMEOUT_S = 120  # polled, never slept through; generous for a loaded 2-core machine


def _consumer(broker: str, group: str, name: str) -> Consumer:
    return Consumer(
        {
            "bootstrap.servers": broker,
            "group.id": group,
            "client.id": name,
            "group.protocol": "consumer",
            "group.remote.assignor": "uniform",
            "enable.auto.commit": False,
        }
    )


def _settled(broker: str, group: str, consumers: list[Consumer], done: Any) -> Any:
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while time.monotonic() < deadline:
        for consumer in consumers:
            consumer.poll(0.05)
        described = describe_consumer_groups({"bootstrap.servers": broker}, [group], 10)[group]
        if described.state == "Stable" and described.members and done(described):
            return described
    raise AssertionError(f"group {group} did not settle in {SETTLE_TIMEOUT_S} s")


def test_the_what_if_gives_up_partitions_in_the_order_the_coordinator_holds_the_target(broker: str) -> None:
    run = uuid.uuid4().hex[:8]
    names = [f"order-{run}-{i:02}" for i in range(17)]
    ids = create_topics(broker, dict.fromkeys(names, 1))
    group = f"order-{run}"
    bucket = {n: spread(uuid_of(i).hash_code()) & 15 for n, i in ids.items()}  # fromRecord's HashMap: 16 buckets
    earlier, later = next((a, b) for a, b in itertools.combinations(names, 2) if bucket[a] == bucket[b])
    first = _consumer(broker, group, "first")
    newcomer = _consumer(broker, group, "newcomer")
    try:
        first.subscribe([earlier])
        _settled(broker, group, [first], lambda d: {t for t, _ in d.members[0].target_assignment} == {earlier})
        first.subscribe([earlier, later])
        described = _settled(
            broker, group, [first], lambda d: {t for t, _ in d.members[0].target_assignment} == {earlier, later}
        )
        held = [t for t, _ in described.members[0].target_assignment]
        assert held == [later, earlier], f"the coordinator lists the target as {held}: the case is not set up"

        # The newcomer's id only orders the two members, which does not change what the first gives up.
        out = run_process("simulate", "-b", broker, "--group", group, "--add-member", "newcomer", "-o", "json")
        assert out.returncode == 0, out.stderr
        predicted = json.loads(out.stdout)["results"][0]["assignment"]

        newcomer.subscribe([earlier, later])
        after = _settled(
            broker,
            group,
            [first, newcomer],
            lambda d: len(d.members) == 2 and all(m.target_assignment for m in d.members),
        )
        actual = {
            ("newcomer" if m.client_id == "newcomer" else m.member_id): sorted(
                f"{t}-{p}" for t, p in m.target_assignment
            )
            for m in after.members
        }
        assert actual == {k: sorted(v) for k, v in predicted.items()}
        assert actual["newcomer"] == [f"{earlier}-0"]  # the later-given topic's partition went, not name order's last
    finally:
        first.close()
        if newcomer is not None:
            newcomer.close()
