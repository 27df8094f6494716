"""The sentences `kgroup explain` prints, read as a user reads them: every number and name below was
worked out by hand from the fixture and Kafka's rules (the comments show the arithmetic), not copied
from a run."""

from __future__ import annotations

from typing import Any

import yaml

from tests.cli.helpers import FIXTURES, run, run_json, run_process

M0, M1, M2 = "orders-service-0-5f1c9a", "orders-service-1-82be44", "orders-service-2-c03d17"
B0, B1, B2 = "6fJcIHAuTBKJ0bXL1tvcFw", "Xq3c3A2aTn6ROfDt2sRX9A", "hZbXj9PXQWi1mGbzkS5p3w"


def _steps(*args: str) -> dict[str, list[dict[str, Any]]]:
    doc = run_json("explain", *args)
    (result,) = doc["results"]
    return {item["partition"]: item["steps"] for item in result["explanations"]}


def test_range_says_who_gets_the_extra_partitions_in_words() -> None:
    # demo: payments has 4 partitions over [M0, M1, M2]: 4 = 3x1 + 1, so M0 takes payments-0..1 and M1, M2 one
    # each; "the first 1 gets 2 and the rest 1" read as a riddle.
    (step,) = _steps("demo", "payments-3")["payments-3"]
    assert "4 = 3×1 + 1, so the first member gets 2 and the other 2 get 1" in step["why"]
    # kip848-uniform on server-range: payments has 8 partitions over 3 members sorted by id
    # [6fJc.., Xq3c.., hZbX..] (digits, then upper case, then lower case): 8 = 3x2 + 2.
    (step,) = _steps("kip848-uniform", "payments-7", "-a", "server-range")["payments-7"]
    assert "8 = 3×2 + 2, so the first 2 members get 3 and the last one gets 2" in step["why"]
    assert "payments-7 is the 8th partition → the 3rd member" in step["why"]


def test_legacy_range_counts_threads() -> None:
    # seed-legacy: threads [C1-0, C2-0, C2-1], T1 has 10 partitions: 10 = 3x3 + 1, C1-0 takes 0-3.
    (step,) = _steps("seed-legacy", "T1-9")["T1-9"]
    assert "so the first thread gets 4 and the other 2 get 3" in step["why"]


def test_rack_pass_states_the_quota_arithmetic() -> None:
    # rack-aware: t3 has 2 partitions (replicas on b, c) for 3 members: 2 = 3x0 + 2, so at most 1 each while
    # extras are left. consumer0 (rack a) has no t3 replica; consumer1 takes t3-0 (one extra used, 1 of 2
    # left), consumer2 then takes t3-1.
    steps = _steps("rack-aware", "t3-1", "t2-1")
    (t3,) = steps["t3-1"]
    assert t3["owner"] == "consumer2"
    assert (
        "t3: 2 = 3×0 + 2, so a member takes up to 1 while an extra is left (1 of the 2 extras is still left)"
        in t3["why"]
    )
    assert "up to 0" not in t3["why"]
    # t2: 7 = 3x2 + 1; consumer0 (rack a: t2-0, t2-3, t2-6) takes all three, the extra; consumer1 then takes
    # t2-1 and t2-4 with no extra left.
    (t2,) = steps["t2-1"]
    assert "t2: 7 = 3×2 + 1, so a member takes up to 2 now (the extra is taken)" in t2["why"]


def test_rack_pass_gives_way_because_nobody_is_on_the_rack() -> None:
    # Without consumer2, nobody is on rack c: t1-2 (replica on c) is left to the plain pass. Rack pass: consumer0
    # takes t1-0, t1-3 and consumer1 t1-1, t1-4 (6 = 2x3: up to 3 each); the plain pass gives consumer0, which
    # held 2, the lowest left, t1-2. The old words said members on rack c "had no room left".
    (step,) = _steps("rack-aware", "t1-2", "--remove-member", "consumer2")["t1-2"]
    assert step["owner"] == "consumer0" and step["rule"] == "range-after-racks"
    assert "no subscriber of t1 is on those racks" in step["why"] and "room" not in step["why"]
    assert "consumer0 held 2 of t1 before" in step["why"]


def test_roundrobin_counts_members_from_one_and_names_the_skipped() -> None:
    # seed-roundrobin: [C0, C1, C2]; t0-0 -> C0, t1-0 -> C1, t1-1 -> C2, so the cursor wraps to C0 for t2-0;
    # only C2 subscribes to t2.
    (step,) = _steps("seed-roundrobin", "t2-0")["t2-0"]
    assert step["why"].endswith(
        "at t2-0 it stood at the 1st member, C0; C0 and C1 do not subscribe to t2, so it "
        "goes to the next member that does: C2, the 3rd"
    )
    (step,) = _steps("seed-roundrobin", "t1-1")["t1-1"]
    assert step["why"].endswith("at t1-1 it stood at the 3rd member, C2, a subscriber of t1, so C2 takes it")


def test_withheld_does_not_promise_the_next_owner() -> None:
    # demo + c4 on librdkafka's cooperative-sticky: the first rebalance's balancing gives orders-3 to c4, but
    # the follow-up rebalance runs the assignor again and gives it to M2 (its README example). The old words,
    # "c4 gets it in the next rebalance", were false.
    steps = _steps("demo", "orders-3", "--add-member", "c4", "--client", "librdkafka", "-a", "cooperative-sticky")
    withheld = [s for s in steps["orders-3"] if s["rule"] == "withheld"]
    assert withheld[0]["inputs"]["target"] == "c4" and steps["orders-3"][-1]["owner"] == M2
    assert "c4 gets it" not in withheld[0]["why"] and "the follow-up rebalance assigns it afresh" in withheld[0]["why"]


def test_uniform_states_quotas_and_the_position_among_the_leftovers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # kip848-uniform on Kafka 4.0: 11 partitions over 3 members: 3 each, 11 % 3 = 2 members get 4: the first
    # two in the coordinator's member order, hZbX (new, holds nothing) and 6fJc; Xq3c gets 3. 6fJc held 6 and
    # gives up 2, Xq3c held 5 and gives up 2; nobody else is short, so hZbX takes all 4 leftovers: payments-2,
    # -3 (6fJc's) then payments-6, -7 (Xq3c's). payments-7 is the 4th.
    fixture = yaml.safe_load((FIXTURES / "kip848-uniform.yaml").read_text())
    fixture["cluster"]["kafka_version"] = "4.0.0"
    path = tmp_path / "on-4.0.yaml"
    path.write_text(yaml.safe_dump(fixture))
    steps = _steps(str(path), "payments-7")["payments-7"]
    revoked, filled = steps
    assert (
        "Xq3c3A2aTn6ROfDt2sRX9A held 5, above its quota of 3 (11 partitions over 3 members: 3 each, 4 for the "
        "first 2 in the coordinator's member order" in revoked["why"]
    )
    kept = revoked["why"].split("then partitions): ")[1].removesuffix(", not this one").split(", ")
    assert sorted(kept) == ["payments-4", "payments-5", "refunds-2"]
    assert filled["owner"] == B2 and (filled["inputs"]["leftover"], filled["inputs"]["leftovers"]) == (3, 4)
    assert filled["why"].endswith(f"(hZbXj9PXQWi1mGbzkS5p3w 4); payments-7 is the 4th of them → {B2}")
    assert "(4 short)" not in filled["why"]  # the old words gave every leftover the same, stale count


def test_uniform_from_kafka_4_1_says_who_keeps_an_extra() -> None:
    # kip848-uniform with no release: Kafka 4.2's rules (KAFKA-18688). hZbX holds nothing and gives its extra
    # up (two members follow, two extras left); 6fJc and Xq3c both hold more than 3 and keep 4 each. Xq3c held
    # 5 and gives up 1 (payments-7, the last in its record order); hZbX, 3 short, takes payments-2, -3 (6fJc's)
    # and payments-7: the 3rd of 3 leftovers.
    revoked, filled = _steps("kip848-uniform", "payments-7")["payments-7"]
    assert (
        "Xq3c3A2aTn6ROfDt2sRX9A held 5, above its quota of 4 (11 partitions over 3 members: 3 each, 4 for 2"
        in revoked["why"]
        and "KAFKA-18688" in revoked["why"]
    )
    assert filled["owner"] == B2 and (filled["inputs"]["leftover"], filled["inputs"]["leftovers"]) == (2, 3)
    assert filled["why"].endswith(f"(hZbXj9PXQWi1mGbzkS5p3w 3); payments-7 is the 3rd of them → {B2}")


def test_sticky_says_why_one_owner_keeps_more_than_the_other() -> None:
    # demo on sticky: 10 partitions over 3 members: 3 each and one member may keep 4. M0 and M1 both claimed 5;
    # M1 keeps 4 (payments-2 stays with it), so Java visited M1 first and M0 keeps 3: orders-0, payments-0,
    # orders-1 (partition number, then topic), releasing orders-2 and payments-1.
    steps = _steps("demo", "orders-2", "payments-2", "-a", "sticky")
    released = steps["orders-2"][0]
    assert released["rule"] == "over-quota" and released["inputs"]["max_taken_by"] == [M1]
    assert (
        f"10 partitions over 3 members: 3 each, and 1 member may keep 4; {M1} took that place, visited before it"
    ) in released["why"]
    (kept,) = steps["payments-2"]
    assert "keeps up to its quota of 4" in kept["why"] and "took that place" not in kept["why"]


def test_headings_say_when_a_partition_stays() -> None:
    out = run("explain", "demo", "orders-0").stdout
    assert f"orders-0: stays with {M0}\n" in out


def test_scenario_story_is_told_in_time_order() -> None:
    # scenario-gc-pause: p2 stops at 180 s (GC pause), its session expires at ~223 s (rebalance #1), it rejoins
    # at ~240 s (rebalance #2): the unconsumed stretch starting at 180 s comes first.
    lines = run("explain", "scenario-gc-pause", "payments-2").stdout.splitlines()
    assert lines[0] == "payments-2: p2 → p2 (moved away and back)"
    assert [line.split()[1] for line in lines[1:]] == ["unconsumed", "rebalance", "rebalance"]


def test_uniform_heterogeneous_says_why_a_dropped_topic_left_its_owner() -> None:
    # kip848-uniform with 6fJc subscribed to payments only: it keeps payments-0..3 and must let refunds-0, -1
    # go; refunds' subscribers are then Xq3c (holding 5: payments-4..7, refunds-2) and hZbX (0), so hZbX
    # takes refunds-0 with 0 and refunds-1 with 1. Before, the answer began at the second step.
    steps = _steps("kip848-uniform", "refunds-1", "--subscribe", f"{B0}=payments")["refunds-1"]
    assert [(s["rule"], s["owner"]) for s in steps] == [("not-subscribed", None), ("least-loaded", B2)]
    assert steps[0]["why"] == f"released by {B0}: it no longer subscribes to refunds"
    assert f"loads at that step {B2}=1, {B1}=5; {B2} held 1" in steps[1]["why"]
    assert "tied" not in steps[1]["why"]  # 1 against 5: no tie to break


def test_least_loaded_names_a_tie_only_when_there_is_one() -> None:
    # seed-roundrobin on sticky with C3 joining on [t1, t2]: partitions with fewer possible owners go first, so
    # t2 (C2, C3) before t1 (C1, C2, C3) before t0; t2-0 finds C2 and C3 both at 0: the lower id, C2, wins.
    (step,) = _steps("seed-roundrobin", "t2-0", "-a", "sticky", "--add-member", "C3=t1,t2")["t2-0"]
    assert step["why"].endswith("loads at that step C2=0, C3=0; C2 held 0; tied with C3, broken by member id")


def test_scenario_stretch_reads_without_nested_parentheses() -> None:
    # compare-crash: range over c1..c4 with 12 partitions (3 each); c2 crashes at 60 s and its session expires
    # 45 s after its last heartbeat, so rebalance #1 gives 4 each: c3 keeps payments-6 and -7 (now 4..7) but,
    # eager, revokes them first and consumes them again when the rebalance ends.
    lines = run("explain", "compare-crash", "payments-6").stdout.splitlines()
    assert lines[0] == "payments-6: stays with c3"
    (line,) = lines[1:]
    assert "(it revoked the partition) during rebalance #1 (trigger: c2's session expired)" in line
    assert line.endswith("until rebalance #1 ended and c3 consumed it again") and "))" not in line


def test_simulate_explain_points_to_explain_for_named_partitions() -> None:
    done = run_process("simulate", "demo", "--explain", "orders-3")
    assert done.returncode == 2
    assert done.stderr == (
        "kgroup: error: Got unexpected extra argument(s) (orders-3) (simulate --explain takes no "
        "partitions: `kgroup explain FIXTURE TOPIC-PARTITION...` names them)\n"
    )


def test_rack_pass_of_copartitioned_topics_names_the_real_reason() -> None:
    # rack-aware with t1 grown to 7: t1 and t2 now have 7 partitions each and the same subscribers, so the rack
    # pass places partition p of both together (Kafka assignCoPartitionedWithRackMatching; librdkafka the same).
    # p = 0..5 match a, b, c, a, b, c: consumer0 holds 2 of each after p = 3, within its limit of 3 (7 = 3x2 + 1).
    # t1-6 is new and has no known replica, so p = 6 fits nobody: t2-6 (on rack a) falls to the plain pass
    # although consumer0, on rack a, still had room. The old words blamed consumer0's room.
    for client in ("java", "librdkafka"):
        steps = _steps("rack-aware", "t1-6", "t2-6", "--add-partitions", "t1=7", "--client", client)
        (t2,) = steps["t2-6"]
        assert t2["rule"] == "range-after-racks" and t2["inputs"]["copartitioned"] == ["t1", "t2"]
        assert (
            "t1 and t2 have as many partitions and the same subscribers, so partition 6 of each had to go together"
        ) in t2["why"] and "no room" not in t2["why"]
        (t1,) = steps["t1-6"]
        assert t1["why"].startswith("rack-aware range: the rack pass left t1-6: no replica racks are known for t1-6")


def test_one_member_is_singular() -> None:
    # seed-range with C1 gone: C0 alone subscribes to t0 (3 partitions): 3 = 1x3 + 0, it takes t0-0..2.
    (step,) = _steps("seed-range", "t0-1", "--remove-member", "C1")["t0-1"]
    assert "t0 has 3 partitions and 1 subscribed member in sort order [C0]" in step["why"]
    assert "3 = 1×3 + 0, so it gets 3" in step["why"]


def test_a_static_restart_is_not_called_leaving_the_group() -> None:
    # scenario-tour: c1 is static (group.instance.id orders-app-c1) and restarts at 15 min: a static member's
    # close sends no LeaveGroup, so no rebalance follows and c1 resumes its partitions. The old words said
    # "it closed (left the group)".
    lines = run("explain", "scenario-tour", "orders-0").stdout.splitlines()
    assert lines[-1].startswith("  - unconsumed 900.0s → ")
    assert "c1 stopped consuming it at 900.0s (it shut down; it revoked the partition)" in lines[-1]
    assert "left the group" not in lines[-1] and lines[-1].endswith("until c1 resumed")


def test_a_long_member_list_keeps_its_ends_and_the_owner() -> None:
    # demo + c4..c12: 12 members sorted by id: c10, c11, c12, c4, ..., c9, then the three orders-service ones.
    # orders (6 partitions): 6 = 12x0 + 6, the first 6 members take one each; orders-3 is the 4th → c4.
    joins = [arg for n in range(4, 13) for arg in ("--add-member", f"c{n}")]
    (step,) = _steps("demo", "orders-3", *joins)["orders-3"]
    assert step["owner"] == "c4" and len(step["inputs"]["members"]) == 12  # JSON keeps the whole list
    assert "in sort order [1st c10, 2nd c11, 3rd c12, 4th c4, 5th c5, …, 12th orders-service-2-c03d17]" in step["why"]
    assert "6 = 12×0 + 6, so the first 6 members get 1 and the other 6 get 0" in step["why"]
    assert "orders-3 is the 4th partition → the 4th member, c4" in step["why"]
