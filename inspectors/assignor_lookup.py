"""Find an assignor by name: a built-in, or a user assignor given as `package.module:Name`.

User assignor protocol (documented in README): an object or class with `name` (optional) and
`assign(cluster, members)`, receiving `kgroup.assignors.model.Cluster` and the members as a sequence of
`kgroup.assignors.model.Member` in JoinGroup order, returning a mapping member id -> partitions, each a
`TopicPartition`, a `(topic, partition)` pair or a `"topic-N"` string (or an `Assignment`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from kgroup.assignors import registry
from kgroup.assignors.base import Assignor
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.validity import Violation, check_validity
from kgroup.inspectors.errors import InputError, RunError


def known_assignor_names() -> list[str]:
    return registry.known_names()


def resolve(name: str, client: str = "java") -> Assignor:
    """The assignor behind a name, as `client` runs it; InputError (exit 2) when it cannot be found or imported."""
    if client not in registry.CLIENTS:
        raise InputError(f"unknown client {client!r}; known: {', '.join(registry.CLIENTS)}", field="--client")
    found = registry.builtin(name, client)
    if found is not None:
        return found
    if ":" in name:
        return _load_user(name)
    raise InputError(
        f"unknown assignor {name!r}; known: {', '.join(registry.known_names())} "
        "(or a user assignor as package.module:Class)",
        field="--assignor",
    )


def invalid_assignment(name: str, violations: Sequence[Violation]) -> RunError:
    """The one line for an assignor whose output breaks Kafka's rules (exit 1), the first three broken rules."""
    details = "; ".join(v.detail for v in violations[:3])
    more = f" (+{len(violations) - 3} more)" if len(violations) > 3 else ""
    return RunError(f"assignor {name} returned an invalid assignment: {details}{more}")


class _UserAssignor:
    """Wraps a user assignor: normalises what it returns and reports its failures as one line.

    Its output is checked here, where every command gets it (a what-if, a plan, a scenario's leader), so an
    invalid one fails the same way (exit 1) from every command. Kafka's own coordinator would pass such an
    assignment on (`ConsumerCoordinator.onLeaderElected` checks only cooperative revocations); kgroup
    refuses to predict from it.
    """

    def __init__(self, spec: str, target: Any) -> None:
        self.spec = spec
        self.target = target
        self.name = str(getattr(target, "name", spec))

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        try:
            raw = self.target.assign(cluster, list(members))
        except Exception as exc:  # a plugin bug must not become a traceback
            raise RunError(f"user assignor {self.spec} raised {type(exc).__name__}: {exc}") from None
        if isinstance(raw, Assignment):
            result = raw
        elif not isinstance(raw, Mapping):
            raise RunError(
                f"user assignor {self.spec} returned {type(raw).__name__}; expected a mapping member id -> partitions"
            )
        else:
            try:
                result = Assignment.of(
                    {str(member): [_as_partition(p) for p in parts] for member, parts in raw.items()}
                )
            except (TypeError, ValueError) as exc:
                raise RunError(f"user assignor {self.spec} returned an invalid partition: {exc}") from None
        violations = check_validity(cluster, members, result)
        if violations:
            raise invalid_assignment(self.name, violations)
        return result


def _as_partition(value: Any) -> TopicPartition:
    if isinstance(value, TopicPartition):
        return value
    if isinstance(value, str):
        return TopicPartition.parse(value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[1], int):
        return TopicPartition(str(value[0]), value[1])
    raise TypeError(f"{value!r} is not a partition")


def _load_user(spec: str) -> Assignor:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise InputError(f"{spec!r} is not of the form package.module:Name", field="--assignor")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise InputError(f"cannot import {module_name!r}: {type(exc).__name__}: {exc}", field="--assignor") from None
    target = getattr(module, attr, None)
    if target is None:
        raise InputError(f"module {module_name!r} has no attribute {attr!r}", field="--assignor")
    if isinstance(target, type):
        try:
            target = target()
        except Exception as exc:
            raise InputError(f"cannot create {spec}: {type(exc).__name__}: {exc}", field="--assignor") from None
    if not callable(getattr(target, "assign", None)):
        raise InputError(f"{spec} has no assign(cluster, members) method", field="--assignor")
    return _UserAssignor(spec, target)
