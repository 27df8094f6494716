"""`kgroup simulate SCENARIO --protocol ...`: one scenario under several coordination designs.

The expected numbers are worked out by hand from each design's rules for a crash of c2 at 12 s in a
two-member group on a 4-partition topic (the reasoning is in each test)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import run

SCENARIO = """\
schema: kgroup/v1
kind: scenario
cluster:
  topics:
    - {name: t, partitions: 4}
groups:
  - group_id: g
    assignors: [range]
    members:
      - {member_id: c1, topics: [t]}
      - {member_id: c2, topics: [t]}
duration: 2m
events:
  - crash c2 at 12s
"""


def _compare(tmp_path: Path, protocols: str, scenario: str = SCENARIO, *flags: str) -> dict[str, dict]:
    path = tmp_path / "scenario.yaml"
    path.write_text(scenario)
    result = run("simulate", str(path), "--protocol", protocols, *flags, "-o", "json")
    assert result.exit_code == 0, result.output
    return {p["protocol"]: p for p in json.loads(result.stdout)["protocols"]}


def test_consumer_protocol_frees_a_crashed_members_partitions_at_its_session_timeout(tmp_path: Path) -> None:
    # c1 joins at 0 (epoch 1, all four), c2 at 0 (epoch 2, waits for t-2/t-3); c1 revokes at its 5 s
    # heartbeat and c2 takes them in the same instant. c2's last heartbeat is at 10 s, so the 45 s session
    # fences it at 55 s (epoch 3) and c1's heartbeat at 55 s takes t-2 and t-3: 2 x 43 s unconsumed.
    (run_,) = _compare(tmp_path, "consumer").values()
    assert (run_["rebalances"], run_["unconsumed_ms"], run_["longest_outage_ms"]) == (3, 86_000, 43_000)
    assert run_["partitions_owned_twice"] == 0
    assert run_["time_to_stable_ms"] == [43_000]


def test_zk_watcher_rebalances_everyone_when_the_ephemeral_node_expires(tmp_path: Path) -> None:
    # Two attempts at start (c2's and c1's, coalesced); the crash removes /ids/c2 at 12 s + 6 s session,
    # c1's watch fires and it claims all four: 2 x 6 s unconsumed, three attempts.
    run_ = _compare(tmp_path, "zk-watcher")["zk-watcher"]
    assert (run_["rebalances"], run_["unconsumed_ms"], run_["longest_outage_ms"]) == (3, 12_000, 6_000)


def test_external_coordinator_moves_partitions_at_its_checks(tmp_path: Path) -> None:
    # Checks run every second from 1 s. Initial -> Starting at 1 s (4 partitions x 1 s unconsumed), Stable
    # at 2 s. c2 crashes and is evicted at 12 s, just before that instant's check, which closes its two
    # partitions (Closing); the 13 s check starts them on c1, the 14 s check finds them running: Stable 2 s
    # after the crash, 2 x 1 s more unconsumed.
    run_ = _compare(tmp_path, "external")["external"]
    assert (run_["rebalances"], run_["unconsumed_ms"], run_["longest_outage_ms"]) == (1, 6_000, 1_000)
    assert run_["time_to_stable_ms"] == [2_000]


def test_the_table_has_a_row_per_design_and_bad_names_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "crash.yaml"
    path.write_text(SCENARIO)
    table = run("simulate", str(path), "--protocol", "classic-eager,consumer,external")
    assert table.exit_code == 0, table.output
    rows = [line.split()[0] for line in table.stdout.splitlines()[2:5]]
    assert rows == ["classic-eager", "consumer", "external"]
    bad = run("simulate", str(path), "--protocol", "consumer,paxos")
    assert bad.exit_code == 2 and "--protocol" in bad.stderr and bad.stdout == ""


SUBSCRIBE = """\
schema: kgroup/v1
kind: scenario
cluster:
  topics:
    - {name: a, partitions: 2}
    - {name: b, partitions: 2}
groups:
  - group_id: g
    assignors: [range]
    generation: 2
    members:
      - {member_id: c1, topics: [a]}
      - {member_id: c2, topics: [a]}
    assignment:
      c1: {a: [0]}
      c2: {a: [1]}
duration: 30s
events:
  - subscribe c2 at 6s topics a,b
"""


def test_consumer_protocol_takes_a_new_subscription_at_the_members_next_heartbeat(tmp_path: Path) -> None:
    # Heartbeats every 5 s, the two members spread over one interval: c1 at 0, 5, 10 s, c2 at 2.5, 7.5 s.
    # subscribe() at 6 s only marks the subscription (Kafka's AbstractMembershipManager.onSubscriptionUpdated);
    # c2's 7.5 s heartbeat carries it: group epoch 3 then, not at 6 s. uniform evens the counts out: c2 gives
    # a-1 up and takes b-0, b-1 in that poll, acknowledging at once (epoch 3); c1 takes a-1 at its 10 s
    # heartbeat, which ends the rebalance. (On Apache Kafka: tests/live/scenarios/consumer-protocol-subscribe.)
    (body,) = _compare(tmp_path, "consumer", SUBSCRIBE).values()
    assert body["rebalance_list"] == [{"start_ms": 7_500, "end_ms": 10_000, "group_epoch": 3}]
    assert body["final_assignment"] == {"c1": ["a-0", "a-1"], "c2": ["b-0", "b-1"]}
    assert body["member_epochs"] == {"c1": 3, "c2": 3}


def test_a_librdkafka_member_sends_a_new_subscription_at_once(tmp_path: Path) -> None:
    # As above, but librdkafka expedites the heartbeat on subscribe() (measured on Apache Kafka:
    # tests/live/test_timer_rules_live.py): c2 sends the new subscription at 6 s, group epoch 3 then; it gives
    # a-1 up and takes b-0, b-1 at once; c1 takes a-1 at its 10 s heartbeat, which ends the rebalance.
    (body,) = _compare(tmp_path, "consumer", SUBSCRIBE, "--client", "librdkafka").values()
    assert body["rebalance_list"] == [{"start_ms": 6_000, "end_ms": 10_000, "group_epoch": 3}]
    assert body["final_assignment"] == {"c1": ["a-0", "a-1"], "c2": ["b-0", "b-1"]}
    # The group's own `client: librdkafka` does the same; --client wins over it.
    path = tmp_path / "librdkafka.yaml"
    path.write_text(SUBSCRIBE.replace("  - group_id: g\n", "  - group_id: g\n    client: librdkafka\n"))
    for flags, start in (([], 6_000), (["--client", "java"], 7_500)):
        result = run("simulate", str(path), "--protocol", "consumer", *flags, "-o", "json")
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        assert document["client"] == ("java" if flags else "librdkafka")
        assert document["protocols"][0]["rebalance_list"][0]["start_ms"] == start


def test_a_long_scenario_shows_twenty_events_per_row_and_json_every_one(tmp_path: Path) -> None:
    # 25 restarts, c1 and c2 in turn every 10 s: a TIME-TO-STABLE cell per event, 25 in each row.
    restarts = "".join(f"  - restart c{1 + i % 2} at {10 + 10 * i}s down 2s\n" for i in range(25))
    scenario = SCENARIO.replace("duration: 2m", "duration: 5m").split("events:")[0] + "events:\n" + restarts
    doc = _compare(tmp_path, "classic-eager,external", scenario)
    assert all(len(p["time_to_stable_ms"]) == 25 for p in doc.values())
    path = tmp_path / "scenario.yaml"
    text = run("simulate", str(path), "--protocol", "classic-eager,external").stdout
    rows = [line for line in text.splitlines() if line.startswith(("classic-eager ", "external "))]
    assert len(rows) == 2 and all(row.endswith(" +5 more") for row in rows)
    # each row: the six numbers, then 20 cells, then "+5 more"
    assert all(len(row.split()) == 6 + 20 + 2 for row in rows)
    events = next(line for line in text.splitlines() if line.startswith("events: "))
    assert events.count("restart c") == 20
    assert events.endswith("; ... 5 more events (-o json lists them all, with every TIME-TO-STABLE)")
