"""The CSV plan round-trips with kafka-consumer-groups.sh's format, and reset times parse as Kafka's do."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.offsets.reset_csv import plan_csv, read_plan_csv
from kgroup.inspectors.offsets.reset_times import datetime_ms, duration_ms


def test_single_group_csv_has_three_columns_and_reads_back(tmp_path: Path) -> None:
    text = plan_csv([("g", TopicPartition("orders", 0), 5), ("g", TopicPartition("orders", 1), 7)], with_group=False)
    assert text == "orders,0,5\norders,1,7\n"
    path = tmp_path / "plan.csv"
    path.write_text(text)
    assert read_plan_csv(str(path), ["g"]) == {"g": {TopicPartition("orders", 0): 5, TopicPartition("orders", 1): 7}}


def test_a_plan_saved_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    """Spreadsheet programs save CSV as UTF-8 with a BOM; it is no part of the first topic's name."""
    path = tmp_path / "plan.csv"
    path.write_bytes(b"\xef\xbb\xbforders,0,5\r\norders,1,7\r\n")
    assert read_plan_csv(str(path), ["g"]) == {"g": {TopicPartition("orders", 0): 5, TopicPartition("orders", 1): 7}}


def test_several_groups_put_the_group_first(tmp_path: Path) -> None:
    text = plan_csv([("g1", TopicPartition("t", 0), 1), ("g2", TopicPartition("t", 0), 2)], with_group=True)
    assert text == "g1,t,0,1\ng2,t,0,2\n"
    path = tmp_path / "plan.csv"
    path.write_text(text)
    assert read_plan_csv(str(path), ["g1", "g2"]) == {
        "g1": {TopicPartition("t", 0): 1},
        "g2": {TopicPartition("t", 0): 2},
    }


@pytest.mark.parametrize(
    ("content", "groups", "expected"),
    [
        ("t,0,x\n", ["g"], "plan.csv:1: offset: 'x' is not a non-negative integer"),
        ("t,0,1\nt,-1,2\n", ["g"], "plan.csv:2: partition: '-1' is not a non-negative integer"),
        ("t,0\n", ["g"], "plan.csv:1: 2 columns"),
        ("t,0,1\n", ["g", "h"], "plan.csv:1: topic,partition,offset rows name no group"),
        ("\n", ["g"], "plan.csv: no rows"),
    ],
)
def test_bad_plan_files_name_the_line_and_field(tmp_path: Path, content: str, groups: list[str], expected: str) -> None:
    path = tmp_path / "plan.csv"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        read_plan_csv(str(path), groups)
    assert str(caught.value).startswith(str(tmp_path / expected))


def test_a_missing_plan_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read it"):
        read_plan_csv(str(tmp_path / "absent.csv"), ["g"])


def test_datetimes_without_a_zone_are_utc_as_in_kafka() -> None:
    assert datetime_ms("2026-11-21T08:00:00.000") == 1795248000000
    assert datetime_ms("2026-11-21T08:00:00.000Z") == 1795248000000
    assert datetime_ms("2026-11-21T10:00:00.000+02:00") == 1795248000000
    with pytest.raises(InputError, match="'T'"):
        datetime_ms("2026-11-21")
    with pytest.raises(InputError, match="ISO-8601"):
        datetime_ms("2026-13-21T08:00:00")


@pytest.mark.parametrize(
    ("text", "ms"), [("PT30M", 1_800_000), ("P1DT2H", 93_600_000), ("PT1.5S", 1500), ("PT0S", 0), ("-PT1M", -60_000)]
)
def test_durations_read_as_java_time_duration(text: str, ms: int) -> None:
    assert duration_ms(text) == ms


@pytest.mark.parametrize("text", ["30m", "P", "PT", "P1H", "PT1X"])
def test_bad_durations_are_refused(text: str) -> None:
    with pytest.raises(InputError, match="ISO-8601 duration"):
        duration_ms(text)
