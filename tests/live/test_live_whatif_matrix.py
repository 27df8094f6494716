"""The live what-if made before a change equals what real consumers hold after it (issue 20's proof).

For range, roundrobin and cooperative-sticky, five seeded layouts each: 2-3 topics of 1-13 partitions,
identical subscriptions (even seeds) or unequal ones (odd seeds), about 40% static members whose
group.instance.ids sort against their client ids, so Kafka's and librdkafka's member orders disagree.
Each group grows from 2 to 5 members one join at a time, then loses up to two dynamic members (noida-db
never expires a static member that left, so static members stay). Before each change the test runs
`kgroup simulate -b … --group G --add-member …` (or `--remove-member`) exactly as a user would, with no
--client flag (kgroup reads the leader's client from the members' bytes), and after the group settles it
compares the prediction, member by member, with what each consumer was given: for cooperative-sticky,
after the follow-up rebalance. The same prediction made from a `kgroup snapshot` file must agree.

Where static and dynamic members are mixed, librdkafka's result depends on the order the broker's
JoinGroup response lists the members in, which random member ids decide; kgroup then announces every
assignment the group may reach (`alternatives`). A point counts as exact when the first prediction is what the consumers got, and
the test fails when what they got is none of the announced assignments.

Runs on noida-db: Tansu's DescribeGroups returns no member metadata, so a live what-if there refuses
(test_tansu_live_what_if_refuses_without_members).
"""

from __future__ import annotations

import json
import random
import uuid
from collections import defaultdict
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from tests.cli.helpers import run_process
from tests.live.real_consumers import Consumers

STRATEGIES = ["range", "roundrobin", "cooperative-sticky"]
SEEDS = [1, 2, 3, 4, 5]
# (strategy) -> [points compared, exact, among the announced alternatives]; printed by tests/live/conftest.py.
RESULTS: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])


def _create_topics(broker: str, topics: dict[str, int]) -> None:
    admin = AdminClient({"bootstrap.servers": broker})
    for future in admin.create_topics([NewTopic(t, n, 1) for t, n in topics.items()]).values():
        future.result(30)


def _layout(seed: int, suffix: str) -> tuple[dict[str, int], list[tuple[str, tuple[str, ...], str | None]]]:
    rng = random.Random(seed)
    topics = {f"w{seed}{chr(97 + i)}-{suffix}": rng.randint(1, 13) for i in range(rng.randint(2, 3))}
    names = list(topics)
    members = []
    for i in range(5):
        subscribed = tuple(names) if seed % 2 == 0 else tuple(sorted(rng.sample(names, rng.randint(1, len(names)))))
        # Instance ids in the reverse order of the client ids: static-first-by-instance-id (Java) and
        # member-id-unless-both-static (librdkafka) then order members differently.
        instance = f"s{9 - i}-{suffix}" if rng.random() < 0.4 else None
        members.append((f"c{i}", subscribed, instance))
    return topics, members


def _parts(listed: list[str]) -> set[tuple[str, int]]:
    return {(t, int(p)) for t, p in (tp.rsplit("-", 1) for tp in listed)}


def _assignments(stdout: str) -> list[dict[str, set]]:
    """The prediction, then the alternatives kgroup announces (the broker's member order decides)."""
    result = json.loads(stdout)["results"][0]
    return [{m: _parts(p) for m, p in a.items()} for a in [result["assignment"], *result.get("alternatives", [])]]


def _predict(broker: str, group: str, strategy: str, change: list[str], tmp_path: Path) -> list[dict[str, set]]:
    live = run_process("simulate", "-b", broker, "--group", group, "-a", strategy, *change, "-o", "json")
    assert live.returncode == 0, live.stderr
    predicted = _assignments(live.stdout)
    saved = tmp_path / f"{group}-{uuid.uuid4().hex[:6]}.yaml"
    snap = run_process("snapshot", group, "-b", broker, "-o", str(saved))
    assert snap.returncode == 0, snap.stderr
    offline = run_process("simulate", str(saved), "-a", strategy, *change, "-o", "json")
    assert offline.returncode == 0, offline.stderr
    assert _assignments(offline.stdout) == predicted
    return predicted


def _named(predicted: dict[str, set], ids: dict[str, str]) -> dict[str, set]:
    by_id = {member_id: name for name, member_id in ids.items()}
    return {by_id.get(member, member): parts for member, parts in predicted.items() if parts}


def _compare(strategy: str, predicted: list[dict[str, set]], actual: dict[str, set], ids: dict[str, str],
             misses: list[str], what: str) -> None:
    got = {name: parts for name, parts in actual.items() if parts}
    candidates = [_named(p, ids) for p in predicted]
    RESULTS[strategy][0] += 1
    if candidates[0] == got:
        RESULTS[strategy][1] += 1
    elif got in candidates[1:]:
        RESULTS[strategy][2] += 1
    else:
        misses.append(f"{what}: predicted {sorted((n, sorted(p)) for n, p in candidates[0].items())} "
                      f"(+{len(candidates) - 1} alternatives) actual {sorted((n, sorted(p)) for n, p in got.items())}")


@pytest.mark.needs_broker("describe-members")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_live_what_if_equals_what_real_consumers_get(describing_broker: str, strategy: str, seed: int,
                                                     tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:6]
    topics, plan = _layout(seed, suffix)
    _create_topics(describing_broker, topics)
    group = f"matrix-{strategy}-{seed}-{suffix}"
    consumers = Consumers(describing_broker, group, topics, strategy)
    misses: list[str] = []
    try:
        for name, subscribed, instance in plan[:2]:
            consumers.join(name, subscribed, instance)
        consumers.settle({})
        for name, subscribed, instance in plan[2:]:
            change = ["--add-member", f"{name}={','.join(subscribed)}"] + (
                ["--instance", f"{name}={instance}"] if instance else [])
            predicted = _predict(describing_broker, group, strategy, change, tmp_path)
            before = consumers.callbacks()
            consumers.join(name, subscribed, instance)
            actual = consumers.settle(before)
            ids = consumers.member_ids()
            ids[name] = name  # the prediction names the newcomer by the id given to --add-member
            _compare(strategy, predicted, actual, ids, misses, f"{name} joins")
        dynamic = [name for name, _, instance in plan if instance is None and name in consumers.members]
        for name in dynamic[:2]:
            if len(consumers.members) < 2:
                break
            member_id = consumers.member_ids()[name]
            predicted = _predict(describing_broker, group, strategy, ["--remove-member", member_id], tmp_path)
            before = consumers.callbacks()
            consumers.leave(name)
            actual = consumers.settle(before)
            _compare(strategy, predicted, actual, consumers.member_ids(), misses, f"{name} leaves")
    finally:
        consumers.close()
    assert misses == [], "\n".join(misses)


def test_tansu_live_what_if_refuses_without_members(broker: str) -> None:
    """Tansu describes a group with a live member as Stable/Unknown with no members: kgroup refuses."""
    suffix = uuid.uuid4().hex[:6]
    topic, group = f"refuse-{suffix}", f"refuse-g-{suffix}"
    _create_topics(broker, {topic: 2})
    consumers = Consumers(broker, group, {topic: 2}, "range")
    try:
        consumers.join("c0", (topic,))
        consumers.settle({})
        result = run_process("simulate", "-b", broker, "--group", group, "--add-member", "c1")
    finally:
        consumers.close()
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "no live what-if" in line and "no members" in line and group in line
