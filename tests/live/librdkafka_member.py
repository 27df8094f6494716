"""One librdkafka consumer in a process of its own, for a scenario that kills or pauses it (kill -9 and SIGSTOP
of a thread of the test's own process would take the test with it). Run by tests/live/scenario_replay.py.

    python -m tests.live.librdkafka_member CONFIG_JSON TOPIC[,TOPIC...]

Prints, one JSON object a line: {"event": "ready"} once subscribed, then each callback as it runs,
{"event": "assigned"|"revoked"|"lost", "member_id": M, "partitions": [[topic, partition], ...]}. A line
`leave` on stdin closes the consumer (a dynamic member sends LeaveGroup) and ends the process.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

from confluent_kafka import Consumer


def main() -> None:
    config, topics = json.loads(sys.argv[1]), sys.argv[2].split(",")
    consumer = Consumer(config)
    leaving = threading.Event()

    def emit(event: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()

    def note(kind: str) -> Any:
        def callback(_consumer: Any, parts: list[Any]) -> None:
            listed = [[p.topic, p.partition] for p in parts]
            emit({"event": kind, "member_id": consumer.memberid(), "partitions": listed})

        return callback

    def read_stdin() -> None:
        for line in sys.stdin:
            if line.strip() == "leave":
                break
        leaving.set()  # `leave`, or the harness gone

    consumer.subscribe(topics, on_assign=note("assigned"), on_revoke=note("revoked"), on_lost=note("lost"))
    threading.Thread(target=read_stdin, daemon=True).start()
    emit({"event": "ready"})
    try:
        while not leaving.is_set():
            consumer.poll(0.05)
    finally:
        consumer.close()


if __name__ == "__main__":
    main()
