"""Arguments and options shared by several commands."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kgroup.cli.output import OutputFormat
from kgroup.inspectors.fixtures.bundled import locate
from kgroup.inspectors.fixtures.group_file import Fixture, load_fixture

FixtureArg = Annotated[Optional[str], typer.Argument(
    help="A kgroup/v1 fixture file, or the name of a bundled fixture (see `kgroup fixtures`).",
    show_default=False)]
GroupOpt = Annotated[Optional[str], typer.Option("--group", "-g", help="The group, when the fixture has several.")]
OutputOpt = Annotated[OutputFormat, typer.Option("--output", "-o", help="Output format.", case_sensitive=False)]
ClientOpt = Annotated[str, typer.Option(
    "--client", help="The consumer client on the group leader, whose assignor runs: java (Kafka's, default) or "
                     "librdkafka (confluent-kafka and other non-JVM clients: librdkafka 2.16's own range, "
                     "roundrobin and cooperative-sticky on glibc; it has no sticky).")]


def load(argument: str | None) -> Fixture:
    return load_fixture(locate(argument))


BootstrapOpt = Annotated[Optional[str], typer.Option(
    "--bootstrap-server", "-b", help="host:port[,host:port...]. Else KGROUP_BOOTSTRAP_SERVERS, else the profile.",
    show_default=False)]
CommandConfigOpt = Annotated[Optional[str], typer.Option(
    "--command-config", help="Client properties file (key=value; SASL/SSL), as kafka-consumer-groups.sh takes. "
    "Else KGROUP_COMMAND_CONFIG.", show_default=False)]
ProfileOpt = Annotated[Optional[str], typer.Option(
    "--profile", help="A profile from config.yaml in $KGROUP_CONFIG_DIR or ~/.config/kgroup. Else KGROUP_PROFILE.",
    show_default=False)]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Seconds to wait for the cluster.", min=0.1)]


def connect(bootstrap: str | None, command_config: str | None, profile: str | None, timeout: float):  # type: ignore[no-untyped-def]
    """A LiveAdmin for the resolved settings (flags > environment > profile)."""
    from kgroup.inspectors.live.connection import resolve
    from kgroup.inspectors.live.admin import LiveAdmin

    return LiveAdmin(resolve(bootstrap, command_config, profile), timeout)


IsolationOpt = Annotated[str, typer.Option(
    "--isolation", help="read_uncommitted: lag to the high watermark (Kafka's tool); read_committed: to the "
    "last stable offset.")]


def isolation_level(value: str) -> str:
    from kgroup.inspectors.errors import InputError
    from kgroup.inspectors.live.admin import READ_COMMITTED, READ_UNCOMMITTED

    if value not in (READ_UNCOMMITTED, READ_COMMITTED):
        raise InputError(f"{value!r}: expected read_uncommitted or read_committed", field="--isolation")
    return value
