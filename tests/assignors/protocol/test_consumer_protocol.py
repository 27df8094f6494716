"""Decode real captured DescribeGroups bytes (captured/*.json: DescribeGroups answers captured from
noida-db 0.2.3 and Tansu 0.6.0 with librdkafka 2.16.0 and kafka-python 3.0.12 consumers) and check the decoded
fields against what the consumers were configured with and received; plus hostile input."""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path

import pytest

from kgroup.assignors.protocol import consumer_protocol as cp

CAPTURED = Path(__file__).parent / "captured"


def load(name: str) -> dict:
    return json.loads((CAPTURED / f"{name}.json").read_text())


def pairs(items) -> list[tuple[str, int]]:
    return sorted((t, p) for t, p in items)


def members_with_consumers(snapshot: dict):
    """(described member, the consumer that is that member) in broker order."""
    by_id = {c["member_id"]: c for c in snapshot["consumers"]}
    for m in snapshot["describe"]["members"]:
        yield m, by_id[m["member_id"]]


LIBRDKAFKA_SCENARIOS = [
    "noida-range_static",
    "noida-roundrobin_rack",
    "noida-coop_sticky",
    "noida-coop_sticky_static_rack",
    "noida-default_strategy",
    "noida-range_leave",
]


@pytest.mark.parametrize("name", LIBRDKAFKA_SCENARIOS)
def test_librdkafka_subscription_and_assignment_match_the_consumers(name: str) -> None:
    capture = load(name)
    assert capture["librdkafka"] == "2.16.0"
    for snap in capture["snapshots"]:
        d = snap["describe"]
        assert d["state"] == "Stable" and d["protocol_type"] == "consumer" and d["api_version"] == 5
        assert d["protocol"] == (capture["strategy"] or "range")  # default "range,roundrobin": range wins
        assert len(d["members"]) == len(snap["consumers"])
        for member, consumer in members_with_consumers(snap):
            sub = cp.decode_subscription(bytes.fromhex(member["metadata"]))
            asg = cp.decode_assignment(bytes.fromhex(member["assignment"]))
            assert sub.version == 3 and sub.trailing_bytes == 0  # librdkafka always writes v3
            assert sorted(sub.topics) == sorted(consumer["topics"])
            assert sub.rack_id == consumer["config"].get("client.rack", "")  # unset rack goes out as ""
            assert member["group_instance_id"] == consumer["config"].get("group.instance.id")
            assert member["client_id"] == consumer["name"] and member["client_host"] == "/127.0.0.1"
            assert asg.version == 0 and asg.trailing_bytes == 0  # librdkafka leaders write assignment v0
            assert pairs(asg.partitions()) == pairs(consumer["assignment"])
            # librdkafka's leader copies the member's own user data into its assignment
            assert asg.user_data == sub.user_data


@pytest.mark.parametrize(
    "name", ["noida-range_static", "noida-range_leave", "noida-roundrobin_rack", "noida-default_strategy"]
)
def test_eager_members_send_no_owned_partitions_and_no_generation(name: str) -> None:
    # eager assignors revoke everything before rejoining, so even after a rebalance nothing is owned
    for snap in load(name)["snapshots"]:
        for member, _ in members_with_consumers(snap):
            sub = cp.decode_subscription(bytes.fromhex(member["metadata"]))
            assert sub.owned_partitions == () and sub.generation_id == -1 and sub.user_data == b""


@pytest.mark.parametrize("name", ["noida-coop_sticky", "noida-coop_sticky_static_rack"])
def test_cooperative_sticky_after_a_rebalance_owns_what_it_held(name: str) -> None:
    first, second = load(name)["snapshots"]
    held_before = {c["member_id"]: pairs(c["assignment"]) for c in first["consumers"]}
    # in the first generation nobody owned anything yet
    for member, _ in members_with_consumers(first):
        sub = cp.decode_subscription(bytes.fromhex(member["metadata"]))
        assert sub.owned_partitions == () and sub.generation_id == -1 and sub.user_data == b""
    for member, consumer in members_with_consumers(second):
        sub = cp.decode_subscription(bytes.fromhex(member["metadata"]))
        assert pairs(sub.owned()) == held_before[member["member_id"]]
        assert sub.generation_id >= 1
        user = cp.decode_user_data("cooperative-sticky", sub.user_data)
        assert isinstance(user, cp.StickyUserData) and user.version == 1 and user.layout == "java"
        assert user.generation == sub.generation_id
        assert pairs(user.partitions()) == pairs(sub.owned())
        asg = cp.decode_assignment(bytes.fromhex(member["assignment"]))
        assert set(sub.owned()) <= set(asg.partitions())  # sticky: kept what it had
        assert pairs(asg.partitions()) == pairs(consumer["assignment"])


def test_librdkafka_assignment_may_repeat_a_topic() -> None:
    # the leader writes partition runs in list order; after a cooperative rebalance a topic can appear twice
    snap = load("noida-coop_sticky")["snapshots"][1]
    topics = [
        t
        for m in snap["describe"]["members"]
        for t, _ in cp.decode_assignment(bytes.fromhex(m["assignment"])).assigned_partitions
    ]
    assert len(topics) > len(set(topics))


def test_kafka_python_sticky_v0_subscription_with_versioned_user_data() -> None:
    capture = load("noida-sticky_kafka_python")
    first, second = capture["snapshots"]
    held_before = {c["member_id"]: pairs(c["assignment"]) for c in first["consumers"]}
    for snap in (first, second):
        assert snap["describe"]["protocol"] == "sticky"
        for member, consumer in members_with_consumers(snap):
            sub = cp.decode_subscription(bytes.fromhex(member["metadata"]))
            assert sub.version == 0 and sub.generation_id == -1 and sub.rack_id is None
            assert sorted(sub.topics) == sorted(consumer["topics"])
            asg = cp.decode_assignment(bytes.fromhex(member["assignment"]))
            assert pairs(asg.partitions()) == pairs(consumer["assignment"])
    for member, consumer in members_with_consumers(second):
        user = cp.decode_user_data("sticky", cp.decode_subscription(bytes.fromhex(member["metadata"])).user_data)
        assert user.layout == "kafka-python" and user.generation == first["consumers"][0]["generation"]
        assert pairs(user.partitions()) == held_before[member["member_id"]]


@pytest.mark.parametrize("name", ["tansu-range_static", "tansu-coop_sticky"])
def test_tansu_returns_members_without_bytes(name: str) -> None:
    for snap in load(name)["snapshots"]:
        d = snap["describe"]
        assert d["state"] == "Stable" and d["protocol"] == ""
        assert sorted(m["member_id"] for m in d["members"]) == sorted(c["member_id"] for c in snap["consumers"])
        for m in d["members"]:
            assert (m["metadata"], m["assignment"], m["client_id"], m["client_host"]) == ("", "", "", "")
            assert m["group_instance_id"] is None


# ----------------------------------------------------------------------------------------- synthetic encodings


def s16(text: str | None) -> bytes:
    if text is None:
        return struct.pack(">h", -1)
    return struct.pack(">h", len(text.encode())) + text.encode()


def b32(data: bytes | None) -> bytes:
    return struct.pack(">i", -1) if data is None else struct.pack(">i", len(data)) + data


def tps(items) -> bytes:
    out = struct.pack(">i", len(items))
    for topic, parts in items:
        out += s16(topic) + struct.pack(">i", len(parts)) + b"".join(struct.pack(">i", p) for p in parts)
    return out


def subscription(version: int, topics, user_data=None, owned=(), generation=-1, rack=None, extra=b"") -> bytes:
    out = struct.pack(">h", version) + struct.pack(">i", len(topics)) + b"".join(s16(t) for t in topics)
    out += b32(user_data)
    if version >= 1:
        out += tps(owned)
    if version >= 2:
        out += struct.pack(">i", generation)
    if version >= 3:
        out += s16(rack)
    return out + extra


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_each_subscription_version(version: int) -> None:
    data = subscription(version, ["a", "b"], b"xy", [("a", [0, 2])], 7, "r1")
    sub = cp.decode_subscription(data)
    assert sub.version == version and sub.topics == ("a", "b") and sub.user_data == b"xy"
    assert sub.owned_partitions == ((("a", (0, 2)),) if version >= 1 else ())
    assert sub.generation_id == (7 if version >= 2 else -1)
    assert sub.rack_id == ("r1" if version >= 3 else None)
    assert sub.trailing_bytes == 0


def test_null_user_data_and_rack() -> None:
    sub = cp.decode_subscription(subscription(3, [], None, [], -1, None))
    assert sub.user_data is None and sub.rack_id is None and sub.topics == ()


def test_higher_version_is_read_as_v3_and_trailing_bytes_are_tolerated() -> None:
    data = subscription(3, ["a"], b"", [("a", [1])], 4, "r", extra=b"\x00\x00\x00\x09newfield")
    sub = cp.decode_subscription(struct.pack(">h", 9) + data[2:])
    assert (sub.version, sub.topics, sub.owned(), sub.generation_id, sub.rack_id) == (9, ("a",), [("a", 1)], 4, "r")
    assert sub.trailing_bytes == 12
    # an older version followed by bytes it does not know: Java ignores them, so do we (and counts them)
    assert cp.decode_subscription(subscription(0, ["a"], b"", extra=b"\x01\x02")).trailing_bytes == 2


def test_assignment_versions_and_higher() -> None:
    for version in (0, 1, 2, 3, 7):
        asg = cp.decode_assignment(struct.pack(">h", version) + tps([("t", [3, 1])]) + b32(b"u") + b"zz")
        assert asg.version == version and asg.partitions() == [("t", 3), ("t", 1)] and asg.user_data == b"u"
        assert asg.trailing_bytes == 2


def test_sticky_user_data_v0_v1_and_cooperative() -> None:
    v0 = tps([("t", [0, 1])])
    assert cp.decode_sticky_user_data(v0) == cp.StickyUserData(0, (("t", (0, 1)),), None)
    v1 = v0 + struct.pack(">i", 12)
    assert cp.decode_sticky_user_data(v1) == cp.StickyUserData(1, (("t", (0, 1)),), 12)
    assert cp.decode_user_data("cooperative-sticky", struct.pack(">i", 5)) == cp.CooperativeUserData(5)
    assert cp.decode_user_data("cooperative-sticky", v1).generation == 12
    assert cp.decode_user_data("range", b"opaque") == b"opaque"
    assert cp.decode_user_data("sticky", b"") == b"" and cp.decode_user_data("sticky", None) is None


# ----------------------------------------------------------------------------------------- hostile bytes


def real_blobs() -> list[bytes]:
    snap = load("noida-coop_sticky_static_rack")["snapshots"][1]
    return [bytes.fromhex(m["metadata"]) for m in snap["describe"]["members"]]


def test_every_truncation_of_a_real_subscription_raises_a_value_error() -> None:
    for blob in real_blobs():
        for cut in range(len(blob)):
            with pytest.raises(cp.ConsumerProtocolError, match="truncated"):
                cp.decode_subscription(blob[:cut])


def test_every_truncation_of_a_real_assignment_raises_a_value_error() -> None:
    snap = load("noida-coop_sticky")["snapshots"][1]
    for blob in (bytes.fromhex(m["assignment"]) for m in snap["describe"]["members"]):
        for cut in range(len(blob)):
            with pytest.raises(ValueError):
                cp.decode_assignment(blob[:cut])


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "truncated: version needs 2"),
        (b"\xff\xff", "bad version -1"),
        (b"\x80\x00" + b"\x00" * 8, "bad version -32768"),
        (struct.pack(">hi", 0, -5), "negative array length -5 for topics"),
        (struct.pack(">hi", 0, -1), "negative array length -1 for topics"),
        (struct.pack(">hih", 0, 1, -1), "null length -1 for string topics[0]"),
        (struct.pack(">hih", 0, 1, -3), "negative length -3 for string topics[0]"),
        (struct.pack(">hii", 0, 0, -2), "negative length -2 for bytes user_data"),
        (struct.pack(">hiii", 1, 0, 0, 0x7FFFFFFF), "owned_partitions claims 2147483647"),
        (struct.pack(">hii", 0, 0x7FFFFFFF, 0), "topics claims 2147483647"),
        (struct.pack(">hih", 0, 1, 4) + b"ab", "truncated: topics[0] needs 4 byte(s), 2 left"),
        (struct.pack(">hih", 0, 1, 2) + b"\xff\xfe" + struct.pack(">i", 0), "topics[0] is not UTF-8"),
        (subscription(3, [], b"")[:-2] + struct.pack(">h", -2), "negative length -2 for nullable string rack_id"),
    ],
)
def test_hostile_subscriptions(data: bytes, message: str) -> None:
    with pytest.raises(cp.ConsumerProtocolError) as info:
        cp.decode_subscription(data)
    assert message in str(info.value) and "ConsumerProtocolSubscription" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_sticky_garbage_is_an_error_not_a_guess() -> None:
    with pytest.raises(cp.ConsumerProtocolError):
        cp.decode_sticky_user_data(b"\x00\x01\x00")
    with pytest.raises(cp.ConsumerProtocolError, match="previous_assignment"):
        cp.decode_sticky_user_data(struct.pack(">i", 3))
    with pytest.raises(cp.ConsumerProtocolError):
        cp.decode_cooperative_user_data(b"\x00")


def test_random_bytes_only_ever_raise_consumer_protocol_error() -> None:
    rng = random.Random(20240601)
    seeds = real_blobs()
    decoders = (cp.decode_subscription, cp.decode_assignment, cp.decode_sticky_user_data)
    for i in range(3000):
        if i % 2:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 64)))
        else:  # flip bytes of a real blob
            blob = bytearray(rng.choice(seeds))
            for _ in range(rng.randrange(1, 4)):
                blob[rng.randrange(len(blob))] = rng.getrandbits(8)
            data = bytes(blob)
        for decode in decoders:
            try:
                decode(data)
            except cp.ConsumerProtocolError:
                pass


def test_not_bytes_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        cp.decode_subscription("0003")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------- transport errors
