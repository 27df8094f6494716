"""README's exit-code table, held on every live command that can meet each condition (issue 39: a missing
group was 5 in `describe` and `triage` but 6 in `groups delete`).

| code | condition                          | commands checked here                                        |
| 2    | a malformed bootstrap address      | every live command                                           |
| 4    | a closed port; a port that says nothing within --timeout | every live command                  |
| 5    | a group that does not exist        | every command that names an existing group (not `offsets reset`:|
|      |                                    | Kafka's tool resets a group that does not exist, creating it) |
| 5    | a topic that does not exist        | describe --topic, offsets reset --topic, offsets delete --topic |
| 6    | a group with an active member      | offsets reset, offsets delete, groups delete                 |
| 7, 8 | refused credentials; a missing ACL | every live command, on the secured broker                    |

Exit 1 (the cluster refused a request mid-way) and 3 (`check`, triage's STOP) have their own tests.
"""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from confluent_kafka import TopicPartition as KafkaTopicPartition

from tests.cli.helpers import run_process
from tests.live.traffic import commit, joined_consumer, topic_with_records


def live_commands(group: str, topic: str, out: Path) -> dict[str, list[str]]:
    """Every command that talks to a cluster, reading or changing `group` (`topic` where one is named)."""
    return {
        "groups": ["groups"],
        "describe": ["describe", group],
        "triage": ["triage", "--group", group, "--samples", "1", "--max-wait", "0"],
        "snapshot": ["snapshot", group, "-o", str(out / "snap.yaml")],
        "simulate": ["simulate", "--group", group, "--add-member", "c9"],
        "explain": ["explain", "--group", group, "--add-member", "c9"],
        "offsets reset": ["offsets", "reset", group, "--all-topics", "--to-earliest"],
        "offsets delete": ["offsets", "delete", group, "--topic", topic],
        "groups delete": ["groups", "delete", group],
        "lag record": [
            "lag",
            "record",
            "--group",
            group,
            "--count",
            "1",
            "--interval",
            "1s",
            "--out",
            str(out / "history"),
        ],
    }


def kgroup(*args: str, bootstrap: str, timeout: str = "20") -> subprocess.CompletedProcess:
    return run_process(*args, "-b", bootstrap, "--timeout", timeout)


def each_command(
    commands: Mapping[str, list[str]], run: Callable[[list[str]], subprocess.CompletedProcess]
) -> dict[str, subprocess.CompletedProcess]:
    """`run(args)` of every command, five processes at a time: the commands are independent (each writes its own
    file), and those that wait out --timeout on a silent port wait side by side, not one after the other."""
    with ThreadPoolExecutor(5) as pool:
        running = {name: pool.submit(run, args) for name, args in commands.items()}
    return {name: future.result() for name, future in running.items()}


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("kgroup: error: ")]
    assert len(errors) == 1, result.stderr
    return errors[0]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never says a word (a hung process, a half-open proxy)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not done.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        done.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


def test_a_malformed_address_is_exit_2_on_every_live_command(tmp_path: Path) -> None:
    commands = live_commands("g", "t", tmp_path)
    for name, result in each_command(commands, lambda args: kgroup(*args, bootstrap="127.0.0.1:99999")).items():
        assert result.returncode == 2, (name, result.stderr)
        assert "port from 1 to 65535" in one_error_line(result), name


def test_a_closed_port_is_exit_4_at_once_on_every_live_command(tmp_path: Path) -> None:
    address = f"127.0.0.1:{_free_port()}"
    commands = live_commands("g", "t", tmp_path)
    # refused: long before --timeout
    for name, result in each_command(commands, lambda args: kgroup(*args, bootstrap=address, timeout="60")).items():
        assert result.returncode == 4, (name, result.stderr)
        line = one_error_line(result)
        assert address in line and "no answer within" not in line, (name, line)


def test_a_silent_port_is_exit_4_with_the_same_suffix_on_every_live_command(tmp_path: Path, silent_port: int) -> None:
    address = f"127.0.0.1:{silent_port}"
    commands = live_commands("g", "t", tmp_path)
    for name, result in each_command(commands, lambda args: kgroup(*args, bootstrap=address, timeout="2")).items():
        assert result.returncode == 4, (name, result.stderr)
        line = one_error_line(result)
        assert address in line and line.endswith("(no answer within 2 s)"), (name, line)


def test_a_missing_group_is_exit_5_on_every_command_that_reads_it(
    broker: str, names: tuple[str, str], tmp_path: Path
) -> None:
    topic, missing = names
    topic_with_records(broker, topic, [2])
    commands = live_commands(missing, topic, tmp_path)
    commands.pop("groups")  # lists what there is: no group is named
    reset = commands.pop("offsets reset")
    for name, result in each_command(commands, lambda args: kgroup(*args, bootstrap=broker)).items():
        assert result.returncode == 5, (name, result.stderr)
        assert repr(missing) in one_error_line(result) and "does not exist" in result.stderr, name
    # Kafka's ConsumerGroupCommand.resetOffsets takes a group that does not exist (Dead): the reset creates its
    # offsets. --all-topics then has nothing committed to reset; --topic plans the topic's partitions.
    assert kgroup(*reset, bootstrap=broker).returncode == 0
    planned = kgroup("offsets", "reset", missing, "--topic", topic, "--to-earliest", bootstrap=broker)
    assert planned.returncode == 0 and f"{missing}  {topic}" in planned.stdout, planned.stderr


def test_a_missing_topic_is_exit_5_wherever_a_topic_is_named(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [2])
    commit(broker, group, {(topic, 0): 1})
    absent = f"{topic}-absent"
    for args in (
        ["describe", group, "--topic", absent],
        ["offsets", "reset", group, "--topic", absent, "--to-earliest"],
        ["offsets", "delete", group, "--topic", absent],
    ):
        result = kgroup(*args, bootstrap=broker)
        assert result.returncode == 5, (args, result.stderr)
        assert repr(absent) in one_error_line(result)


def test_a_group_with_an_active_member_is_exit_6_on_every_change(broker: str, names: tuple[str, str]) -> None:
    topic, group = names
    topic_with_records(broker, topic, [3])
    consumer = joined_consumer(broker, group, topic)
    try:
        consumer.commit(offsets=[KafkaTopicPartition(topic, 0, 2)], asynchronous=False)
        results = {
            "offsets reset": kgroup(
                "offsets", "reset", group, "--all-topics", "--to-earliest", "--execute", bootstrap=broker
            ),
            "offsets delete": kgroup("offsets", "delete", group, "--topic", topic, "--execute", bootstrap=broker),
            "groups delete": kgroup("groups", "delete", group, "--execute", bootstrap=broker),
        }
    finally:
        consumer.close()
    for name, result in results.items():
        assert result.returncode == 6, (name, result.stderr)
        assert "refused" in result.stderr or "GROUP_SUBSCRIBED_TO_TOPIC" in result.stderr, (name, result.stderr)
        assert "Traceback" not in result.stderr


def test_credentials_and_acls_are_exit_7_and_8_on_every_live_command(secured_kafka, tmp_path: Path) -> None:
    """On the secured broker: a wrong password is 7 for every command; mallory (authenticated, no ACL) is 8
    for every command that names a group (`groups` lists what the ACLs let him see: nothing, exit 0)."""
    group, topic = "matrix-group", "matrix-topic"
    topic_with_records(secured_kafka.setup, topic, [2])
    secured_kafka.commit(group, {(topic, 0): 1})
    address = secured_kafka.address("SASL_PLAINTEXT")
    bad = secured_kafka.command_config("alice", "SCRAM-SHA-256", password="not-the-password")
    mallory = secured_kafka.command_config("mallory", "SCRAM-SHA-256")
    commands = live_commands(group, topic, tmp_path)
    refusals = each_command(
        commands, lambda args: run_process(*args, "-b", address, "--command-config", str(bad), "--timeout", "30")
    )
    commands.pop("groups")  # lists what the ACLs let mallory see: nothing, exit 0
    denials = each_command(
        commands, lambda args: run_process(*args, "-b", address, "--command-config", str(mallory), "--timeout", "30")
    )
    for name, refused in refusals.items():
        assert refused.returncode == 7, (name, refused.stderr)
        one_error_line(refused)
    for name, denied in denials.items():
        assert denied.returncode == 8, (name, denied.stderr)
        assert "not authorized" in one_error_line(denied), name
    for result in [*refusals.values(), *denials.values()]:
        for secret in secured_kafka.passwords.values():
            assert secret not in result.stdout + result.stderr
