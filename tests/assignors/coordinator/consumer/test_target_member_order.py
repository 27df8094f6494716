"""The order a KIP-848 coordinator hands its members to the assignor (issue 36).

`TargetAssignmentBuilder.build` fills GroupSpec's member HashMap by iterating the group's members, a
`TimelineHashMap` (slot by slot, newest first within a slot), and then puts the heartbeat's member, whose
records are replayed only after the heartbeat: a joining member comes last. The orders below were read from
Kafka 4.2.1's TimelineHashMap (tests/oracle/java/TimelineOrder.java): after member-0 then member-141 joined,
it iterates member-141, member-0 (slot order); after member-0 then member-38 (one slot), member-38 first.
All three ids below fall into bucket 1 of GroupSpec's 16-bucket HashMap, so this order is the one the
assignor sees, and join order (what kgroup used before) hands uniform's ties the other way.
"""

from __future__ import annotations

from kgroup.assignors.coordinator.consumer.coordinator import ConsumerConfig, ConsumerCoordinator, HeartbeatRequest


def _recording() -> tuple[ConsumerCoordinator, list[list[str]]]:
    seen: list[list[str]] = []

    def assignor(group, member_ids, current):  # type: ignore[no-untyped-def]
        seen.append(list(member_ids))
        return {m: frozenset() for m in member_ids}

    return ConsumerCoordinator(ConsumerConfig(), {"foo": 6}, assignor), seen


def _join(coordinator: ConsumerCoordinator, member_id: str) -> None:
    response = coordinator.heartbeat(
        "g", HeartbeatRequest(member_id, 0, None, None, 300_000, ("foo",), None, frozenset())
    )
    assert response.error == "NONE"


def test_members_reach_the_assignor_in_the_member_maps_order_and_a_joining_member_last() -> None:
    coordinator, seen = _recording()
    for member_id in ("member-0", "member-141", "member-7"):
        _join(coordinator, member_id)
    assert seen == [["member-0"], ["member-0", "member-141"], ["member-141", "member-0", "member-7"]]


def test_members_sharing_a_slot_reach_the_assignor_newest_first() -> None:
    coordinator, seen = _recording()
    for member_id in ("member-0", "member-38", "member-7"):
        _join(coordinator, member_id)
    assert seen[-1] == ["member-38", "member-0", "member-7"]
    coordinator.heartbeat("g", HeartbeatRequest("member-38", -1))  # leaves: the group epoch is bumped
    epoch = coordinator.groups["g"].members["member-0"].epoch
    coordinator.heartbeat("g", HeartbeatRequest("member-0", epoch))  # the next heartbeat builds the target
    assert seen[-1] == ["member-0", "member-7"]
