"""What `kgroup simulate` says about a scenario: settings Kafka rejects, why a rebalance took long, what a
static restart did, and TIME-TO-STABLE as docs/scenarios.md defines it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run, run_json

REJECTED = """\
schema: kgroup/v1
kind: scenario
allow_rejected_settings: true
cluster: {topics: [{name: t, partitions: 2}]}
groups:
  - group_id: g
    protocol: classic
    assignors: [range]
    members: [{member_id: a, topics: [t]}, {member_id: b, topics: [t]}]
clients:
  default: {session.timeout.ms: 4s, heartbeat.interval.ms: 1s}
events:
  - crash b at 30s
"""


@pytest.mark.parametrize("fmt", ["table", "json", "yaml"])
def test_a_rejected_setting_kept_on_purpose_leads_every_output_format(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "short-session.yaml"
    path.write_text(REJECTED)
    result = run("simulate", str(path), "-o", fmt)
    assert result.exit_code == 0, result.output
    if fmt == "table":
        first = result.stdout.splitlines()[0]
    else:
        body = json.loads(result.stdout) if fmt == "json" else yaml.safe_load(result.stdout)
        assert list(body)[:3] == ["schema", "kind", "warnings"]
        first = body["warnings"][0]
    assert first.startswith("warning:") and "clients.default.session.timeout.ms" in first
    assert "INVALID_SESSION_TIMEOUT" in first and "a, b never join" in first


def test_a_rejected_setting_warns_first_in_a_comparison_too(tmp_path: Path) -> None:
    path = tmp_path / "short-session.yaml"
    path.write_text(REJECTED)
    result = run("simulate", str(path), "--protocol", "classic-eager,zk-watcher")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith("warning:")


SLOW = """\
schema: kgroup/v1
kind: scenario
cluster: {topics: [{name: orders, partitions: 8}]}
groups:
  - group_id: orders-app
    protocol: classic
    assignors: [range]
    members: [{member_id: c1, topics: [orders]}, {member_id: c2, topics: [orders]},
              {member_id: c3, topics: [orders]}, {member_id: c4, topics: [orders]}]
    generation: 1
    assignment: {c1: {orders: [0, 1]}, c2: {orders: [2, 3]}, c3: {orders: [4, 5]}, c4: {orders: [6, 7]}}
clients:
  default: {max.poll.interval.ms: 2m}
  c1: {group.instance.id: app-c1}
events:
  - slow-poll c3 at 60s processing 80s
  - crash c4 at 65s
  - restart c1 at 5m static down 2s
"""


def test_a_long_rebalance_names_the_member_it_waited_for_and_a_static_restart_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW)
    body = run_json("simulate", str(path))
    (rebalance,) = body["rebalances"]
    # c4's session (45 s) expires about 108 s in; c3 is in an 80 s batch from 60 s and can only rejoin when
    # it returns, at 140 s: that is whom the join phase waited for.
    assert rebalance["cause"].startswith("c4's session expired: it crashed at 65 s")
    (waited,) = rebalance["waited_for"]
    assert waited["member"] == "c3" and waited["joined_at_ms"] == 140_000 and "slow batch" in waited["doing"]
    settle = {e["kind"]: e for e in body["time_to_stable"]}
    # A batch inside max.poll.interval.ms moves nothing; the static restart is 2 s without c1's partitions.
    assert (settle["slow-poll"]["ms"], settle["slow-poll"]["interrupted"]) == (0, False)
    assert settle["restart"]["ms"] >= 2_000 and not settle["restart"]["interrupted"]
    text = run("simulate", str(path)).stdout
    assert "waited" in text and "for c3, in a slow batch" in text
    assert "no rebalance: a static member back at 302.0s" in text


def test_an_open_rebalance_is_reported_as_still_open() -> None:
    text = run("simulate", "scenario-static-stuck").stdout
    assert "still open at the end" in text and "held in rebalance for 900 s" not in text


STUCK_SCALED = """\
schema: kgroup/v1
kind: scenario
cluster: {topics: [{name: docs, partitions: 8}]}
groups:
  - group_id: g
    protocol: classic
    assignors: [range]
    generation: 1
    members: [{member_id: s1, topics: [docs]}, {member_id: s2, topics: [docs]}, {member_id: s3, topics: [docs]}]
    assignment: {s1: {docs: [0, 1, 2]}, s2: {docs: [3, 4, 5]}, s3: {docs: [6, 7]}}
broker: {group.min.session.timeout.ms: 2s, classic.new.member.join.timeout.ms: 6s}
clients:
  default: {session.timeout.ms: 10s, heartbeat.interval.ms: 500ms, max.poll.interval.ms: REBALANCE}
  s1: {group.instance.id: i1}
  s2: {group.instance.id: i2}
  s3: {group.instance.id: i3}
  s4: {group.instance.id: i4}
duration: 23s
events:
  - crash s3 at 2s
  - join s4 at 2s static
"""


def test_a_scaled_new_member_timeout_drops_the_new_member_each_time_the_join_phase_ends(tmp_path: Path) -> None:
    """The rebalance timeout as long as the new-member timeout (6 s): s4, joining at 2 s, is dropped as each
    join phase ends (8, 14, 20 s), every round completing without it; the warning names the race a broker adds."""
    path = tmp_path / "stuck.yaml"
    path.write_text(STUCK_SCALED.replace("REBALANCE", "6s"))
    body = run_json("simulate", str(path))
    drops = [
        e["at_ms"]
        for e in body["events"]
        if e["kind"] == "join-response" and e["member"] == "s4" and e["error"] == "UNKNOWN_MEMBER_ID"
    ]
    assigned = [e["members"] for e in body["events"] if e["kind"] == "assignment"]
    assert (drops, assigned) == ([8000, 14000, 20000], [3, 3, 3])
    (finding,) = [f for f in body["findings"] if f["kind"] == "stuck-in-preparing"]
    assert "outlasts the 6 s new-member timeout" in finding["message"]
    assert "now and then arrives between the two" in finding["message"]
    assert finding["message"].endswith("a max.poll.interval.ms below 6 s")


def test_a_rebalance_timeout_past_the_new_member_timeout_completes_with_the_new_member(tmp_path: Path) -> None:
    """9 s against 6 s: s4 is dropped at 8 s and back at once, while the join phase still waits for s3, so the
    join completing at 11 s includes it (four members); no race to warn of."""
    path = tmp_path / "stuck.yaml"
    path.write_text(STUCK_SCALED.replace("REBALANCE", "9s"))
    body = run_json("simulate", str(path))
    assigned = [(e["at_ms"], e["members"]) for e in body["events"] if e["kind"] == "assignment"]
    assert assigned[0] == (11000, 4)
    assert not any("arrives between the two" in f["message"] for f in body["findings"])


def test_the_bundled_stuck_scenario_words_kafkas_five_minutes() -> None:
    (finding,) = [f for f in run_json("simulate", "scenario-static-stuck")["findings"]]
    assert "outlasts the 5-minute new-member timeout" in finding["message"]
    assert finding["message"].endswith("a max.poll.interval.ms below 5 minutes")


LEADER_DROPS = """\
schema: kgroup/v1
kind: scenario
cluster: {topics: [{name: sub-a, partitions: 4}, {name: sub-b, partitions: 4}]}
groups:
  - group_id: g
    protocol: classic
    assignors: [range]
    generation: 1
    members: [{member_id: c1, topics: [sub-a, sub-b]}, {member_id: c2, topics: C2_TOPICS}]
    assignment: ASSIGNMENT
duration: 12s
events:
  - subscribe WHO at 5s topics sub-a
"""
SHARED = "{c1: {sub-a: [0, 1], sub-b: [0, 1]}, c2: {sub-a: [2, 3], sub-b: [2, 3]}}"
C1_ALONE_ON_B = "{c1: {sub-a: [0, 1], sub-b: [0, 1, 2, 3]}, c2: {sub-a: [2, 3]}}"


def _leader_drop_findings(tmp_path: Path, who: str, c2_topics: str, *flags: str) -> list[dict]:
    path = tmp_path / "drop.yaml"
    assignment = SHARED if "sub-b" in c2_topics else C1_ALONE_ON_B
    path.write_text(LEADER_DROPS.replace("WHO", who).replace("C2_TOPICS", c2_topics).replace("ASSIGNMENT", assignment))
    return [f for f in run_json("simulate", str(path), *flags)["findings"] if f["kind"] == "leader-dropped-topic"]


def test_a_java_leader_dropping_a_topic_a_follower_keeps_is_warned_of(tmp_path: Path) -> None:
    """c1 leads (the file's first member); on the broker its assignment can leave sub-b to nobody for a while."""
    (finding,) = _leader_drop_findings(tmp_path, "c1", "[sub-a, sub-b]")
    assert (finding["at_ms"], finding["members"]) == (5000, ["c1"])
    assert "stopped subscribing to sub-b" in finding["message"] and "fetch.max.wait.ms" in finding["message"]


@pytest.mark.parametrize(
    ("who", "c2_topics", "flags"),
    [
        pytest.param("c2", "[sub-a, sub-b]", (), id="a-follower-drops-it"),
        pytest.param("c1", "[sub-a]", (), id="nobody-else-wants-it"),
        pytest.param("c1", "[sub-a, sub-b]", ("--client", "librdkafka"), id="librdkafka-leader"),
    ],
)
def test_no_leader_drop_warning_where_the_java_race_cannot_happen(
    tmp_path: Path, who: str, c2_topics: str, flags: tuple[str, ...]
) -> None:
    assert _leader_drop_findings(tmp_path, who, c2_topics, *flags) == []


def test_session_expiry_counts_the_rebalances_that_happened() -> None:
    body = run_json("simulate", "scenario-gc-pause")
    (finding,) = [f for f in body["findings"] if f["kind"] == "session-expired"]
    assert "rebalanced twice: #1 for the removal, #2 when it rejoined" in finding["message"]
    assert [r["index"] for r in body["rebalances"]] == [1, 2]


GC_PAUSES = """\
schema: kgroup/v1
kind: scenario
cluster: {topics: [{name: payments, partitions: 6}]}
broker: {group.min.session.timeout.ms: 2s}
groups:
  - group_id: g
    protocol: classic
    assignors: [range]
    generation: 1
    members: [{member_id: p1, topics: [payments]}, {member_id: p2, topics: [payments]},
              {member_id: p3, topics: [payments]}]
    assignment: {p1: {payments: [0, 1]}, p2: {payments: [2, 3]}, p3: {payments: [4, 5]}}
clients:
  default: {session.timeout.ms: 4s, heartbeat.interval.ms: 500ms}
duration: 16s
events:
  - gc-pause p2 at 500ms for 12s
  - gc-pause p1 at 7500ms for 1500ms
"""


def test_a_rebalance_is_listed_under_the_event_it_follows_from_not_the_last_one_before_it(tmp_path: Path) -> None:
    """p2's 12 s pause outlives its 4 s session: the coordinator removes it (#1) and it rejoins as a new member
    when the pause ends at 12.5 s (#2). p1's 1.5 s pause, within its session, costs no rebalance although #2
    starts after it (issue 36: both used to be put under the last event before them)."""
    path = tmp_path / "gc.yaml"
    path.write_text(GC_PAUSES)
    body = run_json("simulate", str(path))
    assert [(r["index"], r["caused_by_events"]) for r in body["rebalances"]] == [(1, [0]), (2, [0])]
    assert [(t["event"], t["rebalances"]) for t in body["time_to_stable"]] == [(0, [1, 2]), (1, [])]
    assert "new member" in body["rebalances"][1]["cause"] and "GC pause from 0.5 s" in body["rebalances"][1]["cause"]
    text = run("simulate", str(path)).stdout
    lines = {line.split("  ")[1]: line for line in text.splitlines() if "  ->  " in line}
    assert lines["gc-pause p2 for 12s"].endswith("rebalances #1, #2; stable after 4.1s, then #2 at 12.6s")
    assert "no rebalance (meanwhile #2 from the 0.5s event)" in lines["gc-pause p1 for 1.5s"]
