"""The bundled comparison scenarios: each design's signature behaviour, with numbers worked by hand.

Timings used below: Java clients' heartbeat threads are spread over one interval in member order (classic
3 s, consumer protocol 5 s from the broker), so in a 4-member consumer-protocol group c1..c4 heartbeat at
0, 1.25, 2.5 and 3.75 s past each 5 s. The ZooKeeper consumer's session is 6 s; the external coordinator
checks every second.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import FIXTURES, run, run_json

ALL = "classic-eager,classic-cooperative,consumer,zk-watcher,external"


def _compare(scenario: str, protocols: str = ALL) -> dict[str, dict]:
    body = run_json("simulate", scenario, "--protocol", protocols)
    return {p["protocol"]: p for p in body["protocols"]}


def test_the_kafka_designs_list_each_rebalance_and_where_the_group_ends() -> None:
    """The JSON a replay on Kafka is compared with: each rebalance, the final assignment, the member epochs."""
    runs = _compare("compare-crash", "consumer,classic-eager,zk-watcher")
    consumer = runs["consumer"]
    # c2 (phase 1.25 s) is fenced at 101.25 s: one bump from the fixture's epoch 3, stable at 105 s (above).
    assert consumer["rebalance_list"] == [{"start_ms": 101_250, "end_ms": 105_000, "group_epoch": 4}]
    # uniform gives c2's partitions 3, 4, 5 in turn to the members short of their quota of 4, in GroupSpec's
    # HashMap order of member ids: "c1", "c3", "c4" hash to 3118, 3120, 3121, buckets 14, 0, 1 of 16.
    assert consumer["final_assignment"] == {
        "c1": ["payments-0", "payments-1", "payments-2", "payments-5"],
        "c3": ["payments-3", "payments-6", "payments-7", "payments-8"],
        "c4": ["payments-4", "payments-9", "payments-10", "payments-11"],
    }
    assert consumer["member_epochs"] == {"c1": 4, "c3": 4, "c4": 4}
    classic = runs["classic-eager"]
    # c2's heartbeats (phase 0.75 s of 3 s) end at 57.75 s: its session ends 45 s later; range deals 12 / 3.
    assert [(r["start_ms"], r["generation"]) for r in classic["rebalance_list"]] == [(102_750, 4)]
    assert classic["final_assignment"] == {
        "c1": [f"payments-{p}" for p in (0, 1, 2, 3)],
        "c3": [f"payments-{p}" for p in (4, 5, 6, 7)],
        "c4": [f"payments-{p}" for p in (8, 9, 10, 11)],
    }
    assert classic["member_epochs"] is None
    # The ZooKeeper consumer's model keeps no generations.
    zk = runs["zk-watcher"]
    assert (zk["rebalance_list"], zk["final_assignment"], zk["member_epochs"]) == (None, None, None)


def test_a_crash_waits_for_the_session_timeout_except_in_the_older_designs() -> None:
    runs = _compare("compare-crash")
    consumer = runs["consumer"]
    # c2 (phase 1.25 s) last heartbeats at 56.25 s and is fenced at 101.25 s. c3's heartbeat at 102.5 s
    # computes the target and takes one of c2's three partitions; c4 takes one at 103.75 s, c1 at 105 s:
    # 42.5 + 43.75 + 45 = 131.25 partition-seconds, stable 45 s after the crash.
    assert (consumer["unconsumed_ms"], consumer["longest_outage_ms"], consumer["time_to_stable_ms"]) == (
        131_250,
        45_000,
        [45_000],
    )
    # Its ZooKeeper session ends 6 s after the crash; then every consumer rebalances: 3 partitions x 6 s.
    assert (runs["zk-watcher"]["unconsumed_ms"], runs["zk-watcher"]["longest_outage_ms"]) == (18_000, 6_000)
    for name in ("classic-eager", "classic-cooperative", "consumer"):
        assert runs[name]["longest_outage_ms"] >= 45_000  # session.timeout.ms
    # 1,200 msg/s over 12 partitions = 100 msg/s each; c2's 3 partitions, up to one auto-commit interval.
    assert runs["consumer"]["messages_at_risk"] == 3 * 100 * 5
    assert runs["classic-eager"]["messages_at_risk"] == 3 * 100 * 5
    assert runs["zk-watcher"]["messages_at_risk"] == 3 * 100 * 60
    assert runs["external"]["messages_at_risk"] == 3 * 100 * 60
    assert all(r["partitions_owned_twice"] == 0 for r in runs.values())


def test_a_zookeeper_outage_strands_a_rebalance_only_in_the_designs_that_use_zookeeper(tmp_path: Path) -> None:
    runs = _compare("compare-zk-outage")
    doc = yaml.safe_load((FIXTURES / "compare-zk-outage.yaml").read_text())
    doc["events"] = [e for e in doc["events"] if not e.startswith("outage")]
    calm = tmp_path / "no-outage.yaml"
    calm.write_text(yaml.safe_dump(doc))
    without = _compare(str(calm))
    for name in ("classic-eager", "classic-cooperative", "consumer"):
        outage, calm_run = dict(runs[name]), dict(without[name])
        for per_event in ("time_to_stable_ms", "time_to_stable_interrupted", "time_to_stable_applies"):
            assert outage.pop(per_event)[:1] == calm_run.pop(per_event)  # one event fewer
        # Kafka's coordinator does not depend on ZooKeeper: the outage has no time to stable of its own.
        assert runs[name]["time_to_stable_applies"] == [True, False]
        assert {k: v for k, v in outage.items() if k != "notes"} == {k: v for k, v in calm_run.items() if k != "notes"}
        assert any("neither ZooKeeper" in note for note in runs[name]["notes"])
    # zk-watcher: c4 registers at 30 s; c4's own attempt fails on audit-5 (c3 still holds it) and backs
    # off 2 s; the others rebalance and release audit-5. ZooKeeper is down from 31 s, so c4's retry at
    # 32 s waits until 61 s: audit-5 unconsumed from 30 s to 61 s.
    assert runs["zk-watcher"]["longest_outage_ms"] == 31_000
    # c4's join is not settled when the outage comes 1 s later; the outage's own time runs to 61 s.
    zk = runs["zk-watcher"]
    assert (zk["time_to_stable_ms"], zk["time_to_stable_interrupted"]) == ([1_000, 30_000], [True, False])
    assert without["zk-watcher"]["longest_outage_ms"] == 2_000
    # external: the check at 31 s closes the partition moving to c4 (Closing); with ZooKeeper down the
    # coordinator writes nothing until 61 s, so that partition stays closed until the checks resume.
    assert runs["external"]["longest_outage_ms"] > 30_000
    assert without["external"]["longest_outage_ms"] == 1_000


def test_scaling_out_and_rolling_restarts_settle_after_every_event_in_every_design() -> None:
    for scenario, events in (("compare-scale-out", 3), ("compare-rolling-restart", 4)):
        runs = _compare(scenario)
        for name, r in runs.items():
            assert len(r["time_to_stable_ms"]) == events and None not in r["time_to_stable_ms"], (scenario, name)
            assert r["partitions_owned_twice"] == 0, (scenario, name)
        # The herd: every ZooKeeper consumer makes an attempt at every membership change.
        assert runs["zk-watcher"]["rebalances"] > 3 * runs["classic-eager"]["rebalances"]
    # Scale-out: c4's registration notifies c1-c3, c5's c1-c4, c6's c1-c5 (3 + 4 + 5 = 12); each join
    # makes every live consumer attempt once (4 + 5 + 6 = 15), and each failed claim is retried once.
    (herd,) = [n for n in _compare("compare-scale-out", "zk-watcher")["zk-watcher"]["notes"] if n.startswith("herd")]
    failed = int(herd.split(", ")[2].split()[0])
    assert herd.startswith("herd: 12 watch notifications, ") and f"{15 + failed} rebalance attempts" in herd


def test_the_timelines_page_has_one_picture_per_design(tmp_path: Path) -> None:
    page = tmp_path / "designs.html"
    result = run("simulate", "compare-crash", "--protocol", "consumer,zk-watcher", "--timeline-out", str(page))
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert html.count("<svg") == 2 and "<h2>consumer</h2>" in html and "<h2>zk-watcher</h2>" in html
    assert "payments-3" in html  # one of the crashed member's partitions, drawn with its gap
    svg = tmp_path / "designs.svg"
    refused = run("simulate", "compare-crash", "--protocol", "consumer", "--timeline-out", str(svg))
    assert refused.exit_code == 2 and "--timeline-out" in refused.stderr and not svg.exists()


def test_messages_at_risk_needs_produce_rates_and_they_are_checked(tmp_path: Path) -> None:
    doc = yaml.safe_load((FIXTURES / "compare-crash.yaml").read_text())
    del doc["produce_rates"]
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump(doc))
    result = run("simulate", str(plain), "--protocol", "consumer")
    assert result.exit_code == 0 and "MSGS-AT-RISK needs produce_rates" in result.stdout
    assert run_json("simulate", str(plain), "--protocol", "consumer")["protocols"][0]["messages_at_risk"] is None
    doc["produce_rates"] = {"nope": 10}
    plain.write_text(yaml.safe_dump(doc))
    bad = run("simulate", str(plain), "--protocol", "consumer")
    assert bad.exit_code == 2 and "produce_rates.nope" in bad.stderr and "no topic 'nope'" in bad.stderr


@pytest.mark.parametrize(
    ("rate", "shown"),
    [
        (".nan", "got nan"),
        (".inf", "got inf"),
        ("-1.5", "got -1.5"),
        ("fast", "got 'str'"),
        (str(10**40), "got 'a number too large'"),
    ],
)
def test_a_bad_produce_rate_is_shown_as_given(tmp_path: Path, rate: str, shown: str) -> None:
    text = (FIXTURES / "compare-crash.yaml").read_text()
    doc = yaml.safe_load(text)
    topic = next(iter(doc["produce_rates"]))
    doc["produce_rates"] = {topic: 0}
    path = tmp_path / "rates.yaml"
    path.write_text(yaml.safe_dump(doc).replace(f"{topic}: 0", f"{topic}: {rate}"))
    bad = run("simulate", str(path), "--protocol", "consumer")
    assert bad.exit_code == 2 and f"produce_rates.{topic}" in bad.stderr and shown in bad.stderr, bad.stderr


def test_the_consumer_protocol_runs_with_the_scenarios_group_consumer_settings(tmp_path: Path) -> None:
    """compare-crash with group.consumer.session.timeout.ms 10 s and heartbeats every 1 s: the 4 members
    heartbeat at 0, 0.25, 0.5 and 0.75 s past each second, so c2 (0.25 s) last heartbeats at 59.25 s, is
    fenced at 69.25 s, and its partitions go at the next heartbeats of c3, c4 and c1 (69.5, 69.75, 70 s):
    10 s after the crash, where Kafka's defaults (45 s, 5 s) give 45 s."""
    doc = yaml.safe_load((FIXTURES / "compare-crash.yaml").read_text())
    doc["broker"] = {
        **(doc.get("broker") or {}),
        "group.consumer.session.timeout.ms": "10s",
        "group.consumer.heartbeat.interval.ms": "1s",
    }
    fast = tmp_path / "fast.yaml"
    fast.write_text(yaml.safe_dump(doc))
    consumer = _compare(str(fast), "consumer")["consumer"]
    assert consumer["longest_outage_ms"] == 10_000
    assert _compare("compare-crash", "consumer")["consumer"]["longest_outage_ms"] == 45_000
    doc["broker"]["group.consumer.heartbeat.interval.ms"] = "10s"
    fast.write_text(yaml.safe_dump(doc))
    refused = run("simulate", str(fast), "--protocol", "consumer")
    assert refused.exit_code == 2 and "broker.group.consumer.heartbeat.interval.ms" in refused.stderr
