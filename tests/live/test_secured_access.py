"""What a secured Apache Kafka refuses, as kgroup reports it (tests/kafka/secured.py, `secured_kafka`).

- A missing ACL is one line naming the operation, the resource and Kafka's error, and exit 8 (not 1, "an
  assignor failed"; not 7, the credentials): describing a group (DescribeGroups), a group's committed offsets
  (OffsetFetch), a topic hidden from the principal (Metadata) or assigned in a consumer-protocol group
  (ConsumerGroupDescribe), and the writes `offsets reset --execute` (OffsetCommit: READ),
  `offsets delete --execute` (OffsetDelete: DELETE on the group, READ on the topic) and `groups delete
  --execute` (DeleteGroups: DELETE). `snapshot`, `simulate -b` and `explain -b` refuse a group the principal
  may not DESCRIBE, and `describe`, `snapshot` and `simulate -b` a group assigned a topic it may not
  DESCRIBE (classic and consumer protocol). Nothing is changed, printed on stdout or written to a file.
- A topic asked for by name is never created, on a broker that creates topics on first use.
- An empty `kgroup groups` over an authenticated connection says that ACLs may hide groups.
- A broker certificate kgroup does not trust is an authentication failure (exit 7) naming the CA settings.
- A Java client's PEM keystore (file or inline) and inline trust certificates written with backslash
  continuations work, through librdkafka and through kgroup's own transport (OffsetDelete), as alice.
"""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import Consumer
from confluent_kafka.admin import AclBinding, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

from tests.cli.helpers import run_process
from tests.kafka.secured import ALICE_PREFIX, SecuredKafka
from tests.live.traffic import topic_with_records

TIMEOUT = ("--timeout", "30")  # generous for a loaded machine; each case below is an answer, not a wait
NOT_AUTHORIZED = 8  # README "Exit codes"
AUTHENTICATION_FAILED = 7


@dataclass(frozen=True)
class Access:
    topic: str  # alice-…: alice may DESCRIBE and READ it
    described_topic: str  # shared-…: alice may only DESCRIBE it (granted below)
    hidden_topic: str  # hidden-…: no ACL for alice
    group: str  # alice-…: committed on `topic` and `described_topic`
    looked_at: str  # watched-…: alice may only DESCRIBE this group (granted below)


def _allow(kind: ResourceType, name: str, operation: AclOperation) -> AclBinding:
    return AclBinding(kind, name, ResourcePatternType.LITERAL, "User:alice", "*", operation, AclPermissionType.ALLOW)


@pytest.fixture(scope="module")
def access(secured_kafka: SecuredKafka) -> Access:
    suffix = uuid.uuid4().hex[:8]
    made = Access(
        f"{ALICE_PREFIX}acl-topic-{suffix}",
        f"shared-{suffix}",
        f"hidden-{suffix}",
        f"{ALICE_PREFIX}acl-group-{suffix}",
        f"watched-{suffix}",
    )
    topic_with_records(secured_kafka.setup, made.topic, [5, 3])
    topic_with_records(secured_kafka.setup, made.described_topic, [4])
    topic_with_records(secured_kafka.setup, made.hidden_topic, [2])
    secured_kafka.commit(made.group, {(made.topic, 0): 2, (made.topic, 1): 3, (made.described_topic, 0): 1})
    secured_kafka.commit(made.looked_at, {(made.topic, 0): 1})
    secured_kafka.grant(
        [
            _allow(ResourceType.GROUP, made.looked_at, AclOperation.DESCRIBE),
            _allow(ResourceType.TOPIC, made.described_topic, AclOperation.DESCRIBE),
        ]
    )
    return made


def kgroup(secured: SecuredKafka, route: str, *args: str, config: Path) -> subprocess.CompletedProcess:
    return run_process(*args, "-b", secured.address(route), "--command-config", str(config), *TIMEOUT)


def as_alice(secured: SecuredKafka, *args: str) -> subprocess.CompletedProcess:
    return kgroup(secured, "SASL_PLAINTEXT", *args, config=secured.command_config("alice", "SCRAM-SHA-256"))


def denied(result: subprocess.CompletedProcess, secured: SecuredKafka) -> str:
    """The one `kgroup: error:` line of an authorization failure: exit 8, nothing else on stderr, no secret."""
    assert result.returncode == NOT_AUTHORIZED, (result.returncode, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("kgroup: error: ")]
    assert len(errors) == 1, result.stderr
    for secret in secured.passwords.values():
        assert secret not in result.stdout + result.stderr
    return errors[0]


def committed(secured: SecuredKafka, group: str, topic: str) -> dict[int, int]:
    """The group's commits on `topic`, read as the super user (to show that nothing changed)."""
    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": secured.setup})
    answer = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(30)
    return {tp.partition: tp.offset for tp in answer.topic_partitions if tp.topic == topic and tp.offset >= 0}


# -- 1. authorization failures -----------------------------------------------------------------------------


@pytest.mark.parametrize("way", ["SASL SCRAM-SHA-512", "SSL client certificate"])
def test_describing_a_group_without_describe_names_the_group_and_the_acl(
    secured_kafka: SecuredKafka, access: Access, way: str
) -> None:
    listener, mechanism, cert = (
        ("SASL_PLAINTEXT", "SCRAM-SHA-512", False) if way.startswith("SASL") else ("SSL", None, True)
    )
    config = secured_kafka.command_config("mallory", mechanism, tls=cert, client_cert=cert)

    line = denied(kgroup(secured_kafka, listener, "describe", access.group, config=config), secured_kafka)

    assert f"not authorized to DESCRIBE group '{access.group}'" in line
    assert "GROUP_AUTHORIZATION_FAILED" in line
    if mechanism is not None:  # the SASL user is known, so the ACL to ask for names it
        assert "User:mallory" in line


def test_reading_offsets_of_a_group_without_describe_is_refused_for_offset_fetch(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    # `--to-group` reads the other group's commits (OffsetFetch) without describing it first.
    other = f"other-{uuid.uuid4().hex[:8]}"

    line = denied(
        as_alice(secured_kafka, "offsets", "reset", access.group, "--all-topics", "--to-group", other), secured_kafka
    )

    assert f"not authorized to DESCRIBE group '{other}' (GROUP_AUTHORIZATION_FAILED, OffsetFetch)" in line
    assert "User:alice" in line


def test_a_topic_hidden_by_acls_is_not_authorized_rather_than_missing(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    # Kafka leaves the topic out of a Metadata answer for all topics; asked by name, it answers
    # TOPIC_AUTHORIZATION_FAILED, which Kafka's tool reports rather than "does not exist".
    line = denied(
        as_alice(secured_kafka, "offsets", "reset", access.group, "--topic", access.hidden_topic, "--to-earliest"),
        secured_kafka,
    )

    assert f"not authorized to DESCRIBE topic '{access.hidden_topic}'" in line
    assert "TOPIC_AUTHORIZATION_FAILED" in line


def test_a_consumer_group_assigned_a_topic_alice_cannot_describe_is_refused_for_the_topic(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    # ConsumerGroupDescribe refuses the whole group when an assigned topic is not describable (KafkaApis).
    group = f"{ALICE_PREFIX}cg-{uuid.uuid4().hex[:8]}"
    consumer = Consumer(
        {
            "bootstrap.servers": secured_kafka.setup,
            "group.id": group,
            "group.protocol": "consumer",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.subscribe([access.hidden_topic])
        deadline = time.monotonic() + 60
        while not consumer.assignment() and time.monotonic() < deadline:
            consumer.poll(0.2)
        assert consumer.assignment(), "the consumer never got its assignment"

        line = denied(as_alice(secured_kafka, "describe", group), secured_kafka)
        # A listing is not refused for one group alice may list but not read: the group is listed with why,
        # the others are read in full, and the list says it is limited to what alice may DESCRIBE.
        listed = as_alice(secured_kafka, "groups", "-o", "json")
    finally:
        consumer.close()

    assert f"not authorized to DESCRIBE a topic that group '{group}' consumes" in line
    assert "TOPIC_AUTHORIZATION_FAILED" in line
    assert listed.returncode == 0, listed.stderr
    rows = {row["group"]: row for row in json.loads(listed.stdout)["groups"]}
    assert rows[group]["members"] is None and "TOPIC_AUTHORIZATION_FAILED" in rows[group]["notes"][0], rows[group]
    assert any(row["members"] is not None for name, row in rows.items() if name != group), rows
    assert f"{group}: listed, but not read in full" in listed.stderr
    assert "the list is limited to the groups User:alice may DESCRIBE" in listed.stderr


def test_offsets_reset_execute_without_read_on_the_group_changes_nothing(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    before = committed(secured_kafka, access.looked_at, access.topic)

    line = denied(
        as_alice(
            secured_kafka, "offsets", "reset", access.looked_at, "--topic", access.topic, "--to-earliest", "--execute"
        ),
        secured_kafka,
    )

    assert f"not authorized to READ group '{access.looked_at}'" in line
    assert committed(secured_kafka, access.looked_at, access.topic) == before == {0: 1}


def test_offsets_reset_execute_without_read_on_the_topic_names_the_topic(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    line = denied(
        as_alice(
            secured_kafka,
            "offsets",
            "reset",
            access.group,
            "--topic",
            access.described_topic,
            "--to-earliest",
            "--execute",
        ),
        secured_kafka,
    )

    assert f"not authorized to READ topic '{access.described_topic}'" in line
    assert committed(secured_kafka, access.group, access.described_topic) == {0: 1}


def test_offsets_delete_execute_without_delete_on_the_group_changes_nothing(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    line = denied(
        as_alice(secured_kafka, "offsets", "delete", access.looked_at, "--topic", access.topic, "--execute"),
        secured_kafka,
    )

    assert f"not authorized to DELETE group '{access.looked_at}'" in line
    assert committed(secured_kafka, access.looked_at, access.topic) == {0: 1}


def test_offsets_delete_execute_without_read_on_the_topic_names_the_topic(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    line = denied(
        as_alice(secured_kafka, "offsets", "delete", access.group, "--topic", access.described_topic, "--execute"),
        secured_kafka,
    )

    assert f"not authorized to READ topic '{access.described_topic}'" in line
    assert committed(secured_kafka, access.group, access.described_topic) == {0: 1}


def test_groups_delete_execute_without_delete_on_the_group_deletes_nothing(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    result = as_alice(secured_kafka, "groups", "delete", access.looked_at, "--execute")

    line = denied(result, secured_kafka)
    assert f"not authorized to DELETE group '{access.looked_at}' (GROUP_AUTHORIZATION_FAILED, DeleteGroups)" in line
    assert "User:alice" in line and result.stdout == ""  # no "deleted" claimed
    assert committed(secured_kafka, access.looked_at, access.topic) == {0: 1}


@pytest.mark.parametrize("command", ["snapshot", "simulate", "explain", "groups delete"])
def test_a_group_without_describe_is_refused_by_every_command_that_reads_it(
    secured_kafka: SecuredKafka, access: Access, command: str, tmp_path: Path
) -> None:
    out = tmp_path / "snap.yaml"
    args = {
        "snapshot": ("snapshot", access.group, "-o", str(out)),
        "simulate": ("simulate", "--group", access.group, "--add-member", f"x={access.topic}"),
        "explain": ("explain", "--group", access.group, "--add-member", f"x={access.topic}"),
        "groups delete": ("groups", "delete", access.group, "--execute"),
    }[command]
    config = secured_kafka.command_config("mallory", "SCRAM-SHA-512")

    result = kgroup(secured_kafka, "SASL_PLAINTEXT", *args, config=config)

    line = denied(result, secured_kafka)
    assert f"not authorized to DESCRIBE group '{access.group}' (GROUP_AUTHORIZATION_FAILED" in line
    assert result.stdout == "" and not out.exists()  # nothing half-written
    assert committed(secured_kafka, access.group, access.topic) == {0: 2, 1: 3}


@pytest.fixture(scope="module")
def hidden_assignments(secured_kafka: SecuredKafka, access: Access) -> Iterator[dict[str, str]]:
    """Per protocol (classic, consumer), a live group of alice's whose member (joined as the super user) is
    assigned the topic alice may not DESCRIBE as well as hers."""
    groups = {
        protocol: f"{ALICE_PREFIX}hides-{protocol}-{uuid.uuid4().hex[:8]}" for protocol in ("classic", "consumer")
    }
    consumers = [
        Consumer(
            {
                "bootstrap.servers": secured_kafka.setup,
                "group.id": group,
                "group.protocol": protocol,
                "enable.auto.commit": False,
            }
        )
        for protocol, group in groups.items()
    ]
    try:
        for consumer in consumers:
            consumer.subscribe([access.topic, access.hidden_topic])
        deadline = time.monotonic() + 60
        while any(len(c.assignment()) < 3 for c in consumers) and time.monotonic() < deadline:
            for consumer in consumers:
                consumer.poll(0.1)
        assert all(len(c.assignment()) == 3 for c in consumers), "a consumer never got its assignment"
        yield groups
    finally:
        for consumer in consumers:
            consumer.close()


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
@pytest.mark.parametrize("command", ["describe", "snapshot", "simulate"])
def test_a_group_assigned_a_topic_alice_cannot_describe_is_refused_naming_the_topic(
    secured_kafka: SecuredKafka,
    access: Access,
    hidden_assignments: dict[str, str],
    protocol: str,
    command: str,
    tmp_path: Path,
) -> None:
    # Kafka's ConsumerGroupCommand fails on the topic (TopicAuthorizationException); a snapshot without the
    # topic's size would not load, and a what-if would take the topic for a missing one (exit 2).
    group, out = hidden_assignments[protocol], tmp_path / "snap.yaml"
    args = {
        "describe": ("describe", group),
        "snapshot": ("snapshot", group, "-o", str(out)),
        "simulate": ("simulate", "--group", group, "--add-member", f"x={access.topic}"),
    }[command]

    result = as_alice(secured_kafka, *args)

    line = denied(result, secured_kafka)
    assert "TOPIC_AUTHORIZATION_FAILED" in line and "not authorized to DESCRIBE" in line, line
    if protocol == "classic":  # Metadata, asked by name: the topic is named
        assert f"DESCRIBE topic '{access.hidden_topic}' (TOPIC_AUTHORIZATION_FAILED, Metadata)" in line, line
    else:  # ConsumerGroupDescribe refuses the whole group without saying which topic
        assert f"a topic that group '{group}' consumes (TOPIC_AUTHORIZATION_FAILED, ConsumerGroupDescribe)" in line
    assert result.stdout == "" and not out.exists()


@pytest.mark.parametrize(
    "args", [("describe", "--topic"), ("offsets", "reset", "any-group", "--to-earliest", "--topic")]
)
def test_asking_for_a_topic_that_does_not_exist_never_creates_it(secured_kafka: SecuredKafka, args: tuple) -> None:
    # This broker creates topics on first use (Kafka's default) for a principal that may: admin, here. A read or a
    # dry run must not be that first use (Kafka's Admin client never asks for it; librdkafka's, a producer, does).
    from confluent_kafka.admin import AdminClient

    missing = f"typo-{uuid.uuid4().hex[:8]}"
    config = secured_kafka.command_config("admin", "SCRAM-SHA-256")

    result = kgroup(secured_kafka, "SASL_PLAINTEXT", *args, missing, config=config)

    assert result.returncode == 5, result.stderr  # README "Exit codes": a named topic does not exist
    assert result.stderr.splitlines()[-1] == f"kgroup: error: topic '{missing}' does not exist (--topic)"
    listed = AdminClient({"bootstrap.servers": secured_kafka.setup}).list_topics(timeout=30).topics
    assert missing not in listed


# -- 2. ListGroups filters silently ------------------------------------------------------------------------


def test_an_empty_listing_over_an_authenticated_connection_says_acls_may_hide_groups(
    secured_kafka: SecuredKafka, access: Access
) -> None:
    config = secured_kafka.command_config("mallory", "SCRAM-SHA-256")

    result = kgroup(secured_kafka, "SASL_PLAINTEXT", "groups", "-o", "json", config=config)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["groups"] == []
    (note,) = result.stderr.splitlines()
    assert note.startswith("kgroup: note: ") and "ACLs may hide groups" in note and "User:mallory" in note


def test_an_empty_listing_as_anonymous_has_no_acl_note(secured_kafka: SecuredKafka, access: Access) -> None:
    # Over SSL without a client certificate the principal is User:ANONYMOUS: nothing is authenticated.
    config = secured_kafka.command_config(None, None, tls=True)

    result = kgroup(secured_kafka, "SSL", "groups", "-r", f"^no-such-group-{uuid.uuid4().hex}$", config=config)

    assert result.returncode == 0, result.stderr
    assert "ACL" not in result.stderr


# -- 3. an untrusted broker certificate --------------------------------------------------------------------


def test_tls_without_the_ca_is_an_authentication_failure_naming_the_ca_settings(
    secured_kafka: SecuredKafka, tmp_path: Path
) -> None:
    config = tmp_path / "no-ca.properties"
    config.write_text("security.protocol=SSL\n")

    result = kgroup(secured_kafka, "SSL", "groups", config=config)

    assert result.returncode == AUTHENTICATION_FAILED, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert "not trusted" in line and "ssl.truststore.location" in line and "ssl.ca.location" in line
    assert secured_kafka.ssl in line


def test_kgroups_own_transport_counts_an_untrusted_certificate_as_authentication(secured_kafka: SecuredKafka) -> None:
    # Every command asks librdkafka first, so the wire transport is called directly here.
    from kgroup.inspectors.errors import AuthenticationError
    from kgroup.inspectors.live.connection_settings import ConnectionSettings
    from kgroup.inspectors.live.offset_delete_sender import offset_delete_unsupported

    settings = ConnectionSettings(secured_kafka.ssl, {"security.protocol": "SSL"})

    with pytest.raises(AuthenticationError) as raised:
        offset_delete_unsupported(settings, 30.0)

    assert "not trusted" in str(raised.value) and "ssl.truststore.location" in str(raised.value)
    assert "certificate verify failed" in str(raised.value)


# -- 4 and 5. a Java client's PEM keystore and inline PEMs -------------------------------------------------


def _continued(pem: str) -> str:
    """A PEM value as Kafka's documentation writes it in a properties file: one line per PEM line, joined by
    backslash continuations."""
    return " \\\n".join(pem.strip().splitlines())


@pytest.fixture(params=["keystore file", "inline PEMs"])
def alice_java_pem(request: pytest.FixtureRequest, secured_kafka: SecuredKafka, tmp_path: Path) -> Path:
    cert, key = secured_kafka.certs.clients["alice"]
    config = tmp_path / "alice-java.properties"
    if request.param == "keystore file":
        keystore = tmp_path / "alice-keystore.pem"  # the private key, then the certificate chain
        keystore.write_text(key.read_text() + cert.read_text())
        lines = [
            "ssl.truststore.type=PEM",
            f"ssl.truststore.location={secured_kafka.ca_file}",
            "ssl.keystore.type=PEM",
            f"ssl.keystore.location={keystore}",
        ]
    else:
        lines = [
            "ssl.truststore.type=PEM",
            f"ssl.truststore.certificates={_continued(secured_kafka.ca_file.read_text())}",
            "ssl.keystore.type=PEM",
            f"ssl.keystore.certificate.chain={_continued(cert.read_text())}",
            f"ssl.keystore.key={_continued(key.read_text())}",
        ]
    config.write_text("\n".join(["security.protocol=SSL", *lines]) + "\n")
    config.chmod(0o600)
    return config


def test_a_java_pem_keystore_authenticates_as_alice_through_librdkafka(
    secured_kafka: SecuredKafka, access: Access, alice_java_pem: Path
) -> None:
    # As User:ANONYMOUS (no certificate shown) every group would be listed: only alice's mean her certificate.
    result = kgroup(
        secured_kafka,
        "SSL",
        "groups",
        "-r",
        f"^({access.group}|{access.looked_at})$",
        "-o",
        "json",
        config=alice_java_pem,
    )

    assert result.returncode == 0, result.stderr
    assert {g["group"] for g in json.loads(result.stdout)["groups"]} == {access.group, access.looked_at}
    line = denied(
        kgroup(secured_kafka, "SSL", "describe", f"other-{uuid.uuid4().hex[:6]}", config=alice_java_pem), secured_kafka
    )
    assert "GROUP_AUTHORIZATION_FAILED" in line


def test_a_java_pem_keystore_authenticates_as_alice_through_kgroups_own_transport(
    secured_kafka: SecuredKafka, access: Access, alice_java_pem: Path
) -> None:
    # OffsetDelete is sent by kgroup's own transport: alice (not the super user ANONYMOUS) may not DELETE there.
    line = denied(
        kgroup(
            secured_kafka,
            "SSL",
            "offsets",
            "delete",
            access.looked_at,
            "--topic",
            access.topic,
            "--execute",
            config=alice_java_pem,
        ),
        secured_kafka,
    )

    assert f"DELETE group '{access.looked_at}'" in line
    assert "(GROUP_AUTHORIZATION_FAILED, OffsetDelete)" in line
