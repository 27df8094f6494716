"""Connection settings: flags > environment > profile, Java properties files, and secrets kept out of sight."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgroup.inspectors.live.connection_settings import read_properties, resolve
from kgroup.inspectors.errors import InputError
from tests.cli.helpers import run


def _profile(tmp_path: Path, text: str) -> dict[str, str]:
    folder = tmp_path / "conf"
    folder.mkdir()
    (folder / "config.yaml").write_text(text)
    return {"KGROUP_CONFIG_DIR": str(folder)}


def test_flag_beats_environment_beats_profile(tmp_path: Path) -> None:
    env = _profile(
        tmp_path,
        "current_profile: prod\nprofiles:\n  prod:\n    bootstrap_servers: prod:9092\n"
        "    properties: {client.id: from-profile, acks: '1'}\n",
    )
    assert resolve(env=env).bootstrap_servers == "prod:9092"
    env["KGROUP_BOOTSTRAP_SERVERS"] = "env:9092"
    assert resolve(env=env).bootstrap_servers == "env:9092"
    settings = resolve("flag:9092", env=env)
    assert (settings.bootstrap_servers, settings.origin) == ("flag:9092", "--bootstrap-server")
    assert settings.properties["client.id"] == "from-profile"


def test_command_config_overrides_profile_properties_and_translates_java_keys(tmp_path: Path) -> None:
    env = _profile(
        tmp_path, "profiles:\n  dev:\n    bootstrap_servers: dev:9092\n    properties: {security.protocol: PLAINTEXT}\n"
    )
    props = tmp_path / "client.properties"
    props.write_text(
        "# a comment\nsecurity.protocol=SASL_SSL\nsasl.mechanism = SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
        '    username="alice" password="s3cret";\n'
        "ssl.truststore.location=/etc/ca.pem\nssl.endpoint.identification.algorithm=https\n"
    )
    settings = resolve(None, str(props), "dev", env=env)
    assert settings.client_config() == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "alice",
        "sasl.password": "s3cret",
        "ssl.ca.location": "/etc/ca.pem",
        "bootstrap.servers": "dev:9092",
    }
    assert settings.redacted()["sasl.password"] == "***"
    assert "s3cret" not in repr(settings.redacted())


def test_a_bad_properties_line_names_the_file_and_line(tmp_path: Path) -> None:
    props = tmp_path / "bad.properties"
    props.write_text("acks=1\n\nthis-is-not-a-property\n")
    with pytest.raises(InputError) as caught:
        read_properties(str(props))
    assert str(caught.value).startswith(f"{props}:3: expected key=value")


def test_a_jks_trust_store_is_refused_with_the_reason(tmp_path: Path) -> None:
    props = tmp_path / "ssl.properties"
    props.write_text("ssl.truststore.location=/etc/kafka/truststore.jks\n")
    with pytest.raises(InputError, match="only PEM files work with librdkafka"):
        read_properties(str(props))


def test_an_unknown_profile_lists_the_known_ones(tmp_path: Path) -> None:
    env = _profile(tmp_path, "profiles:\n  dev: {bootstrap_servers: 'dev:9092'}\n  prod: {bootstrap_servers: 'p:1'}\n")
    with pytest.raises(InputError, match=r"no profile 'qa' \(profiles: dev, prod\)"):
        resolve(profile="qa", env=env)


def test_no_broker_anywhere_is_a_usage_error() -> None:
    with pytest.raises(InputError, match="no broker given"):
        resolve(env={})


def test_cli_bad_command_config_is_exit_2_and_never_echoes_a_secret(tmp_path: Path) -> None:
    props = tmp_path / "client.properties"
    props.write_text('sasl.jaas.config=PlainLoginModule required password="hunter2";\n')
    result = run("groups", "-b", "127.0.0.1:9", "--command-config", str(props))
    assert result.exit_code == 2
    assert "hunter2" not in result.output
    assert result.stderr.count("\n") == 1 and "sasl.jaas.config" in result.stderr


def test_cli_librdkafka_rejecting_a_property_is_exit_2(tmp_path: Path) -> None:
    props = tmp_path / "client.properties"
    props.write_text("no.such.property=1\n")
    result = run("groups", "-b", "127.0.0.1:9", "--command-config", str(props))
    assert result.exit_code == 2
    assert "no.such.property" in result.stderr and result.stderr.count("\n") == 1
