"""`kgroup simulate SCENARIO`: the bundled scenarios replayed as a user runs them, and bad scenarios.

Expected instants are worked out by hand from the scenario files and docs/scenarios.md ("The model"): heartbeats every
3 s spread over one interval (member i of n at i*3000/n ms), a poll 100 ms after a client learns of a
rebalance, a session expiring session.timeout.ms after the last heartbeat.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import FIXTURES, one_topic_scenario, run, run_json


def _gaps(doc: dict, tp: str) -> list[list[int | None]]:
    return doc["unconsumed"]["partitions"][tp]["gaps"]


def test_storm_scenario_two_rebalances_per_slow_batch() -> None:
    doc = run_json("simulate", "scenario-storm")
    starts = [(r["start_ms"], r["end_ms"], r["trigger"]) for r in doc["rebalances"]]
    # b2's first slow batch starts at 60 s: the heartbeat thread leaves at 60 + 300 s; b1 (phase 0) learns
    # at once, b3 (phase 2000 ms) at 362 s and polls at 362.1 s.
    assert starts[0] == (360_000, 362_100, "b2 left the group")
    # The batch returns at 60 + 420 s: the commit fails and b2 rejoins as a new member.
    assert starts[1][0] == 480_000 and starts[1][2] == "b2 joins"
    assert len(starts) == 6  # three slow batches, two rebalances each
    assert [e["exception"] for e in doc["clients"]["b2"]["exceptions"]] == ["CommitFailedException"] * 3
    assert _gaps(doc, "invoices-2")[0] == [60_000, 362_100]
    assert [f["kind"] for f in doc["findings"]] == ["rebalance-storm"]


def test_gc_pause_longer_than_the_session_removes_the_member() -> None:
    doc = run_json("simulate", "scenario-gc-pause")
    first = doc["rebalances"][0]
    # p2 (phase 1000 ms) last heartbeats at 178 s before pausing at 180 s: removed at 178 + 45 s.
    assert (first["start_ms"], first["left"]) == (223_000, ["p2"])
    # p1's 20 s pause is shorter than its session: no rebalance, only its own partitions wait; the
    # next stop is the eager rebalance after p2's removal.
    gaps = _gaps(doc, "payments-0")
    assert gaps[0] == [60_000, 80_000] and gaps[1][0] >= 223_000
    assert _gaps(doc, "payments-2")[0] == [180_000, first["end_ms"]]
    assert [f["kind"] for f in doc["findings"]] == ["session-expired"]


def test_a_text_event_s_bare_numbers_are_milliseconds(tmp_path: Path) -> None:
    # docs/scenarios.md: a duration is 500ms, 45s, ... or a bare number of milliseconds, in a text event too.
    story = (FIXTURES / "scenario-gc-pause.yaml").read_text()
    assert "gc-pause p2 at 3m for 60s" in story
    path = tmp_path / "bare.yaml"
    path.write_text(story.replace("gc-pause p2 at 3m for 60s", "gc-pause p2 at 180000 for 60000"))
    rebalances = run_json("simulate", str(path))["rebalances"]
    assert rebalances == run_json("simulate", "scenario-gc-pause")["rebalances"]
    assert rebalances[0]["start_ms"] == 223_000


def test_static_restarts_within_the_session_do_not_rebalance() -> None:
    doc = run_json("simulate", "scenario-rolling-restart")
    assert all(r["start_ms"] < 300_000 for r in doc["rebalances"])  # only the dynamic restarts rebalance
    assert _gaps(doc, "events-6") == [[300_000, 310_000]]  # s1 down 10 s, then its old assignment back
    assert doc["final_assignment"]["s1"] == ["events-6", "events-7"]


def test_a_static_member_restarted_dynamic_rejoins_as_a_new_member(tmp_path: Path) -> None:
    # scenario-tour's c1 is static; restarted `dynamic` it comes back 5 s later without its instance id,
    # so its JoinGroup is a new member's and starts a rebalance at 905 s.
    tour = (FIXTURES / "scenario-tour.yaml").read_text()
    assert "restart c1 at 15m static" in tour
    path = tmp_path / "tour-dynamic.yaml"
    path.write_text(tour.replace("restart c1 at 15m static", "restart c1 at 15m dynamic"))
    doc = run_json("simulate", str(path))
    assert (doc["rebalances"][-1]["start_ms"], doc["rebalances"][-1]["trigger"]) == (905_000, "c1 joins")


def test_a_dynamic_group_adopts_static_membership_by_restarting_each_member_static(tmp_path: Path) -> None:
    # KIP-345's rollout: each dynamic member closes (LeaveGroup: a rebalance at once) and is back 5 s later with
    # group.instance.id set (a new member's JoinGroup: a second rebalance). Once static, a restart within the
    # session sends no LeaveGroup and comes back to the same partitions without a rebalance; `dynamic` drops
    # the id again, so its return is a new member's join and its next plain restart leaves with LeaveGroup.
    path = one_topic_scenario(
        tmp_path / "adopt.yaml",
        ["a", "b", "c"],
        duration="10m",
        events=[
            "restart a at 1m static",
            "restart a at 3m",
            "restart a at 5m dynamic",
            "restart a at 7m",
        ],
    )
    doc = run_json("simulate", str(path))
    starts = [(r["start_ms"], r["trigger"]) for r in doc["rebalances"]]
    assert starts == [
        (60_000, "a left the group"),
        (65_000, "a joins"),
        (305_000, "a joins"),
        (420_000, "a left the group"),
        (425_000, "a joins"),
    ]
    assert _gaps(doc, "t-0")[2] == [180_000, 185_000]  # the static restart: down 5 s, then its own partition
    starts_logged = [(e["at_ms"], e["instance_id"]) for e in doc["events"] if e["kind"] == "start"]
    assert starts_logged == [(65_000, "a"), (185_000, "a"), (305_000, None), (425_000, None)]
    text = run("simulate", str(path)).stdout
    assert "(it left as a dynamic member and is back with group.instance.id a)" in text

    consumer = run_json("simulate", str(path), "--protocol", "consumer")["protocols"][0]
    # KIP-848: the -1 leave and the new static member each bump the group epoch; the static member's -2 leave
    # and its return under the same id do not. `dynamic` brings it back as a new member (a bump at 305 s) while
    # the parked static record stays until its session expires: 45 s after its last heartbeat at 295 s (it
    # heartbeats every 5 s from its start at 185 s), fenced at 340 s. Its next restart leaves with -1 and joins
    # again (two more).
    assert [r["start_ms"] for r in consumer["rebalance_list"]] == [60_000, 65_000, 305_000, 340_000, 420_000, 425_000]


def test_static_member_holds_the_group_in_rebalance() -> None:
    doc = run_json("simulate", "scenario-static-stuck")
    assert [r["end_ms"] for r in doc["rebalances"]] == [None]
    assert [f["kind"] for f in doc["findings"]] == ["stuck-in-preparing"]
    assert _gaps(doc, "documents-6") == [[60_000, None]]  # s3 crashed at 60 s; nobody took its partitions


def test_tour_renders_for_people_and_writes_a_timeline(tmp_path: Path) -> None:
    picture = tmp_path / "tour.html"
    result = run("simulate", "scenario-tour", "--timeline-out", str(picture))
    assert result.exit_code == 0, result.output
    assert "Rebalances: 7" in result.stdout and "Warnings" in result.stdout
    html = picture.read_text()
    assert html.startswith("<!doctype html>") and "<svg" in html and "orders-9" in html
    svg = tmp_path / "tour.svg"
    assert run("simulate", "scenario-tour", "--timeline-out", str(svg)).exit_code == 0
    assert svg.read_text().startswith("<svg")


def test_yaml_output_carries_the_event_log() -> None:
    result = run("simulate", "scenario-gc-pause", "-o", "yaml")
    assert result.exit_code == 0
    assert "kind: scenario-run" in result.stdout and "kind: member-removed" in result.stdout


SCENARIO_HEAD = """schema: kgroup/v1
kind: scenario
cluster:
  topics: [{name: t, partitions: 2}]
groups:
  - group_id: g
    protocol: classic
    members: [{member_id: a, topics: [t]}, {member_id: b, topics: [t]}]
    assignment: {a: {t: [0]}, b: {t: [1]}}
"""


@pytest.mark.parametrize(
    "tail,expected",
    [
        ("events:\n  - crash zed at 1s\n", "events[0].member: unknown member 'zed'"),
        ("events:\n  - crash a at -5s\n", "events[0].at: negative time"),
        ("events:\n  - crash a at 10s\n  - crash b at 5s\n", "events[1].at: 5000 ms is before the previous event"),
        ("events:\n  - explode a at 1s\n", "events[0].kind: unknown event kind 'explode'"),
        ("events:\n  - gc-pause a at 1s for soon\n", "events[0].for: expected a duration"),
        ("events:\n  - restart a at 1s static dynamic\n", "events[0]: a restart is either static or dynamic, not both"),
        (
            "clients:\n  b: {group.instance.id: a}\nevents:\n  - restart a at 1s static\n",
            "events[0].static: 'a' would come back with group.instance.id 'a', which member 'b' has",
        ),
        ("events:\n  - add-partitions nope +2 at 1s\n", "events[0].topic: no topic 'nope'"),
        ("events:\n  - add-partitions t 1 at 1s\n", "events[0].partitions: topic t has 2 partitions"),
        ("events:\n  - crash a at 1s\n  - leave a at 2s\n", "events[1].member: 'a' is not running"),
        (
            "clients:\n  a: {session.timeout.ms: 2s, heartbeat.interval.ms: 3s}\n",
            "clients.a.heartbeat.interval.ms: heartbeat.interval.ms (3000 ms) must be lower than session.timeout.ms",
        ),
        (
            "clients:\n  a: {session.timeout.ms: 4s, heartbeat.interval.ms: 1s}\n",
            "clients.a.session.timeout.ms: session.timeout.ms 4000 ms is below the broker's group.min.session.timeout.ms (6000 ms)",
        ),
        (
            "broker: {group.max.session.timeout.ms: 30s}\n",
            "broker.group.max.session.timeout.ms: session.timeout.ms 45000 ms is above the broker's group.max.session.timeout.ms",
        ),
        (
            "broker: {group.min.session.timeout.ms: 2m, group.max.session.timeout.ms: 1m}\n",
            "broker.group.min.session.timeout.ms: 120000 ms is above group.max.session.timeout.ms",
        ),
        ("events:\n  - crash a\n", "events[0]: cannot read 'crash a'"),
    ],
)
def test_bad_scenarios_get_one_line_and_exit_2(tmp_path: Path, tail: str, expected: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(SCENARIO_HEAD + tail)
    result = run("simulate", str(path))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and expected in lines[0], lines
    assert result.stdout == ""


def test_timeline_needs_a_scenario(tmp_path: Path) -> None:
    result = run("simulate", "demo", "--timeline-out", str(tmp_path / "x.svg"))
    assert result.exit_code == 2 and "--timeline-out" in result.stderr
    assert not (tmp_path / "x.svg").exists()


MIXED_ORDER = """\
schema: kgroup/v1
kind: scenario
cluster:
  topics:
    - {name: t, partitions: 2}
groups:
  - group_id: g
    assignors: [range]
    generation: 3
    members:
      - {member_id: x, topics: [t]}
      - {member_id: y, topics: [t], instance_id: a-inst}
      - {member_id: w, topics: [t]}
    assignment:
      x: {t: [0]}
      y: {t: [1]}
duration: 20s
events:
  - leave w at 1s
"""


def test_a_librdkafka_leader_runs_librdkafkas_own_range(tmp_path: Path) -> None:
    # w leaves, x and y rebalance under range. Kafka's Java range puts static members first
    # (AbstractPartitionAssignor.MemberInfo.compareTo): y takes t-0, x t-1. librdkafka compares instance ids
    # only when both members are static, else member ids (rd_kafka_group_member_cmp): x before y, x takes t-0.
    path = tmp_path / "order.yaml"
    path.write_text(MIXED_ORDER)
    java = run_json("simulate", str(path))
    assert (java["client"], java["final_assignment"]) == ("java", {"x": ["t-1"], "y": ["t-0"]})
    librdkafka = run_json("simulate", str(path), "--client", "librdkafka")
    assert (librdkafka["client"], librdkafka["final_assignment"]) == ("librdkafka", {"x": ["t-0"], "y": ["t-1"]})
    table = run("simulate", str(path), "--client", "librdkafka")
    assert table.exit_code == 0 and "· librdkafka clients ·" in table.stdout


def test_librdkafka_with_the_eager_sticky_assignor_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "sticky.yaml"
    sticky = MIXED_ORDER.replace("assignors: [range]", "assignors: [sticky]")
    for flags, text in (
        (["--client", "librdkafka"], sticky),
        ([], sticky.replace("assignors: [sticky]", "assignors: [sticky]\n    client: librdkafka")),
    ):
        path.write_text(text)
        result = run("simulate", str(path), *flags)
        assert result.exit_code == 2, result.output
        assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
        assert str(path) in result.stderr and "partition.assignment.strategy" in result.stderr
        assert "no 'sticky' assignor" in result.stderr
    assert run("simulate", str(path), "--client", "java").exit_code == 0


def test_a_large_group_s_rebalances_show_twenty_members_each_and_json_every_one(tmp_path: Path) -> None:
    # 30 eager members on one topic of 30 partitions, m00 crashes: the rebalance after its session moves the
    # other 29 (each revokes its partition and gets one back), more than the text shows under one rebalance.
    path = one_topic_scenario(tmp_path / "big.yaml", [f"m{i:02}" for i in range(30)], events=["crash m00 at 10s"])
    doc = run_json("simulate", str(path))
    moved = doc["rebalances"][0]["revoked"]
    assert len(moved) == 29 and "m00" not in moved
    text = run("simulate", str(path)).stdout
    block = text.split("#1 ", 1)[1].split("\n#2 ", 1)[0].split("\n\nEvents", 1)[0].splitlines()[1:]
    assert len(block) == 21 and all(line.startswith("    m") for line in block[:20])
    assert block[20] == "    ... 9 more members moved partitions (-o json lists them all)"


def test_a_rebalance_every_member_joins_names_twenty_of_them_and_json_all(tmp_path: Path) -> None:
    # 30 members with no assignment: the first rebalance is all 30 joining.
    members = [f"m{i:02}" for i in range(30)]
    path = one_topic_scenario(tmp_path / "joining.yaml", members, assigned=False, duration="1m")
    assert run_json("simulate", str(path))["rebalances"][0]["joined"] == members
    header = next(line for line in run("simulate", str(path)).stdout.splitlines() if line.startswith("#1 "))
    assert header.endswith("  joined: " + ", ".join(members[:20]) + " and 10 more")
