"""`simulate` on a group Apache Kafka described (members in its member map's order, ids `prefix-UUID`):
the prediction is the most likely assignment, each alternative says how likely it is, and stderr says how
many assignments are possible and how likely the one shown is."""

from __future__ import annotations

import json
import random
import re
import uuid
from pathlib import Path

import yaml

from kgroup.assignors.java.hash_order import string_order
from tests.cli.helpers import run_process


def _fixture(path: Path) -> Path:
    rng = random.Random(0)

    def member_id(prefix: str) -> str:
        return f"{prefix}-{uuid.UUID(int=rng.getrandbits(128), version=4)}"

    members = {
        member_id(p): i
        for p, i in (("s9", "s9"), ("rdkafka", None), ("s7", "s7"), ("rdkafka", None), ("rdkafka", None))
    }
    listed = [
        {"member_id": m, "topics": ["a", "b"], **({"instance_id": members[m]} if members[m] else {})}
        for m in string_order(list(members))
    ]
    path.write_text(
        yaml.safe_dump(
            {
                "schema": "kgroup/v1",
                "cluster": {"topics": [{"name": "a", "partitions": 7}, {"name": "b", "partitions": 3}]},
                "groups": [{"group_id": "g", "assignors": ["range"], "client": "librdkafka", "members": listed}],
            }
        )
    )
    return path


def test_the_prediction_is_the_most_likely_and_each_alternative_says_how_likely(tmp_path: Path) -> None:
    result = run_process("simulate", str(_fixture(tmp_path / "g.yaml")), "--add-member", "rdkafka", "-o", "json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)["results"][0]
    shares = [body["likelihood"], *body["alternative_likelihoods"]]
    assert len(body["alternatives"]) == len(body["alternative_likelihoods"]) >= 1
    assert abs(sum(shares) - 1) < 1e-5
    assert shares == sorted(shares, reverse=True)
    assert body["likelihood"] < 1
    assert (
        f"{len(shares)} assignments are possible, {round(body['likelihood'] * 100)}% likely the one shown"
        in result.stderr
    )


def test_a_table_says_it_too(tmp_path: Path) -> None:
    result = run_process("simulate", str(_fixture(tmp_path / "g.yaml")), "--add-member", "rdkafka")
    assert result.returncode == 0, result.stderr
    assert "assignments are possible" in result.stderr and "likely the one shown" in result.stderr


def test_explanations_name_the_newcomer_as_the_what_if_does(tmp_path: Path) -> None:
    # The two default-client.id ids start with 0 and 1: a new random id most likely sorts after both, so
    # the prediction is an outcome kgroup computes with the newcomer under a stand-in id between them.
    kinds = {
        "s9-e3e70682-c209-4cac-a29f-6fbed82c07cd": "s9",
        "rdkafka-1443df78-9558-467f-9ba9-1faf7a024204": None,
        "rdkafka-0728b4fa-4248-4e3a-8a5d-2f346baa9455": None,
        "s7-eb1167b3-67a9-4378-bc65-c1e582e2e662": "s7",
    }
    listed = [
        {"member_id": m, "topics": ["a", "b"], **({"instance_id": kinds[m]} if kinds[m] else {})}
        for m in string_order(list(kinds))
    ]
    path = tmp_path / "g.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "schema": "kgroup/v1",
                "cluster": {"topics": [{"name": "a", "partitions": 7}, {"name": "b", "partitions": 3}]},
                "groups": [{"group_id": "g", "assignors": ["range"], "client": "librdkafka", "members": listed}],
            }
        )
    )
    result = run_process("simulate", str(path), "--add-member", "rdkafka", "--explain", "-o", "json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)["results"][0]
    assert body["likelihood"] > 0.9
    named = set(re.findall(r"rdkafka[^\s\"',\]\)]*", json.dumps(body["explanations"], ensure_ascii=False)))
    assert named <= set(kinds) | {"rdkafka"}
    assert "rdkafka" in named
