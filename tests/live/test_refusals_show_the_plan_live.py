"""A refusal shows exactly what would have been done and why it was not (issue 39): `offsets reset` and
`groups delete` on a group with an active member print the partitions and offsets they refused, with the
group's real state as `groups` and `describe` print it; `offsets reset --execute` on one group ends with
its result table, as the README says."""

from __future__ import annotations

import json

from confluent_kafka import TopicPartition as KafkaTopicPartition

from tests.cli.helpers import run_process
from tests.live.traffic import commit, committed, joined_consumer, topic_with_records


def _rows(stdout: str, group: str) -> list[list[str]]:
    return [line.split() for line in stdout.splitlines() if line.startswith(f"{group} ")]


def test_a_refused_reset_and_a_refused_delete_show_their_plan_and_why(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 5, 5])
    consumer = joined_consumer(broker, group, topic)
    try:
        consumer.commit(offsets=[KafkaTopicPartition(topic, p, 2 + p) for p in range(3)], asynchronous=False)
        reset = run_process("offsets", "reset", group, "--all-topics", "--to-earliest", "-b", broker)
        reset_json = run_process(
            "offsets", "reset", group, "--all-topics", "--to-earliest", "--execute", "-b", broker, "-o", "json"
        )
        delete = run_process("groups", "delete", group, "--execute", "-b", broker)
        delete_json = run_process("groups", "delete", group, "-b", broker, "-o", "json")
        offsets_delete = run_process("offsets", "delete", group, "--topic", topic, "--execute", "-b", broker)
        listed = run_process("groups", "-b", broker, "-o", "json")
    finally:
        consumer.close()
    assert committed(broker, group, [(topic, p) for p in range(3)]) == {(topic, p): 2 + p for p in range(3)}

    assert reset.returncode == 6, reset.stderr
    assert "nothing to reset" not in reset.stdout
    # GROUP TOPIC PARTITION NEW-OFFSET CURRENT-OFFSET NOTE STATUS: the plan that was refused, row by row
    plan = [row for row in _rows(reset.stdout, group) if row[1] == topic]
    assert [(r[2], r[3], r[4], r[-1]) for r in plan] == [(str(p), "0", str(2 + p), "refused") for p in range(3)]
    state = {g["group"]: g["state"] for g in json.loads(listed.stdout)["groups"]}[group]
    assert state == "Stable"
    (summary,) = [row for row in _rows(reset.stdout, group) if row[1] == state]
    assert summary[2] == "3" and "refused: the group has 1 active member(s)" in " ".join(summary)
    assert f"group {group} refused: the group has 1 active member(s)" in reset.stderr

    (body,) = json.loads(reset_json.stdout)["groups"]
    assert reset_json.returncode == 6 and body["state"] == state and body["refused"]
    assert [(p["partition"], p["current_offset"], p["new_offset"], p["status"]) for p in body["partitions"]] == [
        (p, 2 + p, 0, "refused") for p in range(3)
    ]

    assert delete.returncode == 6, delete.stderr
    offsets = [row for row in _rows(delete.stdout, group) if row[1] == topic]
    assert [(r[2], r[3]) for r in offsets] == [(str(p), str(2 + p)) for p in range(3)]
    (line,) = [row for row in _rows(delete.stdout, group) if row[1] == state]
    assert line[2:4] == ["1", "3"] and "refused: the group has 1 active member(s)" in " ".join(line)
    (deleted,) = json.loads(delete_json.stdout)["groups"]
    assert (deleted["state"], deleted["committed_partitions"], deleted["refused"] is not None) == (state, 3, True)
    assert [(p["partition"], p["current_offset"]) for p in deleted["partitions"]] == [(p, 2 + p) for p in range(3)]

    # offsets delete: GROUP TOPIC PARTITION CURRENT-OFFSET NOTE STATUS, each refused row with its offset and why
    assert offsets_delete.returncode == 6, offsets_delete.stderr
    rows = [row for row in _rows(offsets_delete.stdout, group) if row[1] == topic]
    assert [(r[2], r[3], r[4]) for r in rows] == [(str(p), str(2 + p), "refused:") for p in range(3)]
    assert all("GROUP_SUBSCRIBED_TO_TOPIC" in " ".join(r) for r in rows)
    (summary,) = [row for row in _rows(offsets_delete.stdout, group) if row[1] == state]
    assert summary[2] == "3"


def test_a_single_group_reset_with_execute_ends_with_its_result_table(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [5, 5])
    commit(broker, group, {(topic, 0): 4, (topic, 1): 4})
    done = run_process("offsets", "reset", group, "--all-topics", "--to-offset", "1", "--execute", "-b", broker)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET", "CURRENT-OFFSET", "NOTE", "STATUS"]
    assert [line.split()[-1] for line in lines[1:3]] == ["applied", "applied"]
    assert lines[4].split() == ["GROUP", "STATE", "PARTITIONS", "RESULT"]
    assert lines[5].split() == [group, "Empty", "2", "applied"]
    assert committed(broker, group, [(topic, 0), (topic, 1)]) == {(topic, 0): 1, (topic, 1): 1}
