"""Which offsets Kafka's coordinator lets an OffsetDelete remove (OffsetMetadataManager.deleteOffsets,
ClassicGroup.validateOffsetDelete / isSubscribedToTopic, ConsumerGroup.validateOffsetDelete)."""

from __future__ import annotations

from kgroup.assignors.offsets.delete_rules import group_refusal, subscribed_topics, topic_refusal


def test_an_empty_group_is_never_refused_whatever_its_protocol() -> None:
    assert group_refusal("classic", "empty", 0, None) is None
    assert group_refusal("classic", "empty", 0, "connect") is None


def test_an_active_classic_group_outside_the_consumer_protocol_is_refused_whole() -> None:
    for state in ("stable", "preparing_rebalancing", "completing_rebalancing"):
        why = group_refusal("classic", state, 2, "connect")
        assert why is not None and "NON_EMPTY_GROUP" in why
    assert group_refusal("classic", "stable", 2, "consumer") is None  # then the topics are checked one by one


def test_a_kip848_group_is_never_refused_whole() -> None:
    assert group_refusal("consumer", "stable", 3, None) is None


def test_a_subscribed_topic_is_refused_and_an_unsubscribed_one_is_not() -> None:
    subscribed = subscribed_topics(2, [["orders"], ["orders", "payments"]])
    assert subscribed == {"orders", "payments"}
    assert "GROUP_SUBSCRIBED_TO_TOPIC" in (topic_refusal("payments", subscribed, 2) or "")
    assert topic_refusal("old-orders", subscribed, 2) is None


def test_a_group_without_members_subscribes_to_nothing() -> None:
    assert subscribed_topics(0, None) == frozenset()
    assert topic_refusal("orders", subscribed_topics(0, None), 0) is None


def test_unreadable_subscriptions_count_as_every_topic() -> None:
    assert subscribed_topics(1, None) is None
    assert "GROUP_SUBSCRIBED_TO_TOPIC" in (topic_refusal("anything", None, 1) or "")
