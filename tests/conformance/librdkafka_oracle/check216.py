"""Run every case of a case file through the real librdkafka 2.16.0 library (rdk_oracle216) and compare
its assignor output with the file's expected values (cooperative-sticky: `assignor_output`; crashes).

usage: RDK_SO=path/to/librdkafka-*.so.1 python3 check216.py ../data/librdkafka-cases.jsonl
"""

import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_oracle import run_cases  # noqa: E402

for path in sys.argv[1:]:
    cases = [json.loads(line) for line in open(path)]
    res = run_cases([(c["id"], c["assignor"], c["input"]) for c in cases], binary=os.path.join(HERE, "rdk_oracle216"))
    tot, ok = collections.Counter(), collections.Counter()
    bad = []
    for c in cases:
        o, e = res[c["id"]], c["expected"]
        tot[c["assignor"]] += 1
        if "crash" in e or "error" in e:
            good = ("error" in o) and (("crash" in e) == o["error"].startswith("crash"))
        else:
            good = o.get("raw") == e.get("assignor_output", e["assignment"])
        ok[c["assignor"]] += good
        if not good:
            bad.append(c["id"])
    print(path, {a: "%d/%d" % (ok[a], tot[a]) for a in tot}, "mismatch:", bad[:10])
