"""A live what-if's fixture keeps every topic the what-if names (issue 33), and no other unrelated topic."""

from __future__ import annotations

from kgroup.assignors.model import Assignment, Cluster, Group, Member, Topic, TopicPartition
from kgroup.inspectors.live.consumer_groups import LiveGroup, LiveRead
from kgroup.inspectors.live.snapshot import as_fixture, fixture_document
from kgroup.inspectors.simulation.whatif_run import WhatIfFlags

CLUSTER = Cluster((Topic("orders", 2), Topic("audit", 5), Topic("unrelated", 3)))


def _read() -> LiveRead:
    group = Group(
        "g",
        "classic",
        (),
        (Member("m-1", ("orders",)),),
        Assignment.of({"m-1": [TopicPartition("orders", 0), TopicPartition("orders", 1)]}),
        4,
        "Stable",
    )
    return LiveRead(CLUSTER, [LiveGroup(group, "classic", "range", None)])


def test_a_named_topic_the_group_does_not_consume_is_kept_with_its_size() -> None:
    fixture = as_fixture(_read(), "live", ("audit", "missing"))
    assert {t.name: t.partitions for t in fixture.cluster.topics} == {"orders": 2, "audit": 5}
    document = fixture_document(_read(), "live", named=("audit",))
    assert [t["name"] for t in document["cluster"]["topics"]] == ["orders", "audit"]


def test_the_flags_name_the_newcomers_the_subscriptions_and_the_created_and_grown_topics() -> None:
    flags = WhatIfFlags(
        add_members=("c4", "c5=orders, audit"),
        subscribe=("m-1=orders,x",),
        add_topics=("new=3",),
        add_partitions=("orders=+2",),
    )
    assert flags.subscribed_topics() == ("orders", "audit", "x")
    assert flags.named_topics() == ("orders", "audit", "x", "new")
