"""A real three-node Apache Kafka cluster losing nodes while kgroup works on it (issue 35, the fault half).

The coordinator of a group is the leader of its `__consumer_offsets` partition (GroupCoordinatorService
.partitionFor); the tests ask Kafka which node that is, stop it (SIGKILL, or a clean SIGTERM shutdown) as the
command starts, and hold kgroup to what Kafka's own tools do: find the new coordinator within --timeout and
give the answer given before the fault, or exit 4 naming the address; change a group all or nothing, say
what was changed, and converge when run again. What the tests compare against is read from Kafka itself
(confluent-kafka, after the cluster settled), never from kgroup.

One cluster serves the module (`breakable_cluster`): a test starts again the node it stopped and
`restored_cluster` waits until every partition is back in sync before the next one. The cluster notices a
killed broker after 5 s (broker.session.timeout.ms); every wait here is bounded for a loaded 2-core machine.
"""

from __future__ import annotations

import itertools
import json
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

from kgroup.inspectors.lag.dataset import COMMITS, read_gaps, read_samples, table_files
from kgroup.inspectors.live.wire.describe_groups import describe_classic_members
from kgroup.inspectors.live.wire.offset_delete import delete_offsets
from tests.kafka import broker as kafka_broker
from tests.kafka.broker import Node
from tests.live.traffic import PRODUCER, commit, topic_with_records

KGROUP = str(Path(sys.executable).parent / "kgroup")
# A killed broker is fenced after 5 s, its partitions get new leaders, the new coordinator loads the group:
# seconds when idle; --timeout leaves room for a loaded machine.
TIMEOUT = "60"
COMMITTED = {0: 2, 1: 4, 2: 1}  # the group's commits on a topic of three partitions holding 5, 4 and 3 records
STOPS = {"SIGKILL": True, "SIGTERM": False}


RESULTS: list[tuple[str, int, str, str]] = []  # (case, exit code, first line of stderr, what was checked)


def record(case: str, code: int, stderr: str, checked: str) -> None:
    """One row of the fault table printed at the end of the module (pytest -rP shows it)."""
    RESULTS.append((case, code, (stderr.strip().splitlines() or [""])[0][:150], checked))
    print(f"FAULT | {case} | exit {code} | {RESULTS[-1][2] or '-'} | {checked}")


def _bootstrap(nodes: list[Node]) -> str:
    return ",".join(n.address for n in nodes)


def _names() -> tuple[str, str]:
    suffix = uuid.uuid4().hex[:8]
    return f"orders-{suffix}", f"billing-{suffix}"


def _seed(nodes: list[Node]) -> tuple[str, str]:
    topic, group = _names()
    topic_with_records(_bootstrap(nodes), topic, [5, 4, 3])
    commit(_bootstrap(nodes), group, {(topic, p): o for p, o in COMMITTED.items()})
    return topic, group


def _kgroup(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([KGROUP, *args], capture_output=True, text=True, timeout=240)


def _during_stop(node: Node, kill: bool, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    """Start kgroup, then stop `node` while it starts up (its first requests are under way or about to be);
    the seconds the command took."""
    started = time.monotonic()
    process = subprocess.Popen([KGROUP, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        node.stop(kill=kill)
        assert not node.running
        stdout, stderr = process.communicate(timeout=240)
    finally:
        if process.poll() is None:
            process.kill()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr), time.monotonic() - started


def _first_line(done: subprocess.CompletedProcess) -> str:
    return (done.stderr.strip().splitlines() or [""])[0]


def _committed(nodes: list[Node], group: str, topic: str) -> dict[int, int]:
    """The group's commits as a consumer reads them from Kafka (-1001: none), asked until the cluster answers."""
    deadline = time.monotonic() + 120
    consumer = Consumer(
        {
            "bootstrap.servers": _bootstrap([n for n in nodes if n.running]),
            "group.id": group,
            "enable.auto.commit": False,
        }
    )
    try:
        while True:
            try:
                found = consumer.committed([TopicPartition(topic, p) for p in COMMITTED], timeout=10)
                return {tp.partition: tp.offset for tp in found}
            except KafkaException as exc:
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"the cluster did not give {group}'s commits within 120 s ({exc}); "
                        f"its coordinator's partition now: {_offsets_partition_state(nodes, group)}"
                    ) from exc
                time.sleep(0.5)
    finally:
        consumer.close()


def _offsets_partition_state(nodes: list[Node], group: str) -> str:
    """The group's `__consumer_offsets` partition as the cluster's metadata gives it (leader and in-sync
    replicas: did the group have a coordinator to answer?), and what each node's log last said of it."""
    try:
        index, partition = _group_offsets_partition(nodes, group)
    except KafkaException as exc:
        return f"no metadata ({exc})"
    name = f"__consumer_offsets-{index}"
    return f"{name}, leader {partition.leader}, isr {sorted(partition.isrs)}; " + "; ".join(
        f"node {n.node_id}'s log on it: {_log_lines(n, name)}" for n in nodes
    )


def _log_lines(node: Node, needle: str, last: int = 6) -> list[str]:
    """The last lines of a node's broker log that name `needle` or warn (what a failure message needs to say why
    a partition's leader took no writes: its fetchers, its ISR changes, its controller)."""
    named = re.compile(rf"{re.escape(needle)}\b| WARN | ERROR ")
    return [line[:300] for line in node.log().splitlines() if named.search(line)][-last:]


def _log_ends(nodes: list[Node], topic: str, partitions: int) -> dict[int, int]:
    """Each partition's high watermark, from its leader now."""
    consumer = Consumer({"bootstrap.servers": _bootstrap([n for n in nodes if n.running]), "group.id": "unused"})
    try:
        return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in range(partitions)}
    finally:
        consumer.close()


def _leaders(nodes: list[Node], topic: str) -> dict[int, int]:
    metadata = AdminClient({"bootstrap.servers": _bootstrap([n for n in nodes if n.running])}).list_topics(timeout=30)
    return {p.id: p.leader for p in metadata.topics[topic].partitions.values()}


def _without(body: Any, volatile: tuple[str, ...]) -> Any:
    """A JSON body without the keys that change from one run to the next (times, the coordinator)."""
    if isinstance(body, dict):
        return {k: _without(v, volatile) for k, v in body.items() if k not in volatile}
    if isinstance(body, list):
        return [_without(v, volatile) for v in body]
    return body


# ------------------------------------------------------------------------------ reads: coordinator moves

READS = {
    "describe": lambda topic, group, out: ("describe", group, "-o", "json"),
    "snapshot": lambda topic, group, out: ("snapshot", group, "-o", str(out)),
    "simulate": lambda topic, group, out: ("simulate", "--group", group, "--add-member", f"x={topic}", "-o", "json"),
}


@pytest.mark.parametrize(
    ("command", "how"),
    [("describe", "SIGKILL"), ("snapshot", "SIGKILL"), ("simulate", "SIGKILL"), ("describe", "SIGTERM")],
)
def test_a_read_finds_the_new_coordinator_and_gives_the_same_answer(
    restored_cluster: list[Node], command: str, how: str, tmp_path: Path
) -> None:
    nodes = restored_cluster
    topic, group = _seed(nodes)
    before_out, after_out = tmp_path / "before.yaml", tmp_path / "after.yaml"
    common = ("-b", _bootstrap(nodes), "--timeout", TIMEOUT)
    before = _kgroup(*READS[command](topic, group, before_out), *common)
    assert before.returncode == 0, before.stderr
    coordinator = kafka_broker.coordinator_of(nodes, group)

    after, elapsed = _during_stop(coordinator, STOPS[how], *READS[command](topic, group, after_out), *common)

    moved_to = kafka_broker.coordinator_of(nodes, group)
    assert moved_to is not coordinator and moved_to.running
    _check_read(command, how, before, before_out, after, after_out, elapsed)


def _check_read(
    command: str,
    how: str,
    before: subprocess.CompletedProcess,
    before_out: Path,
    after: subprocess.CompletedProcess,
    after_out: Path,
    elapsed: float,
) -> None:
    """The answer during the fault is the one from before it (or exit 4 naming the address, a failure here)."""
    if after.returncode == 4:  # the other outcome Kafka's tools have: the address it could not reach, named
        assert "cannot reach" in _first_line(after) and after.stderr.count("\n") == 1, after.stderr
        pytest.fail(f"{command} after {how} of the coordinator: exit 4 ({_first_line(after)})")
    assert after.returncode == 0, after.stderr
    assert "Traceback" not in after.stderr
    volatile = ("coordinator", "generated_at", "captured_at", "observed_at", "timestamp")
    if command == "snapshot":
        first, second = before_out.read_text(), after_out.read_text()
        assert _strip_yaml(first) == _strip_yaml(second)
    else:
        first_json, second_json = json.loads(before.stdout), json.loads(after.stdout)
        assert _without(second_json, volatile) == _without(first_json, volatile)
    assert elapsed < float(TIMEOUT) + 30
    record(
        f"{command} ({how} coordinator)",
        after.returncode,
        after.stderr,
        f"same answer as before the fault, {elapsed:.0f} s",
    )


def _strip_yaml(text: str) -> list[str]:
    """A snapshot's lines with the time it was taken blanked."""
    return [re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?", "<time>", line) for line in text.splitlines()]


def test_kgroups_own_transport_follows_a_killed_coordinator(restored_cluster: list[Node]) -> None:
    """DescribeGroups and OffsetDelete through `inspectors.live.wire`, sent the moment the coordinator dies:
    the lookup still names the dead node until the cluster fences it, and the request must reach the node
    that takes the group over (coordinator.on_coordinator), not fail on the first refused connection."""
    nodes = restored_cluster
    topic, group = _seed(nodes)
    coordinator = kafka_broker.coordinator_of(nodes, group)
    config = {"bootstrap.servers": _bootstrap(nodes)}
    coordinator.stop(kill=True)
    started = time.monotonic()

    described = describe_classic_members(config, [group], float(TIMEOUT))[group]
    deleted = delete_offsets(config, group, [(topic, 0)], float(TIMEOUT))

    assert time.monotonic() - started < float(TIMEOUT)
    assert described.error is None and described.coordinator != coordinator.address, described
    # Empty, as before; or, on a machine so loaded that the new coordinator's followers have not fetched within
    # DEAD_RECHECK_S, the Dead it answers until then (admin.describe and the live commands recheck it too)
    assert described.state in ("Empty", "Dead"), described
    assert deleted.error is None and deleted.partitions == {(topic, 0): None}
    assert deleted.coordinator != coordinator.address
    assert _committed(nodes, group, topic) == {**COMMITTED, 0: -1001}  # that partition's offset only, and gone
    record("wire DescribeGroups, OffsetDelete (SIGKILL)", 0, "", "answered by the new coordinator; one offset gone")


# ------------------------------------------------------------------------------ writes: coordinator moves


def _reset_view(nodes: list[Node], topic: str, group: str) -> dict[int, int]:
    return _committed(nodes, group, topic)


def _deleted_view(nodes: list[Node], topic: str, group: str) -> dict[int, int]:
    return _committed(nodes, group, topic)  # -1001 where the offset is gone


WRITES = {
    # command: (its arguments, the group's commits once applied)
    "offsets-reset": (
        lambda topic, group: ("offsets", "reset", group, "--all-topics", "--to-earliest", "--execute"),
        dict.fromkeys(COMMITTED, 0),
    ),
    "offsets-delete": (
        lambda topic, group: ("offsets", "delete", group, "--topic", topic, "--execute"),
        dict.fromkeys(COMMITTED, -1001),
    ),
    "groups-delete": (lambda topic, group: ("groups", "delete", group, "--execute"), dict.fromkeys(COMMITTED, -1001)),
}


def _claims(command: str, done: subprocess.CompletedProcess) -> bool | None:
    """Whether the output says the change was applied (True), was not (False), or says nothing on stdout (None)."""
    if not done.stdout.strip():
        return None
    doc = json.loads(done.stdout)
    (group,) = doc["groups"]
    if command == "offsets-reset":
        statuses = {p["status"] for p in group["partitions"]}
        assert statuses in ({"applied"}, {"not applied"}) or all(s.startswith("failed") for s in statuses), statuses
        return statuses == {"applied"}
    return str(group["result"]).startswith("deleted")


@pytest.mark.parametrize(
    ("command", "how"),
    [
        ("offsets-reset", "SIGKILL"),
        ("offsets-delete", "SIGKILL"),
        ("groups-delete", "SIGKILL"),
        ("offsets-reset", "SIGTERM"),
    ],
)
def test_a_write_is_all_or_nothing_says_what_it_did_and_converges(
    restored_cluster: list[Node], command: str, how: str
) -> None:
    nodes = restored_cluster
    topic, group = _seed(nodes)
    arguments, applied = WRITES[command]
    coordinator = kafka_broker.coordinator_of(nodes, group)
    before = _committed(nodes, group, topic)
    assert before == COMMITTED

    done, _ = _during_stop(
        coordinator, STOPS[how], *arguments(topic, group), "-b", _bootstrap(nodes), "--timeout", TIMEOUT, "-o", "json"
    )

    all_applied = _check_write(nodes, command, how, topic, group, coordinator, before, done)
    if command != "offsets-reset":
        # As in the clean-stop case below: a delete is re-run once the node is back in sync (the restore the next
        # test would do anyway), not while a group already deleted is asked again until --timeout.
        kafka_broker.start_cluster([coordinator])
        kafka_broker.wait_fully_replicated(nodes)
    _check_rerun(nodes, command, how, topic, group, done, all_applied)


def _check_write(
    nodes: list[Node],
    command: str,
    how: str,
    topic: str,
    group: str,
    coordinator: Node,
    before: dict[int, int],
    done: subprocess.CompletedProcess,
) -> bool:
    """All or nothing in Kafka and the output agrees; whether it was all."""
    _, applied = WRITES[command]
    assert "Traceback" not in done.stderr
    assert kafka_broker.coordinator_of(nodes, group) is not coordinator
    view = _committed(nodes, group, topic)
    assert view in (before, applied), f"half-done: {view} (exit {done.returncode}: {done.stderr})"
    if done.returncode == 0:
        assert _claims(command, done) is True and view == applied, done.stdout
    else:
        assert done.returncode == 4 and "cannot reach" in _first_line(done), done.stderr
        assert _claims(command, done) in (None, view == applied), done.stdout
        pytest.fail(f"{command} after {how} of the coordinator: exit 4 ({_first_line(done)})")
    return view == applied


def _check_rerun(
    nodes: list[Node],
    command: str,
    how: str,
    topic: str,
    group: str,
    done: subprocess.CompletedProcess,
    all_applied: bool,
) -> None:
    """The same command run again converges."""
    arguments, applied = WRITES[command]
    again = _kgroup(*arguments(topic, group), "-b", _bootstrap(nodes), "--timeout", TIMEOUT, "-o", "json")
    assert _committed(nodes, group, topic) == applied
    record(
        f"{command} --execute ({how} coordinator)",
        done.returncode,
        done.stderr,
        f"Kafka: {'all applied' if all_applied else 'nothing applied'}, output agrees; re-run exit "
        f"{again.returncode}, converged",
    )
    if command == "offsets-reset":  # the same plan again: applied again, the same offsets
        assert again.returncode == 0 and _claims(command, again) is True, again.stderr
    else:  # nothing left to delete: done (0), or the group is gone (5, `groups delete`); nothing else changed
        assert again.returncode in (0, 5) and "Traceback" not in again.stderr, again.stderr


# ------------------------------------------------------------------------------ writes: the coordinator cannot replicate


def _offsets_min_insync(nodes: list[Node], value: str | None) -> None:
    """Set `__consumer_offsets`' own min.insync.replicas (None: remove it, back to the cluster's 2)."""
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

    operation = AlterConfigOpType.SET if value is not None else AlterConfigOpType.DELETE
    entry = ConfigEntry("min.insync.replicas", value or "", incremental_operation=operation)
    resource = ConfigResource(ResourceType.TOPIC, "__consumer_offsets", incremental_configs=[entry])
    admin = AdminClient({"bootstrap.servers": _bootstrap([n for n in nodes if n.running])})
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(60)


def _group_offsets_partition(nodes: list[Node], group: str) -> tuple[int, Any]:
    """The group's `__consumer_offsets` partition: its index and its metadata (leader, replicas, in-sync replicas)
    as the running nodes give them."""
    metadata = AdminClient({"bootstrap.servers": _bootstrap([n for n in nodes if n.running])}).list_topics(
        "__consumer_offsets", timeout=30
    )
    offsets = metadata.topics["__consumer_offsets"].partitions
    index = _partition_for(group, len(offsets))
    return index, offsets[index]


def _admin_commits(nodes: list[Node], group: str, topic: str) -> dict[int, int]:
    """The group's commits as the admin client reads them: what is committed, without waiting for pending writes
    (OffsetFetch without require_stable; a consumer's, with it, waits for them and answers NOT_COORDINATOR)."""
    from confluent_kafka import ConsumerGroupTopicPartitions

    admin = AdminClient({"bootstrap.servers": _bootstrap([n for n in nodes if n.running])})
    answer = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(60)
    return {tp.partition: tp.offset for tp in answer.topic_partitions if tp.topic == topic}


def _groups_on_one_partition(nodes: list[Node], count: int) -> list[str]:
    """`count` new group names that `__consumer_offsets` keeps in one partition (so one coordinator)."""
    metadata = AdminClient({"bootstrap.servers": _bootstrap(nodes)}).list_topics("__consumer_offsets", timeout=30)
    partitions = len(metadata.topics["__consumer_offsets"].partitions)
    first = f"billing-{uuid.uuid4().hex[:8]}"
    names = [first]
    while len(names) < count:
        name = f"billing-{uuid.uuid4().hex[:8]}"
        if _partition_for(name, partitions) == _partition_for(first, partitions):
            names.append(name)
    return names


def test_writes_the_coordinator_cannot_replicate_are_unconfirmed_and_take_effect_later(
    restored_cluster: list[Node],
) -> None:
    """The groups' `__consumer_offsets` partition short of min.insync.replicas (3 on the topic, one follower
    stopped): the coordinator appends each write, cannot complete it (the leader's high watermark waits), and
    answers COORDINATOR_NOT_AVAILABLE after offsets.commit.timeout.ms (5 s). An offsets reset is sent again until
    --timeout, as Kafka's admin client does, an offsets delete and a group delete too; kgroup then says each is
    unconfirmed, naming the partition and the node to bring back (exit 4), and the offsets read back unchanged
    meanwhile. Once the node is back in sync, each has taken effect, as kgroup said it would: reporting them as
    failed would have been wrong."""
    nodes = restored_cluster
    topic = f"orders-{uuid.uuid4().hex[:8]}"
    topic_with_records(_bootstrap(nodes), topic, [5, 4, 3])
    reset, offsets_deleted, deleted = _groups_on_one_partition(nodes, 3)
    for group in (reset, offsets_deleted, deleted):
        commit(_bootstrap(nodes), group, {(topic, p): o for p, o in COMMITTED.items()})
    _offsets_min_insync(nodes, "3")
    try:
        follower = next(n for n in nodes if n is not kafka_broker.coordinator_of(nodes, reset))
        follower.stop()
        deadline = time.monotonic() + 60  # the controller takes a stopped node out of the ISR (controlled shutdown)
        while follower.node_id in (held := _group_offsets_partition(nodes, reset))[1].isrs:
            assert time.monotonic() < deadline, f"node {follower.node_id} is still in sync: {sorted(held[1].isrs)}"
            time.sleep(0.2)
        where = f"__consumer_offsets-{held[0]}, the partition that holds group "
        why = "below its min.insync.replicas 3: its leader appends a write but cannot complete it, and the write "
        why += f"takes effect once node(s) {follower.node_id} are back in sync"
        running = ("-b", _bootstrap([n for n in nodes if n.running]), "--timeout", "8")

        done = _kgroup(
            "offsets", "reset", reset, "--topic", topic, "--to-earliest", "--execute", *running, "-o", "json"
        )
        assert done.returncode == 4 and "Traceback" not in done.stderr, done.stderr
        line = _first_line(done)
        assert line.startswith(f"kgroup: error: group {reset}: 3 partition(s) unconfirmed"), line
        assert f"{where}'{reset}'" in line and why in line, line
        body = json.loads(done.stdout)
        assert body["executed"] is False
        assert [p["status"] for p in body["groups"][0]["partitions"]] == ["unconfirmed"] * len(COMMITTED)
        outcomes = {"offsets-reset": done}
        for command, group, args in (
            ("offsets-delete", offsets_deleted, ("offsets", "delete", offsets_deleted, "--topic", topic)),
            ("groups-delete", deleted, ("groups", "delete", deleted)),
        ):
            done = outcomes[command] = _kgroup(*args, "--execute", *running)
            assert done.returncode == 4 and "Traceback" not in done.stderr, done.stderr
            request = "OffsetDelete" if command == "offsets-delete" else "DeleteGroups"
            assert _first_line(done).startswith(f"kgroup: error: {request} of '{group}' unconfirmed: "), done.stderr
            assert f"{where}'{group}'" in done.stderr and why in done.stderr, done.stderr
        for group in (reset, offsets_deleted, deleted):  # what is committed: none of the three writes yet
            assert _admin_commits(nodes, group, topic) == COMMITTED, group

        follower.start()
        kafka_broker.wait_fully_replicated(nodes)
        assert _committed(nodes, reset, topic) == dict.fromkeys(COMMITTED, 0)  # each write, taken effect
        assert _admin_commits(nodes, offsets_deleted, topic) == {}
        listed = AdminClient({"bootstrap.servers": _bootstrap(nodes)}).list_consumer_groups().result(60)
        assert deleted not in {g.group_id for g in listed.valid}
        for command, done in outcomes.items():
            record(
                f"{command} --execute (__consumer_offsets short of min.insync.replicas)",
                done.returncode,
                done.stderr,
                "Kafka: appended, not completed; unchanged until the node was back, then done; output: unconfirmed",
            )
    finally:
        _offsets_min_insync(nodes, None)


# ------------------------------------------------------------------------------ lag record: coordinator moves


def _recorder(nodes: list[Node], group: str, out: Path, *more: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            KGROUP,
            "lag",
            "record",
            "-b",
            _bootstrap(nodes),
            "--group",
            group,
            "--interval",
            "500ms",
            "--timeout",
            "10",
            "--out",
            str(out),
            *more,
        ],
        stderr=subprocess.PIPE,
        text=True,
    )


def _polls_written(out: Path, at_least: int, recorder: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120  # a loaded 2-core machine starts the recorder slowly
    while len(table_files(str(out), COMMITS)) < at_least and time.monotonic() < deadline:
        assert recorder.poll() is None, recorder.stderr.read() if recorder.stderr else ""
        time.sleep(0.1)
    assert len(table_files(str(out), COMMITS)) >= at_least, "the recorder did not poll"


def _rows(out: Path) -> set[tuple[int, str, int, int | None]]:
    commits, _ = read_samples(str(out))
    return {(c.observed_ts, c.topic, c.partition, c.committed_offset) for c in commits}


def test_lag_record_rides_out_the_coordinator_dying_and_loses_nothing(
    restored_cluster: list[Node], tmp_path: Path
) -> None:
    nodes = restored_cluster
    topic, group = _seed(nodes)
    out = tmp_path / "history"
    coordinator = kafka_broker.coordinator_of(nodes, group)
    recorder = _recorder(nodes, group, out, "--duration", "120s")
    try:
        _polls_written(out, 3, recorder)
        written = _rows(out)
        killed_at = time.time() * 1000
        coordinator.stop(kill=True)
        moved_to = kafka_broker.coordinator_of(nodes, group)
        commit(_bootstrap([n for n in nodes if n.running]), group, {(topic, 0): 3})  # through the new coordinator
        committed_at = time.time() * 1000
        deadline = time.monotonic() + 120
        while not any(ts > committed_at and offset == 3 for ts, _, _, offset in _rows(out)):
            assert recorder.poll() is None and time.monotonic() < deadline, "the recorder did not resume"
            time.sleep(0.2)
        recorder.send_signal(signal.SIGINT)  # stop after the poll in flight
        _, stderr = recorder.communicate(timeout=60)
    finally:
        if recorder.poll() is None:
            recorder.kill()

    assert moved_to is not coordinator
    _check_recording("SIGKILL", recorder, stderr, out, written, killed_at)


def _check_recording(
    how: str,
    recorder: subprocess.Popen,
    stderr: str,
    out: Path,
    written: set[tuple[int, str, int, int | None]],
    fault_at: float,
) -> None:
    """The recorder, stopped by the test after it saw a commit made through the new coordinator, kept every
    row written before the fault and saved any blind time as a closed, empty gap that began with the fault."""
    assert recorder.returncode == 130, stderr  # stopped by the test, not by the fault
    assert "Traceback" not in stderr
    rows = _rows(out)
    assert written <= rows  # nothing written before the fault is lost
    gaps = read_gaps(str(out))
    for gap in gaps:  # any blind time is saved, closed, and holds no sample
        assert gap["end_ts"] is not None and gap["start_ts"] < gap["end_ts"], gaps
        assert not [r for r in rows if gap["start_ts"] < r[0] < gap["end_ts"]], gaps
        assert gap["start_ts"] <= fault_at + 1000 and gap["attempts"] >= 1 and "cannot reach" in gap["reason"], gaps
    summary = stderr.strip().splitlines()[-1]
    assert summary.startswith("kgroup: interrupted:"), stderr
    assert (f"{len(gaps)} gap(s)" if gaps else "no gaps") in summary, stderr
    record(
        f"lag record ({how} coordinator)",
        recorder.returncode,
        stderr,
        f"all {len(written)} rows written before kept, resumed, {len(gaps)} gap(s) closed and empty",
    )


# ------------------------------------------------------------------------------ one clean stop, every command


def _partition_for(group: str, partitions: int) -> int:
    """GroupCoordinatorService.partitionFor: Utils.abs(groupId.hashCode()) % partitions, with Java's String
    .hashCode (over UTF-16 code units, int arithmetic that wraps) and Utils.abs (Integer.MIN_VALUE gives 0)."""
    encoded = group.encode("utf-16-be")
    h = 0
    for i in range(0, len(encoded), 2):
        h = (31 * h + int.from_bytes(encoded[i : i + 2], "big")) & 0xFFFFFFFF
    signed = h - (1 << 32) if h >= 1 << 31 else h
    return (0 if signed == -(1 << 31) else abs(signed)) % partitions


def _groups_on_one_node(nodes: list[Node], prefix: str, count: int) -> tuple[Node, list[str]]:
    """`count` new group names whose `__consumer_offsets` partitions one node leads now, and that node."""
    metadata = AdminClient({"bootstrap.servers": _bootstrap(nodes)}).list_topics(timeout=30)
    leaders = {p.id: p.leader for p in metadata.topics["__consumer_offsets"].partitions.values()}
    names = [f"{prefix}-{i}" for i in range(10_000)]
    leader = leaders[_partition_for(names[0], len(leaders))]
    chosen = list(itertools.islice((g for g in names if leaders[_partition_for(g, len(leaders))] == leader), count))
    return next(n for n in nodes if n.node_id == leader), chosen


def _launch(tmp_path: Path, name: str, *args: str) -> tuple[subprocess.Popen, float]:
    """kgroup in the background, its output to files (several run at once; no pipe fills up)."""
    with open(tmp_path / f"{name}.out", "w") as out, open(tmp_path / f"{name}.err", "w") as err:
        return subprocess.Popen([KGROUP, *args], stdout=out, stderr=err, text=True), time.monotonic()


def _ended(
    tmp_path: Path, running: dict[str, tuple[subprocess.Popen, float]]
) -> dict[str, tuple[subprocess.CompletedProcess, float]]:
    """Each command's outcome once all have exited (bounded), and the seconds each took."""
    took: dict[str, float] = {}
    deadline = time.monotonic() + 240
    while len(took) < len(running) and time.monotonic() < deadline:
        for name, (process, started) in running.items():
            if name not in took and process.poll() is not None:
                took[name] = time.monotonic() - started
        time.sleep(0.1)
    assert len(took) == len(running), f"still running after 240 s: {sorted(set(running) - set(took))}"
    return {
        name: (
            subprocess.CompletedProcess(
                process.args,
                process.returncode,
                (tmp_path / f"{name}.out").read_text(),
                (tmp_path / f"{name}.err").read_text(),
            ),
            took[name],
        )
        for name, (process, _) in running.items()
    }


def test_a_clean_stop_of_the_coordinator_during_every_command(restored_cluster: list[Node], tmp_path: Path) -> None:
    """SIGTERM: the coordinator resigns its `__consumer_offsets` partitions in a controlled shutdown
    (BrokerLifecycleManager, KIP-631) instead of vanishing. One stop of one node that coordinates four groups,
    with a command in flight against each: snapshot and simulate give the answer from before, offsets delete and
    groups delete --execute are all or nothing, say so and converge, and lag record loses no sample, as in the
    SIGKILL tests above (one cluster restore for the five cases)."""
    nodes = restored_cluster
    topic, prefix = _names()
    topic_with_records(_bootstrap(nodes), topic, [5, 4, 3])
    coordinator, (reads, deletes, drops, recorded) = _groups_on_one_node(nodes, prefix, 4)
    for group in (reads, deletes, drops, recorded):
        commit(_bootstrap(nodes), group, {(topic, p): o for p, o in COMMITTED.items()})
        assert kafka_broker.coordinator_of(nodes, group) is coordinator  # what the test stands on, asked of Kafka
    common = ("-b", _bootstrap(nodes), "--timeout", TIMEOUT)
    commands = {
        "snapshot": (*READS["snapshot"](topic, reads, tmp_path / "snapshot.yaml"), *common),
        "simulate": (*READS["simulate"](topic, reads, None), *common),
        "offsets-delete": (*WRITES["offsets-delete"][0](topic, deletes), *common, "-o", "json"),
        "groups-delete": (*WRITES["groups-delete"][0](topic, drops), *common, "-o", "json"),
    }
    before_reads = _ended(
        tmp_path,
        {
            "snapshot-before": _launch(
                tmp_path,
                "snapshot-before",
                *READS["snapshot"](topic, reads, tmp_path / "snapshot-before.yaml"),
                *common,
            ),
            "simulate-before": _launch(tmp_path, "simulate-before", *commands["simulate"]),
        },
    )
    assert all(done.returncode == 0 for done, _ in before_reads.values()), before_reads
    before_writes = {
        "offsets-delete": _committed(nodes, deletes, topic),
        "groups-delete": _committed(nodes, drops, topic),
    }
    assert before_writes == {"offsets-delete": COMMITTED, "groups-delete": COMMITTED}

    out = tmp_path / "history"
    recorder = _recorder(nodes, recorded, out, "--duration", "240s")
    running: dict[str, tuple[subprocess.Popen, float]] = {}
    try:
        _polls_written(out, 3, recorder)
        written = _rows(out)
        running = {name: _launch(tmp_path, name, *args) for name, args in commands.items()}
        coordinator.stop(kill=False)
        assert not coordinator.running
        stopped_at = time.time() * 1000  # the node has exited: a gap, if any, began by then
        commit(_bootstrap([n for n in nodes if n.running]), recorded, {(topic, 0): 3})  # through the new coordinator
        committed_at = time.time() * 1000
        deadline = time.monotonic() + 120
        while not any(ts > committed_at and offset == 3 for ts, _, _, offset in _rows(out)):
            assert recorder.poll() is None and time.monotonic() < deadline, "the recorder did not resume"
            time.sleep(0.2)
        recorder.send_signal(signal.SIGINT)  # stop after the poll in flight
        _, stderr = recorder.communicate(timeout=60)
        outcomes = _ended(tmp_path, running)
    finally:
        for process in [recorder, *(p for p, _ in running.values())]:
            if process.poll() is None:
                process.kill()
                process.wait()

    for group in (reads, recorded):
        moved_to = kafka_broker.coordinator_of(nodes, group)
        assert moved_to is not coordinator and moved_to.running
    for command in ("snapshot", "simulate"):
        before, _ = before_reads[f"{command}-before"]
        after, elapsed = outcomes[command]
        _check_read(
            command, "SIGTERM", before, tmp_path / "snapshot-before.yaml", after, tmp_path / "snapshot.yaml", elapsed
        )
    _check_recording("SIGTERM", recorder, stderr, out, written, stopped_at)
    writes = {"offsets-delete": deletes, "groups-delete": drops}
    all_applied = {
        command: _check_write(
            nodes, command, "SIGTERM", topic, group, coordinator, before_writes[command], outcomes[command][0]
        )
        for command, group in writes.items()
    }
    # The re-runs once the node is back in sync (the restore the next test would do anyway): while a replica of
    # the group's `__consumer_offsets` partition is out of sync, a group already deleted is asked again until
    # --timeout (LiveAdmin.describe), a minute here for what the SIGKILL case already shows.
    kafka_broker.start_cluster([coordinator])
    kafka_broker.wait_fully_replicated(nodes)
    for command, group in writes.items():
        _check_rerun(nodes, command, "SIGTERM", topic, group, outcomes[command][0], all_applied[command])


# ------------------------------------------------------------------------------ partition leaders move


def test_describe_and_triage_never_show_a_dead_leaders_stale_log_end(restored_cluster: list[Node]) -> None:
    """The leader of some of the group's partitions dies; records are then written to the new leaders. Each
    log-end offset kgroup shows is the new leader's, or unknown: never the number from before."""
    nodes = restored_cluster
    topic, group = _seed(nodes)
    leaders = _leaders(nodes, topic)
    coordinator = kafka_broker.coordinator_of(nodes, group)
    # a node that leads some partitions and is not the coordinator, where one exists (a leader move alone)
    victim = next(
        (n for n in nodes if n.node_id in leaders.values() and n is not coordinator),
        next(n for n in nodes if n.node_id in leaders.values()),
    )
    moved = sorted(p for p, leader in leaders.items() if leader == victim.node_id)
    common = ("-b", _bootstrap(nodes), "--timeout", TIMEOUT, "-o", "json")
    triage = subprocess.Popen(
        [KGROUP, "triage", "--group", group, "--samples", "3", "--interval", "2s", "--max-wait", "0", *common],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        victim.stop(kill=True)
        from confluent_kafka import Producer

        producer = Producer(PRODUCER | {"bootstrap.servers": _bootstrap([n for n in nodes if n.running])})
        for p in moved:
            for _ in range(7):
                producer.produce(topic, value=b"y", partition=p)
        assert producer.flush(120) == 0
        described = _kgroup("describe", group, *common)
        stdout, stderr = triage.communicate(timeout=240)
    finally:
        if triage.poll() is None:
            triage.kill()
    now = _log_ends(nodes, topic, 3)
    assert all(now[p] == [5, 4, 3][p] + 7 for p in moved), now

    assert described.returncode == 0, described.stderr
    (body,) = json.loads(described.stdout)["groups"]
    shown = {p["partition"]: p["log_end_offset"] for p in body["partitions"]}
    assert all(shown[p] in (now[p], None) for p in moved), (shown, now)
    assert all(shown[p] == now[p] for p in now if p not in moved), (shown, now)
    assert triage.returncode in (0, 1, 3, 4), stderr  # a verdict (OK, WARN, STOP: triage's codes) or no broker
    if triage.returncode != 4:
        _assert_no_stale_triage(json.loads(stdout), moved, now, [5, 4, 3])
    else:
        assert "cannot reach" in stderr.strip().splitlines()[-1], stderr
    fresh = sum(shown[p] == now[p] for p in moved)
    record(
        "describe (SIGKILL partition leader)",
        described.returncode,
        described.stderr,
        f"{fresh} of {len(moved)} moved partitions at the new leader's end, the rest unknown",
    )
    record("triage (SIGKILL partition leader)", triage.returncode, stderr, "no stale log end")


def _assert_no_stale_triage(doc: dict, moved: list[int], now: dict[int, int], before: list[int]) -> None:
    """Triage's last sample: a moved partition's log end is the new leader's or unknown."""
    text = json.dumps(doc)
    assert "log_end" in text, text[:2000]
    for row in _partition_rows(doc):
        if row.get("partition") in moved and "log_end_offset" in row:
            assert row["log_end_offset"] in (now[row["partition"]], None), row


def _partition_rows(doc: Any) -> list[dict]:
    if isinstance(doc, dict):
        found = [doc] if "partition" in doc and "topic" in doc else []
        return found + [r for v in doc.values() for r in _partition_rows(v)]
    if isinstance(doc, list):
        return [r for v in doc for r in _partition_rows(v)]
    return []


# ------------------------------------------------------------------------------ the whole cluster goes away


def test_the_whole_cluster_away_and_back_during_lag_record(restored_cluster: list[Node], tmp_path: Path) -> None:
    nodes = restored_cluster
    topic, group = _seed(nodes)
    out = tmp_path / "history"
    recorder = _recorder(nodes, group, out, "--duration", "600s")
    try:
        _polls_written(out, 4, recorder)
        down_at = time.time() * 1000
        kafka_broker.stop_all(nodes)
        gone_at = time.time() * 1000  # every node has exited
        readable = []
        for _ in range(3):  # the data set reads whole while the recorder retries
            commits, _ = read_samples(str(out))
            readable.append(len(commits))
            read_gaps(str(out))
            time.sleep(0.5)
        up_from = time.time() * 1000
        kafka_broker.start_cluster(nodes)
        up_at = time.time() * 1000  # every node serves
        deadline = time.monotonic() + 120
        while not any(ts > up_at for ts, _, _, _ in _rows(out)):
            assert recorder.poll() is None and time.monotonic() < deadline, "the recorder did not resume"
            time.sleep(0.2)
        recorder.send_signal(signal.SIGINT)
        _, stderr = recorder.communicate(timeout=60)
    finally:
        if recorder.poll() is None:
            recorder.kill()

    assert recorder.returncode == 130, stderr
    assert readable[0] > 0 and readable == sorted(readable)
    rows = sorted(_rows(out))
    (gap,) = read_gaps(str(out))
    before = [r[0] for r in rows if r[0] <= gap["start_ts"]]
    after = [r[0] for r in rows if r[0] >= gap["end_ts"]]
    assert len(before) + len(after) == len(rows)  # no sample inside the gap
    # exact: from the last poll that answered to the first that answered again
    assert gap["start_ts"] == max(before) and gap["end_ts"] == min(after), (gap, before[-3:], after[:3])
    tolerance = 15_000  # a loaded 2-core machine: a poll, the backoff (at most --interval), a slow restart
    assert down_at - tolerance <= gap["start_ts"] <= gone_at
    assert up_from <= gap["end_ts"] <= up_at + tolerance
    assert gap["attempts"] >= 1 and "cannot reach" in gap["reason"]
    summary = stderr.strip().splitlines()[-1]
    assert summary.startswith("kgroup: interrupted:") and "1 gap(s)" in summary, stderr
    record(
        "lag record (whole cluster stopped, restarted)",
        recorder.returncode,
        stderr,
        f"read whole while down; one gap {gap['start_ts'] - down_at:+.0f} ms / {gap['end_ts'] - up_at:+.0f} ms "
        "from the outage's edges, no sample inside",
    )
