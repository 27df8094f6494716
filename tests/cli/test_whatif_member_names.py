"""A what-if names a member as the application knows it: member id, group.instance.id or client.id.

A live group's member ids are random (a UUID, or client.id-UUID), so `--remove-member` and `--subscribe` also take
the group.instance.id of a static member (how Kafka's admin client names a member to remove, KIP-345) or a
client.id that names exactly one member; the prediction is the one the member id gives, and the report names the
member by its member id.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run, run_json, run_process

FIXTURE = {
    "schema": "kgroup/v1",
    "cluster": {"topics": [{"name": "orders", "partitions": 7}, {"name": "audit", "partitions": 2}]},
    "groups": [
        {
            "group_id": "orders-service",
            "protocol": "consumer",
            "generation": 4,
            "members": [
                {"member_id": "6fJcIHAuTBKJ0bXL1tvcFw", "client_id": "orders-a", "topics": ["orders"]},
                {
                    "member_id": "Xq3c3A2aTn6ROfDt2sRX9A",
                    "client_id": "orders-shared",
                    "instance_id": "orders-pod-1",
                    "topics": ["orders"],
                },
                {"member_id": "hZbXj9PXQWi1mGbzkS5p3w", "client_id": "orders-shared", "topics": ["orders"]},
            ],
            "assignment": {
                "6fJcIHAuTBKJ0bXL1tvcFw": {"orders": [0, 1, 2]},
                "Xq3c3A2aTn6ROfDt2sRX9A": {"orders": [3, 4]},
                "hZbXj9PXQWi1mGbzkS5p3w": {"orders": [5, 6]},
            },
        }
    ],
}


@pytest.fixture
def fixture(tmp_path: Path) -> str:
    path = tmp_path / "group.yaml"
    path.write_text(yaml.safe_dump(FIXTURE))
    return str(path)


def _without_changes(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "changes"}


@pytest.mark.parametrize(
    ("name", "member_id"),
    [("orders-a", "6fJcIHAuTBKJ0bXL1tvcFw"), ("orders-pod-1", "Xq3c3A2aTn6ROfDt2sRX9A")],
    ids=["client.id", "group.instance.id"],
)
def test_a_member_removed_by_its_name_is_the_member_removed_by_its_id(fixture: str, name: str, member_id: str) -> None:
    by_name = run_json("simulate", fixture, "--remove-member", name, "-o", "json")
    by_id = run_json("simulate", fixture, "--remove-member", member_id, "-o", "json")
    assert by_name["changes"] == [{"kind": "remove-member", "member_id": member_id}]
    assert _without_changes(by_name) == _without_changes(by_id)
    assert member_id not in by_name["members_after"] and len(by_name["members_after"]) == 2
    text = run("simulate", fixture, "--remove-member", name)
    assert text.exit_code == 0, text.output
    assert f"What if: {member_id} leaves" in text.stdout


def test_a_subscription_changed_by_client_id_changes_that_member(fixture: str) -> None:
    doc = run_json("simulate", fixture, "--subscribe", "orders-a=orders,audit", "-o", "json")
    assert doc["changes"] == [
        {"kind": "subscribe", "member_id": "6fJcIHAuTBKJ0bXL1tvcFw", "topics": ["orders", "audit"]}
    ]
    by_id = run_json("simulate", fixture, "--subscribe", "6fJcIHAuTBKJ0bXL1tvcFw=orders,audit", "-o", "json")
    assert doc == by_id


def test_a_client_id_of_several_members_is_refused_with_their_member_ids(fixture: str) -> None:
    result = run_process("simulate", fixture, "--remove-member", "orders-shared")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "kgroup: error: --remove-member: client.id 'orders-shared' names 2 members of group 'orders-service'; "
        "name one by its member id: Xq3c3A2aTn6ROfDt2sRX9A, hZbXj9PXQWi1mGbzkS5p3w\n"
    )


def test_an_unknown_member_is_refused_listing_each_member_with_its_names(fixture: str) -> None:
    result = run_process("simulate", fixture, "--subscribe", "ghost=orders")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "kgroup: error: --subscribe: group 'orders-service' has no member 'ghost' (members: 6fJcIHAuTBKJ0bXL1tvcFw "
        "(orders-a), Xq3c3A2aTn6ROfDt2sRX9A (orders-pod-1, orders-shared), hZbXj9PXQWi1mGbzkS5p3w (orders-shared))\n"
    )
