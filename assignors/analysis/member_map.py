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

from dataclasses import dataclass
from fractions import Fraction

from kgroup.assignors.java.hash_order import DEFAULT_CAPACITY, spread
from kgroup.assignors.java.semantics import java_string_hash

_LOAD_FACTOR = Fraction(3, 4)
# A group map is searched up to this many buckets: enough for 49,152 members.
_LARGEST_CAPACITY = 1 << 16

# java.util.UUID.toString of a random (version 4) UUID: 8-4-4-4-12 lowercase hex digits, the version
# digit fixed at '4' and the variant digit one of 8, 9, a, b (UUID.randomUUID, RFC 4122).
_HEX = "0123456789abcdef"
_UUID_CHARS: tuple[str, ...] = tuple(
    "-" if i in (8, 13, 18, 23) else "4" if i == 14 else "89ab" if i == 19 else _HEX for i in range(36))


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
    landings = [Landing(place, stand_in, Fraction(count, grown) * share)
                for place, count in sorted(positions.items()) for stand_in, share in ranks]
    return ordered, [landing for landing in landings if landing.likelihood > 0]


def _sort_ranks(existing: list[str], head: str) -> list[tuple[str, Fraction]]:
    """Each rank a random `head + UUID` may take among the ids that start with `head`, as an id that
    sorts there, and its share. Ids that do not start with `head` sort against it on `head` alone."""
    rivals = sorted((m for m in existing if m.startswith(head)), key=lambda m: m.encode("utf-8"))
    ranks, low = [], Fraction(0)
    for i, rival in enumerate([*rivals, None]):
        high = share_below(rival[len(head):]) if rival is not None else Fraction(1)
        stand_in = head if i == 0 else rivals[i - 1] + "\x01"
        if rival is None or stand_in.encode("utf-8") < rival.encode("utf-8"):
            ranks.append((stand_in, high - low))
        low = high
    return ranks
