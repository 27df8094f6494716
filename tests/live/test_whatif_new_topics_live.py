"""A live what-if that names a topic the group does not consume yet predicts what real consumers get (issue 33).

On Apache Kafka with real librdkafka consumers (confluent-kafka), for range, roundrobin and cooperative-sticky,
one group goes through four changes, each predicted with `kgroup simulate -b … --group G` before it happens
and compared, member by member, with what the consumers hold once the group settles:

1. a static newcomer subscribes to a topic that exists but nobody in the group consumes;
2. a member's subscription (`--subscribe`) gains another such topic;
3. a topic is created after the prediction (`--add-topic`), and a newcomer subscribing to it joins;
4. a newcomer subscribes to a topic that does not exist: kgroup warns and assigns nothing of it.

A point passes when what the consumers got is the prediction or one of the alternatives kgroup announces
(where static and dynamic members mix, librdkafka's order depends on random member ids).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.cli.helpers import run_process
from tests.kafka.broker import create_topics
from tests.live.real_consumers import Consumers

STRATEGIES = ["range", "roundrobin", "cooperative-sticky"]


def _parts(listed: list[str]) -> set[tuple[str, int]]:
    return {(t, int(p)) for t, p in (tp.rsplit("-", 1) for tp in listed)}


def _predict(broker: str, group: str, strategy: str, change: list[str]) -> dict:
    result = run_process("simulate", "-b", broker, "--group", group, "-a", strategy, *change, "-o", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _candidates(doc: dict) -> list[dict[str, set]]:
    run = doc["results"][0]
    assert run["valid"] is True, run
    return [{m: _parts(p) for m, p in a.items()} for a in [run["assignment"], *run.get("alternatives", [])]]


def _check(doc: dict, actual: dict[str, set], ids: dict[str, str], what: str) -> None:
    by_id = {member_id: name for name, member_id in ids.items()}
    named = [{by_id.get(m, m): parts for m, parts in c.items() if parts} for c in _candidates(doc)]
    got = {name: parts for name, parts in actual.items() if parts}
    assert got in named, (
        f"{what}: predicted {sorted((n, sorted(p)) for n, p in named[0].items())} "
        f"(+{len(named) - 1} alternatives), actual {sorted((n, sorted(p)) for n, p in got.items())}"
    )


def _resubscribe(consumers: Consumers, name: str, topics: tuple[str, ...]) -> None:
    member = consumers.members[name]
    member.topics = topics
    member.consumer.subscribe(
        list(topics), on_assign=member.on_assign, on_revoke=member.on_revoke, on_lost=member.on_revoke
    )


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_what_ifs_naming_topics_the_group_does_not_consume(broker: str, strategy: str, tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:6]
    a, b, d, e, f, z = (f"nt-{x}-{suffix}" for x in "abdefz")
    partitions = {a: 3, b: 4, d: 5, e: 3}
    create_topics(broker, partitions)
    group = f"new-topics-{strategy}-{suffix}"
    consumers = Consumers(broker, group, {**partitions, f: 6, z: 0}, strategy)
    try:
        consumers.join("c0", (a, b))
        consumers.join("c1", (a,))
        consumers.settle({})

        # 1. A static newcomer brings d, which exists and nobody consumes.
        joined = _predict(broker, group, strategy, ["--add-member", f"c2={b},{d}", "--instance", f"c2=s-{suffix}"])
        assert any(t == d for m in joined["results"][0]["assignment"].values() for t, _ in _parts(m)), joined
        assert joined["warnings"] == [] and joined["unknown_topics"] == {}
        before = consumers.callbacks()
        consumers.join("c2", (b, d), f"s-{suffix}")
        ids = {**consumers.member_ids(), "c2": "c2"}
        _check(joined, consumers.settle(before), ids, "c2 joins with a topic nobody consumed")

        # 2. c1's subscription gains e, which nobody consumes.
        c1 = consumers.member_ids()["c1"]
        resubscribed = _predict(broker, group, strategy, ["--subscribe", f"{c1}={a},{e}"])
        before = consumers.callbacks()
        _resubscribe(consumers, "c1", (a, e))
        actual = consumers.settle({"c1": before["c1"]})
        _check(resubscribed, actual, consumers.member_ids(), "c1 subscribes to a topic nobody consumed")

        # 3. f is created after the prediction; then a newcomer subscribing to it joins.
        created = _predict(broker, group, strategy, ["--add-topic", f"{f}=6", "--add-member", f"c3={a},{f}"])
        create_topics(broker, {f: 6})
        before = consumers.callbacks()
        consumers.join("c3", (a, f))
        ids = {**consumers.member_ids(), "c3": "c3"}
        _check(created, consumers.settle(before), ids, "c3 joins with a topic created after the prediction")

        # 4. z does not exist: kgroup says so, and the prediction, which assigns nothing of it, is what happens.
        plan = tmp_path / "missing.yaml"
        missing = run_process(
            "simulate",
            "-b",
            broker,
            "--group",
            group,
            "-a",
            strategy,
            "--add-member",
            f"c4={b},{z}",
            "--save-plan",
            str(plan),
            "-o",
            "json",
        )
        assert missing.returncode == 0, missing.stderr
        doc = json.loads(missing.stdout)
        assert doc["unknown_topics"] == {z: ["c4"]}
        assert any(z in w and "does not exist" in w for w in doc["warnings"]), doc["warnings"]
        assert z in missing.stderr
        replayed = run_process("simulate", str(plan), "-o", "json")
        assert replayed.returncode == 0, replayed.stderr
        assert _candidates(json.loads(replayed.stdout)) == _candidates(doc)
        before = consumers.callbacks()
        consumers.join("c4", (b, z))
        ids = {**consumers.member_ids(), "c4": "c4"}
        _check(doc, consumers.settle(before), ids, "c4 joins with a topic that does not exist")
    finally:
        consumers.close()


def test_a_snapshot_what_if_asks_for_the_size_of_a_topic_it_does_not_list(broker: str, tmp_path: Path) -> None:
    """Offline, a newcomer's topic the saved group does not consume is refused until --add-topic gives its size;
    with it, the prediction is the live one (which read the topic's size from the cluster)."""
    suffix = uuid.uuid4().hex[:6]
    a, d = f"ns-a-{suffix}", f"ns-d-{suffix}"
    create_topics(broker, {a: 2, d: 3})
    group = f"new-topics-snapshot-{suffix}"
    consumers = Consumers(broker, group, {a: 2, d: 3}, "range")
    try:
        consumers.join("c0", (a,))
        consumers.settle({})
        saved = tmp_path / "snap.yaml"
        snap = run_process("snapshot", group, "-b", broker, "-o", str(saved))
        assert snap.returncode == 0, snap.stderr
        change = ["--add-member", f"c1={a},{d}"]
        refused = run_process("simulate", str(saved), *change)
        assert refused.returncode == 2 and refused.stdout == ""
        (line,) = refused.stderr.strip().splitlines()
        assert "--add-member" in line and repr(d) in line and f"--add-topic {d}=N" in line
        offline = run_process("simulate", str(saved), *change, "--add-topic", f"{d}=3", "-o", "json")
        assert offline.returncode == 0, offline.stderr
        live = _predict(broker, group, "range", change)
        assert _candidates(json.loads(offline.stdout)) == _candidates(live)
        assert {tp for tp in _candidates(live)[0]["c1"] if tp[0] == d} == {(d, 0), (d, 1), (d, 2)}
    finally:
        consumers.close()


def test_a_regex_subscribers_matched_topics_are_read(broker: str) -> None:
    """A member subscribed by pattern sends the topics it matched (librdkafka's JoinGroup metadata, as Kafka's
    ConsumerCoordinator.metadata does): the live what-if reads them, and the prediction is what happens."""
    suffix = uuid.uuid4().hex[:6]
    a, b = f"rx-{suffix}-a", f"rx-{suffix}-b"
    create_topics(broker, {a: 3, b: 2})
    group = f"new-topics-regex-{suffix}"
    consumers = Consumers(broker, group, {a: 3, b: 2}, "roundrobin")
    try:
        pattern = consumers.join("c0", (a, b))
        # The same member subscribes by pattern before it ever polls: librdkafka matches it to a and b.
        pattern.consumer.subscribe(
            [f"^rx-{suffix}-.*"], on_assign=pattern.on_assign, on_revoke=pattern.on_revoke, on_lost=pattern.on_revoke
        )
        consumers.settle({})
        joined = _predict(broker, group, "roundrobin", ["--add-member", f"c1={a}"])
        c0 = consumers.member_ids()["c0"]
        assert set(joined["results"][0]["assignment"]) == {c0, "c1"}
        before = consumers.callbacks()
        consumers.join("c1", (a,))
        ids = {**consumers.member_ids(), "c1": "c1"}
        _check(joined, consumers.settle(before), ids, "c1 joins a group with a pattern subscriber")
    finally:
        consumers.close()
