"""Apache Kafka's classic-group member map: the order JoinGroup and DescribeGroups list members in, and where
a newcomer's random member id lands in it.

Kafka 4.x (`org.apache.kafka.coordinator.group.classic.ClassicGroup`) keeps `members` in a
`java.util.HashMap<String, ClassicGroupMember>` keyed by member id. The leader's JoinGroup response
(`currentClassicGroupMembers`) and DescribeGroups (`GroupMetadataManager.describeGroups`, `allMembers`)
both walk that map, so they list members in the same order: bucket by bucket, `spread(id.hashCode()) &
(capacity - 1)`, and within a bucket in insertion order (see `kgroup.assignors.java.hash_order`). The table
starts at 16 buckets, doubles when a put takes it past 0.75 x capacity, and never shrinks while the group
object lives. A new member's id is `client.id + "-" + UUID.randomUUID()`, or `group.instance.id + "-" +
UUID` for a static member (`ClassicGroup.generateMemberId`), put last.

Measured with librdkafka leaders (issue 33): the order the leader's assignor ran on (its `debug=assignor`
log) equalled DescribeGroups' order and the map order above at each of 42 joins on Kafka 4.2.1 (groups
of 1 to 14 members, across the resize from 16 to 32 buckets) and 16 on Kafka 4.0.0.

Not this model: other brokers (noida-db's describe order had no fixed relation to its JoinGroup order;
Tansu, Redpanda and others keep members in their own structures) and chains long enough for Java to turn
them into trees (9 ids in one bucket of a table of 64 or more), which random ids practically never form.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from fractions import Fraction

from kgroup.assignors.java.hash_order import DEFAULT_CAPACITY, spread
from kgroup.assignors.java.semantics import java_string_hash

# The places a newcomer's random id may take that decide what an assignor gives (see `newcomer_classes`):
#   "rank": how its id sorts among the others' ids (Java's RangeAssignor and RoundRobinAssignor);
#   "position": its place in the map's order and its rank (librdkafka, which runs on the JoinGroup order);
#   "bucket": its bucket in the map and its rank (Java's sticky assignors, whose leader keys members in a
#   HashMap too: its bucket there follows from its bucket in the broker's map, which has as many or more).
RANK, POSITION, BUCKET = "rank", "position", "bucket"

T = TypeVar("T", bound=Any)
_LOAD_FACTOR = Fraction(3, 4)
# A group map is searched up to this many buckets: enough for 49,152 members.
_LARGEST_CAPACITY = 1 << 16

# java.util.UUID.toString of a random (version 4) UUID: 8-4-4-4-12 lowercase hex digits, the version
# digit fixed at '4' and the variant digit one of 8, 9, a, b (UUID.randomUUID, RFC 4122).
_HEX = "0123456789abcdef"
_UUID_CHARS: tuple[str, ...] = tuple(
    "-" if i in (8, 13, 18, 23) else "4" if i == 14 else "89ab" if i == 19 else _HEX for i in range(36)
)


def bucket(member_id: str, capacity: int) -> int:
    """`HashMap.hash(key) & (n - 1)` for a String key."""
    return spread(java_string_hash(member_id)) & (capacity - 1)


def smallest_capacity(size: int) -> int:
    """The buckets of a map that never held more than `size` entries: 16, doubled past 0.75 x capacity."""
    capacity = DEFAULT_CAPACITY
    while size > capacity * _LOAD_FACTOR:
        capacity *= 2
    return capacity


def is_map_order(member_ids: list[str], capacity: int) -> bool:
    """Whether a map of `capacity` buckets could list these ids in this order (buckets never decrease)."""
    buckets = [bucket(m, capacity) for m in member_ids]
    return all(a <= b for a, b in zip(buckets, buckets[1:]))


def map_capacity(member_ids: list[str]) -> int | None:
    """The fewest buckets a member map listing the ids in this order can have, or None when no map could.

    A map that once held more members keeps its larger table, so more buckets are possible too; the
    fewest is the map of a group that never had more members than the 0.75 load allows (the usual case).
    None: the order is not Apache Kafka's map order (another broker, or a group whose members the
    coordinator did not add one by one).
    """
    capacity = smallest_capacity(len(member_ids))
    while capacity <= _LARGEST_CAPACITY:
        if is_map_order(member_ids, capacity):
            return capacity
        capacity *= 2
    return None


def share_below(text: str) -> Fraction:
    """The share of random UUID strings that sort before `text`, comparing UTF-8 bytes (librdkafka's
    `rd_kafkap_str_cmp`, and Java's String order too on these ASCII characters)."""
    data = text.encode("utf-8")
    below, same = Fraction(0), Fraction(1)
    for i, chars in enumerate(_UUID_CHARS):
        if i == len(data):
            return below  # `text` is a prefix of every UUID that got this far: they sort after it
        less = sum(1 for c in chars if ord(c) < data[i])
        below += same * Fraction(less, len(chars))
        if chr(data[i]) not in chars:
            return below
        same /= len(chars)
    return below + (same if len(data) > len(_UUID_CHARS) else 0)


@dataclass(frozen=True)
class Landing:
    """Where a newcomer lands: its place in the map's order, and an id that compares to the others'
    ids as its random id would, with the share of random ids for which both hold."""

    position: int
    member_id: str
    likelihood: Fraction


def newcomer_landings(existing: list[str], prefix: str, capacity: int) -> tuple[list[str], list[Landing]]:
    """The existing ids in the map's order once the newcomer is in, and where the newcomer may land.

    `existing`: the member ids in the order the broker lists them, taken to be a map of `capacity`
    buckets; `prefix`: the newcomer's client.id, or group.instance.id when static. Its id's bucket is
    taken as uniform over the buckets (String.hashCode over 36 random hex digits; checked by sampling in
    the tests) and independent of how the id sorts, which depends on its first digits only. The
    newcomer goes last in its bucket's chain (`HashMap.putVal`); a put past 0.75 x capacity doubles the
    table, which splits each chain without reordering it (`HashMap.resize`).
    """
    grown = capacity * 2 if len(existing) + 1 > capacity * _LOAD_FACTOR else capacity
    index = {m: i for i, m in enumerate(existing)}
    ordered = sorted(existing, key=lambda m: (bucket(m, grown), index[m]))
    buckets = [bucket(m, grown) for m in ordered]
    positions: dict[int, int] = {}
    for b in range(grown):
        place = sum(1 for x in buckets if x <= b)
        positions[place] = positions.get(place, 0) + 1
    ranks = _sort_ranks(existing, prefix + "-")
    landings = [
        Landing(place, stand_in, Fraction(count, grown) * share)
        for place, count in sorted(positions.items())
        for stand_in, share in ranks
    ]
    return ordered, [landing for landing in landings if landing.likelihood > 0]


def newcomer_classes(
    existing: list[str], prefix: str, capacity: int, by: str, limit: int | None = None
) -> tuple[list[str], list[Landing], int]:
    """As `newcomer_landings`, the newcomer's places told apart only as far as `by` needs (RANK,
    POSITION, BUCKET), each with an id that sorts (and, for BUCKET, hashes) where the random id would.

    RANK: one landing per rank, placed last (the assignor sorts, so where it is listed does not count).
    BUCKET: one per bucket of the grown map and rank; the stand-in id lands in that very bucket, so
    every HashMap of member ids with as many buckets or fewer (the leader's) iterates it there too.
    With `limit`, only that many landings are made, the most likely (ties: first found); the count of all
    is returned too.
    """
    if by == POSITION:
        ordered, found = newcomer_landings(existing, prefix, capacity)
        return ordered, found, len(found)
    grown = capacity * 2 if len(existing) + 1 > capacity * _LOAD_FACTOR else capacity
    index = {m: i for i, m in enumerate(existing)}
    ordered = sorted(existing, key=lambda m: (bucket(m, grown), index[m]))
    ranks = [(stand_in + "\x01", share) for stand_in, share in _sort_ranks(existing, prefix + "-")]
    ranks = [(stand_in, share) for stand_in, share in ranks if share > 0]
    if by == RANK:
        found = [Landing(len(ordered), stand_in, share) for stand_in, share in ranks]
        return ordered, _most_likely(found, limit), len(found)
    # The leader's HashMap of every member (ConsumerCoordinator.onLeaderElected: a default HashMap, filled
    # in JoinGroup order) has this many buckets, no more than the broker's map: the newcomer's bucket
    # there follows from its bucket in the broker's. Buckets that put it at the same place in both orders
    # are one class, run once with an id from one of them.
    leader = smallest_capacity(len(existing) + 1)
    in_broker = [bucket(m, grown) for m in ordered]
    in_leader = [bucket(m, leader) for m in ordered]
    below = sorted(in_leader)
    sharing: dict[int, list[int]] = {}
    for i, x in enumerate(in_leader):
        sharing.setdefault(x, []).append(i)
    classes: dict[tuple[int, int], list[int]] = {}
    for b in range(grown):
        place = bisect_right(in_broker, b)  # `ordered` is in bucket order
        mine = b & (leader - 1)
        led = bisect_left(below, mine) + bisect_left(sharing.get(mine, []), place)
        classes.setdefault((place, led), []).append(b)
    # The most likely classes and ranks first: a product's top `limit` come from each one's top `limit`.
    kept = sorted(classes.items(), key=lambda item: -len(item[1]))[:limit]
    likeliest = sorted(ranks, key=lambda rank: -rank[1])[:limit]
    products = [
        (share * Fraction(len(found), grown), place, found[0], stand_in)
        for (place, _), found in kept
        for stand_in, share in likeliest
    ]
    products = _most_likely(products, limit, key=lambda p: p[0])
    landings = [
        Landing(place, in_bucket(stand_in, first, grown), likelihood) for likelihood, place, first, stand_in in products
    ]
    return ordered, landings, len(classes) * len(ranks)


def _most_likely(items: list[T], limit: int | None, key: Callable[[T], Fraction] = lambda x: x.likelihood) -> list[T]:
    """The `limit` most likely of `items` in their order of likelihood (all, as they are, without a limit)."""
    return items if limit is None or len(items) <= limit else sorted(items, key=lambda x: -key(x))[:limit]


_TAIL = [chr(c) for c in range(0x21, 0x7F)]


def in_bucket(base: str, target: int, capacity: int) -> str:
    """`base` and one to three printable characters, the id landing in bucket `target` of `capacity`.

    Anything after `base` sorts the same against ids that do not start with `base` + those characters
    (the stand-ins end in "\x01", below every character of a member id)."""
    h0 = java_string_hash(base) & 0xFFFFFFFF
    if bucket(base, capacity) == target:
        return base
    frontier = [("", h0)]
    for _ in range(3):
        grown = []
        for tail, h in frontier:
            for c in _TAIL:
                hc = (31 * h + ord(c)) & 0xFFFFFFFF
                if spread(hc) & (capacity - 1) == target:
                    return base + tail + c
                grown.append((tail + c, hc))
        frontier = grown[:4096]
    raise ValueError(f"no id found for bucket {target} of {capacity}")  # unreachable for capacity <= 2**16


def _sort_ranks(existing: list[str], head: str) -> list[tuple[str, Fraction]]:
    """Each rank a random `head + UUID` may take among the ids that start with `head`, as an id that
    sorts there, and its share. Ids that do not start with `head` sort against it on `head` alone."""
    rivals = sorted((m for m in existing if m.startswith(head)), key=lambda m: m.encode("utf-8"))
    ranks, low = [], Fraction(0)
    for i, rival in enumerate([*rivals, None]):
        high = share_below(rival[len(head) :]) if rival is not None else Fraction(1)
        stand_in = head if i == 0 else rivals[i - 1] + "\x01"
        if rival is None or stand_in.encode("utf-8") < rival.encode("utf-8"):
            ranks.append((stand_in, high - low))
        low = high
    return ranks
