"""Random lives of a KIP-848 group (joins, static and dynamic leaves, acknowledgements, lost responses,
partitions added, time passing with session and rebalance timeouts) keep the coordinator's invariants:
no partition is ever held by two members at once, no member epoch exceeds the group epoch, and a Stable
group's members hold exactly the target assignment."""

from __future__ import annotations

from collections import Counter

from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from kgroup.assignors.coordinator.consumer.coordinator import (
    ConsumerConfig,
    ConsumerCoordinator,
    ConsumerGroupState,
    HeartbeatRequest,
)
from kgroup.assignors.coordinator.consumer.scenario import server_assignor

NAMES = [f"m{i}" for i in range(5)]
GROUP = "g"


class ConsumerGroupLife(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.coordinator = ConsumerCoordinator(
            ConsumerConfig(session_timeout_ms=45_000), {"t": 6, "u": 3}, lambda *_: {}
        )
        self.coordinator.assignor = server_assignor(self.coordinator)
        self.epochs: dict[str, int] = {}  # what each client believes its epoch is

    def _group(self):  # type: ignore[no-untyped-def]
        return self.coordinator.groups.get(GROUP)

    @rule(
        name=st.sampled_from(NAMES),
        static=st.booleans(),
        assignor=st.sampled_from([None, "uniform", "range"]),
        topics=st.sampled_from([("t",), ("t", "u"), ("u",)]),
    )
    def join(self, name: str, static: bool, assignor: str | None, topics: tuple[str, ...]) -> None:
        response = self.coordinator.heartbeat(
            GROUP,
            HeartbeatRequest(name, 0, f"i-{name}" if static else None, None, 60_000, topics, assignor, frozenset()),
        )
        if response.error == "NONE":
            self.epochs[name] = response.member_epoch or 0

    @rule(name=st.sampled_from(NAMES), acknowledge=st.booleans())
    def heartbeat(self, name: str, acknowledge: bool) -> None:
        group = self._group()
        member = group.members.get(name) if group else None
        if member is None or member.epoch < 0:
            return
        owned = member.progress.assigned if acknowledge else None
        response = self.coordinator.heartbeat(
            GROUP, HeartbeatRequest(name, self.epochs.get(name, member.epoch), member.instance_id, owned=owned)
        )
        if response.error == "NONE":
            self.epochs[name] = response.member_epoch or 0

    @rule(name=st.sampled_from(NAMES), static_leave=st.booleans())
    def leave(self, name: str, static_leave: bool) -> None:
        group = self._group()
        member = group.members.get(name) if group else None
        if member is not None:
            epoch = -2 if static_leave and member.instance_id else -1
            self.coordinator.leave(GROUP, name, member.instance_id, epoch)

    @rule(topic=st.sampled_from(["t", "u"]), more=st.integers(1, 3))
    def add_partitions(self, topic: str, more: int) -> None:
        self.coordinator.metadata_change(topic, self.coordinator.topics[topic] + more)

    @rule(step=st.integers(0, 70_000))
    def time_passes(self, step: int) -> None:
        self.coordinator.advance_to(self.coordinator.now + step)

    @invariant()
    def nobody_holds_a_partition_another_holds(self) -> None:
        group = self._group()
        if group is None:
            return
        seen: dict = {}
        for member in group.members.values():
            for tp in member.owned:
                assert tp not in seen, f"{tp} held by {seen[tp]} and {member.member_id}"
                seen[tp] = member.member_id

    @invariant()
    def no_member_epoch_exceeds_the_group_epoch(self) -> None:
        group = self._group()
        if group is not None:
            assert all(m.epoch <= group.group_epoch for m in group.members.values())
            assert group.assignment_epoch <= group.group_epoch

    @invariant()
    def the_group_counts_its_members_subscriptions_and_assignors(self) -> None:
        group = self._group()
        if group is not None:
            members = list(group.members.values())
            assert group.subscriptions == Counter(m.subscribed_topics for m in members)
            assert group.server_assignors == Counter(m.server_assignor for m in members)

    @invariant()
    def a_stable_group_holds_its_target(self) -> None:
        group = self._group()
        if group is not None and group.state == ConsumerGroupState.STABLE:
            for member in group.members.values():
                assert member.progress.assigned == group.target.get(member.member_id, frozenset())
                assert not member.progress.pending_revocation


ConsumerGroupLife.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
test_consumer_group_life = ConsumerGroupLife.TestCase
