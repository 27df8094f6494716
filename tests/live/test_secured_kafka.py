"""The secured Apache Kafka broker (tests/kafka/secured.py), proven with kgroup run as its users run it.

kgroup is the installed entry point in its own process, given a `--command-config` file as a
kafka-consumer-groups.sh user writes it. Over SASL PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, over TLS with the
run's CA, and with a client certificate, `kgroup groups` and `kgroup describe` show the group the setup
committed; `kgroup snapshot` reads a live member's subscription through kgroup's own transport
(inspectors/live/wire: its SASL and TLS code). A wrong password, a user without ACLs and an untrusted
certificate each end in one line on stderr, with no traceback and no password in it; so does a certificate
for another host (the MISNAMED listener at 127.0.0.2), refused by librdkafka and by kgroup's own transport
alike unless `ssl.endpoint.identification.algorithm=` turns the check off. alice's writes, a what-if, triage and
a lag recording work over SASL, and no file kgroup writes holds a password.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from confluent_kafka import Consumer

from tests.cli.helpers import run_process
from tests.kafka.secured import ALICE_PREFIX, SecuredKafka
from tests.live.traffic import CONSUMER, topic_with_records

# Generous for a loaded 2-core machine; a failure here is an answer, never a wait for --timeout.
TIMEOUT = ("--timeout", "30")


@dataclass(frozen=True)
class Setup:
    topic: str  # alice-topic-…: 5 and 3 records
    group: str  # alice-group-…: commits 2 and 3, so lag 3 and 0
    other: str  # other-group-…: outside alice's ACLs, commit 1 on partition 0


@pytest.fixture(scope="module")
def setup(secured_kafka: SecuredKafka) -> Setup:
    suffix = uuid.uuid4().hex[:8]
    made = Setup(f"{ALICE_PREFIX}topic-{suffix}", f"{ALICE_PREFIX}group-{suffix}", f"other-group-{suffix}")
    topic_with_records(secured_kafka.setup, made.topic, [5, 3])
    secured_kafka.commit(made.group, {(made.topic, 0): 2, (made.topic, 1): 3})
    secured_kafka.commit(made.other, {(made.topic, 0): 1})
    return made


def kgroup(secured: SecuredKafka, route: str, *args: str, config: Path) -> subprocess.CompletedProcess:
    return run_process(*args, "-b", secured.address(route), "--command-config", str(config), *TIMEOUT)


def assert_secret_free(result: subprocess.CompletedProcess, *secrets: str) -> None:
    for secret in secrets:
        assert secret not in result.stdout + result.stderr


def assert_one_error_line(result: subprocess.CompletedProcess) -> str:
    """stderr is exactly one `kgroup: error: ...` line, stdout is empty, and no traceback anywhere."""
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgroup: error: "), result.stderr
    return lines[0]


# Each way in: (listener, user, SASL mechanism or None for SSL, TLS, client certificate).
ROUTES = {
    "SASL PLAIN": ("SASL_PLAINTEXT", "alice", "PLAIN", False, False),
    "SASL SCRAM-SHA-256": ("SASL_PLAINTEXT", "alice", "SCRAM-SHA-256", False, False),
    "SASL SCRAM-SHA-512": ("SASL_PLAINTEXT", "alice", "SCRAM-SHA-512", False, False),
    "SASL_SSL SCRAM-SHA-512": ("SASL_SSL", "alice", "SCRAM-SHA-512", True, False),
    "SSL client certificate": ("SSL", "alice", None, True, True),
    "SSL with the CA only": ("SSL", None, None, True, False),  # User:ANONYMOUS: a super user here
    "SASL_SSL PLAIN": ("SASL_SSL", "alice", "PLAIN", True, False),
    "SASL PLAIN as admin": ("SASL_PLAINTEXT", "admin", "PLAIN", False, False),  # a super user
}
EVERY_WAY = list(ROUTES)[:6]  # SASL_SSL PLAIN adds nothing to groups and describe: snapshot takes it


def _config(secured: SecuredKafka, way: str) -> tuple[str, Path, str | None]:
    listener, user, mechanism, tls, cert = ROUTES[way]
    return listener, secured.command_config(user, mechanism, tls=tls, client_cert=cert), user


@pytest.mark.parametrize("way", [*EVERY_WAY, "SASL PLAIN as admin"])
def test_groups_lists_what_the_principal_may_see(secured_kafka: SecuredKafka, setup: Setup, way: str) -> None:
    listener, config, user = _config(secured_kafka, way)

    result = kgroup(
        secured_kafka, listener, "groups", "-r", f"^({setup.group}|{setup.other})$", "-o", "json", config=config
    )

    assert result.returncode == 0, result.stderr
    listed = {g["group"]: g["total_lag"] for g in json.loads(result.stdout)["groups"]}
    if user == "alice":  # ListGroups leaves out the groups alice may not describe
        assert listed == {setup.group: 3}
    else:
        assert listed == {setup.group: 3, setup.other: 4}
    assert_secret_free(result, *secured_kafka.passwords.values())


@pytest.mark.parametrize("way", EVERY_WAY)
def test_describe_shows_the_committed_offsets_and_lag(secured_kafka: SecuredKafka, setup: Setup, way: str) -> None:
    listener, config, _ = _config(secured_kafka, way)

    result = kgroup(secured_kafka, listener, "describe", setup.group, "-o", "json", config=config)

    assert result.returncode == 0, result.stderr
    (body,) = json.loads(result.stdout)["groups"]
    rows = {
        p["partition"]: (p["topic"], p["current_offset"], p["log_end_offset"], p["lag"]) for p in body["partitions"]
    }
    assert rows == {0: (setup.topic, 2, 5, 3), 1: (setup.topic, 3, 3, 0)}
    assert body["total_lag"] == 3
    assert_secret_free(result, *secured_kafka.passwords.values())


@pytest.fixture(scope="module")
def alices_live_group(secured_kafka: SecuredKafka, setup: Setup) -> Iterator[str]:
    """A group alice's own consumer (SASL_SSL, SCRAM-SHA-512) has joined and holds both partitions of."""
    group = f"{ALICE_PREFIX}live-{uuid.uuid4().hex[:8]}"
    consumer = Consumer(
        {
            **secured_kafka.client_config("alice", "SCRAM-SHA-512", tls=True),
            "group.id": group,
            "client.id": "reader-1",
            **CONSUMER,
        }
    )
    try:
        consumer.subscribe([setup.topic])
        deadline = time.monotonic() + 60
        while len(consumer.assignment()) < 2 and time.monotonic() < deadline:
            consumer.poll(0.2)
        assert len(consumer.assignment()) == 2, "alice's consumer never got its assignment"
        yield group
    finally:
        consumer.close()


@pytest.mark.parametrize("way", ["SASL SCRAM-SHA-256", "SASL_SSL PLAIN", "SSL client certificate"])
def test_snapshot_reads_the_members_subscription_through_kgroups_own_transport(
    secured_kafka: SecuredKafka, setup: Setup, alices_live_group: str, way: str
) -> None:
    # snapshot reads DescribeGroups itself (inspectors/live/wire): a subscription it could not read would be
    # inferred from the assignment and marked `inferred: true`.
    listener, config, _ = _config(secured_kafka, way)

    result = kgroup(secured_kafka, listener, "snapshot", alices_live_group, config=config)

    assert result.returncode == 0, result.stderr
    ((member,),) = [g["members"] for g in yaml.safe_load(result.stdout)["groups"]]
    assert (member["client_id"], member["topics"], member.get("inferred", False)) == ("reader-1", [setup.topic], False)
    assert_secret_free(result, *secured_kafka.passwords.values())


@pytest.mark.parametrize(
    ("mechanism", "command"), [("PLAIN", "describe"), ("SCRAM-SHA-256", "groups"), ("SCRAM-SHA-512", "describe")]
)
def test_a_wrong_password_is_one_line_and_exit_7_without_the_password(
    secured_kafka: SecuredKafka, setup: Setup, mechanism: str, command: str
) -> None:
    wrong = f"wrong-{uuid.uuid4().hex}"
    config = secured_kafka.command_config("alice", mechanism, password=wrong)
    args = ("describe", setup.group) if command == "describe" else ("groups",)

    result = kgroup(secured_kafka, "SASL_PLAINTEXT", *args, config=config)

    line = assert_one_error_line(result)
    assert result.returncode == 7  # ExitCode.AUTHENTICATION_FAILED
    assert "authentication" in line.lower()
    assert secured_kafka.sasl_plaintext in line
    assert_secret_free(result, wrong, *secured_kafka.passwords.values())


@pytest.mark.parametrize("way", ["SASL SCRAM-SHA-512", "SSL client certificate"])
def test_mallory_describing_alices_group_is_told_the_group_authorization_failed(
    secured_kafka: SecuredKafka, setup: Setup, way: str
) -> None:
    listener, _, mechanism, tls, cert = ROUTES[way]
    config = secured_kafka.command_config("mallory", mechanism, tls=tls, client_cert=cert)

    result = kgroup(secured_kafka, listener, "describe", setup.group, config=config)

    line = assert_one_error_line(result)
    assert result.returncode == 8  # ExitCode.NOT_AUTHORIZED: an ACL is missing, not a run-time failure
    assert re.search(r"group[ _]authorization[ _]failed", line, re.IGNORECASE), line
    assert f"DESCRIBE group '{setup.group}'" in line
    assert_secret_free(result, *secured_kafka.passwords.values())


def test_mallory_lists_no_group(secured_kafka: SecuredKafka, setup: Setup) -> None:
    # Kafka's ListGroups leaves out what the principal may not describe: no error, nothing listed.
    config = secured_kafka.command_config("mallory", "SCRAM-SHA-256")

    result = kgroup(secured_kafka, "SASL_PLAINTEXT", "groups", "-o", "json", config=config)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["groups"] == []
    assert "ACLs may hide groups" in result.stderr  # the empty answer is not taken for an empty cluster


def test_tls_without_the_ca_is_refused_in_one_line(secured_kafka: SecuredKafka, tmp_path: Path) -> None:
    # The broker's certificate is signed by this run's CA only: without it, nothing is trusted.
    config = tmp_path / "no-ca.properties"
    config.write_text("security.protocol=SSL\n")

    result = kgroup(secured_kafka, "SSL", "groups", config=config)

    line = assert_one_error_line(result)
    assert result.returncode == 7  # Kafka's clients: an SslAuthenticationException is an authentication failure
    assert "certificate verify failed" in line, line
    assert "not trusted" in line and "ssl.truststore.location" in line, line
    assert secured_kafka.ssl in line


@pytest.mark.parametrize("command", ["groups", "describe", "snapshot"])
def test_an_unknown_user_is_one_line_and_exit_7_without_the_password(
    secured_kafka: SecuredKafka, setup: Setup, command: str
) -> None:
    # SCRAM: the broker has no credentials for the user (Kafka's ScramSaslServer answers as for a wrong password).
    secret = f"secret-{uuid.uuid4().hex}"
    config = secured_kafka.command_config(f"nobody-{uuid.uuid4().hex[:6]}", "SCRAM-SHA-256", password=secret)
    args = ("groups",) if command == "groups" else (command, setup.group)

    result = kgroup(secured_kafka, "SASL_PLAINTEXT", *args, config=config)

    line = assert_one_error_line(result)
    assert result.returncode == 7, line
    assert "authentication" in line.lower() and secured_kafka.sasl_plaintext in line, line
    assert_secret_free(result, secret, *secured_kafka.passwords.values())
    assert result.stdout == ""  # nothing half-written


def test_a_ca_that_did_not_sign_the_brokers_certificate_is_refused_in_one_line(
    secured_kafka: SecuredKafka, tmp_path: Path
) -> None:
    other_ca, key = tmp_path / "other-ca.pem", tmp_path / "other-ca.key"
    made = subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=another CA",
            "-days",
            "1",
            "-keyout",
            str(key),
            "-out",
            str(other_ca),
        ],
        capture_output=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    config = tmp_path / "wrong-ca.properties"
    config.write_text(f"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={other_ca}\n")

    for args in (("groups",), ("describe", "some-group")):
        result = kgroup(secured_kafka, "SSL", *args, config=config)
        line = assert_one_error_line(result)
        assert result.returncode == 7, line  # as Kafka's clients: an SSL handshake failure is an authentication one
        assert "certificate verify failed" in line and secured_kafka.ssl in line, line


# -- a certificate for another host ------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["groups", "describe", "snapshot"])
def test_a_certificate_that_does_not_name_the_broker_is_one_line_and_exit_7_without_the_password(
    secured_kafka: SecuredKafka, setup: Setup, command: str
) -> None:
    # The MISNAMED listener (127.0.0.2) has the CA's certificate for 127.0.0.1 and localhost: the CA is right,
    # the name is not. librdkafka verifies the host name by default (ssl.endpoint.identification.algorithm=https).
    config = secured_kafka.command_config("alice", "SCRAM-SHA-512", tls=True)
    args = ("groups",) if command == "groups" else (command, setup.group)

    result = kgroup(secured_kafka, "MISNAMED", *args, config=config)

    line = assert_one_error_line(result)
    assert result.returncode == 7, line  # as an untrusted certificate: Kafka's SslAuthenticationException
    assert secured_kafka.misnamed in line and "does not name the address" in line, line
    assert f"IP address mismatch, certificate is not valid for '{secured_kafka.misnamed.split(':')[0]}'" in line
    assert_secret_free(result, *secured_kafka.passwords.values())


def test_kgroups_own_transport_verifies_the_brokers_host_name(secured_kafka: SecuredKafka, setup: Setup) -> None:
    # DescribeGroups (snapshot's member metadata) and OffsetDelete go through inspectors/live/wire: it must refuse
    # the same certificate librdkafka refuses, and honour the same opt-out.
    from kgroup.inspectors.errors import AuthenticationError
    from kgroup.inspectors.live.connection_settings import ConnectionSettings
    from kgroup.inspectors.live.offset_delete_sender import offset_delete_unsupported
    from kgroup.inspectors.live.wire.describe_groups import describe_classic_members
    from kgroup.inspectors.live.wire.errors import AuthenticationFailed

    config = {
        **secured_kafka.client_config("alice", "SCRAM-SHA-256", tls=True),
        "bootstrap.servers": secured_kafka.misnamed,
    }
    settings = ConnectionSettings(secured_kafka.misnamed, {k: v for k, v in config.items() if k != "bootstrap.servers"})

    with pytest.raises(AuthenticationFailed) as raw:
        describe_classic_members(config, [setup.group], 30.0)
    with pytest.raises(AuthenticationError) as told:
        offset_delete_unsupported(settings, 30.0)

    assert raw.value.untrusted and "IP address mismatch" in str(raw.value)
    assert "does not name the address" in str(told.value) and secured_kafka.misnamed in str(told.value)
    assert_secret_free(
        subprocess.CompletedProcess([], 0, str(raw.value), str(told.value)), *secured_kafka.passwords.values()
    )
    unverified = {**config, "ssl.endpoint.identification.algorithm": "none"}
    assert describe_classic_members(unverified, [setup.group], 30.0)[setup.group].error is None


def test_an_empty_endpoint_identification_turns_the_host_check_off_as_in_kafkas_clients(
    secured_kafka: SecuredKafka, setup: Setup, tmp_path: Path
) -> None:
    # kafka-consumer-groups.sh users write `ssl.endpoint.identification.algorithm=` to skip the host name check
    # (the CA is still verified): kgroup honours it for librdkafka (groups: Metadata) and its own transport
    # (groups: ListGroups; describe: OffsetFetch, ListOffsets).
    config = secured_kafka.command_config("alice", "SCRAM-SHA-256", tls=True)
    config.write_text(config.read_text() + "ssl.endpoint.identification.algorithm=\n")

    listed = kgroup(
        secured_kafka, "MISNAMED", "groups", "-r", f"^({setup.group}|{setup.other})$", "-o", "json", config=config
    )

    assert listed.returncode == 0, listed.stderr
    assert [g["group"] for g in json.loads(listed.stdout)["groups"]] == [setup.group]  # as alice: ACLs apply


# -- nothing kgroup writes holds a secret ------------------------------------------------------------------


def test_alices_writes_and_recordings_work_over_sasl_and_hold_no_secret(
    secured_kafka: SecuredKafka, setup: Setup, tmp_path: Path
) -> None:
    """The commands not run above, each over another way in, as alice on a group of her own: the writes
    (OffsetCommit through librdkafka; OffsetDelete and DeleteGroups), a what-if, triage and a lag recording.
    Every file kgroup writes (a snapshot, the lag data set) is searched for every password."""
    group = f"{ALICE_PREFIX}writes-{uuid.uuid4().hex[:8]}"
    secured_kafka.commit(group, {(setup.topic, 0): 4, (setup.topic, 1): 1})
    ways = {
        "SCRAM-SHA-512": ("SASL_PLAINTEXT", secured_kafka.command_config("alice", "SCRAM-SHA-512")),
        "SASL_SSL SCRAM-SHA-256": ("SASL_SSL", secured_kafka.command_config("alice", "SCRAM-SHA-256", tls=True)),
        "SASL_SSL PLAIN": ("SASL_SSL", secured_kafka.command_config("alice", "PLAIN", tls=True)),
    }
    snapshot, history = tmp_path / "snap.yaml", tmp_path / "history"
    runs = [
        ("SCRAM-SHA-512", ("snapshot", group, "-o", str(snapshot))),
        ("SASL_SSL PLAIN", ("simulate", "--group", group, "--add-member", f"x={setup.topic}", "-o", "json")),
        ("SASL_SSL SCRAM-SHA-256", ("triage", "--group", group, "--samples", "1", "--max-wait", "0", "-o", "json")),
        (
            "SASL_SSL SCRAM-SHA-256",
            ("lag", "record", "--group", group, "--count", "2", "--interval", "500ms", "--out", str(history)),
        ),
        ("SCRAM-SHA-512", ("offsets", "reset", group, "--topic", setup.topic, "--to-earliest", "--execute")),
        ("SASL_SSL PLAIN", ("offsets", "delete", group, "--topic", f"{setup.topic}:1", "--execute")),
        ("SASL_SSL SCRAM-SHA-256", ("groups", "delete", group, "--execute")),
    ]
    for way, args in runs:
        listener, config = ways[way]
        result = kgroup(secured_kafka, listener, *args, config=config)
        assert result.returncode in ((0, 1, 3) if args[0] == "triage" else (0,)), (way, args, result.stderr)
        assert "Traceback" not in result.stderr
        assert_secret_free(result, *secured_kafka.passwords.values())
        if args[:2] == ("offsets", "reset"):
            assert committed_now(secured_kafka, group, setup.topic) == {0: 0, 1: 0}
        elif args[:2] == ("offsets", "delete"):  # OffsetDelete, sent by kgroup's own transport over SASL_SSL
            assert committed_now(secured_kafka, group, setup.topic) == {0: 0}

    assert committed_now(secured_kafka, group, setup.topic) == {}  # DeleteGroups took the rest
    assert yaml.safe_load(snapshot.read_text())["groups"][0]["group_id"] == group
    written = [snapshot, *(p for p in history.rglob("*") if p.is_file())]
    assert len(written) > 2, written  # the data set holds its files
    for path in written:
        data = path.read_bytes()
        for secret in secured_kafka.passwords.values():
            assert secret.encode() not in data, path


def committed_now(secured: SecuredKafka, group: str, topic: str) -> dict[int, int]:
    """The group's commits on `topic`, read as the super user."""
    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": secured.setup})
    answer = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(30)
    return {tp.partition: tp.offset for tp in answer.topic_partitions if tp.topic == topic and tp.offset >= 0}
