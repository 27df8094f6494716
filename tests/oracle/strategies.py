"""Hypothesis strategies for group states, in the sidecar's JSON shape (tests/oracle/sidecar.py).

Client side (range, roundrobin, sticky, cooperative-sticky): 1-8 members, now and then 9-20 (a classic
group always has its leader), 1-5 topics of 1-12 partitions, now and then 13-40, identical or unequal
subscriptions (in any listed order, sometimes naming a topic that does not exist yet, sometimes empty: a
pattern that matches nothing), racks on members and on partition replicas (all, some, none), static
members, and owned partitions that are fresh, a valid previous assignment, or messy: claimed by several
members with different or equal generations, of unsubscribed or deleted topics, or beyond a topic's
partition count.

Server side (uniform, server-range): 0-8 members, now and then 9-20, topics sized as above with random
Kafka Uuids (their hash order breaks ties), homogeneous and heterogeneous subscriptions, a previous target
assignment (each partition held by at most one member, as the coordinator keeps it; stale where the member
unsubscribed or the topic was deleted), racks and instance ids (which these assignors must ignore).
"""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import strategies as st

# Names that order differently in Java (UTF-16 units) and Python (code points) are in here on purpose.
TOPIC_NAMES = ("t0", "t1", "t2", "t3", "orders", "orders-1", "t\uff21", "t\U0001d400")
GHOST_TOPICS = ("not-created-yet", "t9")
GONE_TOPIC = "deleted-topic"
RACKS = ("r0", "r1", "r2")
MEMBER_ALPHABET = "abcdefgCDXYZ0123456789-_"


@st.composite
def _now_and_then_larger(draw: st.DrawFn, usual: st.SearchStrategy[int], larger: st.SearchStrategy[int]) -> int:
    """Mostly `usual`, one draw in five `larger`: enough members to grow a HashMap past 16 buckets, enough
    partitions for a HashSet<Integer> that no longer iterates in ascending order."""
    return draw(larger if draw(st.integers(0, 4)) == 0 else usual)


@st.composite
def _member_ids(draw: st.DrawFn, count: int) -> list[str]:
    style = draw(st.sampled_from(("C", "consumer", "random")))
    if style == "C":
        return [f"C{i}" for i in range(count)]
    if style == "consumer":
        return [f"consumer-g-{i + 1}-{i * 7919 % 1000:03d}" for i in range(count)]
    return draw(
        st.lists(st.text(MEMBER_ALPHABET, min_size=1, max_size=12), min_size=count, max_size=count, unique=True)
    )


@st.composite
def _topics(draw: st.DrawFn, with_racks: bool, with_ids: bool) -> list[dict[str, Any]]:
    names = draw(st.lists(st.sampled_from(TOPIC_NAMES), min_size=1, max_size=5, unique=True))
    rack_mode = draw(st.sampled_from(("none", "some", "all"))) if with_racks else "none"
    # Distinct ids: a topic id names one topic.
    raw_ids = (
        draw(st.lists(st.binary(min_size=16, max_size=16), min_size=len(names), max_size=len(names), unique=True))
        if with_ids
        else []
    )
    topics = []
    for position, name in enumerate(names):
        count = draw(_now_and_then_larger(st.integers(1, 12), st.integers(13, 40)))
        racks = None
        if rack_mode == "all" or (rack_mode == "some" and draw(st.booleans())):
            racks = draw(_replica_racks(count))
        topic: dict[str, Any] = {"name": name, "partitions": count, "replica_racks": racks}
        if with_ids:
            topic["id"] = base64.urlsafe_b64encode(raw_ids[position]).decode("ascii").rstrip("=")
        topics.append(topic)
    return topics


@st.composite
def _replica_racks(draw: st.DrawFn, count: int) -> list[list[str]]:
    """The racks of each partition's replicas. Few draws per topic (generation dominates a run's time):
    Kafka's benchmark placement (replica j of partition p on rack (p + j + shift) % 3) with a replication
    factor, every partition on every rack (rack-aware logic then stays off), or a random set per partition
    on small topics; some partitions may have no rack at all."""
    mode = draw(st.sampled_from(("placed", "everywhere", "random")))
    if mode == "everywhere":
        racks = [list(RACKS)] * count
    elif mode == "random" and count <= 4:
        racks = [sorted(draw(st.sets(st.sampled_from(RACKS), max_size=3))) for _ in range(count)]
    else:
        factor, shift = draw(st.integers(1, 3)), draw(st.integers(0, 2))
        racks = [sorted({RACKS[(p + j + shift) % 3] for j in range(factor)}) for p in range(count)]
    if draw(st.integers(0, 4)) == 0:
        racks[draw(st.integers(0, count - 1))] = []
    return racks


@st.composite
def _subscriptions(draw: st.DrawFn, topics: list[dict[str, Any]], count: int) -> list[list[str]]:
    names = [t["name"] for t in topics]
    if draw(st.integers(0, 9)) == 0:
        names.append(draw(st.sampled_from(GHOST_TOPICS)))
    pick = st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True)
    if draw(st.booleans()):  # identical subscriptions, each member listing them in its own order
        shared = draw(pick)
        subscriptions = [draw(st.permutations(shared)) for _ in range(count)]
    else:
        subscriptions = [draw(pick) for _ in range(count)]
    if draw(st.integers(0, 9)) == 0:  # a pattern subscription that matches no topic yet
        subscriptions[draw(st.integers(0, count - 1))] = []
    return subscriptions


@st.composite
def _optional_per_member(draw: st.DrawFn, count: int, values: st.SearchStrategy[str]) -> list[str | None]:
    mode = draw(st.sampled_from(("none", "some", "all")))
    if mode == "none":
        return [None] * count
    return [draw(values) if mode == "all" or draw(st.booleans()) else None for _ in range(count)]


def _instance_ids(count: int) -> st.SearchStrategy[list[str | None]]:
    # Unique when present: two static members never share a group.instance.id.
    return st.lists(st.sampled_from([f"i{k}" for k in range(24)]), min_size=count, max_size=count, unique=True).flatmap(
        lambda ids: st.lists(st.booleans(), min_size=count, max_size=count).map(
            lambda keep: [i if k else None for i, k in zip(ids, keep)]
        )
    )


@st.composite
def _client_ownership(
    draw: st.DrawFn, topics: list[dict[str, Any]], count: int
) -> list[tuple[list[list[Any]], int | None]]:
    """(owned, generation) per member; a member that was never assigned (None) owns nothing."""
    existing = [[t["name"], p] for t in topics for p in range(t["partitions"])]
    mode = draw(st.sampled_from(("fresh", "previous", "messy")))
    if mode == "fresh":
        return [([], None)] * count
    if mode == "previous":
        generation = draw(st.integers(0, 20))
        joined = [draw(st.booleans()) or i == 0 for i in range(count)]
        owners = draw(st.lists(st.integers(-1, count - 1), min_size=len(existing), max_size=len(existing)))
        owned: list[list[list[Any]]] = [[] for _ in range(count)]
        for tp, owner in zip(existing, owners):
            if owner >= 0 and joined[owner]:
                owned[owner].append(tp)
        return [(owned[i], generation if joined[i] else None) for i in range(count)]
    stale = [[GONE_TOPIC, p] for p in range(3)] + [[t["name"], t["partitions"] + 1] for t in topics[:1]]
    universe = existing + stale
    result: list[tuple[list[list[Any]], int | None]] = []
    for _ in range(count):
        claimed_in = draw(st.one_of(st.none(), st.integers(-1, 4)))
        if claimed_in is None:
            result.append(([], None))
            continue
        claims = draw(st.lists(st.sampled_from(universe), max_size=min(len(universe), 12), unique_by=tuple))
        result.append((sorted(claims, key=lambda tp: (tp[0], tp[1])), claimed_in))
    return result


@st.composite
def client_cases(draw: st.DrawFn, assignor: str) -> dict[str, Any]:
    topics = draw(_topics(with_racks=True, with_ids=False))
    count = draw(_now_and_then_larger(st.integers(1, 8), st.integers(9, 20)))
    ids = draw(_member_ids(count))
    subscriptions = draw(_subscriptions(topics, count))
    racks = draw(_optional_per_member(count, st.sampled_from(RACKS + ("r9",))))
    instances = draw(_instance_ids(count))
    ownership = draw(_client_ownership(topics, count))
    members = [
        {
            "member_id": ids[i],
            "topics": subscriptions[i],
            "owned": ownership[i][0],
            "generation": ownership[i][1],
            "rack": racks[i],
            "instance_id": instances[i],
        }
        for i in range(count)
    ]
    return {"assignor": assignor, "topics": topics, "members": members}


@st.composite
def server_cases(draw: st.DrawFn, assignor: str) -> dict[str, Any]:
    topics = draw(_topics(with_racks=False, with_ids=True))
    count = draw(_now_and_then_larger(st.integers(0, 8), st.integers(9, 20)))
    ids = draw(_member_ids(count))
    subscriptions = draw(_subscriptions(topics, count)) if count else []
    racks = draw(_optional_per_member(count, st.sampled_from(RACKS)))
    instances = draw(_instance_ids(count))
    owned: list[list[list[Any]]] = [[] for _ in range(count)]
    if count and draw(st.booleans()):  # a previous target assignment
        held = [[t["name"], p] for t in topics for p in range(t["partitions"])]
        if draw(st.integers(0, 4)) == 0:
            held += [[GONE_TOPIC, p] for p in range(draw(st.integers(1, 4)))]
        owners = draw(st.lists(st.integers(-1, count - 1), min_size=len(held), max_size=len(held)))
        for tp, owner in zip(held, owners):
            if owner >= 0:
                owned[owner].append(tp)
    members = [
        {
            "member_id": ids[i],
            "topics": subscriptions[i],
            "owned": owned[i],
            "generation": None,
            "rack": racks[i],
            "instance_id": instances[i],
        }
        for i in range(count)
    ]
    return {"assignor": assignor, "topics": topics, "members": members}
