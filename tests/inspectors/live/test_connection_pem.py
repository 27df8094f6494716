"""A Java client's PEM settings in a --command-config file (KIP-651), as librdkafka takes them; and the
authorization and certificate-trust failures as one line each (offline: no broker)."""

from __future__ import annotations

import base64
import os
import textwrap
from pathlib import Path

import pytest
import typer

from kgroup.cli.errors import ExitCode, handle_errors
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.live.connection_settings import ConnectionSettings, read_properties
from kgroup.inspectors.live.transport_failures import authorization_failure


def _pem(label: str, size: int) -> str:
    """A PEM block as openssl writes it: 64 columns of base64 between the BEGIN and END lines."""
    body = base64.b64encode(os.urandom(size)).decode()
    return f"-----BEGIN {label}-----\n" + "\n".join(textwrap.wrap(body, 64)) + f"\n-----END {label}-----\n"


def _continued(pem: str) -> str:
    """Kafka's documented form: the PEM's lines joined by backslash continuations in the properties file."""
    return " \\\n".join(pem.strip().splitlines())


def test_inline_trust_certificates_with_continuations_come_back_as_the_pem_lines(tmp_path: Path) -> None:
    ca, other = _pem("CERTIFICATE", 400), _pem("CERTIFICATE", 300)
    props = tmp_path / "client.properties"
    props.write_text(
        f"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.certificates={_continued(ca + other)}\n"
    )

    assert read_properties(str(props)) == {"security.protocol": "SSL", "ssl.ca.pem": ca + other}


def test_inline_trust_certificates_on_one_line_come_back_as_the_pem_lines(tmp_path: Path) -> None:
    ca = _pem("CERTIFICATE", 200)
    props = tmp_path / "client.properties"
    props.write_text("ssl.truststore.certificates=" + " ".join(ca.splitlines()) + "\n")

    assert read_properties(str(props))["ssl.ca.pem"] == ca


def test_a_pem_keystore_file_is_the_certificate_and_the_key_location(tmp_path: Path) -> None:
    props = tmp_path / "client.properties"
    props.write_text(
        "security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location=/etc/kafka/client.pem\n"
        "ssl.key.password=key-secret\n"
    )

    assert read_properties(str(props)) == {
        "security.protocol": "SSL",
        "ssl.certificate.location": "/etc/kafka/client.pem",
        "ssl.key.location": "/etc/kafka/client.pem",
        "ssl.key.password": "key-secret",
    }


def test_an_inline_pem_keystore_is_the_certificate_and_key_pems(tmp_path: Path) -> None:
    chain, key = _pem("CERTIFICATE", 500) + _pem("CERTIFICATE", 450), _pem("ENCRYPTED PRIVATE KEY", 180)
    props = tmp_path / "client.properties"
    props.write_text(
        f"ssl.keystore.type=PEM\nssl.keystore.certificate.chain={_continued(chain)}\n"
        f"ssl.keystore.key={_continued(key)}\nssl.key.password=key-secret\n"
    )

    assert read_properties(str(props)) == {
        "ssl.certificate.pem": chain,
        "ssl.key.pem": key,
        "ssl.key.password": "key-secret",
    }


def test_a_pkcs12_keystore_is_passed_on_as_librdkafka_spells_it(tmp_path: Path) -> None:
    props = tmp_path / "client.properties"
    props.write_text(
        "ssl.keystore.type=PKCS12\nssl.keystore.location=/etc/kafka/client.p12\nssl.keystore.password=store-secret\n"
    )

    assert read_properties(str(props)) == {
        "ssl.keystore.location": "/etc/kafka/client.p12",
        "ssl.keystore.password": "store-secret",
    }


def test_an_inline_key_that_is_not_pem_names_the_key_and_never_its_value(tmp_path: Path) -> None:
    props = tmp_path / "client.properties"
    props.write_text("security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.key=not-a-pem-but-a-secret\n")

    with pytest.raises(InputError) as raised:
        read_properties(str(props))

    message = str(raised.value)
    assert f"{props}:3:" in message and "ssl.keystore.key" in message and "PEM" in message
    assert "not-a-pem-but-a-secret" not in message


@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "sasl.username": "alice"}, "User:alice"),
        ({"security.protocol": "SSL", "ssl.certificate.location": "/c.pem"}, "a TLS client certificate"),
        ({"security.protocol": "SSL", "ssl.ca.location": "/ca.pem"}, None),  # User:ANONYMOUS
        ({}, None),
    ],
)
def test_who_the_broker_takes_kgroup_for(properties: dict[str, str], expected: str | None) -> None:
    assert ConnectionSettings("h:9092", properties).authenticated_as() == expected


@pytest.mark.parametrize(
    ("error", "what", "topic", "operation", "resource"),
    [
        ("GROUP_AUTHORIZATION_FAILED", "DescribeGroups of 'g-1'", None, "DESCRIBE", "group 'g-1'"),
        ("GROUP_AUTHORIZATION_FAILED", "OffsetFetch of 'g-1'", None, "DESCRIBE", "group 'g-1'"),
        ("GROUP_AUTHORIZATION_FAILED", "OffsetCommit of 'g-1'", "orders", "READ", "group 'g-1'"),
        ("TOPIC_AUTHORIZATION_FAILED", "OffsetCommit of 'g-1'", "orders", "READ", "topic 'orders'"),
        ("GROUP_AUTHORIZATION_FAILED", "OffsetDelete of 'g-1'", None, "DELETE", "group 'g-1'"),
        ("TOPIC_AUTHORIZATION_FAILED", "OffsetDelete of 'g-1'", "orders", "READ", "topic 'orders'"),
        ("TOPIC_AUTHORIZATION_FAILED", "ListOffsets of orders.v2-11", None, "DESCRIBE", "topic 'orders.v2'"),
    ],
)
def test_an_authorization_failure_names_the_operation_kafka_checks_and_the_resource(
    error: str, what: str, topic: str | None, operation: str, resource: str
) -> None:
    # The operations are KafkaApis' checks for each request (docs/live.md, "Secured clusters").
    settings = ConnectionSettings("h:9092", {"security.protocol": "SASL_SSL", "sasl.username": "alice"})

    message = str(authorization_failure(error, what, topic, settings))

    assert message.startswith(f"not authorized to {operation} {resource} ({error}, ")
    assert f"--allow-principal User:alice --operation {operation.capitalize()}" in message
    assert "\n" not in message


def test_an_authorization_failure_exits_8_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    @handle_errors
    def command() -> None:
        raise authorization_failure("GROUP_AUTHORIZATION_FAILED", "DescribeGroups of 'g-1'")

    with pytest.raises(typer.Exit) as raised:
        command()

    assert raised.value.exit_code == ExitCode.NOT_AUTHORIZED == 8
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("kgroup: error: not authorized to DESCRIBE group 'g-1'")
