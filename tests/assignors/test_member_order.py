"""The member order of client range/roundrobin and server range: `AbstractPartitionAssignor.MemberInfo.compareTo`."""

from __future__ import annotations

from functools import cmp_to_key

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assignors.member_order import in_member_order
from kgroup.assignors.model import Member


def _utf16_units(text: str) -> list[int]:
    units = []
    for ch in text:
        point = ord(ch)
        if point > 0xFFFF:
            point -= 0x10000
            units += [0xD800 + (point >> 10), 0xDC00 + (point & 0x3FF)]
        else:
            units.append(point)
    return units


def _java_compare(a: Member, b: Member) -> int:
    """MemberInfo.compareTo spelled out: static first; then String.compareTo over UTF-16 code units."""
    if (a.instance_id is None) != (b.instance_id is None):
        return -1 if a.instance_id is not None else 1
    x, y = (a.instance_id, b.instance_id) if a.instance_id is not None else (a.member_id, b.member_id)
    ux, uy = _utf16_units(x), _utf16_units(y)
    return (ux > uy) - (ux < uy)


def test_a_character_above_the_bmp_sorts_as_its_surrogates_do():
    # U+1F600 is D83D DE00 in UTF-16, before U+FF61; by code point it would come after.
    members = [Member("m-\uff61"), Member("m-\U0001f600"), Member("m-a")]
    assert [m.member_id for m in in_member_order(members)] == ["m-a", "m-\U0001f600", "m-\uff61"]


def test_static_members_come_first_by_instance_id_whatever_their_member_id():
    members = [Member("a"), Member("z-1", instance_id="i-2"), Member("b", instance_id="i-1"), Member("c")]
    assert [m.member_id for m in in_member_order(members)] == ["b", "z-1", "a", "c"]


ids = st.text(alphabet=st.sampled_from(["a", "b", "-", "1", "\uff61", "\U0001f600", "\u00e9"]), max_size=4)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(ids, st.none() | ids), max_size=12))
def test_matches_java_order_and_keeps_input_order_among_equal_keys(spec):
    members = [Member(member_id, instance_id=instance) for member_id, instance in spec]
    expected = sorted(members, key=cmp_to_key(_java_compare))  # stable: equal keys keep the input order
    assert [id(m) for m in in_member_order(members)] == [id(m) for m in expected]
