"""The partition rows `range` deals a large group from are cached and shared by every caller: no caller can
change the rows another one receives."""

from __future__ import annotations

import pytest

from kgroup.assignors.base import partition_rows
from kgroup.assignors.model import TopicPartition


def test_row_p_is_partition_p_of_each_topic_and_cannot_be_changed() -> None:
    rows = partition_rows(("orders", "audit"), 3)
    expected = [(TopicPartition("orders", p), TopicPartition("audit", p)) for p in range(3)]
    assert list(rows) == expected
    with pytest.raises((TypeError, AttributeError)):
        rows[0] = (TopicPartition("orders", 9),)  # type: ignore[index]
    with pytest.raises((TypeError, AttributeError)):
        rows.append((TopicPartition("orders", 9),))  # type: ignore[attr-defined]
    assert list(partition_rows(("orders", "audit"), 3)) == expected  # the cached rows, as they were
