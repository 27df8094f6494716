"""A static member's temporary leave (epoch -2) and its timers, as GroupMetadataManager has it:
`consumerGroupHeartbeat` sends epochs -1 and -2 to `consumerGroupLeave` before the regular path that
reschedules the session timeout, and `consumerGroupStaticMemberGroupLeave` only writes the member with
epoch -2: the session timer armed by its last heartbeat keeps running, neither cancelled nor pushed back;
when it fires, `consumerGroupFenceMember` removes the member and bumps the group epoch."""

from __future__ import annotations

from kgroup.assignors.coordinator.consumer.coordinator import (
    ConsumerConfig,
    ConsumerCoordinator,
    HeartbeatRequest,
    STATIC_LEAVE_EPOCH,
)


def _coordinator() -> ConsumerCoordinator:
    return ConsumerCoordinator(
        ConsumerConfig(session_timeout_ms=45_000),
        {"foo": 2},
        lambda group, member_ids, current: {m: frozenset() for m in member_ids},
    )


def test_the_session_timer_runs_on_from_the_last_heartbeat_and_fences_the_parked_member() -> None:
    coordinator = _coordinator()
    coordinator.heartbeat("g", HeartbeatRequest("m1", 0, "i1", None, 5_000, ("foo",), None, frozenset()))
    epoch = coordinator.groups["g"].group_epoch
    key = coordinator.session_key("g", "m1")
    assert coordinator.timers.deadline(key) == 45_000
    coordinator.advance_to(10_000)
    response = coordinator.heartbeat("g", HeartbeatRequest("m1", STATIC_LEAVE_EPOCH, "i1"))
    assert (response.error, response.member_epoch) == ("NONE", STATIC_LEAVE_EPOCH)
    assert coordinator.timers.deadline(key) == 45_000  # not cancelled, not rescheduled by the leave
    assert coordinator.groups["g"].group_epoch == epoch  # a temporary leave does not bump
    coordinator.advance_to(45_000)
    assert "m1" not in coordinator.groups["g"].members and coordinator.groups["g"].group_epoch == epoch + 1
