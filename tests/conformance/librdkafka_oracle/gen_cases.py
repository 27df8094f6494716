"""Seeded generator for the librdkafka conformance set (../data/librdkafka-cases.jsonl).

python3 gen_cases.py --seed N --out FILE: writes one seed's cases, ids prefixed `seedN/`, expected values
printed by the C oracle (rdk_oracle, built by build.sh from librdkafka's own source). The vendored file is
seed 20261123 followed by seed 7. See README.md in this folder.
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_oracle import run_cases  # noqa: E402

TOPIC_POOL = ["t0", "t1", "t2", "t3", "orders", "Zeta", "a", "b.x", "payments-v2", "aa"]
RACKS = ["r0", "r1", "r2"]


def mk_id(rng, prefix_pool):
    return rng.choice(prefix_pool) + "-" + "".join(rng.choice("0123456789abcdef") for _ in range(6))


def gen_members(rng, n, topics, identical, static_frac=0.4, racks=False):
    members = []
    used = set()
    sub_all = [t["name"] for t in topics]
    common = sub_all if rng.random() < 0.6 else rng.sample(sub_all, rng.randint(1, len(sub_all)))
    for i in range(n):
        while True:
            mid = mk_id(rng, ["consumer", "c", "rdkafka", "m", "x", "app"])
            if mid not in used:
                break
        used.add(mid)
        iid = None
        if rng.random() < static_frac:
            while True:
                iid = mk_id(rng, ["inst", "b", "zz", "host", "a"])
                if iid not in used:
                    break
            used.add(iid)
        if identical:
            sub = list(common)
        else:
            sub = rng.sample(sub_all, rng.randint(1, len(sub_all)))
        rng.shuffle(sub)
        m = {"member_id": mid, "group_instance_id": iid, "subscription": sub, "owned": [], "generation": -1}
        if racks:
            m["rack"] = rng.choice(RACKS + [None])
        members.append(m)
    # make sure static/dynamic mixes appear often
    if n >= 2 and all(m["group_instance_id"] is None for m in members) and rng.random() < 0.5:
        members[rng.randrange(n)]["group_instance_id"] = mk_id(rng, ["inst", "a"])
    return members


def gen_topics(rng, racks=False, maxt=4):
    names = rng.sample(TOPIC_POOL, rng.randint(1, maxt))
    topics = []
    for nm in names:
        t = {"name": nm, "partitions": rng.randint(1, 13)}
        if racks:
            t["racks"] = [sorted(rng.sample(RACKS, rng.randint(1, 3))) for _ in range(t["partitions"])]
        topics.append(t)
    return topics


def rr_range_cases(rng, assignor, count, racks_share=0.0):
    out = []
    for i in range(count):
        racks = rng.random() < racks_share
        topics = gen_topics(rng, racks=racks)
        n = rng.randint(1, 6)
        identical = rng.random() < 0.5
        members = gen_members(rng, n, topics, identical, racks=racks)
        out.append(("%s-%03d" % (assignor, i), assignor, {"topics": topics, "members": members}))
    return out


def sticky_round1(rng, count, racks=False, tag="r1"):
    out = []
    for i in range(count):
        topics = gen_topics(rng, racks=racks)
        n = rng.randint(2, 6)
        members = gen_members(rng, n, topics, rng.random() < 0.6, racks=racks)
        out.append(
            ("cooperative-sticky-%s-%03d" % (tag, i), "cooperative-sticky", {"topics": topics, "members": members})
        )
    return out


def follow_up(rng, base_inp, oracle_out, cid):
    """Round 2: owned = the round-1 SyncGroup assignment, generation g; then joins,
    leaves, subscription and partition-count changes."""
    inp = json.loads(json.dumps(base_inp))
    sync = oracle_out.get("sync") or oracle_out["raw"]
    gen = rng.randint(1, 9)
    for m in inp["members"]:
        m["owned"] = [list(tp) for tp in sync[m["member_id"]]]
        rng.shuffle(m["owned"])
        m["generation"] = gen
    ops = rng.sample(["join", "join2", "leave", "sub", "parts", "stale", "none"], rng.randint(1, 3))
    if "leave" in ops and len(inp["members"]) > 1:
        for _ in range(rng.randint(1, max(1, len(inp["members"]) - 2))):
            if len(inp["members"]) > 1:
                inp["members"].pop(rng.randrange(len(inp["members"])))
    for op in ("join", "join2"):
        if op in ops:
            new = gen_members(rng, rng.randint(1, 2), inp["topics"], rng.random() < 0.7)
            for m in new:
                if rng.random() < 0.5 and inp["members"]:
                    m["subscription"] = list(rng.choice(inp["members"])["subscription"])
                inp["members"].insert(rng.randint(0, len(inp["members"])), m)
    if "sub" in ops:
        m = rng.choice(inp["members"])
        names = [t["name"] for t in inp["topics"]]
        m["subscription"] = rng.sample(names, rng.randint(1, len(names)))
    if "parts" in ops:
        t = rng.choice(inp["topics"])
        t["partitions"] = max(1, t["partitions"] + rng.choice([-3, -1, 1, 2, 4]))
        if t.get("racks"):
            while len(t["racks"]) < t["partitions"]:
                t["racks"].append(sorted(rng.sample(RACKS, rng.randint(1, 3))))
            del t["racks"][t["partitions"] :]
    if "stale" in ops:
        m = rng.choice(inp["members"])
        m["generation"] = gen - rng.randint(1, 2)
    # dedupe member ids after joins
    seen = set()
    inp["members"] = [m for m in inp["members"] if not (m["member_id"] in seen or seen.add(m["member_id"]))]
    return (cid, "cooperative-sticky", inp)


def random_owned(rng, count):
    """Stress: arbitrary owned partitions with mixed generations, duplicate claims, owned
    partitions of unsubscribed or deleted topics / partitions."""
    out = []
    for i in range(count):
        topics = gen_topics(rng)
        n = rng.randint(3, 6)
        members = gen_members(rng, n, topics, rng.random() < 0.5)
        gen = rng.randint(2, 9)
        all_tp = [(t["name"], p) for t in topics for p in range(t["partitions"])]
        owners = [m for m in members if rng.random() < 0.75]
        for tp in all_tp:
            if owners and rng.random() < 0.8:
                rng.choice(owners)["owned"].append(list(tp))
                if rng.random() < 0.08 and len(owners) > 1:
                    o1 = [o for o in owners if list(tp) not in o["owned"]]
                    rng.choice(o1)["owned"].append(list(tp))  # claimed by two members
        if rng.random() < 0.3:
            rng.choice(members)["owned"].append(["gone", rng.randint(0, 3)])
        if rng.random() < 0.3:
            t = rng.choice(topics)
            rng.choice(members)["owned"].append([t["name"], t["partitions"] + 1])
        for m in members:
            if m["owned"]:
                m["generation"] = gen if rng.random() < 0.8 else gen - 1
            rng.shuffle(m["owned"])
        out.append(("cooperative-sticky-rnd-%03d" % i, "cooperative-sticky", {"topics": topics, "members": members}))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = []
    cases += rr_range_cases(rng, "range", 160, racks_share=0.0)
    cases += [
        (c.replace("range-", "range-rack-"), s, i) for c, s, i in rr_range_cases(rng, "range", 40, racks_share=1.0)
    ]
    cases += rr_range_cases(rng, "roundrobin", 160)
    r1 = sticky_round1(rng, 80)
    cases += r1
    cases += random_owned(rng, 80)
    rk1 = sticky_round1(rng, 40, racks=True, tag="rack-r1")
    cases += rk1
    cases.append(("sticky-unsupported-000", "sticky", r1[0][2]))
    res = run_cases(cases)
    r2 = [follow_up(rng, inp, res[cid], cid.replace("-r1-", "-r2-")) for cid, _, inp in r1]
    r2 += [follow_up(rng, inp, res[cid], cid.replace("-r1-", "-r2b-")) for cid, _, inp in r1]
    r2 += [follow_up(rng, inp, res[cid], cid.replace("-r1-", "-r2-")) for cid, _, inp in rk1]
    res.update(run_cases(r2))
    cases += r2
    # round 3: chain once more from round 2 results
    r3 = [follow_up(rng, inp, res[cid], cid.replace("-r2-", "-r3-")) for cid, _, inp in r2 if "-r2-" in cid]
    res.update(run_cases(r3))
    cases += r3
    with open(a.out, "w") as f:
        for cid, assignor, inp in cases:
            o = res[cid]
            if "error" in o and o["error"].startswith("crash"):
                exp = {"crash": o["error"]}
            elif "error" in o:
                exp = {"error": o["error"]}
            elif assignor == "cooperative-sticky":
                exp = {"assignment": o["sync"], "assignor_output": o["raw"]}
            else:
                exp = {"assignment": o["raw"]}
            f.write(
                json.dumps(
                    {"id": "seed%d/%s" % (a.seed, cid), "assignor": assignor, "input": inp, "expected": exp},
                    sort_keys=True,
                )
                + "\n"
            )
    print("wrote %d cases to %s" % (len(cases), a.out))


if __name__ == "__main__":
    main()
