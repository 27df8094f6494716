"""A group whose coordinator is gone for good: its `__consumer_offsets` partition has no leader (Apache Kafka).

With `offsets.topic.replication.factor=1` each `__consumer_offsets` partition has one replica; stopping the node
that holds a group's partition leaves that partition without a leader, and Kafka's FindCoordinator answers
COORDINATOR_NOT_AVAILABLE for the group until the node is back (KafkaApis.getCoordinator). Not a moving
coordinator that a retry rides out: every command on the group must give up at --timeout with exit 4, one line
saying which partition has no leader and which node to bring back, and a listing of groups must say which
partitions' groups it cannot list. What the tests check the lines against is read from Kafka (its metadata
before and after the stop), not from kgroup. Then the node comes back and the same group reads again.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from confluent_kafka.admin import AdminClient

from tests.kafka import broker as kafka_broker
from tests.kafka.broker import Node
from tests.live.traffic import commit, topic_with_records

KGROUP = str(Path(sys.executable).parent / "kgroup")
TIMEOUT_S = 6
# A process that waits out a 6 s --timeout ends well within this on a loaded 2-core machine.
ENDS_WITHIN_S = TIMEOUT_S + 30
SETTLE_S = 60.0  # the controller fences a stopped node and drops it as leader (5 s session, slower when loaded)
LEADERLESS = re.compile(r"__consumer_offsets-(\d+), the partition that holds group '([^']+)', has no leader")


def _bootstrap(nodes: list[Node]) -> str:
    return ",".join(n.address for n in nodes if n.running)


def _offsets_leaders(nodes: list[Node]) -> dict[int, int]:
    """Each `__consumer_offsets` partition's leader as Kafka's metadata gives it now (-1: none)."""
    metadata = AdminClient({"bootstrap.servers": _bootstrap(nodes)}).list_topics(timeout=30)
    return {p.id: p.leader for p in metadata.topics["__consumer_offsets"].partitions.values()}


def _kgroup(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run([KGROUP, *args], capture_output=True, text=True, timeout=ENDS_WITHIN_S + 60)
    return done, time.monotonic() - started


def test_every_command_on_a_group_without_a_coordinator_says_which_partition_and_node(
    one_replica_cluster: list[Node], tmp_path: Path
) -> None:
    nodes = one_replica_cluster
    suffix = uuid.uuid4().hex[:8]
    topic, group = f"orders-{suffix}", f"billing-{suffix}"
    topic_with_records(_bootstrap(nodes), topic, [5, 4, 3])
    commit(_bootstrap(nodes), group, {(topic, 0): 2, (topic, 1): 4})
    coordinator = kafka_broker.coordinator_of(nodes, group)
    led_before = {p for p, leader in _offsets_leaders(nodes).items() if leader == coordinator.node_id}
    assert led_before, "the coordinator leads no __consumer_offsets partition"
    # `kgroup coordinator -b` names the node Kafka's FindCoordinator names, on a cluster of three.
    located, _ = _kgroup("coordinator", group, "-o", "json", "-b", _bootstrap(nodes))
    assert located.returncode == 0 and located.stderr == "", located.stderr
    (where,) = json.loads(located.stdout)["groups"]
    assert where["leader"] == {"id": coordinator.node_id, "address": coordinator.address}
    assert where["partition"] in led_before and where["partitions"] == len(_offsets_leaders(nodes))
    assert where["replicas"] == [coordinator.node_id] == where["isr"]

    coordinator.stop()
    assert not coordinator.running
    deadline = time.monotonic() + SETTLE_S
    while True:
        leaderless = {p for p, leader in _offsets_leaders(nodes).items() if leader < 0}
        if leaderless == led_before:
            break
        assert time.monotonic() < deadline, (
            f"Kafka did not drop node {coordinator.node_id} as leader of {sorted(led_before)} within {SETTLE_S:.0f} s"
            f" (leaderless now: {sorted(leaderless)})"
        )
        time.sleep(0.5)

    common = ("-b", _bootstrap(nodes), "--timeout", str(TIMEOUT_S))
    # Located still, from the metadata alone: no leader, and the node to bring back.
    located, _ = _kgroup("coordinator", group, *common)
    assert located.returncode == 0, located.stderr
    (row,) = [line for line in located.stdout.splitlines() if line.startswith(group)]
    assert f"{where['partition']} of {where['partitions']}" in row and "none (no leader)" in row, row
    note = located.stderr.strip().splitlines()
    assert len(note) == 1 and note[0].startswith("kgroup: note: "), located.stderr
    named = LEADERLESS.search(note[0])
    assert named is not None and (int(named.group(1)), named.group(2)) == (where["partition"], group), note[0]
    assert f"node {coordinator.node_id}, which is not in the cluster now" in note[0], note[0]
    commands = {
        "describe": ["describe", group, *common],
        "snapshot": ["snapshot", group, "-o", str(tmp_path / "snapshot.yaml"), *common],
        "offsets reset": ["offsets", "reset", group, "--topic", topic, "--to-earliest", *common],
        "offsets delete": ["offsets", "delete", group, "--topic", topic, *common],
    }
    with ThreadPoolExecutor(len(commands)) as pool:
        running = {name: pool.submit(_kgroup, *args) for name, args in commands.items()}
    for name, future in running.items():
        done, elapsed = future.result()
        assert done.returncode == 4, f"{name}: exit {done.returncode}: {done.stderr}"
        assert "Traceback" not in done.stdout + done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kgroup: error: "), f"{name}: {done.stderr}"
        named = LEADERLESS.search(lines[0])
        assert named is not None, f"{name} does not name the leaderless partition: {lines[0]}"
        assert named.group(2) == group
        assert int(named.group(1)) in led_before, f"{name} names a partition node {coordinator.node_id} did not lead"
        assert f"node {coordinator.node_id}, which is not in the cluster now" in lines[0], lines[0]
        assert f"within {TIMEOUT_S} s" in lines[0], lines[0]
        assert elapsed < ENDS_WITHIN_S, f"{name} took {elapsed:.1f} s with --timeout {TIMEOUT_S}"
    assert not (tmp_path / "snapshot.yaml").exists()  # nothing half-written

    # Listings: no broker lists the group, and each says which partitions' groups it cannot show.
    chosen = f"^billing-{suffix}$"
    listings = {
        "groups": ["groups", *common],
        "describe -r": ["describe", "-r", chosen, *common],
        "triage -r": ["triage", "-r", chosen, "--samples", "1", *common],
        "groups -o json": ["groups", "-o", "json", *common],
    }
    with ThreadPoolExecutor(len(listings)) as pool:
        running = {name: pool.submit(_kgroup, *args) for name, args in listings.items()}
    for name, future in running.items():
        listed, _ = future.result()
        assert listed.returncode == 0, f"{name}: exit {listed.returncode}: {listed.stderr}"
        assert group not in listed.stdout, f"{name} lists a group no broker lists: {listed.stdout}"
        notes = [line for line in listed.stderr.splitlines() if "have no leader" in line]
        assert len(notes) == 1, f"{name}: {listed.stderr}"
        named_partitions = re.search(r"partition\(s\) ([\d, ]+) have no leader", notes[0])
        assert named_partitions is not None, notes[0]
        assert {int(p) for p in named_partitions.group(1).split(", ")} == led_before, f"{name}: {notes[0]}"
        assert f"(node {coordinator.node_id} not in the cluster now)" in notes[0], notes[0]
        if name == "groups -o json":  # a script reading the document learns it too
            assert json.loads(listed.stdout)["notes"] == [notes[0].removeprefix("kgroup: note: ")]

    kafka_broker.start_cluster([coordinator])
    back, _ = _kgroup("describe", group, "-o", "json", "-b", _bootstrap(nodes), "--timeout", "60")
    assert back.returncode == 0, back.stderr
    body = json.loads(back.stdout)
    (described,) = body["groups"]
    committed = {(p["topic"], p["partition"]): p["current_offset"] for p in described["partitions"]}
    assert {tp: offset for tp, offset in committed.items() if offset is not None} == {(topic, 0): 2, (topic, 1): 4}
