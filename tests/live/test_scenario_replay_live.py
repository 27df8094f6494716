"""Scenarios replayed on Apache Kafka with real consumers and compared with `kgroup simulate` (issue 36).

Each scenario file in tests/live/scenarios/ is played on a broker of this module's own, whose group settings
are lowered to seconds (scenario_replay.BROKER_SETTINGS: a 3 s initial rebalance delay as in Kafka, session
timeouts down to 2 s, a 500 ms KIP-848 heartbeat), by the harness in tests/live/scenario_replay.py; the same
file goes to `kgroup simulate`. Per scenario: the same number and order of rebalances, the same generations
(classic) or group epochs (consumer protocol), the same final assignment, the same callbacks moving the same
partitions in the same order per member (classic; with the generation of each assignment for Java), the same
member epochs at the end (consumer protocol), and every rebalance's start and end within TOLERANCE_MS.
`pytest -s` prints the report.

TOLERANCE_MS is 2,500 ms: two heartbeat intervals (500 ms in every scenario) plus 1,500 ms of scheduling
jitter. Heartbeat intervals because where each member's heartbeats fall within their interval is not in the
scenario: kgroup spreads the members over one interval or keeps them in step after a rebalance, the real
clients heartbeat from whenever their last JoinGroup, SyncGroup or heartbeat was answered. A rebalance's
start can be set by one member's phase (a crashed member's last heartbeat starts its session timeout; a
member learns of a rebalance at its next heartbeat) and its end by the others' (each rejoins at its next
heartbeat), so start and end are each off by at most one interval, an end by two. The jitter covers, on a loaded 2-core machine, the command reaching the Java driver's JVM and its
KafkaConsumer starting (a join), the consumer threads being scheduled, and the 20 ms log tail and 250 ms
ConsumerGroupDescribe polling that time the broker's side. It stays well below what the scenarios tell
apart: a crash is noticed at its 8 s session timeout, not when the JVM dies, and a static member back within
its 10 s session causes no rebalance at all. consumer-protocol-crash is the bundled compare-crash's story
under the consumer protocol (a crash is an epoch bump at the member's session timeout). The last seven files
are the bundled scenarios' stories (storm, static-stuck, rolling-restart, gc-pause, and tour in three parts)
scaled to seconds; in the last four, each event that starts a rebalance comes at least 8 s after the one
before, so that a broker a few seconds late cannot fold two into one. docs/conformance.md says what of them does not scale.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from tests.kafka import broker as kafka_broker
from tests.kafka import jars
from tests.live.conftest import require_kafka
from tests.live.java_consumers import compiled
from tests.live.scenario_replay import (
    BROKER_SETTINGS,
    SCENARIOS,
    LiveRun,
    Plan,
    compare,
    predict,
    replay,
)

TOLERANCE_MS = 2_500


@pytest.fixture(scope="module")
def replay_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kafka_broker.Node]:
    """An Apache Kafka broker of this module's own with the lowered group settings, stopped by pid after."""
    require_kafka()
    node = kafka_broker.single(tmp_path_factory.mktemp("replay-kafka"), extra=BROKER_SETTINGS)
    node.start()
    try:
        kafka_broker.warm_up_coordinators(node.address)
        # Every case's topics at once, long before any group starts (each file names its own; a file replayed
        # with two clients adds no partitions): a librdkafka KIP-848 group whose topic the coordinator learned
        # of only after its first members joined settled one epoch later than its file.
        topics: dict[str, int] = {}
        for case in CASES:
            data = yaml.safe_load((SCENARIOS / case.values[0]).read_text())
            topics.update({t["name"]: t["partitions"] for t in data["cluster"]["topics"]})
        kafka_broker.create_topics(node.address, topics)
        yield node
    finally:
        node.stop(kill=True)


CASES = [
    pytest.param("classic-eager-join-crash.yaml", "java", "classic", id="classic-eager-join-crash"),
    pytest.param("classic-cooperative-join-leave.yaml", "java", "classic", id="classic-cooperative-join-leave"),
    pytest.param("classic-static-restart.yaml", "librdkafka", "classic", id="classic-static-restart"),
    pytest.param("classic-librdkafka-crash.yaml", "librdkafka", "classic", id="classic-librdkafka-crash"),
    pytest.param("consumer-protocol-join-leave.yaml", "java", "consumer", id="consumer-protocol-join-leave"),
    # compare-crash's story on the consumer protocol: a crash is noticed at the member's session timeout.
    pytest.param("consumer-protocol-crash.yaml", "java", "consumer", id="consumer-protocol-crash"),
    pytest.param("classic-subscribe.yaml", "java", "classic", id="classic-subscribe"),
    pytest.param("consumer-protocol-subscribe.yaml", "java", "consumer", id="consumer-protocol-subscribe"),
    pytest.param(
        "consumer-protocol-join-leave.yaml", "librdkafka", "consumer", id="consumer-protocol-join-leave-librdkafka"
    ),
    # librdkafka sends a new subscription at once (`kgroup simulate --client librdkafka`), Java's at its next heartbeat.
    pytest.param(
        "consumer-protocol-subscribe.yaml", "librdkafka", "consumer", id="consumer-protocol-subscribe-librdkafka"
    ),
    # A group adopting static membership: a dynamic member restarted with group.instance.id, then restarted static.
    pytest.param("classic-static-adoption.yaml", "java", "classic", id="classic-static-adoption"),
    pytest.param("consumer-protocol-static-adoption.yaml", "java", "consumer", id="consumer-protocol-static-adoption"),
    # The bundled scenarios' stories, scaled to seconds (each file's header names its bundled scenario).
    pytest.param("classic-slow-poll-storm.yaml", "java", "classic", id="classic-slow-poll-storm"),
    pytest.param("classic-static-stuck.yaml", "java", "classic", id="classic-static-stuck"),
    pytest.param("classic-rolling-restart.yaml", "java", "classic", id="classic-rolling-restart"),
    pytest.param("classic-gc-pause.yaml", "java", "classic", id="classic-gc-pause"),
    # scenario-tour in three parts, its rebalances eight seconds apart (a tour with them a few seconds apart
    # had two folded into one by a broker a few seconds late on a loaded machine).
    pytest.param("classic-tour-a.yaml", "java", "classic", id="classic-tour-a"),
    pytest.param("classic-tour-b.yaml", "java", "classic", id="classic-tour-b"),
    pytest.param("classic-tour-c.yaml", "java", "classic", id="classic-tour-c"),
]


@pytest.mark.parametrize(("scenario", "client", "protocol"), CASES)
def test_the_broker_does_what_kgroup_simulate_predicts(
    replay_kafka: kafka_broker.Node,
    scenario: str,
    client: str,
    protocol: str,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    path = SCENARIOS / scenario
    data = yaml.safe_load(path.read_text())
    suffix = uuid.uuid4().hex[:6]
    group = f"{data['groups'][0]['group_id']}-{suffix}"
    classes = compiled(tmp_path_factory) if client == "java" else None
    with ThreadPoolExecutor(1) as pool:
        # A classic prediction is `kgroup simulate` of the file alone: it runs while the broker settles the
        # starting group (seconds of a loaded machine's CI budget, not of the scenario's clock).
        early = pool.submit(predict, Plan.read(path), LiveRun(), protocol, client) if protocol == "classic" else None
        plan, live = replay(replay_kafka, path, client, protocol, group, classes, tmp_path)
        kgroup = early.result() if early is not None else predict(plan, live, protocol, client)
    report, differences = compare(plan, live, kgroup, TOLERANCE_MS, protocol)
    print(f"\n[{client}, {protocol}] {report}")
    if protocol == "consumer":  # the starting assignment is the broker's: it depends on random member ids
        # The harness forms the starting group from nothing, one epoch bump per member, from the epoch the
        # broker's release gives a new group: 1 from 4.3.0 on (ModernGroup's constructor), one more than the
        # scenario files, written for 4.2.
        created = 1 if tuple(map(int, jars.version().split(".")[:2])) >= (4, 3) else 0
        expected = data["groups"][0]["generation"] + created
        assert live.start_generation == expected, (
            "the broker settled the starting group at another group epoch than the scenario's"
        )
    else:
        expected = plan.start_assignment()
        assert (live.start_generation, live.start_assignment) == (data["groups"][0]["generation"], expected), (
            "the broker settled the starting group differently from the scenario's starting state"
        )
    assert differences == []
