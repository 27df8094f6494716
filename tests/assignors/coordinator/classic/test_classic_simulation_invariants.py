"""Random lives of a classic group (joins, closes, crashes, GC pauses, slow batches, time passing) never
break the coordinator's invariants: at most one member consumes a partition at any instant, the
generation never goes back, no member id is claimed by two running clients, and the counts the group
keeps to answer JoinGroup in O(1) (members awaiting a join, protocols everyone supports) match a recount."""

from __future__ import annotations

from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from kgroup.assignors.coordinator.classic.client import ClientConfig
from kgroup.assignors.coordinator.classic.simulation import ClassicSimulation
from kgroup.assignors.model import Cluster, Topic
from kgroup.assignors.registry import builtin

NAMES = [f"m{i}" for i in range(5)]


class ClassicGroupLife(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.sim = ClassicSimulation(Cluster((Topic("t", 6), Topic("u", 3))), builtin)
        self.generation = 0

    def _client(self, name: str, assignors: tuple[str, ...], static: bool):  # type: ignore[no-untyped-def]
        client = self.sim.clients.get(name)
        if client is None:
            config = ClientConfig(
                session_timeout_ms=10_000,
                heartbeat_interval_ms=3000,
                max_poll_interval_ms=20_000,
                assignors=assignors,
                instance_id=f"i-{name}" if static else None,
            )
            client = self.sim.add_client(name, config, ("t", "u"))
        return client

    @rule(name=st.sampled_from(NAMES), cooperative=st.booleans(), static=st.booleans())
    def start(self, name: str, cooperative: bool, static: bool) -> None:
        client = self._client(name, ("cooperative-sticky",) if cooperative else ("range",), static)
        if not client.alive:
            self.sim.start(client)

    @rule(name=st.sampled_from(NAMES), how=st.sampled_from(["crash", "close"]))
    def stop(self, name: str, how: str) -> None:
        client = self.sim.clients.get(name)
        if client is not None and client.alive:
            getattr(self.sim, how)(client)

    @rule(name=st.sampled_from(NAMES), pause=st.integers(1, 30_000))
    def gc_pause(self, name: str, pause: int) -> None:
        client = self.sim.clients.get(name)
        if client is not None and client.alive and not client.paused(self.sim.now):
            self.sim.gc_pause(client, pause)

    @rule(name=st.sampled_from(NAMES), processing=st.integers(1, 40_000))
    def slow_batch(self, name: str, processing: int) -> None:
        client = self.sim.clients.get(name)
        if client is not None and client.alive and not client.busy(self.sim.now):
            self.sim.process(client, processing)

    @rule(step=st.integers(0, 20_000))
    def time_passes(self, step: int) -> None:
        self.sim.run_until(self.sim.now + step)

    @invariant()
    def one_consumer_per_partition(self) -> None:
        seen: dict = {}
        for name, client in self.sim.clients.items():
            for tp in self.sim.ledger.consuming(name):
                assert tp not in seen, f"{tp} consumed by {seen[tp]} and {name} at {self.sim.now}"
                seen[tp] = name

    @invariant()
    def generation_never_goes_back(self) -> None:
        group = self.sim.coordinator.groups.get(self.sim.group_id)
        if group is not None:
            assert group.generation >= self.generation
            self.generation = group.generation

    @invariant()
    def one_running_client_per_member_id(self) -> None:
        group = self.sim.coordinator.groups.get(self.sim.group_id)
        if group is None:
            return
        for member_id in group.members:
            claims = [c.handle for c in self.sim.clients.values() if c.alive and c.member_id == member_id]
            assert len(claims) <= 1, f"{member_id} claimed by {claims}"

    @invariant()
    def kept_counts_match_a_recount(self) -> None:
        group = self.sim.coordinator.groups.get(self.sim.group_id)
        if group is None:
            return
        members = list(group.members.values())
        assert group.num_awaiting_join() == sum(1 for m in members if m.awaiting_join is not None)
        common = set.intersection(*({name for name, _ in m.protocols} for m in members)) if members else set()
        assert group.candidate_protocols() == common

    def teardown(self) -> None:
        for tp, segments in self.sim.ledger.timelines().items():
            for before, after in zip(segments, segments[1:]):
                assert before.end is not None and before.end <= after.start, f"{tp}: {before} overlaps {after}"


TestClassicGroupLife = ClassicGroupLife.TestCase
TestClassicGroupLife.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
