"""simulate, assign and diff, run as a user runs them; expected assignments worked out by hand from
Kafka's algorithms (see the comments)."""

from __future__ import annotations

import yaml

from tests.cli.helpers import FIXTURES, run, run_json

M0, M1, M2 = "orders-service-0-5f1c9a", "orders-service-1-82be44", "orders-service-2-c03d17"


def test_simulate_with_no_arguments_runs_the_demo() -> None:
    result = run("simulate")
    assert result.exit_code == 0, result.output
    assert "orders-service" in result.stdout and "moved 4" in result.stdout


def test_demo_range_rebalance_by_hand() -> None:
    # range, members sorted by id: orders (6) -> 2 each; payments (4) -> q=1, r=1: the first gets 2.
    doc = run_json("simulate")
    assert doc["schema"] == "kgroup/v1" and doc["kind"] == "simulation"
    (res,) = doc["results"]
    assert res["assignor"] == "range"
    assert res["assignment"] == {
        M0: ["orders-0", "orders-1", "payments-0", "payments-1"],
        M1: ["orders-2", "orders-3", "payments-2"],
        M2: ["orders-4", "orders-5", "payments-3"],
    }
    # Before: M0 orders 0-2 + payments 0-1; M1 orders 3-5 + payments 2-3; M2 nothing.
    assert res["moved"] == 4
    assert {(m["partition"], m["from"], m["to"]) for m in res["moves"]} == {
        ("orders-2", M0, M1),
        ("orders-4", M1, M2),
        ("orders-5", M1, M2),
        ("payments-3", M1, M2),
    }
    assert res["stickiness"] == {"kept": 6, "keepable": 10, "ratio": 0.6}
    assert res["balance"]["min"] == 3 and res["balance"]["max"] == 4
    assert res["valid"] is True


def test_side_by_side_assignors() -> None:
    # roundrobin deals orders-0..5 then payments-0..3 over M0, M1, M2 in turn.
    doc = run_json("simulate", "-a", "range", "-a", "roundrobin")
    by_name = {r["assignor"]: r for r in doc["results"]}
    assert by_name["roundrobin"]["assignment"] == {
        M0: ["orders-0", "orders-3", "payments-0", "payments-3"],
        M1: ["orders-1", "orders-4", "payments-1"],
        M2: ["orders-2", "orders-5", "payments-2"],
    }
    table = run("simulate", "-a", "range", "-a", "roundrobin")
    assert "Side by side" in table.stdout


def test_what_if_a_member_joins_leaves_and_a_topic_grows() -> None:
    joined = run_json("simulate", "seed-range", "--add-member", "C2")
    assert joined["results"][0]["assignment"] == {
        "C0": ["t0-0", "t1-0"],
        "C1": ["t0-1", "t1-1"],
        "C2": ["t0-2", "t1-2"],
    }
    left = run_json("simulate", "seed-range", "--remove-member", "C1")
    assert left["results"][0]["assignment"] == {"C0": ["t0-0", "t0-1", "t0-2", "t1-0", "t1-1", "t1-2"]}
    grown = run_json("simulate", "seed-range", "--add-partitions", "t0=+1")
    assert grown["results"][0]["assignment"]["C1"] == ["t0-2", "t0-3", "t1-2"]
    only_t1 = run_json("simulate", "seed-range", "--subscribe", "C1=t1")
    assert only_t1["results"][0]["assignment"]["C0"] == ["t0-0", "t0-1", "t0-2", "t1-0", "t1-1"]


def test_seed_roundrobin_example() -> None:
    doc = run_json("simulate", "seed-roundrobin")
    assert doc["results"][0]["assignment"] == {"C0": ["t0-0"], "C1": ["t1-0"], "C2": ["t1-1", "t2-0", "t2-1", "t2-2"]}


def test_seed_legacy_example_with_eleven_partitions() -> None:
    doc = run_json("simulate", "seed-legacy", "--add-partitions", "T1=11")
    threads = doc["results"][0]["threads"]
    assert threads == {
        "C1-0": ["T1-0", "T1-1", "T1-2", "T1-3"],
        "C2-0": ["T1-4", "T1-5", "T1-6", "T1-7"],
        "C2-1": ["T1-8", "T1-9", "T1-10"],
    }


def test_rack_aware_fixture_keeps_partitions_on_the_consumers_rack() -> None:
    doc = run_json("assign", "rack-aware", "-a", "range")
    racks = {"consumer0": "a", "consumer1": "b", "consumer2": "c"}
    fixture = yaml.safe_load((FIXTURES / "rack-aware.yaml").read_text())
    replica = {t["name"]: t["replica_racks"] for t in fixture["cluster"]["topics"]}
    for member, parts in doc["assignment"].items():
        for text in parts:
            topic, p = text.rsplit("-", 1)
            assert racks[member] in replica[topic][int(p)], (member, text)


def test_assign_then_diff_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a = run("assign", "demo", "-a", "range", "-o", "yaml")
    b = run("assign", "demo", "-a", "roundrobin", "-o", "yaml")
    assert a.exit_code == 0 and b.exit_code == 0
    (tmp_path / "range.yaml").write_text(a.stdout)
    (tmp_path / "rr.yaml").write_text(b.stdout)
    doc = run_json("diff", str(tmp_path / "range.yaml"), str(tmp_path / "rr.yaml"))
    # range -> roundrobin: M0 gives orders-1, payments-1 and takes orders-3, payments-3, and so on.
    moves = {(m["partition"], m["from"], m["to"]) for m in doc["moves"]}
    assert ("orders-3", M1, M0) in moves and ("orders-1", M0, M1) in moves
    assert doc["moved"] == len(moves)
    same = run_json("diff", str(tmp_path / "range.yaml"), str(tmp_path / "range.yaml"))
    assert same["moved"] == 0 and same["moves"] == []


def test_diff_of_a_fixture_against_a_saved_assignment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    saved = run("assign", "demo", "-o", "yaml")
    (tmp_path / "next.yaml").write_text(saved.stdout)
    doc = run_json("diff", "demo", str(tmp_path / "next.yaml"))
    assert doc["moved"] == 4


def test_server_range_from_the_cli() -> None:
    # KIP-848 range with identical subscriptions and no static members: per topic, members sorted by
    # id take q (+1 for the first n % k), the same hand-worked result as client range on the demo.
    doc = run_json("simulate", "demo", "-a", "server-range")
    assert doc["results"][0]["assignment"] == {
        M0: ["orders-0", "orders-1", "payments-0", "payments-1"],
        M1: ["orders-2", "orders-3", "payments-2"],
        M2: ["orders-4", "orders-5", "payments-3"],
    }


def test_cooperative_sticky_shows_both_rebalances() -> None:
    # M2 joins owning nothing, so everything it ends up with must first be revoked by M0 or M1: the
    # first rebalance withholds exactly those partitions, the second hands them over.
    doc = run_json("simulate", "demo", "-a", "cooperative-sticky", "-a", "sticky")
    coop, sticky = doc["results"]
    first, second = coop["rebalances"]
    assert coop["settled"] is True
    withheld = {w["partition"] for w in first["withheld"]}
    assert withheld == set(second["assignment"][M2]) and first["assignment"][M2] == []
    assert {w["assigned_to"] for w in first["withheld"]} == {M2}
    for w in first["withheld"]:
        assert w["partition"] not in first["assignment"][w["revoked_by"]]
    assert second["withheld"] == []
    # Cooperative and eager sticky agree on where the group ends up.
    assert coop["assignment"] == second["assignment"] == sticky["assignment"]
    assert coop["stickiness"] == sticky["stickiness"]


def test_cooperative_sticky_table_names_the_rebalances() -> None:
    result = run("simulate", "demo", "-a", "cooperative-sticky")
    assert result.exit_code == 0, result.output
    assert "rebalance 1 of 2" in result.stdout and "rebalance 2 of 2 (settled)" in result.stdout
    assert "unconsumed until rebalance 2" in result.stdout


def test_every_kafka_assignor_runs_side_by_side() -> None:
    names = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]
    doc = run_json("simulate", "demo", *[arg for n in names for arg in ("-a", n)])
    assert [r["assignor"] for r in doc["results"]] == names
    assert all(r["valid"] and r["error"] is None for r in doc["results"])


def test_assignors_verbose_lists_output_changing_versions() -> None:
    result = run("assignors", "--verbose")
    assert result.exit_code == 0, result.output
    assert "KAFKA-18688" in result.stdout and "KAFKA-16277" in result.stdout
    doc = run_json("assignors")
    uniform = next(a for a in doc["assignors"] if a["name"] == "uniform")
    assert any(h["version"] == "4.1" and "KAFKA-18688" in h["change"] for h in uniform["history"])
    assert doc["kafka_version"] == "4.0"


def test_kip848_group_on_kafka_4_0_uniform_worked_by_hand(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # OpenJDK 17 iterates the coordinator's HashMap of these member ids as hZb, 6fJ, Xq3 and a HashMap
    # of the two topic ids as refunds, payments. 11 partitions over 3 members: Kafka 4.0 gives quotas
    # 4, 4, 3 in that order. 6fJ keeps refunds 0-1, then payments 0-1 of its 0-3 (quota 4); Xq3 keeps
    # refunds 2 and payments 4-5 (quota 3); the revoked payments 2, 3, 6, 7 go to hZb, which had nothing.
    fixture = yaml.safe_load((FIXTURES / "kip848-uniform.yaml").read_text())
    fixture["cluster"]["kafka_version"] = "4.0.0"
    path = tmp_path / "on-4.0.yaml"
    path.write_text(yaml.safe_dump(fixture))
    doc = run_json("simulate", str(path))
    (res,) = doc["results"]
    assert res["assignor"] == "uniform"
    assert res["assignment"] == {
        "6fJcIHAuTBKJ0bXL1tvcFw": ["payments-0", "payments-1", "refunds-0", "refunds-1"],
        "Xq3c3A2aTn6ROfDt2sRX9A": ["payments-4", "payments-5", "refunds-2"],
        "hZbXj9PXQWi1mGbzkS5p3w": ["payments-2", "payments-3", "payments-6", "payments-7"],
    }
    assert any("followed Kafka 4.0" in w for w in doc["warnings"])


def test_kip848_group_defaults_to_the_newest_uniform_worked_by_hand() -> None:
    # The same group with no release: the newest builder, 4.1's to 4.4's (KAFKA-18688). Order hZb, 6fJ, Xq3;
    # minimum 3, two extras. hZb claims an extra but holds nothing, and two members still follow: it gives the claim
    # up (quota 3). 6fJ keeps 4 of its 6 (refunds 0-1, payments 0-1) and its extra; Xq3 keeps 4 of its 5
    # (refunds 2, payments 4-6) and the last extra. hZb gets the revoked payments 2, 3, 7.
    doc = run_json("simulate", "kip848-uniform")
    (res,) = doc["results"]
    assert res["assignment"] == {
        "6fJcIHAuTBKJ0bXL1tvcFw": ["payments-0", "payments-1", "refunds-0", "refunds-1"],
        "Xq3c3A2aTn6ROfDt2sRX9A": ["payments-4", "payments-5", "payments-6", "refunds-2"],
        "hZbXj9PXQWi1mGbzkS5p3w": ["payments-2", "payments-3", "payments-7"],
    }
    assert any("followed Kafka 4.4" in w and "no Kafka release known" in w for w in doc["warnings"])


def test_consumer_group_range_is_the_coordinators(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fixture = yaml.safe_load((FIXTURES / "kip848-uniform.yaml").read_text())
    fixture["groups"][0]["assignors"] = ["range"]
    path = tmp_path / "range.yaml"
    path.write_text(yaml.safe_dump(fixture))
    (res,) = run_json("simulate", str(path))["results"]
    assert res["assignor"] == "server-range"
