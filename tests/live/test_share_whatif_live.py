"""The live what-if on a share group (KIP-932) equals the assignment the broker then gives (issue 38).

Real Kafka share consumers (KafkaShareConsumer, tests/live/java/ShareDriver.java, all in one JVM) on the session's
Apache Kafka 4.2.1 broker, whose share coordinator runs `simple` (SimpleAssignor). A group grows to five members
over three topics of 1, 5 and 13 partitions, some members subscribed to all of them and some to fewer (so both
of SimpleAssignor's builders run, and partitions are shared once members outnumber them), then members leave
one by one (two of them, to keep the test cheap). Before each change the test runs `kgroup simulate -b … --group G --add-member ID=topics` (or
`--remove-member ID`) as a user would; once the group has settled it reads the members' assignments with Kafka's
own Admin client (Admin.describeShareGroups, in the driver) and compares them with the prediction, member by
member. A share consumer makes its own member id (KIP-1082) before it joins, and SimpleAssignor walks members in
the HashMap order of their ids, so the driver makes the newcomer first, reads the id it made and only then lets
it poll (join); the prediction uses that id. The group is also saved with `kgroup snapshot` and simulated from
the file: the same answer.
"""

from __future__ import annotations

import json
import queue
import time
import uuid
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from tests.cli.helpers import run_process
from tests.live.test_share_groups_live import ShareDriver, driver  # noqa: F401 (the driver fixture)

SETTLE_S = 120  # a loaded 2-core machine: a share coordinator initialising share partitions, five JVM consumers

Holdings = dict[str, set[tuple[str, int]]]


def _kafka_holdings(share_driver: ShareDriver, broker: str, group: str, n: int) -> dict[str, Any] | None:
    """Kafka's Admin reading of the group; None while the group does not exist yet (its first member joining)."""
    share_driver.send(op="holdings", id=f"w{n}", bootstrap=broker, group=group)
    end = time.monotonic() + 90
    while (left := end - time.monotonic()) > 0:
        try:
            event = share_driver.events.get(timeout=left)
        except queue.Empty:
            break
        if event.get("id") != f"w{n}":
            assert event["event"] != "error", f"the share driver failed: {event}"
            continue
        if event["event"] == "error" and "GroupIdNotFoundException" in event["message"]:
            return None
        assert event["event"] == "holdings", f"the share driver failed: {event}"
        return dict(event["group"])
    raise AssertionError(f"no Admin reading of {group} within 90 s (driver log: {share_driver.log.name})")


def _settled(
    share_driver: ShareDriver, broker: str, group: str, members: int, after_epoch: int, subscribed: set[tuple[str, int]]
) -> tuple[Holdings, int]:
    """The members' assignments once the group has taken the change (group epoch past `after_epoch`), every member
    is at the target assignment's epoch, and every subscribed partition is held: a share partition is assignable
    only once the share coordinator has initialised it (GroupMetadataManager's initialized topics), so a new
    topic's first target may leave it out."""
    deadline, seen, n = time.monotonic() + SETTLE_S, None, 0
    while time.monotonic() < deadline:
        n += 1
        seen = _kafka_holdings(share_driver, broker, group, after_epoch * 1000 + n)
        if seen is None:
            time.sleep(0.3)  # between two readings
            continue
        held = {(t, p) for m in seen["members"] for t, p in m["assignment"]}
        ready = (
            seen["state"] == "Stable"
            and seen["group_epoch"] > after_epoch
            and seen["assignment_epoch"] == seen["group_epoch"]
            and len(seen["members"]) == members
            and all(m["member_epoch"] == seen["group_epoch"] for m in seen["members"])
            and held == subscribed
        )
        if ready:
            holdings = {m["member_id"]: {(t, p) for t, p in m["assignment"]} for m in seen["members"]}
            return holdings, seen["group_epoch"]
        time.sleep(0.3)  # between two readings
    raise AssertionError(f"share group {group} did not settle past epoch {after_epoch} in {SETTLE_S} s: {seen}")


def _predicted(broker: str, group: str, *flags: str) -> Holdings:
    result = run_process("simulate", "-b", broker, "--group", group, *flags, "-o", "json", "--timeout", "30")
    assert result.returncode == 0, result.stderr
    (run,) = json.loads(result.stdout)["results"]
    assert run["assignor"] == "share-simple" and run["valid"], run
    return {
        m: {(tp.rsplit("-", 1)[0], int(tp.rsplit("-", 1)[1])) for tp in parts} for m, parts in run["assignment"].items()
    }


def _partitions(sizes: dict[str, int], topics: list[str]) -> set[tuple[str, int]]:
    return {(t, p) for t in topics for p in range(sizes[t])}


def test_live_share_what_if_is_the_brokers_next_assignment(broker: str, driver: ShareDriver, tmp_path: Path) -> None:  # noqa: F811
    tag = uuid.uuid4().hex[:6]
    sizes = {f"sw-{tag}-a": 1, f"sw-{tag}-b": 5, f"sw-{tag}-c": 13}
    a, b, c = sizes
    admin = AdminClient({"bootstrap.servers": broker})
    for future in admin.create_topics([NewTopic(t, n) for t, n in sizes.items()]).values():
        future.result(30)
    group = f"share-whatif-{tag}"
    joins = [("m1", [a, b, c]), ("m2", [a, b, c]), ("m3", [b, c]), ("m4", [a]), ("m5", [a, b, c])]
    ids: dict[str, str] = {}
    subscriptions: dict[str, list[str]] = {}
    points: list[str] = []
    epoch = 0

    def join(name: str, topics: list[str]) -> Holdings | None:
        driver.send(op="prepare", name=name, bootstrap=broker, group=group, topics=topics, config={})
        member_id = driver.expect(lambda e: e["event"] == "prepared" and e["name"] == name, f"{name}'s member id")[
            "member_id"
        ]
        assert member_id, "the share consumer made its member id before joining"
        predicted = _predicted(broker, group, "--add-member", f"{member_id}={','.join(topics)}") if ids else None
        driver.send(op="start", name=name)
        ids[name], subscriptions[name] = member_id, topics
        return predicted

    def judge(what: str, predicted: Holdings | None) -> None:
        nonlocal epoch
        subscribed = {tp for topics in subscriptions.values() for tp in _partitions(sizes, topics)}
        actual, epoch = _settled(driver, broker, group, len(subscriptions), epoch, subscribed)
        if predicted is None:
            return
        points.append(what)
        members = set(predicted) | set(actual)
        wrong = {
            m: (predicted.get(m, set()), actual.get(m, set()))
            for m in members
            if predicted.get(m, set()) != actual.get(m, set())
        }
        assert not wrong, f"{what}: predicted vs the broker's, by member: {wrong}"

    for name, topics in joins:
        judge(f"{name} joins", join(name, topics))

    # The group as `kgroup snapshot` saves it: a share group whose partitions several members hold, which the
    # offline what-if reads back to the same answer as the live one.
    saved = run_process("snapshot", group, "-b", broker, "--timeout", "30", "-o", str(tmp_path / "share.yaml"))
    assert saved.returncode == 0, saved.stderr
    offline = run_process("simulate", str(tmp_path / "share.yaml"), "--remove-member", ids["m2"], "-o", "json")
    assert offline.returncode == 0, offline.stderr
    (run,) = json.loads(offline.stdout)["results"]
    assert run["share"]["shared_partitions"] > 0 and run["share"]["unconsumed"] == []
    from_file = {
        m: {(tp.rsplit("-", 1)[0], int(tp.rsplit("-", 1)[1])) for tp in parts} for m, parts in run["assignment"].items()
    }

    for name in ("m2", "m4"):
        predicted = _predicted(broker, group, "--remove-member", ids[name])
        if name == "m2":
            assert from_file == predicted, "the snapshot's what-if differs from the live one"
        driver.send(op="leave", name=name)
        driver.expect(lambda e, left=name: e["event"] == "closed" and e["name"] == left, f"{name} to leave")
        del subscriptions[name]
        judge(f"{name} leaves", predicted)
    assert len(points) == 6  # four joins predicted (the first makes the group), two leaves
