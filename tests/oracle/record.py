"""Save a case the oracle found as a fixed case, with Kafka's answer (tests/oracle/fixed/README.md).

    python -m tests.oracle.record ID RELEASE 'CASE-JSON' 'WHAT DIFFERED' 'THE FIX, AND ITS KAFKA SOURCE'

CASE-JSON is the `case:` line of a failure message. Kafka's answer is asked from a fresh sidecar.
"""

from __future__ import annotations

import json
import sys

from tests.kafka import jars
from tests.oracle.cases import with_gone_topic_ids
from tests.oracle.sidecar import Sidecar
from tests.oracle.test_fixed_cases import FIXED


def main(case_id: str, release: str, case_json: str, found: str, fix: str) -> None:
    case = json.loads(case_json)
    case.pop("gone_topic_ids", None)  # derived again when replayed
    jars.fetch(release)
    sidecar = Sidecar(release)
    try:
        answer = sidecar.assign(with_gone_topic_ids(case))
    finally:
        sidecar.close()
    record = {"id": case_id, "found": found, "fix": fix, "kafka_release": release, "case": case, "kafka": answer}
    path = FIXED / f"{case_id}.json"
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(path)


if __name__ == "__main__":
    main(*sys.argv[1:])
