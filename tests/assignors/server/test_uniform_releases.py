"""uniform follows the broker's Kafka release: 4.0's homogeneous builder, or 4.1's and 4.2's (KAFKA-18688).

The exact outputs of both are checked against Kafka's own jars by tests/oracle; these tests state what the
change means. Both releases give a balanced target (sizes within one) in which every member keeps what it
can of its current target up to its quota. From 4.1 the extra partitions of quota go to members that
already hold more than the minimum, so no fewer partitions stay put than any balanced target allows:
the partitions that must move are exactly the excess over the minimum, less one per member (up to
`total % members`) that may keep an extra one.
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition
from kgroup.assignors.server.releases import NEWEST, UNIFORM_4_0, UNIFORM_4_1, uniform_release, uniform_rules
from kgroup.assignors.server.uniform import UniformAssignor

ASSIGNOR = UniformAssignor()


@st.composite
def homogeneous_groups(draw: st.DrawFn) -> tuple[Cluster, list[Member]]:
    """Identical subscriptions and a valid previous target: each partition held by at most one member."""
    sizes = draw(st.lists(st.integers(1, 13), min_size=1, max_size=3))
    cluster = Cluster(tuple(Topic(f"t{i}", n) for i, n in enumerate(sizes)))
    count = draw(st.integers(1, 7))
    ids = draw(
        st.lists(st.text("abcxyz0123456789-", min_size=1, max_size=6), min_size=count, max_size=count, unique=True)
    )
    partitions = [TopicPartition(t.name, p) for t in cluster.topics for p in range(t.partitions)]
    holders = draw(st.lists(st.integers(-1, count - 1), min_size=len(partitions), max_size=len(partitions)))
    topics = tuple(t.name for t in cluster.topics)
    members = [
        Member(m, topics, owned=tuple(tp for tp, h in zip(partitions, holders) if h == i)) for i, m in enumerate(ids)
    ]
    return cluster, members


def _moved(members: list[Member], result: dict[str, set[TopicPartition]]) -> int:
    return sum(len(set(m.owned) - result.get(m.member_id, set())) for m in members)


def _fewest_moves(cluster: Cluster, members: list[Member]) -> int:
    """The fewest previously held partitions any balanced target must take from their holders."""
    total = sum(t.partitions for t in cluster.topics)
    low, extra = divmod(total, len(members))
    over = [len(m.owned) - low for m in members if len(m.owned) > low]
    return sum(over) - min(extra, len(over))


def _assign(cluster: Cluster, members: list[Member], release: str | None) -> dict[str, set[TopicPartition]]:
    result = ASSIGNOR.assign(cluster, members, kafka_version=release)
    return {m: set(parts) for m, parts in result.owners.items()}


@settings(max_examples=300, deadline=None)
@given(homogeneous_groups())
def test_both_releases_balance_and_keep_what_they_can(group: tuple[Cluster, list[Member]]) -> None:
    cluster, members = group
    total = sum(t.partitions for t in cluster.topics)
    low, extra = divmod(total, len(members))
    for release in ("4.0.0", "4.2.1"):
        result = _assign(cluster, members, release)
        sizes = sorted(len(result.get(m.member_id, ())) for m in members)
        assert sum(sizes) == total and sizes[-1] - sizes[0] <= (1 if extra else 0)
        assert sizes.count(low + 1) == extra
        for m in members:  # nobody gives up a partition while it holds no more than the minimum
            if len(m.owned) <= low:
                assert set(m.owned) <= result.get(m.member_id, set())


@settings(max_examples=300, deadline=None)
@given(homogeneous_groups())
def test_from_4_1_no_partition_moves_that_need_not(group: tuple[Cluster, list[Member]]) -> None:
    cluster, members = group
    fewest = _fewest_moves(cluster, members)
    assert _moved(members, _assign(cluster, members, "4.2.1")) == fewest
    assert _moved(members, _assign(cluster, members, "4.0.0")) >= fewest


def test_kafka_4_0_may_take_a_partition_from_a_member_that_could_keep_it() -> None:
    """Two members, three partitions: one holds two, the other one. Kafka 4.0 gives the extra partition to
    whichever member comes first in the coordinator's (HashMap) order; with either name order, in one of
    them the member holding two loses one. From 4.1 it keeps both under either order."""
    cluster = Cluster((Topic("orders", 3),))
    moved_by_4_0 = []
    for pair in (("a", "b"), ("b", "a")):
        holds_two, holds_one = pair
        members = [
            Member(holds_two, ("orders",), owned=(TopicPartition("orders", 0), TopicPartition("orders", 1))),
            Member(holds_one, ("orders",), owned=(TopicPartition("orders", 2),)),
        ]
        assert _moved(members, _assign(cluster, members, "4.2.1")) == 0
        assert _moved(members, _assign(cluster, members, None)) == 0  # no release: the newest
        moved_by_4_0.append(_moved(members, _assign(cluster, members, "4.0.0")))
    assert sorted(moved_by_4_0) == [0, 1]


def test_the_release_selects_the_rules() -> None:
    assert uniform_rules("4.0.0") == uniform_rules("4.0.0-SNAPSHOT") == uniform_rules("4.0.1") == UNIFORM_4_0
    assert uniform_rules("3.9.0") == UNIFORM_4_0  # older than kgroup reproduces: the oldest it does
    assert uniform_rules("4.1.0") == uniform_rules("4.2.1") == uniform_rules("4.3.0") == UNIFORM_4_1
    assert uniform_rules(None) == uniform_rules("") == uniform_rules("trunk") == UNIFORM_4_1


def test_the_followed_release_is_said_in_words() -> None:
    assert uniform_release(None).startswith(f"Kafka {NEWEST} ") and "no Kafka release known" in uniform_release(None)
    assert uniform_release("4.0.0").startswith("Kafka 4.0 ") and "4.0.0" in uniform_release("4.0.0")
    assert uniform_release("4.2.1").startswith("Kafka 4.2 ")
    assert "oldest" in uniform_release("3.8.0") and "newest" in uniform_release("5.0.0")


def test_the_clusters_release_is_used_when_none_is_given() -> None:
    """`Cluster.kafka_version` (the broker's release) decides when `assign` is not told one."""
    cluster = Cluster((Topic("orders", 3),))
    for pair in (("a", "b"), ("b", "a")):
        members = [
            Member(pair[0], ("orders",), owned=(TopicPartition("orders", 0), TopicPartition("orders", 1))),
            Member(pair[1], ("orders",), owned=(TopicPartition("orders", 2),)),
        ]
        for release in ("4.0.0", "4.2.1"):
            on_cluster = Cluster(cluster.topics, kafka_version=release)
            assert _assign(on_cluster, members, None) == _assign(cluster, members, release)
