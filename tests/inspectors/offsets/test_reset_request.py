"""`offsets reset`'s options checked without the CLI: one spec, one scope, as ConsumerGroupCommand checks them."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.offsets.reset_request import ResetFlags, reset_request


@pytest.mark.parametrize(
    ("flags", "field", "words"),
    [
        (ResetFlags(topics=("t",)), "reset spec", "give exactly one of"),
        (ResetFlags(to_earliest=True, to_latest=True, topics=("t",)), "reset spec", "(got --to-earliest, --to-latest)"),
        (ResetFlags(to_earliest=True), "--topic", "give the scope"),
        (ResetFlags(to_earliest=True, topics=("t",), all_topics=True), "--topic", "not both"),
        (ResetFlags(to_offset=-1, topics=("t",)), "--to-offset", "an offset is not negative"),
        (ResetFlags(to_group="g", all_topics=True), "--to-group", "is also a group to reset"),
        (ResetFlags(to_group="other", topics=("t",), all_topics=True), "--topic", "not both"),
        (ResetFlags(from_file="plan.csv", all_topics=True), "--from-file", "drop --topic/--all-topics"),
    ],
)
def test_a_wrong_combination_names_the_option(flags: ResetFlags, field: str, words: str) -> None:
    with pytest.raises(InputError) as raised:
        reset_request(["g"], flags)
    assert raised.value.field == field
    assert words in str(raised.value)


def test_shift_by_keeps_its_sign_and_scope() -> None:
    request = reset_request(["g"], ResetFlags(shift_by=-100, topics=("orders:0,1",)))
    assert (request.spec, request.value, request.topics, request.all_topics) == (
        "shift-by",
        -100,
        ("orders:0,1",),
        False,
    )


def test_by_duration_becomes_a_datetime_reset_at_now_minus_the_duration() -> None:
    import time

    before = int(time.time() * 1000)
    request = reset_request(["g"], ResetFlags(by_duration="PT30M", all_topics=True))
    after = int(time.time() * 1000)
    assert request.spec == "to-datetime"
    assert before - 30 * 60_000 <= (request.timestamp_ms or 0) <= after - 30 * 60_000


def test_to_datetime_without_a_zone_is_utc() -> None:
    request = reset_request(["g"], ResetFlags(to_datetime="2024-01-02T03:04:05.000", all_topics=True))
    assert request.timestamp_ms == 1704164645000


def test_from_file_reads_the_plan_for_the_groups(tmp_path: Path) -> None:
    path = tmp_path / "plan.csv"
    path.write_text("orders,0,5\n")
    request = reset_request(["g"], ResetFlags(from_file=str(path)))
    assert request.from_file == {"g": {TopicPartition("orders", 0): 5}}


def test_to_group_copies_within_the_scope_given() -> None:
    request = reset_request(["g"], ResetFlags(to_group="source", topics=("orders",)))
    assert (request.spec, request.to_group, request.topics) == ("to-group", "source", ("orders",))
