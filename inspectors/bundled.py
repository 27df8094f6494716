"""The fixtures shipped inside the package, addressable by name (`demo`, `seed-range`, ...)."""

from __future__ import annotations

import os
from importlib import resources

DEMO = "demo"


def bundled_names() -> list[str]:
    folder = resources.files("kgroup.fixtures")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def bundled_path(name: str) -> str | None:
    candidate = resources.files("kgroup.fixtures") / f"{name}.yaml"
    return str(candidate) if candidate.is_file() else None


def locate(argument: str | None) -> str:
    """A fixture argument: an existing file wins; else a bundled fixture's name; no argument: the demo."""
    if argument is None:
        return bundled_path(DEMO) or DEMO
    if os.path.exists(argument):
        return argument
    return bundled_path(argument) or argument
