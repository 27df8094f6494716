"""What `offsets reset` and `offsets delete` refuse for share groups before anything reaches the cluster: the
reset specs kafka-share-groups.sh does not take (ShareGroupCommandOptions: --to-datetime, --to-earliest,
--to-latest), share and consumer groups in one run, and a partition of a topic for a deletion
(DeleteShareGroupOffsets names whole topics)."""

from __future__ import annotations

from typing import Any

import pytest

from kgroup.inspectors.errors import InputError
from kgroup.inspectors.offsets import share_offset_delete, share_reset
from kgroup.inspectors.offsets.live_reset import ResetRequest


def _all_share(admin: Any, group_ids: list[str]) -> list[str]:
    return [g for g in group_ids if g.startswith("share-")]


@pytest.mark.parametrize(
    ("spec", "option"), [("shift-by", "--shift-by"), ("to-current", "--to-current"), ("to-group", "--to-group")]
)
def test_a_spec_that_moves_from_committed_offsets_is_bad_input(
    monkeypatch: pytest.MonkeyPatch, spec: str, option: str
) -> None:
    monkeypatch.setattr(share_reset, "share_group_ids", _all_share)
    with pytest.raises(InputError) as raised:
        share_reset.reset_group_offsets(None, ["share-a"], ResetRequest(spec, 1, all_topics=True), execute=True)  # type: ignore[arg-type]
    assert str(raised.value).startswith(f"{option}: ") and "share group" in str(raised.value)


def test_share_and_consumer_groups_in_one_reset_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(share_reset, "share_group_ids", _all_share)
    with pytest.raises(InputError, match="share-a is a share group and orders not: reset .* in separate runs"):
        share_reset.reset_group_offsets(None, ["share-a", "orders"], ResetRequest("to-earliest", all_topics=True), True)  # type: ignore[arg-type]


def test_deleting_a_partition_of_a_share_groups_topic_is_bad_input() -> None:
    with pytest.raises(InputError) as raised:
        share_offset_delete.plan_share_offset_delete(None, "share-a", ("orders", "audit:0"))  # type: ignore[arg-type]
    assert str(raised.value).startswith("--topic: 'audit:0': a share group's offsets are deleted a whole topic")
