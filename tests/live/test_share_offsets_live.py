"""Operating on share groups (KIP-932) on a real Apache Kafka broker, as kafka-share-groups.sh does: `offsets
reset` (AlterShareGroupOffsets), `offsets delete` (DeleteShareGroupOffsets) and `groups delete` (DeleteGroups),
each checked through Kafka's own Admin client (tests/live/java/ShareDriver.java: Admin.listShareGroupOffsets,
Admin.listGroups for share groups) and, for a reset, through the next real KafkaShareConsumer, which reads from
the new start offsets. Refusals while the group has a member, dry runs and bad input too.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from tests.cli.helpers import run
from tests.live.test_share_groups_live import WAIT_S, ShareDriver, driver  # noqa: F401 (the fixture)
from tests.live.traffic import topic_with_records

REFUSED, BAD_INPUT = 6, 2  # kgroup's exit codes (cli/errors.py ExitCode), as consumer-group resets use them


def _reading(share: ShareDriver, broker: str, group: str, tag: str) -> dict[str, Any]:
    share.send(op="describe", id=tag, bootstrap=broker, groups=[group])
    return share.expect(lambda e: e["event"] == "described" and e["id"] == tag, "Admin reading")["groups"][group]


def _settled(share: ShareDriver, broker: str, group: str, tag: str, state: str) -> dict[str, Any]:
    """Kafka's reading once two in a row agree and the group is in `state`: the share coordinator writes a
    share-partition's state when it is ready, so a reading taken mid-write would make a before/after unequal."""
    end, attempt, last = time.monotonic() + WAIT_S, 0, None
    while time.monotonic() < end:
        attempt += 1
        now = _reading(share, broker, group, f"{tag}-{attempt}")
        if now == last and now["state"] == state:
            return now
        last = now
        time.sleep(0.5)
    raise AssertionError(f"Kafka's Admin did not read {group} settled in state {state} within {WAIT_S} s: {last}")


def _share_groups(share: ShareDriver, broker: str, tag: str) -> list[str]:
    share.send(op="list", id=tag, bootstrap=broker)
    return share.expect(lambda e: e["event"] == "listed" and e["id"] == tag, "Admin listing")["groups"]


def _consume(share: ShareDriver, name: str, at_least: int) -> int:
    total = 0
    while total < at_least:
        total = share.expect(lambda e: e["event"] == "consumed" and e["name"] == name, "records consumed")["total"]
    share.send(op="pause", name=name)
    return share.expect(lambda e: e["event"] == "paused" and e["name"] == name, "a consumer paused")["total"]


def _one_error(stderr: str) -> str:
    errors = [line for line in stderr.splitlines() if line.startswith("kgroup: error:")]
    assert len(errors) == 1, stderr
    return errors[0]


def test_reset_delete_offsets_and_delete_a_share_group(broker: str, driver: ShareDriver, tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    suffix = uuid.uuid4().hex[:8]
    topic, group = f"share-ops-{suffix}", f"share-ops-group-{suffix}"
    topic_with_records(broker, topic, [6, 4, 5])  # offsets 0-5, 0-3, 0-4
    driver.send(
        op="config", id="config", bootstrap=broker, group=group, configs={"share.auto.offset.reset": "earliest"}
    )
    driver.expect(lambda e: e["event"] == "configured", "group config set")
    driver.send(op="join", name="m1", bootstrap=broker, group=group, topics=[topic], config={})
    assert _consume(driver, "m1", 15) == 15  # paused: still a member

    # While it has a member: refused, one line, exit 6, as ShareGroupCommand and the coordinator refuse it.
    for command in (
        ("offsets", "reset", group, "--all-topics", "--to-earliest", "--execute"),
        ("offsets", "delete", group, "--topic", topic, "--execute"),
        ("groups", "delete", group, "--execute"),
    ):
        refused = run(*command, "-b", broker)
        assert refused.exit_code == REFUSED, (command, refused.output)
        assert f"group {group} refused" in _one_error(refused.stderr), command
    assert group in _share_groups(driver, broker, "listed-while-busy")

    driver.send(op="leave", name="m1")
    driver.expect(lambda e: e["event"] == "closed" and e["name"] == "m1", "the consumer closed")
    before = _settled(driver, broker, group, "empty", "Empty")
    assert [o["partition"] for o in before["offsets"]] == [0, 1, 2]

    # Bad input: one line naming the option, exit 2, before anything is sent.
    for command, option in (
        (("offsets", "reset", group, "--all-topics", "--shift-by", "1"), "--shift-by"),
        (("offsets", "delete", group, "--topic", f"{topic}:0"), "--topic"),
    ):
        bad = run(*command, "-b", broker)
        assert bad.exit_code == BAD_INPUT, (command, bad.output)
        assert _one_error(bad.stderr).startswith(f"kgroup: error: {option}: "), bad.stderr

    # A dry run plans and changes nothing.
    dry = run("offsets", "reset", group, "--topic", topic, "--to-offset", "2", "-b", broker, "-o", "json")
    assert dry.exit_code == 0, dry.stderr
    planned = json.loads(dry.stdout)["groups"][0]
    assert planned["result"] == "planned (dry run)" and planned["executed"] is False
    assert [(p["partition"], p["new_offset"]) for p in planned["partitions"]] == [(0, 2), (1, 2), (2, 2)]
    assert [p["current_offset"] for p in planned["partitions"]] == [o["start_offset"] for o in before["offsets"]]
    assert _reading(driver, broker, group, "after-dry-run") == before

    # --execute from a CSV plan: Kafka's Admin reads the new start offsets, and the next share consumer reads
    # from them: 4-5 of partition 0, 1-3 of partition 1, nothing of partition 2 (5 is its log end).
    plan = tmp_path / "plan.csv"
    plan.write_text(f"{topic},0,4\n{topic},1,1\n{topic},2,5\n")
    done = run("offsets", "reset", group, "--from-file", str(plan), "--execute", "-b", broker, "-o", "json")
    assert done.exit_code == 0, done.stderr
    body = json.loads(done.stdout)["groups"][0]
    assert body["executed"] is True and body["result"] == "applied"
    assert [(p["partition"], p["new_offset"], p["status"]) for p in body["partitions"]] == [
        (0, 4, "applied"),
        (1, 1, "applied"),
        (2, 5, "applied"),
    ]
    reset = _reading(driver, broker, group, "after-reset")
    assert [(o["partition"], o["start_offset"]) for o in reset["offsets"]] == [(0, 4), (1, 1), (2, 5)]
    driver.send(op="join", name="m2", bootstrap=broker, group=group, topics=[topic], config={})
    assert _consume(driver, "m2", 5) == 5
    driver.send(op="leave", name="m2")
    driver.expect(lambda e: e["event"] == "closed" and e["name"] == "m2", "the consumer closed")
    _settled(driver, broker, group, "empty-again", "Empty")

    # offsets delete: a dry run leaves the state; --execute deletes it, per topic, as Kafka's Admin then reads.
    dry = run("offsets", "delete", group, "--topic", topic, "-b", broker, "-o", "json")
    assert dry.exit_code == 0, dry.stderr
    assert [p["status"] for p in json.loads(dry.stdout)["groups"][0]["partitions"]] == [None, None, None]
    assert len(_reading(driver, broker, group, "after-delete-dry-run")["offsets"]) == 3
    deleted = run("offsets", "delete", group, "--topic", topic, "--execute", "-b", broker, "-o", "json")
    assert deleted.exit_code == 0, deleted.stderr
    body = json.loads(deleted.stdout)["groups"][0]
    assert body["executed"] is True and [p["status"] for p in body["partitions"]] == ["deleted"] * 3
    assert _reading(driver, broker, group, "after-delete")["offsets"] == []

    # groups delete: a dry run keeps the group; --execute deletes it (DeleteGroups), as Kafka's Admin lists.
    kept = run("groups", "delete", group, "-b", broker)
    assert kept.exit_code == 0, kept.stderr
    assert group in _share_groups(driver, broker, "listed-after-dry-run")
    gone = run("groups", "delete", group, "--execute", "-b", broker, "-o", "json")
    assert gone.exit_code == 0, gone.stderr
    assert json.loads(gone.stdout)["groups"][0]["executed"] is True
    assert group not in _share_groups(driver, broker, "listed-after-delete")
