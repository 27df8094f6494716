"""The consumer group's metadata refresh deadline, transcribed from Kafka's ConsumerGroupTest
`testMetadataRefreshDeadline` (group-coordinator, modern/consumer) and `ModernGroup.hasMetadataExpired`."""

from __future__ import annotations

from kgroup.assignors.coordinator.consumer.coordinator import ConsumerGroup


def test_metadata_refresh_deadline() -> None:
    now = 0
    group = ConsumerGroup("group-foo")
    assert group.group_epoch == 0
    # Empty when the group is created or loaded: expired.
    assert group.metadata_expired(now) and group.refresh_deadline == (0, 0)
    # Set the refresh deadline: valid while the deadline has not passed and the epoch is right.
    group.refresh_deadline = (now + 1000, group.group_epoch)
    assert not group.metadata_expired(now)
    # Advance past the deadline: expired.
    now += 1001
    assert group.metadata_expired(now)
    # Set the deadline again with a larger epoch (a failed write): expired although the time has not passed.
    group.refresh_deadline = (now + 1000, group.group_epoch + 1)
    assert group.metadata_expired(now)
    # Reset it to empty (requestMetadataRefresh): expired.
    group.refresh_deadline = (0, 0)
    assert group.metadata_expired(now)
