"""Which committed offsets Kafka lets an OffsetDelete remove (KIP-496), so a plan can say so before asking.

Pure: the caller reads the group's state, members, protocol type and subscriptions; this module only
applies the coordinator's checks (Kafka 4.0's group coordinator, which the older GroupCoordinator.
handleDeleteOffsets also applied). States are named as confluent-kafka names them, lower case.
"""

from __future__ import annotations

from collections.abc import Iterable

# ClassicGroup.validateOffsetDelete: the states in which a classic group has members
ACTIVE_STATES = frozenset({"stable", "preparing_rebalancing", "completing_rebalancing", "assigning", "reconciling"})
CONSUMER_PROTOCOL = "consumer"  # ConsumerProtocol.PROTOCOL_TYPE


def group_refusal(group_type: str, state: str, members: int, protocol_type: str | None) -> str | None:
    """Why the coordinator refuses the whole request (NON_EMPTY_GROUP), or None.

    ClassicGroup.validateOffsetDelete: an active classic group that does not use the consumer protocol
    (e.g. Kafka Connect's or a custom one) may not have offsets deleted at all. ConsumerGroup (KIP-848)
    never refuses the whole request; its topics are checked one by one.
    """
    active = members > 0 or state in ACTIVE_STATES
    if group_type == "consumer" or not active or protocol_type in (None, CONSUMER_PROTOCOL):
        return None
    return (
        f"the group is active ({members} member(s), protocol type {protocol_type!r}) and does not use the "
        "consumer protocol, so Kafka deletes none of its offsets until it is Empty (NON_EMPTY_GROUP)"
    )


def subscribed_topics(members: int, subscriptions: Iterable[Iterable[str]] | None) -> frozenset[str] | None:
    """The topics the group's members subscribe to; None when they are not known.

    ClassicGroup.computeSubscribedTopics: the union of every member's subscription; no members, no topics.
    """
    if members == 0:
        return frozenset()
    if subscriptions is None:
        return None
    return frozenset(topic for topics in subscriptions for topic in topics)


def topic_refusal(topic: str, subscribed: frozenset[str] | None, members: int) -> str | None:
    """Why the coordinator refuses a topic's partitions (GROUP_SUBSCRIBED_TO_TOPIC), or None.

    OffsetMetadataManager.deleteOffsets refuses every partition of a topic the group is subscribed to;
    ClassicGroup.isSubscribedToTopic counts every topic as subscribed when the members' subscriptions
    cannot be read (a consumer-protocol group whose metadata does not parse).
    """
    if subscribed is None:
        return (
            f"the group has {members} active member(s) whose subscriptions kgroup could not read; Kafka then "
            f"counts every topic as subscribed (GROUP_SUBSCRIBED_TO_TOPIC)"
        )
    if topic in subscribed:
        return (
            f"the group's active members subscribe to {topic} (GROUP_SUBSCRIBED_TO_TOPIC); stop them or "
            "change their subscription first"
        )
    return None
