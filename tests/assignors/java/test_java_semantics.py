"""Java semantics the assignors depend on, checked against values Java itself defines."""

from __future__ import annotations

from kgroup.assignors.java.semantics import java_string_hash, java_string_key, kafka_abs, to_int32
from kgroup.assignors.model import Cluster, Member, Topic
from kgroup.assignors.client.range import RangeAssignor


def test_string_hash_matches_java() -> None:
    # Values of String.hashCode() from the JDK documentation formula, including overflow.
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("polygenelubricants") == -2147483648  # the classic Integer.MIN_VALUE string


def test_utils_abs_maps_min_value_to_zero() -> None:
    assert kafka_abs(-2147483648) == 0
    assert kafka_abs(-5) == 5


def test_int32_wraps() -> None:
    assert to_int32(2**31) == -(2**31)
    assert to_int32(2**32 + 7) == 7


def test_supplementary_characters_sort_by_utf16_code_units() -> None:
    # U+1F600 is the surrogate pair D83D DE00, which Java sorts before U+FFFF; Python's code-point
    # order puts it after.
    emoji, high = "\U0001f600", "\uffff"
    assert java_string_key(emoji) < java_string_key(high)
    assert emoji > high


def test_range_orders_members_in_java_order() -> None:
    cluster = Cluster((Topic("t", 2),))
    members = [Member("\uffff", ("t",)), Member("\U0001f600", ("t",))]
    result = RangeAssignor().assign(cluster, members)
    assert [str(tp) for tp in result.partitions_of("\U0001f600")] == ["t-0"]
    assert [str(tp) for tp in result.partitions_of("\uffff")] == ["t-1"]
