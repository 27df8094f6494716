"""Arguments and options shared by several commands."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kgroup.cli.output import OutputFormat
from kgroup.inspectors.bundled import locate
from kgroup.inspectors.fixtures import Fixture, load_fixture

FixtureArg = Annotated[Optional[str], typer.Argument(
    help="A kgroup/v1 fixture file, or the name of a bundled fixture (see `kgroup fixtures`).",
    show_default=False)]
GroupOpt = Annotated[Optional[str], typer.Option("--group", "-g", help="The group, when the fixture has several.")]
OutputOpt = Annotated[OutputFormat, typer.Option("--output", "-o", help="Output format.", case_sensitive=False)]


def load(argument: str | None) -> Fixture:
    return load_fixture(locate(argument))
