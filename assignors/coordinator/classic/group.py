"""The classic protocol's group and member records, and what the coordinator answers with.

Kafka: `classic.ClassicGroup`, `classic.ClassicGroupMember`, `classic.ClassicGroupState` and the
JoinGroup/SyncGroup/LeaveGroup response data, at the 4.0 line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter, itemgetter
from typing import Any


class ClassicGroupState(StrEnum):
    """A classic group's state, by the names the broker lists. Kafka: `classic.ClassicGroupState`."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


# The coordinator tests the state in nearly every handler: short names for them.
EMPTY, PREPARING, COMPLETING = (
    ClassicGroupState.EMPTY,
    ClassicGroupState.PREPARING_REBALANCE,
    ClassicGroupState.COMPLETING_REBALANCE,
)
STABLE, DEAD = ClassicGroupState.STABLE, ClassicGroupState.DEAD

# Kafka: ClassicGroupState's valid previous states.
_VALID_PREVIOUS = {
    EMPTY: {PREPARING},
    PREPARING: {EMPTY, COMPLETING, STABLE},
    COMPLETING: {PREPARING},
    STABLE: {COMPLETING},
    DEAD: {EMPTY, PREPARING, COMPLETING, STABLE, DEAD},
}

Protocols = tuple[tuple[str, Any], ...]  # (assignor name, metadata), most preferred first


@dataclass(frozen=True)
class CoordinatorConfig:
    """Broker settings; the defaults are Kafka's (`GroupCoordinatorConfig`)."""

    initial_rebalance_delay_ms: int = 3000
    new_member_join_timeout_ms: int = 300_000
    min_session_timeout_ms: int = 6000
    max_session_timeout_ms: int = 1_800_000
    max_size: int = 2**31 - 1


@dataclass(slots=True)  # slotted, as the two below: an eager hour of 1,000 members makes about a million
class _Answer:
    """A response that may be parked: `done` turns True, at `at_ms`, when the coordinator answers."""

    done: bool = False
    error: str = "NONE"
    at_ms: int | None = None
    # Called once answered: a simulated client learns of a parked answer the instant it is given.
    on_done: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def answer(self, now: int, **fields: Any) -> None:
        for name, value in fields.items():
            setattr(self, name, value)
        self.done = True
        self.at_ms = now
        # A response is answered once. The callback usually holds this response (a simulated client's
        # handler and its arguments): dropping it here breaks that cycle, which only a full collection would
        # free, and an eager hour of 1,000 members makes half a million of them.
        callback, self.on_done = self.on_done, None
        if callback is not None:
            callback()

    def _given(self, now: int) -> None:
        """The end of `answer`, for the answers a large group gives a thousand at a time, fields already set."""
        self.done = True
        self.at_ms = now
        callback, self.on_done = self.on_done, None
        if callback is not None:
            callback()


@dataclass(slots=True)
class JoinResponse(_Answer):
    member_id: str = ""
    generation: int = -1
    leader: str | None = None
    protocol_name: str | None = None
    members: tuple[tuple[str, str | None, Any], ...] = ()  # leader only: (member id, instance id, metadata)
    skip_assignment: bool = False

    def accept(
        self,
        now: int,
        member_id: str,
        generation: int,
        leader: str | None,
        protocol_name: str | None,
        members: tuple[tuple[str, str | None, Any], ...],
        skip_assignment: bool,
    ) -> None:
        """`answer(now, error="NONE", ...)` with every field named: no keyword dict per member per rebalance."""
        self.error = "NONE"
        self.member_id, self.generation, self.leader = member_id, generation, leader
        self.protocol_name, self.members, self.skip_assignment = protocol_name, members, skip_assignment
        self._given(now)


@dataclass(slots=True)
class SyncResponse(_Answer):
    assignment: tuple[Any, ...] = ()
    protocol_name: str | None = None

    def give(self, now: int, error: str, assignment: tuple[Any, ...], protocol_name: str | None) -> None:
        """`answer(now, error=..., assignment=..., protocol_name=...)`, without a keyword dict."""
        self.error, self.assignment, self.protocol_name = error, assignment, protocol_name
        self._given(now)


@dataclass
class LeaveResponse:
    error: str = "NONE"
    members: list[tuple[str, str | None, str]] = field(default_factory=list)  # (member id, instance id, error)


@dataclass
class ClassicMember:
    """Kafka: `ClassicGroupMember`."""

    member_id: str
    instance_id: str | None
    client_id: str
    protocol_type: str
    protocols: Protocols
    session_timeout_ms: int
    rebalance_timeout_ms: int
    assignment: tuple[Any, ...] = ()
    awaiting_sync: SyncResponse | None = None
    is_new: bool = False
    # The coordinator's (timer key, expiry action) for this member's session, made once.
    session_timer: tuple[Any, Callable[[], None]] | None = field(default=None, repr=False, compare=False)
    # Set only through ClassicGroup.await_join, which keeps the group's count of awaiting members.
    _awaiting_join: JoinResponse | None = field(default=None, repr=False)

    @property
    def awaiting_join(self) -> JoinResponse | None:
        return self._awaiting_join

    def matches(self, protocols: Protocols) -> bool:
        return self.protocols == protocols

    def has_satisfied_heartbeat(self) -> bool:
        """`hasSatisfiedHeartbeat`: a member parked in JoinGroup or SyncGroup is alive."""
        if self.is_new:
            return False
        return self.awaiting_join is not None or self.awaiting_sync is not None

    def vote(self, candidates: set[str]) -> str:
        return next(name for name, _ in self.protocols if name in candidates)

    def metadata_for(self, protocol: str | None) -> Any:
        protocols = self.protocols
        if len(protocols) == 1:  # one assignor: asked of every member each time a leader is answered
            name, meta = protocols[0]
            return meta if name == protocol else None
        return next((meta for name, meta in protocols if name == protocol), None)


@dataclass
class ClassicGroup:
    """Kafka: `ClassicGroup`. `members` keeps insertion order (kgroup's stand-in for HashMap order)."""

    group_id: str
    state: ClassicGroupState = EMPTY
    previous_state: ClassicGroupState | None = None
    generation: int = 0
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str | None = None
    members: dict[str, ClassicMember] = field(default_factory=dict)
    static_members: dict[str, str] = field(default_factory=dict)
    pending_join: dict[str, None] = field(default_factory=dict)  # an ordered set
    pending_sync: set[str] = field(default_factory=set)
    new_member_added: bool = False
    # Told of every member id that leaves `members`, whatever the reason (simulated clients' accounting).
    on_remove: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    # Kept as members come, go and change, so a JoinGroup costs O(1) however large the group
    # (Kafka: ClassicGroup.numMembersAwaitingJoinResponse and supportedProtocols).
    _awaiting_join_count: int = field(default=0, repr=False)
    _protocol_support: dict[str, int] = field(default_factory=dict, repr=False)

    def transition(self, target: ClassicGroupState) -> None:
        if self.state not in _VALID_PREVIOUS[target]:
            raise RuntimeError(f"group {self.group_id}: invalid transition {self.state} -> {target}")
        self.previous_state, self.state = self.state, target

    def num_awaiting_join(self) -> int:
        return self._awaiting_join_count

    def add(self, member: ClassicMember) -> None:
        """Kafka: `ClassicGroup.add` (the bookkeeping part; the leader is the caller's business)."""
        self.members[member.member_id] = member
        self._count_protocols(member.protocols, +1)
        if member.awaiting_join is not None:
            self._awaiting_join_count += 1

    def await_join(self, member: ClassicMember, response: JoinResponse | None) -> None:
        """Park (or, with None, clear) a member's JoinGroup answer."""
        self._awaiting_join_count += (response is not None) - (member._awaiting_join is not None)
        member._awaiting_join = response

    def update_protocols(self, member: ClassicMember, protocols: Protocols) -> None:
        old = member.protocols
        member.protocols = protocols
        # A rejoin nearly always names the same assignors, whose counts then stay as they are.
        if len(old) == len(protocols) and (
            old[0][0] == protocols[0][0] if len(old) == 1 else all(a[0] == b[0] for a, b in zip(old, protocols))
        ):
            return
        self._count_protocols(old, -1)
        self._count_protocols(protocols, +1)

    def _count_protocols(self, protocols: Protocols, delta: int) -> None:
        for name, _ in protocols:
            self._protocol_support[name] = self._protocol_support.get(name, 0) + delta

    def has_all_members_joined(self) -> bool:
        return len(self.members) == self._awaiting_join_count and not self.pending_join

    def can_rebalance(self) -> bool:
        return self.state in (STABLE, COMPLETING, EMPTY)

    def rebalance_timeout_ms(self) -> int:
        return max(map(_rebalance_timeout_of, self.members.values()), default=0)

    def candidate_protocols(self) -> set[str]:
        """Protocols every member supports."""
        return {name for name in self._protocol_support if self._supported_by_all(name)}

    def _supported_by_all(self, name: str) -> bool:
        return bool(self.members) and self._protocol_support.get(name) == len(self.members)

    def supports_protocols(self, protocol_type: str, protocols: Protocols) -> bool:
        """Kafka: `ClassicGroup.supportsProtocols`, of a JoinGroup's (name, metadata) pairs."""
        if self.state == EMPTY:
            return bool(protocol_type) and bool(protocols)
        # Asks per name rather than building the candidate set, in C: this runs on every JoinGroup. A name
        # every member supports is counted once per member (`_supported_by_all`).
        everyone = len(self.members)
        return (
            self.protocol_type == protocol_type
            and everyone > 0
            and everyone in map(self._protocol_support.get, map(_name_of, protocols))
        )

    def select_protocol(self) -> str:
        """Kafka: `ClassicGroup.selectProtocol`: each member votes for its first candidate; most votes win.

        A tie goes to the tied protocol listed first by the oldest member (Kafka: HashMap order).
        """
        candidates = self.candidate_protocols()
        if len(candidates) == 1:
            # Every member supports it, and it is every member's only candidate: its vote. A large group with
            # one assignor asks this at every join phase and static replacement.
            return next(iter(candidates))
        votes: dict[str, int] = {}
        for member in self.members.values():
            choice = member.vote(candidates)
            votes[choice] = votes.get(choice, 0) + 1
        best = max(votes.values())
        oldest = next(iter(self.members.values()))
        return next(name for name, _ in oldest.protocols if votes.get(name) == best)

    def member_list(self) -> tuple[tuple[str, str | None, Any], ...]:
        """`currentClassicGroupMembers`: what the leader's JoinGroup answer lists."""
        return tuple((m.member_id, m.instance_id, m.metadata_for(self.protocol_name)) for m in self.members.values())

    def detach(self, member_id: str) -> ClassicMember | None:
        """Take a member out of `members` and the counts, telling `on_remove`; nothing else."""
        removed = self.members.pop(member_id, None)
        if removed is None:
            return None
        self._count_protocols(removed.protocols, -1)
        if removed.awaiting_join is not None:
            self._awaiting_join_count -= 1
        if self.on_remove is not None:
            self.on_remove(member_id)
        return removed

    def remove(self, member_id: str) -> None:
        """Kafka: `ClassicGroup.remove`: a departing leader hands over to the oldest remaining member."""
        removed = self.detach(member_id)
        if removed is not None and removed.instance_id is not None:
            self.static_members.pop(removed.instance_id, None)
        if self.leader == member_id:
            self.leader = next(iter(self.members), None)
        self.pending_join.pop(member_id, None)
        self.pending_sync.discard(member_id)

    def validate_member(self, member_id: str, instance_id: str | None) -> str | None:
        """Kafka: `ClassicGroup.validateMember`; returns the error, or None."""
        if instance_id is not None:
            known = self.static_members.get(instance_id)
            if known is None:
                return "UNKNOWN_MEMBER_ID"
            if known != member_id:
                return "FENCED_INSTANCE_ID"
        if member_id not in self.members:
            return "UNKNOWN_MEMBER_ID"
        return None


@dataclass(frozen=True)
class Transition:
    """One state change, for timelines: when, which group, to what, at which generation."""

    at_ms: int
    group_id: str
    state: ClassicGroupState
    generation: int
    reason: str


_name_of = itemgetter(0)  # of a (name, metadata) protocol pair
_rebalance_timeout_of = attrgetter("rebalance_timeout_ms")  # of a ClassicMember, in C: asked twice per join phase
