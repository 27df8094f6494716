"""AlterShareGroupOffsets (API 91) and DeleteShareGroupOffsets (API 92) v0, requests and answers written out
byte by byte from the pinned release's JSON message definitions (AlterShareGroupOffsetsRequest.json,
...Response.json, DeleteShareGroupOffsetsRequest.json, ...Response.json: flexible from v0, so compact strings
and arrays, each struct ending in an empty tagged-field section), read as Kafka's admin client reads them
(AlterShareGroupOffsetsHandler, DeleteShareGroupOffsetsHandler)."""

from __future__ import annotations

from typing import Any

import pytest

from kgroup.inspectors.live.wire import coordinator
from kgroup.inspectors.live.wire import share_group_alter_offsets as alter
from kgroup.inspectors.live.wire import share_group_delete_offsets as delete
from kgroup.inspectors.live.wire.codec import Reader
from kgroup.inspectors.live.wire.errors import ProtocolError

TOPIC_ID = "00112233445566778899aabbccddeeff"


class FakeConnection:
    address = "broker:9092"

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.sent: list[Any] = []

    def pick(self, api_key: int, ours: tuple[int, int], what: str) -> int:
        return 0

    def request(self, api_key: int, version: int, body: bytes, flexible: bool, doing: str) -> Reader:
        self.sent.append((api_key, version, body, flexible))
        return Reader(self.answer, doing)


class FakeLinks:
    def close(self) -> None:
        pass


def _through(monkeypatch: pytest.MonkeyPatch, module: Any, conn: FakeConnection) -> None:
    """The coordinator lookup replaced by `conn`, as if FindCoordinator had named it."""
    monkeypatch.setattr(coordinator, "Coordinators", lambda config, deadline: FakeLinks())
    monkeypatch.setattr(coordinator, "on_coordinator", lambda links, group, send, error_of: (conn.address, send(conn)))


def test_alter_request_is_the_schemas_bytes() -> None:
    conn = FakeConnection(bytes.fromhex("00000000" + "0000" + "00" + "01" + "00"))  # an answer naming no partition
    with pytest.raises(ProtocolError, match="answered without orders-0, orders-2, audit-1"):
        alter._alter(conn, group="g", offsets={("orders", 0): 5, ("orders", 2): 0, ("audit", 1): 9})  # type: ignore[arg-type]
    expected = bytes.fromhex(
        "02" + b"g".hex()  # GroupId
        + "03"  # Topics: 2
        + "07" + b"orders".hex()  # TopicName
        + "03"  # Partitions: 2
        + "00000000" + "0000000000000005" + "00"  # PartitionIndex 0, StartOffset 5, no tags
        + "00000002" + "0000000000000000" + "00"
        + "00"  # the topic's tags
        + "06" + b"audit".hex()
        + "02"
        + "00000001" + "0000000000000009" + "00"
        + "00"
        + "00"  # the request's tags
    )  # fmt: skip
    assert conn.sent == [(91, 0, expected, True)]


def _alter_answer(error: int, message: bytes | None, partitions: list[tuple[int, int, bytes | None]]) -> bytes:
    def text(value: bytes | None) -> str:
        return "00" if value is None else f"{len(value) + 1:02x}" + value.hex()

    rows = "".join(f"{p:08x}{e:04x}" + text(m) + "00" for p, e, m in partitions)
    topics = (
        "02" + "07" + b"orders".hex() + TOPIC_ID + f"{len(partitions) + 1:02x}" + rows + "00" if partitions else "01"
    )
    return bytes.fromhex("00000000" + f"{error:04x}" + text(message) + topics + "00")


def test_alter_answer_per_partition(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = FakeConnection(_alter_answer(0, None, [(0, 0, None), (7, 3, b"no such partition")]))
    _through(monkeypatch, alter, conn)
    answer = alter.alter_share_group_offsets({}, "g", {("orders", 0): 5, ("orders", 7): 1}, 5.0)
    assert answer.error is None and answer.coordinator == "broker:9092"
    assert answer.partitions == {
        ("orders", 0): None,
        ("orders", 7): "UNKNOWN_TOPIC_OR_PARTITION: no such partition",
    }


def test_alter_top_level_error_is_the_groups_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = FakeConnection(_alter_answer(68, b"The group is not empty.", []))
    _through(monkeypatch, alter, conn)
    answer = alter.alter_share_group_offsets({}, "g", {("orders", 0): 5}, 5.0)
    assert answer.error == "NON_EMPTY_GROUP: The group is not empty. (AlterShareGroupOffsets on broker:9092)"
    assert answer.partitions == {}


def test_alter_answer_without_a_partition_asked_for_is_a_protocol_error() -> None:
    conn = FakeConnection(_alter_answer(0, None, [(0, 0, None)]))
    with pytest.raises(ProtocolError, match="answered without orders-1"):
        alter._alter(conn, group="g", offsets={("orders", 0): 5, ("orders", 1): 5})  # type: ignore[arg-type]


def test_rebalance_in_progress_is_retried_as_a_loading_coordinator() -> None:
    # AlterShareGroupOffsetsHandler.handleError and DeleteShareGroupOffsetsHandler.handleGroupError retry it
    assert alter.retry_code(27) == 14
    assert [alter.retry_code(code) for code in (0, 14, 15, 16, 68)] == [0, 14, 15, 16, 68]


def test_delete_request_is_the_schemas_bytes() -> None:
    conn = FakeConnection(bytes.fromhex("00000000" + "0000" + "00" + "01" + "00"))
    delete._delete(conn, group="g", topics=["orders", "audit", "orders"])  # type: ignore[arg-type]
    expected = bytes.fromhex(
        "02" + b"g".hex()  # GroupId
        + "03"  # Topics: 2 (a topic named twice is asked once)
        + "07" + b"orders".hex() + "00"  # TopicName, no tags
        + "06" + b"audit".hex() + "00"
        + "00"  # the request's tags
    )  # fmt: skip
    assert conn.sent == [(92, 0, expected, True)]


def test_delete_answer_per_topic(monkeypatch: pytest.MonkeyPatch) -> None:
    message = b"There is no offset information to delete."
    answer_bytes = bytes.fromhex(
        "00000000" + "0000" + "00"  # throttle, no error, null message
        + "03"  # Responses: 2
        + "07" + b"orders".hex() + TOPIC_ID + "0000" + "00" + "00"
        + "06" + b"audit".hex() + TOPIC_ID + "0003" + f"{len(message) + 1:02x}" + message.hex() + "00"
        + "00"
    )  # fmt: skip
    _through(monkeypatch, delete, FakeConnection(answer_bytes))
    answer = delete.delete_share_group_offsets({}, "g", ["orders", "audit"], 5.0)
    assert answer.error is None
    assert answer.topics == {"orders": None, "audit": f"UNKNOWN_TOPIC_OR_PARTITION: {message.decode()}"}


def test_delete_top_level_error_is_the_groups_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    message = b"Group g not found."
    answer_bytes = bytes.fromhex("00000000" + "0045" + f"{len(message) + 1:02x}" + message.hex() + "01" + "00")
    _through(monkeypatch, delete, FakeConnection(answer_bytes))
    answer = delete.delete_share_group_offsets({}, "g", ["orders"], 5.0)
    assert answer.error == "GROUP_ID_NOT_FOUND: Group g not found. (DeleteShareGroupOffsets on broker:9092)"
    assert answer.topics == {}


class Lookups:
    """Coordinators as ask_coordinator opens them: FindCoordinator answers `lookup`, and the coordinator's
    connection answers each of `answers` in turn (the last again)."""

    first = FakeConnection(b"")

    def __init__(self, deadline: Any, lookup: tuple[int, str, int, int, str | None], answers: list[bytes]) -> None:
        self.deadline, self.lookup, self.answers = deadline, lookup, answers
        self.asked = 0

    def find(self, group: str) -> tuple[int, str, int, int, str | None]:
        return self.lookup

    def connect(self, address: str) -> FakeConnection:
        self.asked += 1
        return FakeConnection(self.answers[min(self.asked, len(self.answers)) - 1])

    def drop(self, address: str) -> None:
        pass

    def close(self) -> None:
        pass


def _lookups(monkeypatch: pytest.MonkeyPatch, lookup: Any, answers: list[bytes]) -> list[Lookups]:
    opened: list[Lookups] = []

    def open_links(config: Any, deadline: Any) -> Lookups:
        opened.append(Lookups(deadline, lookup, answers))
        return opened[-1]

    monkeypatch.setattr(coordinator, "Coordinators", open_links)
    return opened


def test_a_refused_lookup_is_each_requests_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    # FindCoordinator answering GROUP_AUTHORIZATION_FAILED (30) is not retried (CoordinatorStrategy.handleError)
    _lookups(monkeypatch, (30, "", -1, -1, "Not authorized."), [])
    from kgroup.inspectors.live.wire.share_group_describe import describe_share_group
    from kgroup.inspectors.live.wire.share_group_offsets import describe_share_group_offsets

    named = "GROUP_AUTHORIZATION_FAILED: Not authorized. (FindCoordinator via broker:9092)"
    described = describe_share_group({}, "g", 5.0)
    assert (described.error_code, described.error, described.state, described.coordinator) == (30, named, None, None)
    offsets = describe_share_group_offsets({}, "g", 5.0)
    assert (offsets.error_code, offsets.error, offsets.partitions, offsets.coordinator) == (30, named, (), None)
    altered = alter.alter_share_group_offsets({}, "g", {("orders", 0): 5}, 5.0)
    assert (altered.coordinator, altered.error, altered.partitions) == ("broker:9092", named, {})
    deleted = delete.delete_share_group_offsets({}, "g", ["orders"], 5.0)
    assert (deleted.coordinator, deleted.error, deleted.topics) == ("broker:9092", named, {})


def test_rebalance_in_progress_is_asked_again_until_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    busy = _alter_answer(27, b"Rebalancing.", [])
    opened = _lookups(monkeypatch, (0, "broker", 9092, 1, None), [busy, _alter_answer(0, None, [(0, 0, None)])])
    answer = alter.alter_share_group_offsets({}, "g", {("orders", 0): 5}, 5.0)
    assert (answer.error, answer.partitions, opened[0].asked) == (None, {("orders", 0): None}, 2)
    deleted_busy = bytes.fromhex("00000000" + "001b" + "00" + "01" + "00")
    deleted_ok = bytes.fromhex("00000000" + "0000" + "00" + "02" + "07" + b"orders".hex() + TOPIC_ID + "0000000000")
    opened = _lookups(monkeypatch, (0, "broker", 9092, 1, None), [deleted_busy, deleted_ok])
    deleted = delete.delete_share_group_offsets({}, "g", ["orders"], 5.0)
    assert (deleted.error, deleted.topics, opened[0].asked) == (None, {"orders": None}, 2)
