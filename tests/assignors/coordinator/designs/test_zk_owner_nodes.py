"""The 0.8 consumer's owner nodes (/consumers/[group]/owners/t/p) through any sequence of attempts, crashes, clean
leaves and session expiries, checked step by step against ZookeeperConsumerConnector's rules (0.8.2.2):
`rebalance` first releases every node the consumer owns (`releasePartitionOwnership`), then creates one per
partition of its share; one NodeExists deletes the ones it just made (`reflectPartitionOwnershipDecision`);
a session's end deletes its ephemeral nodes. Nothing one consumer does touches another's nodes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.coordinator.designs.zk_watcher import ZkConfig, ZkWatcherGroup
from kgroup.assignors.model import TopicPartition

CONSUMERS = ["c1", "c2", "c3", "c4"]
PARTITIONS = [TopicPartition(t, p) for t in ("a", "b") for p in range(5)]

_step = st.one_of(
    st.tuples(st.just("attempt"), st.sampled_from(CONSUMERS), st.lists(st.sampled_from(CONSUMERS), max_size=4)),
    st.tuples(st.just("crash"), st.sampled_from(CONSUMERS), st.just([])),
    st.tuples(st.just("leave"), st.sampled_from(CONSUMERS), st.just([])),
    st.tuples(st.just("wait"), st.sampled_from(CONSUMERS), st.just([])),
)


def _nodes_of(group: ZkWatcherGroup) -> dict[str, set[TopicPartition]]:
    nodes: dict[str, set[TopicPartition]] = {}
    for tp, owner in group.owners.items():
        nodes.setdefault(owner, set()).add(tp)
    return nodes


@settings(max_examples=300, deadline=None)
@given(
    first=st.lists(st.sampled_from(CONSUMERS + [None]), min_size=len(PARTITIONS), max_size=len(PARTITIONS)),
    steps=st.lists(_step, max_size=25),
)
def test_owner_nodes_follow_the_release_then_claim_rule(first, steps) -> None:  # type: ignore[no-untyped-def]
    # Not autonomous: each attempt is the test's, with the view of /ids it gives (a stale one included).
    group = ZkWatcherGroup(PARTITIONS, ZkConfig(zk_session_timeout_ms=1_000), autonomous=False)
    group.load(CONSUMERS, dict(zip(PARTITIONS, first)))
    now = 0
    for kind, consumer, view in steps:
        before = _nodes_of(group)
        if kind == "attempt":
            if consumer not in group.alive:
                continue
            result = group.attempt(consumer, view=view or None)
            after = _nodes_of(group)
            mine = set(result.claimed) if result.failed_on is None else set()
            assert after.get(consumer, set()) == mine
            if result.failed_on is None:
                assert mine == set(result.share)
                assert group.consuming[consumer] == result.share
            else:  # NodeExists on a node someone else holds, the claims so far undone
                assert group.owners[result.failed_on] != consumer
        elif kind == "crash":
            if consumer not in group.alive:
                continue
            group.crash(consumer)
            assert _nodes_of(group) == before  # ephemeral nodes live until the session expires
        elif kind == "leave":
            if consumer not in group.alive:
                continue
            group.leave(consumer)
            assert consumer not in _nodes_of(group)
        else:
            now += 1_000  # one session timeout: every crashed consumer's session has ended
            group.advance_to(now)
            after = _nodes_of(group)
            assert all(c in group.alive for c in after)
            assert after == {c: tps for c, tps in before.items() if c in group.alive}
            continue
        after = _nodes_of(group)
        assert {c: t for c, t in after.items() if c != consumer} == {c: t for c, t in before.items() if c != consumer}
