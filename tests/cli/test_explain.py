"""`kgroup explain` and `kgroup simulate --explain`, run as a user runs them; the expected owners and
inputs are worked out by hand from Kafka's algorithms (see the comments)."""

from __future__ import annotations

from tests.cli.helpers import run, run_json, run_process

M0, M1, M2 = "orders-service-0-5f1c9a", "orders-service-1-82be44", "orders-service-2-c03d17"


def test_range_explains_the_quota_arithmetic_and_the_sort_order() -> None:
    # c4 joins the demo: dynamic members sort by id, so [c4, M0, M1, M2]. orders has 6 partitions:
    # 6 = 4x1 + 2, so c4 and M0 take 2 each (c4: 0-1, M0: 2-3), M1 takes 4 and M2 takes 5.
    # Before the change M1 owned orders-3 (the demo's current assignment: M1 has orders 3-5).
    doc = run_json("explain", "demo", "orders-3", "--add-member", "c4")
    assert doc["kind"] == "explanation"
    (result,) = doc["results"]
    (item,) = result["explanations"]
    assert (item["partition"], item["before"], item["after"]) == ("orders-3", M1, M0)
    (step,) = item["steps"]
    assert step["rule"] == "range" and step["owner"] == M0
    assert step["inputs"]["members"] == ["c4", M0, M1, M2]
    assert (step["inputs"]["quota"], step["inputs"]["extra"], step["inputs"]["position"]) == (1, 2, 1)
    assert "6 = 4×1 + 2" in step["why"] and "4th partition" in step["why"]


def test_simulate_explain_covers_exactly_the_partitions_that_moved() -> None:
    doc = run_json(
        "simulate", "demo", "--add-member", "c4", "--explain", "-a", "range", "-a", "sticky", "-a", "uniform"
    )
    for result in doc["results"]:
        moved = {m["partition"] for m in result["moves"]}
        explained = {e["partition"] for e in result["explanations"]}
        assert moved and explained == moved, result["assignor"]
        for item in result["explanations"]:
            assert item["steps"][-1]["owner"] == item["after"]


def test_simulate_without_explain_has_no_explanations() -> None:
    doc = run_json("simulate", "demo", "--add-member", "c4")
    assert "explanations" not in doc["results"][0]


def test_roundrobin_names_the_cursor() -> None:
    # The demo's three members sorted [M0, M1, M2]; orders-0..5 go M0, M1, M2, M0, M1, M2, so the cursor
    # is back at position 0 when payments-0 comes up (topics in name order): M0 takes it.
    doc = run_json("explain", "demo", "payments-0", "-a", "roundrobin")
    (step,) = doc["results"][0]["explanations"][0]["steps"]
    assert step["owner"] == M0 and step["inputs"]["cursor"] == 0 and step["inputs"]["position"] == 0


def test_cooperative_withholds_then_hands_over() -> None:
    doc = run_json("explain", "demo", "--add-member", "c4", "-a", "cooperative-sticky")
    items = doc["results"][0]["explanations"]
    changed = [i for i in items if i["before"] is not None and i["after"] not in (None, i["before"])]
    assert changed
    for item in changed:
        withheld = [s for s in item["steps"] if s["rule"] == "withheld"]
        assert [s["rebalance"] for s in withheld] == [1]
        assert withheld[0]["inputs"] == {"source": item["before"], "target": item["after"]}
        last = item["steps"][-1]
        assert last["rebalance"] == 2 and last["owner"] == item["after"]


def test_table_output_is_one_line_per_step_when_piped() -> None:
    done = run_process("explain", "demo", "orders-3", "--add-member", "c4")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = lines.index(f"orders-3: {M1} → {M0}")
    assert lines[header + 1].startswith("  - range: orders has 6 partitions")
    assert lines[header + 1].endswith(f"→ the 2nd member, {M0}, which takes orders-2..3")


def test_bad_partitions_are_input_errors() -> None:
    for args, words in [
        (("demo", "orders-9"), "no such partition"),
        (("demo", "orders"), "TOPIC-PARTITION"),
        (("scenario-storm", "invoices-99"), "no such partition"),
    ]:
        result = run("explain", *args)
        assert result.exit_code == 2, result.output
        (line,) = result.stderr.strip().splitlines()
        assert words in line
    result = run("simulate", "scenario-storm", "--explain")
    assert result.exit_code == 2


def test_scenario_story_names_the_trigger_and_the_pause() -> None:
    # scenario-gc-pause: p2 owns payments-2 and -3 and pauses 60 s at 3 min; its session is 45 s, so the
    # coordinator removes it before the pause ends (a rebalance triggered by the expired session), and
    # p2 joins again once the pause is over. p1's 20 s pause at 1 min goes unnoticed: no rebalance.
    doc = run_json("explain", "scenario-gc-pause", "payments-2", "payments-0")
    assert doc["kind"] == "scenario-explanation"
    by_tp = {p["partition"]: p for p in doc["partitions"]}
    story = by_tp["payments-2"]
    first, last = story["rebalances"][0], story["rebalances"][-1]
    assert "session expired" in first["trigger"] and first["from"] == "p2" and first["to"] != "p2"
    assert "p2 joins" in last["trigger"] and last["to"] == "p2"
    (stretch,) = story["unconsumed"]
    assert stretch["start_ms"] == 180_000 and stretch["stopped"] == "p2"
    assert [e["event"] for e in stretch["because"]] == ["gc-pause"]
    assert stretch["ended_by_rebalance"] == first["rebalance"] and stretch["end_ms"] == first["end_ms"]
    # The session runs out 45 s after p2's last heartbeat, which came at most 3 s before the pause.
    assert 180_000 - 3_000 + 45_000 < first["start_ms"] <= 180_000 + 45_000
    quiet = by_tp["payments-0"]
    assert quiet["rebalances"] == []
    assert [(s["start_ms"], s["end_ms"], s["resumed_by"]) for s in quiet["unconsumed"]] == [(60_000, 80_000, "p1")]


def test_scenario_rejects_what_if_flags() -> None:
    result = run("explain", "scenario-gc-pause", "--add-member", "c9")
    assert result.exit_code == 2 and "scenario" in result.stderr


def test_an_assignor_that_records_nothing_says_so(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "silent_assignors.py").write_text(
        "class FirstTakesAll:\n"
        "    name = 'first-takes-all'\n"
        "    def assign(self, cluster, members):\n"
        "        return {members[0].member_id: [(t.name, p) for t in cluster.topics for p in range(t.partitions)]}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    doc = run_json("explain", "demo", "-a", "silent_assignors:FirstTakesAll")
    assert doc["results"][0]["explanations"] is None
    assert "records no explanation" in run("explain", "demo", "-a", "silent_assignors:FirstTakesAll").stdout


def test_legacy_range_explains_per_thread() -> None:
    # seed-legacy: T1 has 10 partitions, C1 runs 1 stream and C2 2, so threads [C1-0, C2-0, C2-1];
    # 10 = 3x3 + 1: C1-0 takes 0-3, C2-0 4-6, C2-1 7-9. T1-5 is C2-0's.
    doc = run_json("explain", "seed-legacy", "T1-5", "-a", "legacy-range")
    (item,) = doc["results"][0]["explanations"]
    (step,) = item["steps"]
    assert (item["after"], step["rule"], step["inputs"]["thread"]) == ("C2", "legacy-range", "C2-0")
    assert step["inputs"]["threads"] == ["C1-0", "C2-0", "C2-1"] and "10 = 3×3 + 1" in step["why"]


def test_librdkafka_roundrobin_explains_with_librdkafka_member_order() -> None:
    # librdkafka compares member ids as bytes: [c4, M0, M1, M2]; topics by name: orders first, so
    # orders-0..3 go to positions 0..3 and orders-3 to M2, its cursor at position 3.
    doc = run_json("explain", "demo", "orders-3", "--add-member", "c4", "--client", "librdkafka", "-a", "roundrobin")
    assert doc["client"] == "librdkafka"
    (item,) = doc["results"][0]["explanations"]
    (step,) = item["steps"]
    assert (item["after"], step["rule"], step["inputs"]["cursor"], step["inputs"]["position"]) == (
        M2,
        "roundrobin",
        3,
        3,
    )
    assert "librdkafka's order" in step["why"]


def test_librdkafka_cooperative_sticky_shows_the_leaders_withholding() -> None:
    # M1 owns orders-3 at generation 7; c4 joins. Whatever librdkafka's sticky assignor does with it, the
    # first step is M1 keeping its claim; orders-3 leaves M1 in the end (M1 held 5 of 10 for 4 members),
    # and librdkafka's leader withholds a partition changing owner until its owner revokes it.
    doc = run_json(
        "explain", "demo", "orders-3", "--add-member", "c4", "--client", "librdkafka", "-a", "cooperative-sticky"
    )
    (item,) = doc["results"][0]["explanations"]
    steps = item["steps"]
    assert (steps[0]["rule"], steps[0]["owner"], steps[0]["rebalance"]) == ("kept", M1, 1)
    withheld = [s for s in steps if s["rule"] == "withheld"]
    assert withheld and withheld[0]["rebalance"] == 1 and withheld[0]["inputs"]["source"] == M1
    assert "librdkafka's leader" in withheld[0]["why"]
    assert steps[-1]["rebalance"] == 2 and steps[-1]["owner"] == item["after"] != M1
