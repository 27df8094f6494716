"""`kgroup describe --fixture`: a group described offline, from a fixture, with the live columns and rules."""

from __future__ import annotations

from tests.cli.helpers import run, run_json


def test_the_bundled_demo_is_described_with_kafkas_lag_rules() -> None:
    """Expected values worked out by hand from fixtures/demo.yaml."""
    (body,) = run_json("describe", "--fixture", "demo")["groups"]
    rows = {(p["topic"], p["partition"]): p for p in body["partitions"]}
    assert body["total_lag"] == 50 + 600 + 6 + 2 + 30 + 2
    assert (rows[("orders", 2)]["lag"], rows[("orders", 2)]["log_start_offset"]) == (600, 100)
    assert rows[("orders", 2)]["lead"] == 1500 - 100  # kafkactl's LEAD: distance to the retention edge
    assert rows[("orders", 5)]["lag"] is None and rows[("orders", 5)]["lag_from_start"] == 40
    assert rows[("orders", 5)]["lead"] is None
    assert rows[("orders", 5)]["flags"] == ["never-committed"]
    assert rows[("orders", 3)]["consumer_id"] == "orders-service-1-82be44"
    assert body["state"] == "PreparingRebalance" and body["coordinator"] is None
    lags = {m["member_id"]: (m["lag"], m["max_lag"]) for m in body["member_lag"]}
    assert lags == {
        "orders-service-0-5f1c9a": (656, 600),
        "orders-service-1-82be44": (34, 30),
        "orders-service-2-c03d17": (0, 0),
    }


def test_only_with_lag_on_a_fixture_keeps_the_lagging_and_the_never_committed() -> None:
    (body,) = run_json("describe", "--fixture", "demo", "--only-with-lag")["groups"]
    kept = sorted((p["topic"], p["partition"]) for p in body["partitions"])
    assert kept == [
        ("orders", 0),
        ("orders", 2),
        ("orders", 3),
        ("orders", 4),
        ("orders", 5),
        ("payments", 1),
        ("payments", 3),
    ]


def test_a_group_the_fixture_lacks_and_time_lag_are_one_line_each_with_exit_2() -> None:
    missing = run("describe", "--fixture", "demo", "payments-service")
    assert missing.exit_code == 2
    assert "demo.yaml" in missing.stderr and "orders-service" in missing.stderr
    timed = run("describe", "--fixture", "demo", "--time-lag")
    assert timed.exit_code == 2 and "--time-lag" in timed.stderr
    for result in (missing, timed):
        assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
