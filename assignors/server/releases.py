"""Which Apache Kafka release's server-side assignor behaviour a run follows.

The KIP-848 assignors run inside the broker, so the broker's release decides their output. Between 4.0 and
4.4.0 (kafka-group-coordinator, `coordinator.group.assignor`) exactly one change reaches the output:
KAFKA-18688 (4.1.0) in `UniformHomogeneousAssignmentBuilder.maybeRevokePartitions`, where a member that
keeps no more than the minimum quota gives up its claim to an extra partition unless it is one of the last
members that must take one. `RangeAssignor` and `UniformHeterogeneousAssignmentBuilder` are the same in
4.0.0, 4.1.0 and 4.2.1 but for `Collections.emptyMap()` becoming `Map.of()`; tests/oracle checks both
assignors against Kafka's own classes of 4.0.0, 4.2.1 and 4.4.0 (and 4.3.2 when asked).

A known release selects its behaviour; none given, kgroup follows the newest it reproduces (`NEWEST`).
Releases before 4.0 are not reproduced (their builders differ again: KAFKA-16864 in 3.9, KAFKA-17710 in
4.0); they get the 4.0 behaviour, and `uniform_release` says so.
"""

from __future__ import annotations

import re

NEWEST = "4.4"  # the newest Kafka release whose server assignors kgroup reproduces (checked against 4.4.0)
UNIFORM_4_0 = "4.0"  # UniformHomogeneousAssignmentBuilder before KAFKA-18688
UNIFORM_4_1 = "4.1"  # after KAFKA-18688 (4.1.0 through 4.4.0)

_RELEASE = re.compile(r"^\s*(\d+)\.(\d+)")


def parse_release(text: str | None) -> tuple[int, int] | None:
    """(major, minor) of a Kafka release such as "4.0.0", "4.2" or "4.0.0-SNAPSHOT"; None when not one."""
    if not text:
        return None
    match = _RELEASE.match(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def uniform_rules(release: str | None) -> str:
    """The homogeneous uniform builder `release` runs: UNIFORM_4_0 before 4.1, else UNIFORM_4_1 (KAFKA-18688).

    No release, or one kgroup cannot read, gives the newest behaviour."""
    parsed = parse_release(release)
    return UNIFORM_4_0 if parsed is not None and parsed < (4, 1) else UNIFORM_4_1


def uniform_release(release: str | None) -> str:
    """In words, which Kafka behaviour a uniform run for `release` follows (for a what-if's notes)."""
    parsed = parse_release(release)
    if parsed is None:
        why = "no Kafka release known" if not release else f"Kafka release {release!r} not understood"
        return f"Kafka {NEWEST} (the newest kgroup reproduces; {why})"
    if parsed < (4, 0):
        return f"Kafka 4.0 (the oldest kgroup reproduces; the group's broker runs {release})"
    if parsed < (4, 1):
        return f"Kafka 4.0 (the group's broker runs {release})"
    if parsed > (4, 4):
        return f"Kafka {NEWEST} (the newest kgroup reproduces; the group's broker runs {release})"
    return f"Kafka {parsed[0]}.{parsed[1]} (the group's broker runs {release})"
