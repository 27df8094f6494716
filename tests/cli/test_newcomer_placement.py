"""With librdkafka and static and dynamic members mixed, a new member's place in the broker's order can
decide the assignment; simulate then announces every assignment the group may reach."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.cli.helpers import run_process

GROUP = {
    "schema": "kgroup/v1",
    "cluster": {"topics": [{"name": "a", "partitions": 2}, {"name": "b", "partitions": 2}]},
    "groups": [
        {
            "group_id": "g",
            "assignors": ["range"],
            "members": [
                {"member_id": "c0-x", "instance_id": "s9", "topics": ["a", "b"]},
                {"member_id": "c1-x", "instance_id": "s8", "topics": ["a", "b"]},
                {"member_id": "c2-x", "topics": ["a", "b"]},
                {"member_id": "c3-x", "topics": ["a", "b"]},
            ],
            "assignment": {"c0-x": ["a-1", "b-1"], "c1-x": ["a-0", "b-0"]},
        }
    ],
}
NEWCOMER = {"member_id": "c4", "instance_id": "s5", "topics": ["a", "b"]}


def _write(path: Path, members: list[dict]) -> Path:
    doc = json.loads(json.dumps(GROUP))
    doc["groups"][0]["members"] = members
    path.write_text(yaml.safe_dump(doc))
    return path


def _assign(path: Path, client: str) -> dict:
    result = run_process("assign", str(path), "--client", client, "-o", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["assignment"]


def test_every_order_the_broker_may_send_is_announced(tmp_path: Path) -> None:
    from itertools import permutations

    from kgroup.assignors.model import Cluster, Member, Topic
    from kgroup.assignors.registry import builtin

    members = GROUP["groups"][0]["members"]
    what_if = run_process(
        "simulate",
        str(_write(tmp_path / "g.yaml", members)),
        "--client",
        "librdkafka",
        "--add-member",
        "c4",
        "--instance",
        "c4=s5",
        "-o",
        "json",
    )
    assert what_if.returncode == 0, what_if.stderr
    result = json.loads(what_if.stdout)["results"][0]
    announced = [result["assignment"], *result["alternatives"]]
    # What librdkafka's range gives for each order the five members may come in (the port, run directly).
    cluster = Cluster((Topic("a", 2), Topic("b", 2)))
    group = [Member(m["member_id"], ("a", "b"), m.get("instance_id")) for m in members + [NEWCOMER]]
    assignor = builtin("range", "librdkafka")
    possible = set()
    for order in permutations(group):
        owners = assignor.assign(cluster, order).owners
        possible.add(
            json.dumps(
                {m.member_id: [f"{tp.topic}-{tp.partition}" for tp in owners.get(m.member_id, ())] for m in group},
                sort_keys=True,
            )
        )
    assert result["assignment"] == _assign(_write(tmp_path / "last.yaml", members + [NEWCOMER]), "librdkafka")
    assert len({json.dumps(a, sort_keys=True) for a in announced}) == len(announced)  # each once
    assert {json.dumps(a, sort_keys=True) for a in announced} == possible
    assert len(announced) > 1
    assert "the order the broker lists the members in decides between" in what_if.stderr


def test_no_alternatives_where_the_order_is_total(tmp_path: Path) -> None:
    members = GROUP["groups"][0]["members"]
    java = run_process(
        "simulate",
        str(_write(tmp_path / "g.yaml", members)),
        "--client",
        "java",
        "--add-member",
        "c4",
        "--instance",
        "c4=s5",
        "-o",
        "json",
    )
    dynamic = [{k: v for k, v in m.items() if k != "instance_id"} for m in members]
    only_dynamic = run_process(
        "simulate",
        str(_write(tmp_path / "d.yaml", dynamic)),
        "--client",
        "librdkafka",
        "--add-member",
        "c4",
        "-o",
        "json",
    )
    for result in (java, only_dynamic):
        assert result.returncode == 0, result.stderr
        assert "alternatives" not in json.loads(result.stdout)["results"][0]
