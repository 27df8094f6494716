"""Feed cases (kgroup librdkafka model input dicts) to the C oracle, return its output.

usage as a library: run_cases([(id, assignor, input_dict), ...]) -> {id: oracle_json}
"""

import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("RDK_ORACLE_BIN", os.path.join(HERE, "rdk_oracle"))


def _tok(s):
    assert s and not any(c.isspace() for c in s) and s != "~", repr(s)
    return s


def encode(cid, assignor, inp):
    out = ["CASE %s %s" % (_tok(cid), _tok(assignor)), "T %d" % len(inp["topics"])]
    for t in inp["topics"]:
        racks = t.get("racks")
        line = ["%s %d %d" % (_tok(t["name"]), t["partitions"], 1 if racks else 0)]
        if racks:
            assert len(racks) == t["partitions"]
            for rs in racks:
                line.append(" ".join([str(len(rs))] + [_tok(r) for r in rs]))
        out.append(" ".join(line))
    out.append("M %d" % len(inp["members"]))
    for m in inp["members"]:
        iid = m.get("group_instance_id")
        rack = m.get("rack")
        owned = m.get("owned", [])
        parts = [
            _tok(m["member_id"]),
            "~" if iid is None else _tok(iid),
            "~" if rack is None else _tok(rack),
            str(m.get("generation", -1)),
            str(len(m["subscription"])),
        ] + [_tok(t) for t in m["subscription"]]
        parts.append(str(len(owned)))
        for t, p in owned:
            parts += [_tok(t), str(p)]
        out.append(" ".join(parts))
    out.append("END")
    return "\n".join(out) + "\n"


def _run(data, binary):
    return subprocess.run([binary], input=data.encode(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600)


def run_cases(cases, binary=BIN):
    """Run all cases; a case on which librdkafka itself crashes (it does: see
    librdkafka-assignors.md "sticky memory-safety bugs") is recorded as
    {"id": ..., "error": "crash: signal N"} and the rest are run in a fresh process."""
    out = {}
    todo = list(cases)
    while todo:
        res = _run("".join(encode(cid, a, inp) for cid, a, inp in todo), binary)
        lines = res.stdout.decode().splitlines()
        for line in lines:
            o = json.loads(line)
            out[o["id"]] = o
        if res.returncode == 0:
            break
        done = len(lines)
        cid = todo[done][0]
        out[cid] = {"id": cid, "error": "crash: signal %d" % -res.returncode}
        todo = todo[done + 1 :]
    assert len(out) == len(cases), (len(out), len(cases))
    return out
