"""The live what-if on a KIP-848 group equals the target assignment the broker then computes (issue 34).

Real consumers of the consumer protocol (`group.protocol=consumer`) on the session's Apache Kafka broker:
librdkafka's (confluent-kafka) and, in the first JAVA_LAYOUTS layouts, Kafka's Java consumer as every
other member; with the coordinator's `uniform` or `range` (`group.remote.assignor`). Seeded layouts per
assignor: 2-3 topics of 1-13 partitions, 2-5 members (6 with the newcomer) with identical subscriptions
(even seeds) or unequal ones (odd seeds), racks on some members and a static member now and then. Each
layout goes through four changes: a member joins, a member changes its subscription, a topic gains
partitions, and (where one is dynamic) a member leaves. Before each change the test runs
`kgroup simulate -b … --group G` with `--add-member`, `--subscribe`, `--add-partitions` or
`--remove-member`, as a user would; once the group has settled on the new group epoch it reads the
broker's target assignment with confluent-kafka's own admin client (`describe_consumer_groups`, not
kgroup's read) and compares it with the prediction, member by member. A KIP-848 client makes its own
member id (KIP-1082), so a newcomer's id is known before it joins, and the prediction uses it.

uniform breaks ties by the HashMap order of Kafka's topic ids (which partitions a member over its quota gives
up), so its prediction is exact only when the live read gives kgroup those ids; without them kgroup derives
ids from the names, and a failure says so. server-range orders members only and does not depend on them.
Each point is also predicted from the group's `kgroup snapshot` with every topic given the id Kafka gave it
(confluent-kafka's describe_topics), offline, the file kept in kgroup's key order (a member's target lists
its topics in the coordinator's order, which uniform's revocations follow): the summary counts those too,
which tells a gap in the live read from one in the assignors, and they are held to the same bar as the live
what-if (one path, live or saved).

KGROUP_KIP848_SEEDS=N runs N layouts per assignor (default 5). RESULTS counts points and exact ones; each
assignor's test prints its summary line.
"""

from __future__ import annotations

import base64
import json
import os
import random
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml
from confluent_kafka import Consumer, TopicCollection
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from kgroup.inspectors.live.wire.consumer_group_describe import describe_consumer_groups
from tests.cli.helpers import run_process
from tests.kafka import jars
from tests.kafka.broker import GROUP_SETTINGS
from tests.live.java_consumers import JavaConsumers, compiled

SEEDS = int(os.environ.get("KGROUP_KIP848_SEEDS") or 5)
JAVA_LAYOUTS = 2  # layouts with Kafka's Java consumers among the librdkafka ones (a JVM each)
SETTLE_TIMEOUT_S = 120  # a loaded 2-core machine with other tests alongside: generous; polled, never slept
RACKS = ("r0", "r1")
RESULTS: Counter[tuple[str, str]] = Counter()  # (assignor, "points" | "exact")


class Point(NamedTuple):
    exact: bool  # the live what-if equals the broker's new target, member by member
    exact_with_topic_ids: bool  # so does the what-if on the snapshot given Kafka's topic ids
    release_mattered: bool
    detail: str


TOPIC_IDS: dict[str, bool] = {}  # assignor -> whether the live read carried Kafka's topic ids


class Members:
    """The group's consumers, polled on one thread so that they heartbeat, revoke and take partitions."""

    def __init__(self) -> None:
        self.consumers: dict[str, Consumer] = {}  # member id -> consumer
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def add(self, consumer: Consumer, topics: list[str]) -> str:
        with self.lock:
            consumer.subscribe(topics)
            self.consumers[consumer.memberid()] = consumer
        return consumer.memberid()

    def subscribe(self, member_id: str, topics: list[str]) -> None:
        with self.lock:
            self.consumers[member_id].subscribe(topics)

    def _poll(self) -> None:
        while not self.stopping.is_set():
            with self.lock:
                for consumer in self.consumers.values():
                    consumer.poll(0.02)
            time.sleep(0.01)  # lets add/subscribe take the lock

    def remove(self, member_id: str) -> None:
        """The consumer leaves: close() sends its leave heartbeat (member epoch -1, a dynamic member)."""
        with self.lock:
            self.consumers.pop(member_id).close()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(10)
        for consumer in self.consumers.values():
            consumer.close()


def _consumer(broker: str, group: str, assignor: str, name: str, rack: str | None, instance: str | None) -> Consumer:
    config: dict[str, Any] = {
        "bootstrap.servers": broker,
        "group.id": group,
        "client.id": name,
        "group.protocol": "consumer",
        "group.remote.assignor": assignor,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    }
    if rack:
        config["client.rack"] = rack
    if instance:
        config["group.instance.id"] = instance
    return Consumer(config)


def _settled(broker: str, group: str, members: int, after_epoch: int) -> int:
    """The group epoch once the group has taken a change (its epoch passed `after_epoch`) and every one of its
    `members` members is at the target assignment's epoch, owning exactly its target (listed in the coordinator's
    order, `Assignment.fromRecord`, so compared as sets). Read with kgroup's own
    ConsumerGroupDescribe, in this process: five layouts polling at once through `kgroup describe` processes
    kept both cores busy starting Pythons, which slowed the broker and the consumers being waited for."""
    deadline, seen = time.monotonic() + SETTLE_TIMEOUT_S, None
    while time.monotonic() < deadline:
        seen = describe_consumer_groups({"bootstrap.servers": broker}, [group], 30).get(group)
        epoch = (seen.group_epoch or 0) if seen else 0
        if (
            seen is not None
            and seen.state == "Stable"
            and epoch > after_epoch
            and seen.assignment_epoch == epoch
            and len(seen.members) == members
            and all(m.member_epoch == epoch and set(m.assignment) == set(m.target_assignment) for m in seen.members)
        ):
            return epoch
        time.sleep(0.2)  # between two reads of the condition
    raise AssertionError(f"group {group} did not settle past epoch {after_epoch} in {SETTLE_TIMEOUT_S} s: {seen}")


def _broker_target(admin: AdminClient, group: str) -> dict[str, set[tuple[str, int]]]:
    """The target assignment per member as Kafka's ConsumerGroupDescribe gives it to confluent-kafka."""
    description = admin.describe_consumer_groups([group])[group].result(30)
    return {
        m.member_id: {(tp.topic, tp.partition) for tp in m.target_assignment.topic_partitions}
        for m in description.members
        if m.target_assignment is not None
    }


class Prediction(NamedTuple):
    live: dict[str, set[tuple[str, int]]]  # `simulate -b … --group G`, as a user runs it
    release_mattered: bool  # Kafka 4.0 and 4.1+ differ here (KAFKA-18688): the what-if notes which it followed
    with_topic_ids: dict[str, set[tuple[str, int]]]  # the same what-if on the snapshot given Kafka's topic ids


def _targets(doc: dict[str, Any]) -> dict[str, set[tuple[str, int]]]:
    (run,) = doc["results"]
    assert "reconciliation" in run, "a consumer-protocol what-if shows the reconciliation path"
    return {
        m: {(tp.rsplit("-", 1)[0], int(tp.rsplit("-", 1)[1])) for tp in parts} for m, parts in run["assignment"].items()
    }


def _kafka_topic_id(admin: AdminClient, topic: str) -> str:
    """The topic's Kafka Uuid in Kafka's text form (URL-safe base64 of its 16 bytes, unpadded)."""
    uid = admin.describe_topics(TopicCollection([topic]))[topic].result(30).topic_id
    raw = b"".join(
        half.to_bytes(8, "big", signed=True)
        for half in (uid.get_most_significant_bits(), uid.get_least_significant_bits())
    )
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _predicted(
    broker: str, admin: AdminClient, group: str, sizes: dict[str, int], folder: Path, *flags: str
) -> Prediction:
    result = run_process("simulate", "-b", broker, "--group", group, *flags, "-o", "json", "--timeout", "30")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    release_mattered = any("KAFKA-18688" in w for w in doc["warnings"])
    # The same group saved by `kgroup snapshot`, every topic given the id Kafka gave it, simulated offline.
    snapshot = run_process("snapshot", group, "-b", broker, "--timeout", "30")
    assert snapshot.returncode == 0, snapshot.stderr
    fixture = yaml.safe_load(snapshot.stdout)
    # The group's heartbeat interval, read from the broker (DescribeConfigs on the group): the rig's broker sets
    # group.consumer.heartbeat.interval.ms to 500, not Kafka's 5,000 default; the reconciliation path is timed by it.
    (saved,) = fixture["groups"]
    interval = int(GROUP_SETTINGS["group.consumer.heartbeat.interval.ms"])
    assert saved["heartbeat_interval_ms"] == interval != 5000
    assert [r["reconciliation"]["heartbeat_interval_ms"] for r in doc["results"]] == [interval]
    listed = {t["name"] for t in fixture["cluster"]["topics"]}
    fixture["cluster"]["topics"] += [{"name": t, "partitions": n} for t, n in sizes.items() if t not in listed]
    for topic in fixture["cluster"]["topics"]:
        topic["id"] = _kafka_topic_id(admin, topic["name"])
    path = folder / f"{group}-{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(yaml.safe_dump(fixture, sort_keys=False))  # as kgroup writes it: a target's topics in order
    offline = run_process("simulate", str(path), *flags, "-o", "json")
    assert offline.returncode == 0, offline.stderr
    return Prediction(_targets(doc), release_mattered, _targets(json.loads(offline.stdout)))


def _explained_in_the_assignors_words(
    broker: str, group: str, assignor: str, joining: str, predicted: dict[str, set[tuple[str, int]]]
) -> None:
    """`kgroup explain -b` on the live group: every partition the what-if gives a new owner is explained by the
    group's own server assignor (issue 37), with the owner the what-if predicted."""
    result = run_process("explain", "-b", broker, "--group", group, "--add-member", joining, "-o", "json")
    assert result.returncode == 0, result.stderr
    (run,) = json.loads(result.stdout)["results"]
    assert run["assignor"] == {"range": "server-range"}.get(assignor, assignor)  # kgroup's name for the broker's
    explained = {e["partition"]: e["after"] for e in run["explanations"]}
    assert explained, "a join moves partitions, and each must be explained"
    assert set(explained) == {m["partition"] for m in run["moves"]}
    holders = {f"{t}-{p}": member for member, parts in predicted.items() for t, p in parts}
    assert all(holders.get(partition) == owner for partition, owner in explained.items()), (explained, holders)
    assert all(e["steps"] and e["steps"][-1]["owner"] == e["after"] for e in run["explanations"])


def _topic_ids_read(broker: str, group: str) -> bool:
    """Whether the live read gives kgroup each topic's Kafka id (`id` in a snapshot): uniform breaks ties by
    the HashMap order of topic ids, so a prediction made with ids derived from the names may differ."""
    result = run_process("snapshot", group, "-b", broker, "--timeout", "30")
    assert result.returncode == 0, result.stderr
    topics = yaml.safe_load(result.stdout)["cluster"]["topics"]
    return all(t.get("id") for t in topics)


def _same(predicted: dict[str, set[tuple[str, int]]], broker: dict[str, set[tuple[str, int]]]) -> bool:
    return all(predicted.get(m, set()) == broker.get(m, set()) for m in set(predicted) | set(broker))


def grown_sizes(sizes: dict[str, int], topic: str, total: int) -> dict[str, int]:
    return {**sizes, topic: total}


def _layout(seed: int, assignor: str) -> tuple[dict[str, int], list[dict[str, Any]], random.Random]:
    rng = random.Random(f"kip848-{assignor}-{seed}")
    tag = uuid.uuid4().hex[:6]
    sizes = {f"k848-{tag}-t{i}": rng.randint(1, 13) for i in range(rng.randint(2, 3))}
    names = list(sizes)
    identical = seed % 2 == 0
    members = []
    for i in range(rng.randint(2, 5)):  # with the newcomer, up to 6 members
        topics = names if identical else rng.sample(names, rng.randint(1, len(names)))
        members.append(
            {
                "name": f"m{i}",
                "topics": topics,
                "rack": rng.choice(RACKS) if rng.random() < 0.4 else None,
                "instance": f"static-{tag}-{i}" if rng.random() < 0.25 else None,
                # Kafka's Java consumer in the first JAVA_LAYOUTS layouts (every other member)
                "java": seed <= JAVA_LAYOUTS and i % 2 == 1,
            }
        )
    return sizes, members, rng


def _one_layout(broker: str, assignor: str, seed: int, folder: Path, classes: Path) -> list[Point]:
    """The changes on one seeded layout."""
    sizes, layout, rng = _layout(seed, assignor)
    admin = AdminClient({"bootstrap.servers": broker})
    for future in admin.create_topics([NewTopic(t, n) for t, n in sizes.items()]).values():
        future.result(30)
    group = f"k848-{assignor}-{seed}-{uuid.uuid4().hex[:6]}"
    members = Members()
    java = (
        JavaConsumers(
            broker,
            group,
            {},
            "",
            classes,
            folder,
            {
                "group.protocol": "consumer",
                "group.remote.assignor": assignor,
                "enable.auto.commit": "false",
                "auto.offset.reset": "earliest",
            },
        )
        if any(m["java"] for m in layout)
        else None
    )
    points: list[Point] = []

    def judge(what: str, prediction: Prediction) -> None:
        target = _broker_target(admin, group)
        points.append(
            Point(
                _same(prediction.live, target),
                _same(prediction.with_topic_ids, target),
                prediction.release_mattered,
                f"{what}: predicted {prediction.live}, from the snapshot {prediction.with_topic_ids}, broker {target}",
            )
        )

    try:
        ids = {}
        for m in layout:
            if m["java"]:
                assert java is not None
                java.join(m["name"], tuple(m["topics"]), m["instance"])  # its id: the broker's describe has it
                continue
            ids[m["name"]] = members.add(
                _consumer(broker, group, assignor, m["name"], m["rack"], m["instance"]), m["topics"]
            )
        epoch = _settled(broker, group, len(layout), 0)
        if seed == 1:
            TOPIC_IDS[assignor] = _topic_ids_read(broker, group)

        names = list(sizes)
        newcomer = _consumer(broker, group, assignor, "joiner", rng.choice((None,) + RACKS), None)
        topics = names if seed % 2 == 0 else rng.sample(names, rng.randint(1, len(names)))
        joining = f"{newcomer.memberid()}={','.join(topics)}"
        predicted = _predicted(broker, admin, group, sizes, folder, "--add-member", joining)
        if seed == 1:
            _explained_in_the_assignors_words(broker, group, assignor, joining, predicted.live)
        members.add(newcomer, topics)
        epoch = _settled(broker, group, len(layout) + 1, epoch)
        judge("join", predicted)

        chosen = rng.choice([m for m in layout if not m["java"]])
        changing = ids[chosen["name"]]
        new_topics = sorted(rng.sample(names, rng.randint(1, len(names))))
        if set(new_topics) == set(chosen["topics"]):  # a change, not the same list again
            new_topics = sorted(set(names) - set(new_topics)) or new_topics[:1]
        # Named by its client.id, as a user knows a KIP-848 member (its member id is a random UUID).
        predicted = _predicted(
            broker, admin, group, sizes, folder, "--subscribe", f"{chosen['name']}={','.join(new_topics)}"
        )
        members.subscribe(changing, new_topics)
        epoch = _settled(broker, group, len(layout) + 1, epoch)
        judge("subscription change", predicted)

        grown = rng.choice([t for t in names if sizes[t] < 13] or names)
        total = min(13, sizes[grown] + rng.randint(1, 3)) if sizes[grown] < 13 else sizes[grown] + 1
        predicted = _predicted(broker, admin, group, sizes, folder, "--add-partitions", f"{grown}={total}")
        for future in admin.create_partitions([NewPartitions(grown, total)]).values():
            future.result(30)
        epoch = _settled(broker, group, len(layout) + 1, epoch)
        judge("partition increase", predicted)

        # A dynamic member leaves (a static one's close is a temporary leave: its partitions wait for it), named by
        # its client.id too.
        leaving = next((m["name"] for m in layout if not m["instance"] and not m["java"]), None)
        if leaving is not None:
            predicted = _predicted(
                broker, admin, group, grown_sizes(sizes, grown, total), folder, "--remove-member", leaving
            )
            members.remove(ids[leaving])
            _settled(broker, group, len(layout), epoch)
            judge("leave", predicted)
    finally:
        members.close()
        if java is not None:
            java.close()
    return points


@pytest.mark.parametrize("assignor", ["uniform", "range"])
def test_the_live_kip848_what_if_is_the_brokers_next_target(
    broker: str,
    assignor: str,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadPoolExecutor(max_workers=min(SEEDS, 5)) as pool:
        classes = compiled(tmp_path_factory)
        outcomes = list(
            pool.map(lambda seed: _one_layout(broker, assignor, seed, tmp_path, classes), range(1, SEEDS + 1))
        )
    points = [p for layout in outcomes for p in layout]
    RESULTS[(assignor, "points")] += len(points)
    RESULTS[(assignor, "exact")] += sum(p.exact for p in points)
    with_ids = sum(p.exact_with_topic_ids for p in points)
    mattered = sum(p.release_mattered for p in points)
    with capsys.disabled():
        print(
            f"\nKIP-848 live what-if on Apache Kafka {jars.version()}, {assignor}: {len(points)} points "
            f"({SEEDS} layouts x join, subscription change, partition increase, a leave), "
            f"{RESULTS[(assignor, 'exact')]} exact; {with_ids} exact from the snapshot given Kafka's topic ids"
            + (f"; at {mattered} the release decided (KAFKA-18688)" if assignor == "uniform" else "")
        )
    missed = [p.detail for p in points if not p.exact]
    missed_offline = [p.detail for p in points if not p.exact_with_topic_ids]
    hint = (
        ""
        if TOPIC_IDS.get(assignor, True)
        else "\n(the live read gave no topic ids: kgroup broke uniform's ties with ids derived from the names)"
    )
    if missed or missed_offline:
        with capsys.disabled():
            print("missed:\n" + "\n".join(missed) + "\nmissed from the snapshot:\n" + "\n".join(missed_offline))
    # A known gap (docs/status.md): about one uniform point in 40-60 on a heterogeneous layout, two members
    # ended up with two partitions swapped against the prediction, with Kafka's topic ids given too and no
    # member-id HashMap collision. One input the live read did not see is now read (a member's target in the
    # coordinator's order; test_kip848_target_order_live.py); until runs show it was the only one, uniform may
    # miss one point in ten; range (and every other point) must be exact.
    allowed = len(points) // 10 if assignor == "uniform" else 0
    assert len(missed) <= allowed, "\n".join(missed) + hint
    # a live group saved by `kgroup snapshot` and simulated offline is the same what-if (one path)
    assert len(missed_offline) <= allowed, "\n".join(missed_offline)
