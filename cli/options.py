"""Arguments and options shared by several commands."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from kgroup.cli.output import OutputFormat
from kgroup.inspectors.fixtures.bundled import locate
from kgroup.inspectors.fixtures.group_file import Fixture, load_fixture

if TYPE_CHECKING:
    from kgroup.inspectors.live.admin import LiveAdmin

FixtureArg = Annotated[
    Optional[str],
    typer.Argument(
        help="A kgroup/v1 fixture file, or the name of a bundled fixture (see `kgroup fixtures`).", show_default=False
    ),
]
GroupOpt = Annotated[
    Optional[str], typer.Option("--group", "-g", help="The group, when the fixture has several.", metavar="GROUP_ID")
]
OutputOpt = Annotated[OutputFormat, typer.Option("--output", "-o", help="Output format.", case_sensitive=False)]
ClientOpt = Annotated[
    Optional[str],
    typer.Option(
        "--client",
        help="The consumer client on the group leader, whose assignor runs: java (Kafka's) or librdkafka "
        "(confluent-kafka and other non-JVM clients: librdkafka 2.16's own range, roundrobin and "
        "cooperative-sticky on glibc; it has no sticky). Default: the client the group records (a live "
        "group: read from its members' subscriptions), else java. With a scenario: every member's "
        "client, which also decides when a KIP-848 member sends a new subscription (librdkafka: at once).",
        metavar="CLIENT",
        show_default=False,
    ),
]

# The what-if flags: `simulate` and `check` take the same ones, with the same meaning (whatif_run.WhatIfFlags).
AssignorsOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--assignor",
        "-a",
        help="Assignor to run (repeat for several); a built-in or package.module:Class. Default: the group's own.",
        metavar="NAME",
        show_default=False,
    ),
]
AddMemberOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--add-member",
        help="A member joins: ID, or ID=topic1,topic2 (default: the first member's topics).",
        metavar="ID[=TOPICS]",
        show_default=False,
    ),
]
RemoveMemberOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--remove-member",
        help="A member leaves (crash or shutdown): its member id, group.instance.id or client.id.",
        metavar="ID",
        show_default=False,
    ),
]
AddPartitionsOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--add-partitions",
        help="TOPIC=N grows the topic to N partitions; TOPIC=+N adds N.",
        metavar="TOPIC=[+]N",
        show_default=False,
    ),
]
InstanceOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--instance",
        help="A member added with --add-member is static: ID=GROUP_INSTANCE_ID.",
        metavar="ID=INSTANCE",
        show_default=False,
    ),
]
SubscribeOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--subscribe",
        help="Change a member's subscription: ID=topic1,topic2 (ID: member id, group.instance.id or client.id).",
        metavar="ID=TOPICS",
        show_default=False,
    ),
]
AddTopicOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--add-topic",
        help="A topic is created with N partitions before the rebalance (also how to give the size of "
        "a topic --add-member or --subscribe names that the fixture does not list).",
        metavar="TOPIC=N",
        show_default=False,
    ),
]


def what_if_flags(
    assignor: list[str] | None,
    add_member: list[str] | None,
    remove_member: list[str] | None,
    add_partitions: list[str] | None,
    subscribe: list[str] | None,
    client: str | None,
    instance: list[str] | None = None,
    add_topic: list[str] | None = None,
):
    from kgroup.inspectors.simulation.whatif_run import WhatIfFlags

    return WhatIfFlags(
        tuple(assignor or ()),
        tuple(add_member or ()),
        tuple(remove_member or ()),
        tuple(add_partitions or ()),
        tuple(subscribe or ()),
        client,
        tuple(instance or ()),
        tuple(add_topic or ()),
    )


def load(argument: str | None) -> Fixture:
    return load_fixture(locate(argument))


BootstrapOpt = Annotated[
    Optional[str],
    typer.Option(
        "--bootstrap-server",
        "-b",
        help="host:port[,host:port...]. Else KGROUP_BOOTSTRAP_SERVERS, else the profile.",
        show_default=False,
        metavar="SERVERS",
    ),
]
CommandConfigOpt = Annotated[
    Optional[str],
    typer.Option(
        "--command-config",
        help="Client properties file (key=value; SASL/SSL), as kafka-consumer-groups.sh takes. "
        "Else KGROUP_COMMAND_CONFIG.",
        show_default=False,
        metavar="FILE",
    ),
]
ProfileOpt = Annotated[
    Optional[str],
    typer.Option(
        "--profile",
        help="A profile from config.yaml in $KGROUP_CONFIG_DIR or ~/.config/kgroup. Else KGROUP_PROFILE.",
        show_default=False,
        metavar="NAME",
    ),
]
TimeoutOpt = Annotated[
    float, typer.Option("--timeout", help="Seconds to wait for the cluster.", min=0.1, metavar="SECONDS")
]


# The groups a live command reads, besides those it names: `lag record`, `lag analyze` and `triage`.
GroupsOpt = Annotated[
    Optional[list[str]],
    typer.Option("--group", "-g", help="Only this group (repeatable).", show_default=False, metavar="GROUP"),
]
RegexOpt = Annotated[
    Optional[str],
    typer.Option("--regex", "-r", help="Only groups whose id matches.", show_default=False, metavar="PATTERN"),
]


def connect(bootstrap: str | None, command_config: str | None, profile: str | None, timeout: float):
    """A LiveAdmin for the resolved settings (flags > environment > profile)."""
    from kgroup.inspectors.live.connection_settings import resolve
    from kgroup.inspectors.live.admin import LiveAdmin

    return LiveAdmin(resolve(bootstrap, command_config, profile), timeout)


@dataclass(frozen=True)
class LiveOptions:
    """--bootstrap-server, --command-config, --profile and --timeout, as one value a command receives."""

    bootstrap_server: str | None = None
    command_config: str | None = None
    profile: str | None = None
    timeout: float = 10.0

    @property
    def given(self) -> bool:
        """A cluster was named on the command line (a command that also reads fixtures is then live)."""
        return bool(self.bootstrap_server or self.command_config or self.profile)

    def connect(self) -> LiveAdmin:
        return connect(self.bootstrap_server, self.command_config, self.profile, self.timeout)


NOT_LIVE = LiveOptions()
_LIVE_OPTIONS = (
    ("bootstrap_server", BootstrapOpt, None),
    ("command_config", CommandConfigOpt, None),
    ("profile", ProfileOpt, None),
    ("timeout", TimeoutOpt, 10.0),
)


def live_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The connection options, declared once: a command takes `live: LiveOptions = NOT_LIVE` where they are to
    appear in --help, and Typer sees the four options in that place."""
    signature = inspect.signature(command, eval_str=True)  # Typer needs the Annotated objects, not strings
    params: list[inspect.Parameter] = []
    for param in signature.parameters.values():
        if param.name == "live":
            params += [
                inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation)
                for name, annotation, default in _LIVE_OPTIONS
            ]
        else:
            params.append(param)

    @functools.wraps(command)
    def with_live(
        *args: Any,
        bootstrap_server: str | None = None,
        command_config: str | None = None,
        profile: str | None = None,
        timeout: float = 10.0,
        **kwargs: Any,
    ) -> Any:
        return command(*args, live=LiveOptions(bootstrap_server, command_config, profile, timeout), **kwargs)

    with_live.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    return with_live


IsolationOpt = Annotated[
    str,
    typer.Option(
        "--isolation",
        help="read_uncommitted: lag to the high watermark (Kafka's tool); read_committed: to the last stable offset.",
        metavar="LEVEL",
    ),
]


def isolation_level(value: str) -> str:
    from kgroup.inspectors.errors import InputError
    from kgroup.inspectors.live.admin import READ_COMMITTED, READ_UNCOMMITTED

    if value not in (READ_UNCOMMITTED, READ_COMMITTED):
        raise InputError(f"{value!r}: expected read_uncommitted or read_committed", field="--isolation")
    return value
